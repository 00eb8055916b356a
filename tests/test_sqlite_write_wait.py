"""A SQLite writer waits for the write lock in short steps (issue 15): SQLite's own busy
handler sleeps up to 100 ms at a time, so under several web workers a move waited long
after the lock was free. The wait still ends at the busy timeout, with "database is
locked", and never leaves the connection changed. (PostgreSQL has no such lock.)"""

import sqlite3

import pytest
from sqlalchemy import exc, select

from pbem.store import db
from pbem.store.db import BUSY_MS, STEPS, upgrade
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
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    return raw


def busy_timeout(store) -> int:
    with store.reader() as s:
        return s.connection().exec_driver_sql("PRAGMA busy_timeout").scalar()


def test_a_writer_waits_in_short_steps_and_writes_once_the_lock_is_free(sqlite,
                                                                         monkeypatch):
    store, path = sqlite
    other = holder(path)
    slept = []

    def sleep(seconds):  # the other writer commits while ours waits its sixth step
        slept.append(seconds)
        if len(slept) == 6:
            other.execute("COMMIT")

    monkeypatch.setattr(db.time, "sleep", sleep)
    with store.session() as s:
        s.add(Game(rules={}, first_dealer=0))
        s.commit()
    other.close()
    assert len(slept) == 6 and max(slept) <= STEPS[-1] <= 0.004
    assert busy_timeout(store) == BUSY_MS  # every other statement waits as SQLite does
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
