"""A seat mail's round trips to the database (issue 15: a mail's CPU is mostly what each
statement costs SQLAlchemy): the seat's table is read in one statement with the
seen-before check (Store.quick_rows), the move and its mails written in one transaction."""

from sqlalchemy import event

from tests.mail_helpers import ANN, running
from tests.test_prepared_mails import waiting_on_ann


def test_a_move_by_mail_takes_few_statements(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as env:
        gid = waiting_on_ann(store)
        mail = env.mail(env.address(gid), "bid 3", frm=ANN)
        statements, quick = [], []
        real_quick = store.quick_rows

        def count(conn, cursor, statement, *args):
            (quick[-1] if in_quick else statements).append(statement.split(None, 1)[0].upper())

        in_quick = False

        def quick_rows(statement, **params):
            nonlocal in_quick
            quick.append([])
            in_quick = True
            try:
                return real_quick(statement, **params)
            finally:
                in_quick = False

        monkeypatch.setattr(store, "quick_rows", quick_rows)
        event.listen(store.engine, "before_cursor_execute", count)
        try:
            assert env.send(mail)[0] == 250
        finally:
            event.remove(store.engine, "before_cursor_execute", count)
    # RCPT's check, and the seat's table with the seen-before check: quick, without a session
    assert len(quick) == 2 and all(q[-1] == "SELECT" for q in quick), quick
    # the write: its BEGIN (a statement SQLAlchemy sees on SQLite only: PostgreSQL's is the
    # driver's), the table checked (one SELECT), then the move's rows, its mails, the
    # deadlines and the Inbound row
    written = [x for x in statements if x != "BEGIN"]
    assert written.count("SELECT") == 1, statements
    assert len(written) <= 7, statements
