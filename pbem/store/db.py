"""Database engines: SQLite (WAL, BEGIN IMMEDIATE for writes) or PostgreSQL (psycopg 3)."""

import itertools
import select
import sqlite3
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import event, exc
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection
from sqlmodel import Session, create_engine

from ..config import env_int

if TYPE_CHECKING:  # alembic loads only for a migration
    from alembic.config import Config

READ_ONLY = "pbem_read_only"  # the execution option of a reading engine (Store.reader)
BUSY_MS = 30_000  # how long a SQLite statement (or a write's BEGIN) waits for a lock
STEPS = (0.0005, 0.001, 0.002, 0.004)  # a SQLite writer's sleeps while another holds the lock
WRITER_WAIT = BUSY_MS / 1000  # seconds a writer waits for this process's turn


def make_engine(url: str) -> Engine:
    """hide_parameters: an error's text (a traceback in a log) never carries a statement's
    values, which may be a seat's token or a key."""
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if not url.startswith("sqlite"):
        engine = create_engine(url, connect_args=pg_timeouts(url), hide_parameters=True)
        _ping_when_stirred(engine)
        return engine
    path = url.split("///", 1)[-1]
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": BUSY_MS / 1000,
                                              "check_same_thread": False, "factory": _Turned},
                           hide_parameters=True)
    _sqlite_immediate(engine)
    return engine


def pg_timeouts(url: str) -> dict:
    """libpq's limits on waiting for PostgreSQL. Without them a database that stops
    answering without a word (a host gone, a firewall dropping) holds every page and SMTP
    command for as long as TCP waits (72-75 s measured, minutes in life). A connect gives up
    after PBEM_DB_CONNECT_TIMEOUT s, and a statement whose bytes the server has not
    acknowledged after PBEM_DB_NETWORK_TIMEOUT s (tcp_user_timeout; keepalives find an idle
    connection's silence as soon): a silent database is an error within about 10 s, a 503
    page or a 451 to SMTP. The server ends a statement after PBEM_DB_STATEMENT_TIMEOUT s and
    a transaction left idle after PBEM_DB_IDLE_TIMEOUT s (a client that hangs holds no
    lock long). A parameter the URL names itself is left as it says."""
    network = env_int("PBEM_DB_NETWORK_TIMEOUT", 4, 1, 3600)
    args = {"connect_timeout": env_int("PBEM_DB_CONNECT_TIMEOUT", 4, 2, 3600),
            "keepalives": 1, "keepalives_idle": network, "keepalives_interval": 1,
            "keepalives_count": network, "tcp_user_timeout": network * 1000}
    server = {"statement_timeout": env_int("PBEM_DB_STATEMENT_TIMEOUT", 30, 1, 86400),
              "idle_in_transaction_session_timeout": env_int("PBEM_DB_IDLE_TIMEOUT", 60, 1,
                                                              86400)}
    named = make_url(url).query
    given = named.get("options", "")
    given = " ".join(given) if isinstance(given, tuple) else given  # named twice
    options = " ".join([given, *(f"-c {k}={s * 1000}" for k, s in server.items()
                                 if k not in given)]).strip()
    return {k: v for k, v in args.items() if k not in named} | {"options": options}


def _ping_when_stirred(engine: Engine) -> None:
    """A pooled connection the server closed (a restart, a lost link) is replaced before
    anyone uses it, as pool_pre_ping would; but pre_ping pays a round trip at every checkout
    (one of the nine a due timeout made: bench/clock.py, issue 15). An idle connection's socket has
    nothing to read unless the server said something, and a closing server does (its
    goodbye, then end of file): a non-blocking poll finds it, and only then is it pinged.
    (A server gone without a word is not found by either until TCP gives up.)"""

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn: Any, _record: ConnectionPoolEntry,
                  _proxy: PoolProxiedConnection) -> None:
        if _quiet(dbapi_conn):
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
        except engine.dialect.loaded_dbapi.Error as e:  # every pooled one is as dead
            raise exc.InvalidatePoolError(str(e)) from e


def _quiet(dbapi_conn: Any) -> bool:
    """Is the idle connection open, with nothing come from the server since its last use?"""
    if dbapi_conn.closed or dbapi_conn.broken:
        return False
    poll = select.poll()
    poll.register(dbapi_conn.fileno(), select.POLLIN)
    return not poll.poll(0)


def _sqlite_immediate(engine: Engine) -> None:
    """A deferred BEGIN that reads and then writes fails at once with "database is locked"
    when another process wrote meanwhile; BEGIN IMMEDIATE takes the write lock up front and
    waits its turn, up to the busy timeout (SQLAlchemy's pysqlite recipe, "Serializable
    isolation / Savepoints / Transactional DDL": the driver's own BEGIN is turned off and
    ours sent at SQLAlchemy's "begin" event). A reader (READ_ONLY) begins deferred: in WAL
    mode it reads beside the writer and never waits for it."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        dbapi_conn.isolation_level = None  # the recipe: pysqlite sends no BEGIN of its own
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        cur.close()

    # This process's writers queue on a lock of their own before BEGIN IMMEDIATE: SQLite's
    # busy handler polls with sleeps of up to 100 ms, so writers of one process waiting on
    # each other left the database idle and their answers late (bench/web.py, 8 clients'
    # move POSTs: p99 1.56 s without the turn). The turn passes on once the COMMIT (or
    # ROLLBACK) is done (`_Turned`). Writers of other processes (`pbem smtp --processes`)
    # are waited for in short steps (`_begin_immediate`); so is one of ours that got no turn
    # in WRITER_WAIT seconds (a leaked turn must not stop the process).
    turn = threading.Lock()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        if conn.get_execution_options().get(READ_ONLY):  # a reader queues behind nobody
            conn.exec_driver_sql("BEGIN")
            return
        raw = conn.connection.dbapi_connection
        assert isinstance(raw, _Turned)  # made by this engine's connect
        raw.turn = turn if turn.acquire(timeout=WRITER_WAIT) else None
        try:
            _begin_immediate(raw)
        except BaseException:
            raw.pass_turn()
            raise


def _begin_immediate(raw: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE, waiting for the write lock in short steps. SQLite's own busy
    handler sleeps 1, 2, 5, 10 ... then 100 ms at a time, so a writer that just missed the
    lock slept on long after it was free (the lock is held about a millisecond). Never
    longer than BUSY_MS in all; then "database is locked", as SQLAlchemy raises it."""
    raw.execute("PRAGMA busy_timeout=0")  # this statement only: we do the waiting
    try:
        deadline = time.monotonic() + BUSY_MS / 1000
        for n in itertools.count():
            try:
                raw.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as e:
                if e.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                    raise exc.OperationalError("BEGIN IMMEDIATE", (), e) from e
            time.sleep(STEPS[min(n, len(STEPS) - 1)])
    finally:
        raw.execute(f"PRAGMA busy_timeout={BUSY_MS}")


class _Turned(sqlite3.Connection):
    """A SQLite connection (sqlite3.connect's documented `factory`) that passes this
    process's writer turn on after its COMMIT or ROLLBACK (SQLAlchemy's commit event comes
    before them)."""

    turn: "threading.Lock | None" = None

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self.pass_turn()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self.pass_turn()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.pass_turn()

    def pass_turn(self) -> None:
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


def alembic_config(url: str) -> "Config":
    from alembic.config import Config

    import pbem.migrations

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(pbem.migrations.__file__).parent))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg
