"""A seat mail's round trips to the database (issue 15: a mail's CPU is mostly what each
statement costs SQLAlchemy): the seat's table is read in one statement with the
seen-before check, on the thread's quick connection, the move and its mails written in
one transaction."""

from sqlalchemy import event

from tests.mail_helpers import ANN, running
from tests.test_move_mails import waiting_on_ann


def test_a_move_by_mail_takes_few_statements(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as env:
        gid = waiting_on_ann(store)
        mail = env.mail(env.address(gid), "bid 3", frm=ANN)
        statements, quick = [], []
        real_quick = store.quick_rows

        def count(conn, cursor, statement, *args):
            statements.append(statement.split(None, 1)[0].upper())

        def quick_rows(statement, **params):
            quick.append(statement)
            return real_quick(statement, **params)

        monkeypatch.setattr(store, "quick_rows", quick_rows)
        event.listen(store.engine, "before_cursor_execute", count)
        try:
            assert env.send(mail)[0] == 250
        finally:
            event.remove(store.engine, "before_cursor_execute", count)
    # RCPT's check, and the seat's table with the seen-before check: quick, without a session
    assert len(quick) == 2
    # the write: BEGIN, the table checked (one SELECT), then the move's rows, its mails,
    # the deadlines and the Inbound row
    assert statements.count("SELECT") == 1, statements
    assert len(statements) <= 7, statements
