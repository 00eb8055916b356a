"""SQLite writers take turns by a lock file's flock, held from BEGIN IMMEDIATE until the
transaction's COMMIT or ROLLBACK has run. A writer that finds the database locked waits in
SQLite's busy handler, which sleeps and polls (1, 2, 5 ... up to 100 ms a sleep), so under a
few concurrent writers a short write could wait 50-100 ms after the lock was free: the move
POST's p99. A blocked flock wakes the moment the writer before it ends.

The flock only orders writers; SQLite's own lock still guards the data (a writer that does
not take turns, an older process say, is met by the busy handler as before). A thread that
already holds a turn on the file (a write inside a write) does not wait for it again: it
meets SQLite's lock and busy timeout, as before, instead of waiting on itself forever."""

import fcntl
import os
import sqlite3
import threading

_held = threading.local()  # per thread: {lock file: turns held}


class TurnConnection(sqlite3.Connection):
    """sqlite3's connection, with a turn among the file's writers (`begin_write`)."""

    _turn_fd: int | None = None
    _turn_path: str | None = None
    _in_turn = False  # this connection holds the flock
    _counted: dict | None = None  # the thread's holdings this connection's turn is in

    def use_turns(self, path: str) -> None:
        self._turn_path = path
        self._turn_fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def begin_write(self) -> None:
        """BEGIN IMMEDIATE, after this file's writers before us are done."""
        self._take_turn()
        try:
            self.execute("BEGIN IMMEDIATE")
        except BaseException:
            self._end_turn()
            raise

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self._end_turn()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self._end_turn()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._end_turn()
            if self._turn_fd is not None:
                os.close(self._turn_fd)
                self._turn_fd = None

    def _take_turn(self) -> None:
        if self._turn_fd is None or self._counted is not None:
            return
        held = _holdings()
        if not held.get(self._turn_path):  # a write inside a write: SQLite's wait, as before
            fcntl.flock(self._turn_fd, fcntl.LOCK_EX)
            self._in_turn = True
        held[self._turn_path] = held.get(self._turn_path, 0) + 1
        self._counted = held

    def _end_turn(self) -> None:
        held, self._counted = self._counted, None
        if held is None:
            return
        held[self._turn_path] -= 1
        if self._in_turn:
            self._in_turn = False
            fcntl.flock(self._turn_fd, fcntl.LOCK_UN)


def _holdings() -> dict:
    if not hasattr(_held, "files"):
        _held.files = {}
    return _held.files
