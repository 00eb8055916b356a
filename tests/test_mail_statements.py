"""A seat mail's round trips to the database (issue 15: a mail's CPU is mostly what each
statement costs SQLAlchemy): RCPT's check is one SELECT, the seat's table one SELECT with
the seen-before check (both in reader sessions), the move and its mails written in one
transaction."""

from sqlalchemy import event

from pbem.engine import Rules
from tests.mail_helpers import ANN, running
from tests.test_move_mails import waiting_on_ann


def test_a_move_by_mail_takes_few_statements(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as env:
        gid = waiting_on_ann(store)
        mail = env.mail(env.address(gid), "bid 3", frm=ANN)
        statements = []

        def count(conn, cursor, statement, *args):
            statements.append(statement.split(None, 1)[0].upper())

        event.listen(store.engine, "before_cursor_execute", count)
        try:
            assert env.send(mail)[0] == 250
        finally:
            event.remove(store.engine, "before_cursor_execute", count)
    # RCPT's check, the seat's table with the seen-before check (each in a reader session);
    # then the write: the table checked (one SELECT), the move's rows, its mails, the
    # deadlines and the Inbound row. BEGIN is a statement SQLAlchemy sees on SQLite only
    # (PostgreSQL's is the driver's), so it is not counted.
    said = [x for x in statements if x != "BEGIN"]
    assert said.count("SELECT") == 3, " ".join(statements)
    assert len(said) <= 8, " ".join(statements)


def test_a_move_by_mail_reads_no_ruleset_back(store, monkeypatch, tmp_path):
    """The mails of a move (its answer, the next turn mail) show the table with the state's
    own card table: no view's rules are read back into a Rules (0.16 ms each, twice a mail:
    bench/mail.py). The game's own rules are kept by the store (rules_of), read before."""
    with running(store, monkeypatch, tmp_path) as env:
        gid = waiting_on_ann(store)
        mail = env.mail(env.address(gid), "bid 3", frm=ANN)
        made: list = []
        from_dict = Rules.from_dict.__func__

        def counted(cls, data):
            made.append(data)
            return from_dict(cls, data)

        monkeypatch.setattr(Rules, "from_dict", classmethod(counted))
        assert env.send(mail)[0] == 250
        assert made == []
        assert env.replies(), "the move was answered"
