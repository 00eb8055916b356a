"""PostgreSQL's pooled connections: one the server closed is replaced before use (as
pool_pre_ping did), but a quiet one is handed out without a ping's round trip (issue 15:
a tenth of a due timeout's time). tests/test_outage.py loses the server behind a proxy."""

import os

import pytest
from sqlalchemy import create_engine, text

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
