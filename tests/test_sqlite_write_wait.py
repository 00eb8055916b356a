"""A SQLite writer takes the write lock at its BEGIN IMMEDIATE and waits for another's up to
the busy timeout, then gives up with "database is locked", leaving the connection sound;
a reader never waits for it. (PostgreSQL has no such lock.)"""

import sqlite3
import threading
import time

import pytest
from sqlalchemy import exc, select

from pbem.store import db
from pbem.store.db import BUSY_MS, upgrade
from pbem.store.models import Game
from pbem.store.states import Store


@pytest.fixture
def sqlite(tmp_path):
    path = tmp_path / "pbem.db"
    upgrade(f"sqlite:///{path}")
    store = Store(f"sqlite:///{path}")
    yield store, path
    store.engine.dispose()


def holder(path) -> sqlite3.Connection:
    """Another process's writer, in the middle of its transaction."""
    raw = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    raw.execute("BEGIN IMMEDIATE")
    return raw


def busy_timeout(store) -> int:
    with store.reader() as s:
        return s.connection().exec_driver_sql("PRAGMA busy_timeout").scalar()


def test_a_writer_waits_for_the_lock_and_writes_once_it_is_free(sqlite):
    store, path = sqlite
    other = holder(path)
    freed = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    freed.start()
    began = time.monotonic()
    with store.reader() as s:  # a reader reads beside the writer, never waits
        assert s.exec(select(Game)).all() == []
    assert time.monotonic() - began < 0.3
    with store.session() as s:
        s.add(Game(rules={}, first_dealer=0))
        s.commit()
    assert time.monotonic() - began >= 0.3  # it waited for the other's COMMIT
    freed.join()
    other.close()
    assert busy_timeout(store) == BUSY_MS
    with store.reader() as s:
        assert len(s.exec(select(Game)).all()) == 1


def test_a_writer_gives_up_at_the_busy_timeout_and_the_connection_stays_sound(
        sqlite, monkeypatch):
    store, path = sqlite
    other = holder(path)
    monkeypatch.setattr(db, "BUSY_MS", 50)
    try:
        with pytest.raises(exc.OperationalError, match="locked"):
            with store.session() as s:
                s.add(Game(rules={}, first_dealer=0))
                s.commit()
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert busy_timeout(store) == 50  # restored (to the setting, patched here)
    with store.session() as s:  # the same pool writes once the lock is free
        s.add(Game(rules={}, first_dealer=0))
        s.commit()
    with store.reader() as s:
        assert len(s.exec(select(Game)).all()) == 1
