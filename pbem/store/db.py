"""Database engines: SQLite (WAL, BEGIN IMMEDIATE for writes) or PostgreSQL (psycopg 3)."""

import sqlite3
import threading
from functools import lru_cache
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, create_engine

READ_ONLY = "pbem_read_only"  # the execution option of a reading engine (Store.reader)
WRITER_WAIT = 30.0  # seconds a SQLite writer waits for this process's turn (as busy_timeout)


def make_engine(url: str) -> Engine:
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    path = url.split("///", 1)[-1]
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False,
                                              "factory": _Turned})
    _sqlite_immediate(engine)
    return engine


def _sqlite_immediate(engine: Engine) -> None:
    """A deferred BEGIN that reads and then writes fails at once with "database is locked"
    when another process wrote meanwhile; BEGIN IMMEDIATE takes the write lock up front
    and waits its turn (SQLAlchemy's SQLite notes, "Serializable isolation"). A transaction
    that only reads begins deferred: in WAL mode it reads beside the writer, never waits."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None  # let us issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    # This process's writers queue on a lock of their own before BEGIN IMMEDIATE: SQLite's
    # busy handler polls with sleeps of up to 100 ms, so writers of one process waiting on
    # each other (several mails at once) left the database idle and their answers late. The
    # turn passes on once the COMMIT (or ROLLBACK) is done (`_Turned`). A writer of another
    # process still waits in the busy handler; so does one of ours that got no turn in
    # WRITER_WAIT seconds (a leaked turn must not stop the process).
    turn = threading.Lock()

    @event.listens_for(engine, "begin")
    def _begin(conn):
        # a read (Store.reader) must not queue behind every writer: a plain BEGIN
        if conn.get_execution_options().get(READ_ONLY):
            conn.exec_driver_sql("BEGIN")
            return
        dbapi_conn = conn.connection.dbapi_connection
        dbapi_conn.turn = turn if turn.acquire(timeout=WRITER_WAIT) else None
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            dbapi_conn.pass_turn()
            raise


class _Turned(sqlite3.Connection):
    """A SQLite connection that passes this process's writer turn on after its COMMIT or
    ROLLBACK (SQLAlchemy's commit event comes before them)."""

    turn = None

    def commit(self):
        try:
            super().commit()
        finally:
            self.pass_turn()

    def rollback(self):
        try:
            super().rollback()
        finally:
            self.pass_turn()

    def close(self):
        try:
            super().close()
        finally:
            self.pass_turn()

    def pass_turn(self):
        turn, self.turn = self.turn, None
        if turn is not None:
            turn.release()


@lru_cache(maxsize=8)
def engine_for(url: str) -> Engine:
    return make_engine(url)


def session(url: str) -> Session:
    return Session(engine_for(url), expire_on_commit=False)


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at `url` up to date with the migrations."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)


def alembic_config(url: str):
    from alembic.config import Config

    import pbem.migrations

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(pbem.migrations.__file__).parent))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg
