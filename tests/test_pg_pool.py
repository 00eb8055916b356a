"""PostgreSQL's pooled connections: one the server closed is replaced before use (as
pool_pre_ping did), but a quiet one is handed out without a ping's round trip (issue 15:
a tenth of a due timeout's time). tests/test_outage.py loses the server behind a proxy."""

import os

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError

from pbem.store.db import make_engine

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
