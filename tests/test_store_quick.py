"""Store.quick_rows: a hot page's one SELECT on a pooled reader's connection, values as
SQLAlchemy gives them; no connection or transaction kept between calls, and a connection
the server closed is replaced before the SELECT."""

import pytest
from conftest import PG_URL
from sqlalchemy import bindparam, create_engine, select, text

from pbem.engine import preset
from pbem.store.games import create_game
from pbem.store.models import Game

BY_ID = select(Game.id, Game.public, Game.time_control).where(Game.id == bindparam("g"))


def test_values_as_sqlalchemy_gives_them_and_nothing_held(store):
    gid = create_game(store, preset("standard"), ["robot"] * 4, time_control={"a": [1]})
    rows = store.quick_rows(BY_ID, g=gid)
    assert [tuple(r) for r in rows] == [(gid, True, {"a": [1]})]
    assert rows[0][1] is True  # SQLite's 1 made a bool, as the ORM's read makes it
    assert store.quick_rows(BY_ID, g=gid + 1) == []
    assert store.engine.pool.checkedout() == 0  # back in the pool: no transaction held


def test_each_call_reads_what_is_committed_now(store):
    gid = create_game(store, preset("standard"), ["robot"] * 4)
    assert store.quick_rows(BY_ID, g=gid)[0][1] is True
    with store.session() as s:
        s.get(Game, gid).public = False
        s.commit()
    assert store.quick_rows(BY_ID, g=gid)[0][1] is False


@pytest.mark.skipif(not PG_URL, reason="a PostgreSQL server's restart: set "
                    "PBEM_TEST_DATABASE_URL")
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_connection_the_server_closed_is_replaced(store):
    gid = create_game(store, preset("standard"), ["robot"] * 4)
    with store.engine.connect() as c:
        pid = c.execute(text("SELECT pg_backend_pid()")).scalar()
    admin = create_engine(store.url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:  # as a restart does to every connection
            assert c.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar()
            c.execute(text("SELECT pg_sleep(0.2)"))  # its goodbye reaches our socket
    finally:
        admin.dispose()
    assert len(store.quick_rows(BY_ID, g=gid)) == 1
