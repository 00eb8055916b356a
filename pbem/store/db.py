"""Database engines: SQLite (WAL, BEGIN IMMEDIATE for writes) or PostgreSQL (psycopg 3)."""

import itertools
import select
import sqlite3
import threading
import time
from contextlib import ExitStack
from functools import lru_cache
from pathlib import Path

from sqlalchemy import event, exc
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

from ..config import _env_int

READ_ONLY = "pbem_read_only"  # the execution option of a reading engine (Store.reader)
# the execution option of a statement nobody waits for (an INSERT without RETURNING, in a
# transaction): on PostgreSQL it is sent, and its answer read with the next statement's or
# the COMMIT's, in one round trip (`_send`); SQLite runs it as any other
BLIND = "pbem_blind"
BUSY_MS = 30_000  # how long a SQLite statement (or a write's BEGIN) waits for a lock
# a waiting writer's steps (seconds): short, because write transactions are (a move's is
# about a millisecond), but not shorter: on a busy machine waiters that wake more often
# take the CPU from the writer they wait for (bench/web.py: 2 ms steps gave fewer moves a
# second than 4, and 8 a longer tail). The last repeats until BUSY_MS.
STEPS = (0.0005, 0.001, 0.002, 0.004)
WRITER_WAIT = BUSY_MS / 1000  # seconds a writer waits for this process's turn


def make_engine(url: str) -> Engine:
    """hide_parameters: an error's text (a traceback in a log) never carries a statement's
    values, which may be a seat's token or a key."""
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if not url.startswith("sqlite"):
        engine = create_engine(url, connect_args=pg_timeouts(url), hide_parameters=True)
        _ping_when_stirred(engine)
        _begin_with_first_statement(engine)
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
    network = _env_int("PBEM_DB_NETWORK_TIMEOUT", 4, 1, 3600)
    args = {"connect_timeout": _env_int("PBEM_DB_CONNECT_TIMEOUT", 4, 2, 3600),
            "keepalives": 1, "keepalives_idle": network, "keepalives_interval": 1,
            "keepalives_count": network, "tcp_user_timeout": network * 1000}
    server = {"statement_timeout": _env_int("PBEM_DB_STATEMENT_TIMEOUT", 30, 1, 86400),
              "idle_in_transaction_session_timeout": _env_int("PBEM_DB_IDLE_TIMEOUT", 60, 1,
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
    def _checkout(dbapi_conn, _record, _proxy):
        if _quiet(dbapi_conn):
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
        except engine.dialect.loaded_dbapi.Error as e:  # every pooled one is as dead
            raise exc.InvalidatePoolError(str(e)) from e


def _begin_with_first_statement(engine: Engine) -> None:
    """psycopg sends a transaction's BEGIN alone and waits for its answer: a round trip
    before every transaction's first statement (one of eight a due timeout made:
    bench/clock.py, issue 15). Here the driver is left in autocommit and the BEGIN goes in a
    pipeline with the first statement: one round trip for both. Every statement SQLAlchemy
    runs comes through here, so none runs outside a transaction but a reader's
    (`_needs_begin`); COMMIT and ROLLBACK are the driver's as before (it sends them whenever
    the server is in a transaction), except after blind statements (`_blind_until_answered`).
    A connection put in AUTOCOMMIT on purpose (an execution option) gets no BEGIN, and one
    SQLAlchemy took out of autocommit (resetting that option) has psycopg's own BEGIN again."""

    from psycopg.pq import TransactionStatus  # here: a SQLite process never loads psycopg

    idle = TransactionStatus.IDLE  # a connection outside a transaction

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):
        dbapi_conn.autocommit = True
        dbapi_conn.blind = None  # the pipeline blind statements wait in (`_send`)

    @event.listens_for(engine, "do_execute")
    def _execute(cursor, statement, parameters, context):
        return _send(cursor, context.execution_options, idle,
                     lambda: cursor.execute(statement, parameters))

    @event.listens_for(engine, "do_executemany")
    def _executemany(cursor, statement, parameters, context):
        return _send(cursor, context.execution_options, idle,
                     lambda: cursor.executemany(statement, parameters))

    @event.listens_for(engine, "do_execute_no_params")
    def _execute_no_params(cursor, statement, context):
        return _send(cursor, context.execution_options, idle, lambda: cursor.execute(statement))

    _blind_until_answered(engine)


def send(raw, cursor, options, run) -> bool:
    """A statement run on the driver's connection `raw` outside SQLAlchemy (pbem.store.bulk),
    with `options` its execution options: on PostgreSQL sent as SQLAlchemy's would be
    (`_send`); returns False where the caller runs it itself (SQLite: always)."""
    if isinstance(raw, sqlite3.Connection):
        return False
    from psycopg.pq import TransactionStatus

    return _send(cursor, options, TransactionStatus.IDLE, run)


def _send(cursor, options, idle, run) -> bool:
    """Run a statement in the connection's pipeline when it needs one: after a BEGIN sent
    with it, or as a blind statement (BLIND) nobody waits for, or after blind ones, whose
    errors this statement's answer brings. Returns False (the dialect runs it) otherwise."""
    conn = cursor.connection
    begin = _needs_begin(conn, options, idle)
    held = getattr(conn, "blind", None)
    blind = options.get(BLIND) and (  # only where a COMMIT or ROLLBACK ends it
        begin or not conn.autocommit or conn.info.transaction_status != idle)
    if not (begin or blind or held):
        return False
    pipe, conn.blind = held or ExitStack(), None
    try:
        if held is None:
            pipe.enter_context(conn.pipeline())
        if begin:
            cursor.execute("BEGIN")
        run()
    except BaseException:
        _drop(pipe)
        raise
    if blind:
        conn.blind = pipe  # sent; its answer comes with the next statement's, or the COMMIT's
    else:
        pipe.close()  # one Sync, one round trip: every answer, the first error raised
    return True


def _blind_until_answered(engine: Engine) -> None:
    """A blind statement's error (a unique key taken by a racing writer) comes with the
    COMMIT's answer: the COMMIT goes in the pipeline with them, one round trip, and raises it
    from do_commit, where SQLAlchemy makes it an IntegrityError as the statement itself
    would have. A rollback drops their answers (nothing they did stays)."""
    dialect = engine.dialect
    commit, rollback = dialect.do_commit, dialect.do_rollback

    def do_commit(dbapi_conn):
        pipe = _take_blind(dbapi_conn)
        if pipe is None:
            return commit(dbapi_conn)
        try:
            dbapi_conn.execute("COMMIT", prepare=False)
            pipe.close()
        except BaseException:
            _drop(pipe)
            _ended(dbapi_conn, rollback)
            raise
        return None

    def do_rollback(dbapi_conn):
        pipe = _take_blind(dbapi_conn)
        if pipe is not None:
            _drop(pipe)
        return rollback(dbapi_conn)

    dialect.do_commit, dialect.do_rollback = do_commit, do_rollback


def _take_blind(dbapi_conn) -> ExitStack | None:
    """The connection's pipeline of blind statements, if any, taken off it. SQLAlchemy hands
    do_commit and do_rollback the pool's proxy: the pipeline is on the driver's connection."""
    raw = getattr(dbapi_conn, "dbapi_connection", dbapi_conn)
    pipe = getattr(raw, "blind", None)
    if pipe is not None:
        raw.blind = None
    return pipe


def _ended(dbapi_conn, rollback) -> None:
    """A COMMIT that failed ends its transaction here: SQLAlchemy does not roll back after
    a failed commit (its pool's reset skips it too), and the server's is left aborted."""
    try:
        rollback(dbapi_conn)
    except Exception:  # noqa: BLE001 - a lost connection: the commit's error is the one raised
        pass


def _drop(pipe: ExitStack) -> None:
    """Leave a pipeline whose answers no longer matter (an error is on its way up)."""
    try:
        pipe.close()
    except Exception:  # noqa: BLE001 - the first error is the one raised
        pass


def _needs_begin(dbapi_conn, options, idle) -> bool:
    """A reader (READ_ONLY) gets no BEGIN: at READ COMMITTED each statement reads its own
    snapshot in a transaction too, so one changes nothing but the ROLLBACK's round trip at
    its end, and the DEALLOCATE ALL psycopg sends after a ROLLBACK (a round trip more, and
    every statement prepared again: in a tick, a timeout's write after its read)."""
    return (dbapi_conn.autocommit and dbapi_conn.info.transaction_status == idle
            and options.get("isolation_level") != "AUTOCOMMIT" and not options.get(READ_ONLY))


def _quiet(dbapi_conn) -> bool:
    """Is the idle connection open, with nothing come from the server since its last use?"""
    if dbapi_conn.closed or dbapi_conn.broken:
        return False
    poll = select.poll()
    poll.register(dbapi_conn.fileno(), select.POLLIN)
    return not poll.poll(0)


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
        cur.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        cur.close()

    # This process's writers queue on a lock of their own before BEGIN IMMEDIATE: SQLite's
    # busy handler polls with sleeps of up to 100 ms, so writers of one process waiting on
    # each other (several mails at once) left the database idle and their answers late. The
    # turn passes on once the COMMIT (or ROLLBACK) is done (`_Turned`). Writers of other
    # processes are waited for in short steps (`_begin_immediate`); so is one of ours that got
    # no turn in WRITER_WAIT seconds (a leaked turn must not stop the process).
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
            _begin_immediate(dbapi_conn)
        except BaseException:
            dbapi_conn.pass_turn()
            raise


def _begin_immediate(raw: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE, waiting for the write lock in short steps. SQLite's own busy
    handler sleeps 1, 2, 5, 10 ... then 100 ms at a time, so under four web workers a
    writer that just missed the lock slept on long after it was free (p99 of the wait
    200 ms, the lock held about 1 ms: bench/web.py, issue 15). Never longer than BUSY_MS
    in all, as before; then "database is locked", as SQLAlchemy raises it."""
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
