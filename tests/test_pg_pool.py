"""PostgreSQL's pooled connections: one the server closed is replaced before use (as
pool_pre_ping did), but a quiet one is handed out without a ping's round trip (issue 15:
a tenth of a due timeout's time). tests/test_outage.py loses the server behind a proxy."""

import os

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError

from pbem.store.db import BLIND, READ_ONLY, make_engine

PG = os.environ.get("PBEM_TEST_DATABASE_URL")
pytestmark = pytest.mark.skipif(not PG, reason="needs PostgreSQL: set PBEM_TEST_DATABASE_URL")


@pytest.fixture
def engine():
    engine = make_engine(PG)
    yield engine
    engine.dispose()


@pytest.fixture
def pings(engine, monkeypatch):
    done = []
    real = engine.dialect.do_ping

    def ping(dbapi_conn):
        done.append(dbapi_conn)
        return real(dbapi_conn)

    monkeypatch.setattr(engine.dialect, "do_ping", ping)
    return done


def backend(engine) -> int:
    with engine.connect() as c:
        return c.execute(text("SELECT pg_backend_pid()")).scalar()


def test_a_quiet_pooled_connection_is_used_without_a_ping(engine, pings):
    first = backend(engine)
    for _ in range(3):
        assert backend(engine) == first  # the same connection, back from the pool
    assert pings == []


def test_a_connection_the_server_closed_is_replaced_before_use(engine, pings):
    gone = backend(engine)
    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:  # as a restart does to every connection
            assert c.execute(text("SELECT pg_terminate_backend(:p)"), {"p": gone}).scalar()
            c.execute(text("SELECT pg_sleep(0.2)"))  # its goodbye reaches our socket
    finally:
        admin.dispose()
    now = backend(engine)  # no error: found out at checkout, and a new one connected
    assert now != gone and len(pings) == 1
    assert backend(engine) == now and len(pings) == 1  # quiet again: no more pings


def round_trips(engine, work, tmp_path) -> int:
    """The round trips `work(engine)` makes: the server's ReadyForQuery messages in libpq's
    trace of the (one, pooled) connection it uses."""
    path = tmp_path / "trace"
    with engine.connect() as c:
        raw = c.connection.dbapi_connection
    with open(path, "w") as f:
        raw.pgconn.trace(f.fileno())
        try:
            work(engine)
        finally:
            raw.pgconn.untrace()
    return sum(line.split("\t")[3:4] == ["ReadyForQuery"] for line in open(path))


def test_a_transaction_begins_in_the_round_trip_of_its_first_statement(engine, tmp_path):
    def one_statement(engine):
        with engine.begin() as c:
            assert c.execute(text("SELECT 1")).scalar() == 1

    assert round_trips(engine, one_statement, tmp_path) == 2  # BEGIN + SELECT; COMMIT


def test_every_statement_of_a_transaction_is_in_it(engine):
    with engine.connect() as c:
        c.execute(text("CREATE TEMP TABLE t (x int)"))
        c.commit()
        xids = {c.execute(text("SELECT pg_current_xact_id()")).scalar() for _ in range(3)}
        c.execute(text("INSERT INTO t VALUES (1)"))
        c.execute(text("INSERT INTO t VALUES (:x)"), [{"x": 2}, {"x": 3}])
        c.rollback()  # takes back both inserts: neither ran in autocommit
        assert len(xids) == 1
        assert c.execute(text("SELECT count(*) FROM t")).scalar() == 0
        c.rollback()
        c.execute(text("INSERT INTO t VALUES (:x)"), [{"x": 2}, {"x": 3}])  # first, many rows
        c.rollback()
        assert c.execute(text("SELECT count(*) FROM t")).scalar() == 0


def test_a_connection_asked_for_autocommit_gets_no_begin(engine):
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
        c.execute(text("VACUUM pg_class"))  # refused inside a transaction
    with engine.begin() as c:  # the pool's connection back to transactions
        xids = {c.execute(text("SELECT pg_current_xact_id()")).scalar() for _ in range(2)}
        assert len(xids) == 1


def test_a_first_statement_that_fails_raises_as_ever_and_the_connection_goes_on(engine):
    with engine.connect() as c:
        c.execute(text("CREATE TEMP TABLE u (x int PRIMARY KEY)"))
        c.execute(text("INSERT INTO u VALUES (1)"))
        c.commit()
        with pytest.raises(IntegrityError):  # what the door's retry on a race catches
            c.execute(text("INSERT INTO u VALUES (1)"))
        c.rollback()
        assert c.execute(text("SELECT count(*) FROM u")).scalar() == 1


@pytest.fixture
def table(engine):
    """A table of its own (the pooled connections all see it), with a unique column."""
    name = f"blind_{os.getpid()}"
    with engine.begin() as c:
        c.execute(text(f"CREATE TABLE {name} (x int PRIMARY KEY)"))
    yield name
    with engine.begin() as c:
        c.execute(text(f"DROP TABLE {name}"))


def blind(name):
    """An INSERT nobody waits for (pbem.store.bulk's, as the move's write sends it)."""
    return text(f"INSERT INTO {name} VALUES (:x)").execution_options(**{BLIND: True})


def count(engine, name) -> int:
    with engine.connect() as c:
        return c.execute(text(f"SELECT count(*) FROM {name}")).scalar()


def test_blind_inserts_go_with_the_commit_in_one_round_trip(engine, table, tmp_path):
    def write(engine, x):
        with engine.begin() as c:
            assert c.execute(text("SELECT 1")).scalar() == 1
            c.execute(blind(table), [{"x": x}, {"x": x + 1}])  # many rows
            c.execute(blind(table), {"x": x + 2})  # one

    def writes(engine):
        write(engine, 1)
        write(engine, 4)  # the next transaction on the connection too

    assert round_trips(engine, writes, tmp_path) == 4  # each: BEGIN + SELECT; INSERTs + COMMIT
    assert count(engine, table) == 6


def test_a_blind_insert_taken_by_another_raises_at_commit_as_an_integrity_error(engine, table):
    with engine.begin() as c:
        c.execute(blind(table), {"x": 1})
    with pytest.raises(IntegrityError, match=f"{table}_pkey"), engine.begin() as c:
        c.execute(blind(table), [{"x": 2}, {"x": 1}])  # what the door's retry catches
    assert count(engine, table) == 1  # not the 2 either: the transaction is undone
    with engine.begin() as c:  # the connection goes on
        c.execute(blind(table), {"x": 2})
    assert count(engine, table) == 2


def test_a_statement_after_blind_inserts_sees_them_and_brings_their_error(engine, table):
    with engine.connect() as c:
        c.execute(blind(table), [{"x": 1}, {"x": 2}])
        assert c.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 2
        c.execute(blind(table), {"x": 1})
        with pytest.raises(IntegrityError):  # found by the next statement's round trip
            c.execute(text("SELECT 1"))
        c.rollback()
        assert c.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 0
        c.execute(blind(table), {"x": 5})
        c.rollback()  # blind inserts taken back unanswered
        assert c.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 0


def test_a_reader_reads_without_begin_or_rollback(engine, tmp_path):
    reader = engine.execution_options(**{READ_ONLY: True})  # Store.reader's

    def read(engine):
        with reader.connect() as c:
            assert c.execute(text("SELECT 1")).scalar() == 1
            assert c.execute(text("SELECT 2")).scalar() == 2

    assert round_trips(engine, read, tmp_path) == 2  # no ROLLBACK, nor DEALLOCATE ALL after it
    with engine.begin() as c:  # the pool's connection back to transactions
        xids = {c.execute(text("SELECT pg_current_xact_id()")).scalar() for _ in range(2)}
        assert len(xids) == 1
