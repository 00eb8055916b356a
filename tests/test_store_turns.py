"""SQLite writers take turns by a lock file (pbem.store.turns): a write holds its turn from
BEGIN IMMEDIATE until its COMMIT or ROLLBACK has run, a read never takes it, and a write
inside a write in one thread meets SQLite's own lock instead of waiting on itself."""

import fcntl
import os
import sqlite3

import pytest
from sqlmodel import select

from pbem.store.models import Game
from pbem.store.states import Store


@pytest.fixture
def sqlite_store(tmp_path):
    from pbem.store.db import upgrade

    url = f"sqlite:///{tmp_path / 'pbem.db'}"
    upgrade(url)
    return Store(url), str(tmp_path / "pbem.db-writers")


def turn_taken(path: str) -> bool:
    """Does some writer hold the file's turn now? (asked as another writer would)"""
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops the lock if we got it
    return False


def test_a_write_holds_its_turn_until_it_ends_and_a_read_never_takes_it(sqlite_store):
    store, turns = sqlite_store
    with store.reader() as s:
        s.exec(select(Game)).all()
        assert not turn_taken(turns)
    with store.session() as s:
        s.add(Game(rules={"preset": "standard"}))
        assert not turn_taken(turns)  # nothing begun yet
        s.flush()
        assert turn_taken(turns)
        s.commit()
        assert not turn_taken(turns)
    with pytest.raises(RuntimeError), store.session() as s:
        s.add(Game(rules={"preset": "standard"}))
        s.flush()
        assert turn_taken(turns)
        raise RuntimeError("refused")  # the session rolls back
    assert not turn_taken(turns)
    with store.reader() as s:
        assert len(s.exec(select(Game)).all()) == 1  # the committed one, not the other


def test_a_write_inside_a_write_meets_sqlites_lock_not_its_own_turn(sqlite_store):
    store, turns = sqlite_store
    with store.session() as s:
        s.add(Game(rules={"preset": "standard"}))
        s.flush()
        inner = store.engine.raw_connection()
        try:
            inner.driver_connection.execute("PRAGMA busy_timeout=50")
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                inner.driver_connection.begin_write()  # would wait forever on the turn
        finally:
            inner.close()
        assert turn_taken(turns)  # the outer write still has it
        s.commit()
    assert not turn_taken(turns)
