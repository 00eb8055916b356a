"""A hot write's statements (a move, a timeout) without the cost of SQLAlchemy's execution:
building and flushing ORM objects cost more than the SQL, and a Core execute (its cache
key, compiled-parameter and result set-up: ~85 us) several times the driver's own (~15 us).

`insert_all` writes many rows of one table in one statement; `run` and `rows` run any other
Core statement the same way: compiled once for the database, its parameters processed as
SQLAlchemy would (JSON, datetimes on SQLite), sent on the session's own driver connection
in its transaction. What SQLAlchemy did around the driver still happens: the engine's
before_cursor_execute listeners see each statement (counting ones), PostgreSQL's BEGIN and
BLIND pipeline (pbem.store.db) are the same, and a driver's error is raised as SQLAlchemy's
(IntegrityError...), the connection invalidated when it is lost.

Nobody waits for an INSERT's answer (BLIND: on PostgreSQL it comes with the next statement's
or the COMMIT's, in one round trip; an error, a unique key taken, is raised there as the same
IntegrityError)."""

from functools import cache
from typing import NamedTuple

from pydantic_core import PydanticUndefined
from sqlalchemy import insert

from .db import BLIND, send

_CONNECTION = "pbem_bulk_connection"  # Session.info: (its transaction, its Connection)


def insert_all(s, model, rows: list[dict]) -> None:
    """`rows` (each a dict of `model`'s fields) inserted in `s`'s transaction; a field a row
    leaves out gets the model's default, as an ORM object would."""
    if rows:
        statement, defaults = _plan(model)
        run(s, statement, [_filled(defaults, r) for r in rows])


@cache
def _plan(model) -> tuple:
    """The model's INSERT (built once: its SQL is compiled once, not looked up each time)
    and its fields' defaults, as (name, factory, value)."""
    defaults = [(name, field.default_factory, field.default)
                for name, field in model.model_fields.items() if name != "id"
                and (field.default_factory is not None or field.default is not PydanticUndefined)]
    # inline: no RETURNING of the new id (nobody reads it), which a blind statement cannot have
    return insert(model.__table__).inline().execution_options(**{BLIND: True}), defaults


def _filled(defaults, row: dict) -> dict:
    out = dict(row)
    for name, factory, value in defaults:
        if name not in out:
            out[name] = factory() if factory is not None else value
    return out


def run(s, statement, params: dict | list[dict]) -> None:
    """`statement` run in `s`'s transaction with `params` (a list: once for each, in one
    executemany, all with the first one's keys); its answer is not read."""
    conn, sql, _cursor = _execute(s, statement, params)
    if sql is None:  # something only SQLAlchemy knows how to run
        conn.execute(statement, params)


def rows(s, statement, params: dict) -> list[tuple]:
    """The rows of a SELECT run in `s`'s transaction, with values as SQLAlchemy gives them
    (its result processing: JSON, datetimes and bools on SQLite)."""
    conn, sql, cursor = _execute(s, statement, params)
    if sql is None:  # something only SQLAlchemy knows how to run
        return [tuple(r) for r in conn.execute(statement, params)]
    got = cursor.fetchall()
    if sql.results is None:
        return got
    out = []
    for r in got:
        r = list(r)
        for i, p in sql.results:  # as SQLAlchemy: a processor sees None too
            r[i] = p(r[i])
        out.append(tuple(r))
    return out


class _Sql(NamedTuple):
    """A statement compiled for one database and one set of parameter names."""
    text: str
    slots: list[tuple]  # each parameter, in order: (name, bind processor, None) from the
    # caller's values, or (None, None, processed value) for one the statement binds itself
    names: list[str] | None  # the names of the slots (PostgreSQL's %(name)s); None: by place
    results: list | None  # (column's index, its result processor) for those that have one
    blind: bool


# (dialect, statement, keys) -> _Sql, or None: SQLAlchemy runs it. Statements are meant to
# be built once (module level, `_plan`): one built at each call would only fill it, so past
# MAX_COMPILED it starts again.
_compiled: dict = {}
MAX_COMPILED = 512


def _execute(s, statement, params):
    conn, raw, options = _connection(s)
    many = isinstance(params, list)
    key = (conn.dialect, statement, frozenset(params[0] if many else params))
    sql = _compiled.get(key, False)
    if sql is False:
        if len(_compiled) >= MAX_COMPILED:
            _compiled.clear()
        sql = _compiled[key] = _compile(conn.dialect, statement, key[2])
    if sql is None:
        return conn, None, None
    args = [_args(sql, p) for p in params] if many else _args(sql, params)
    cursor = raw.cursor()
    if conn.dispatch.before_cursor_execute:  # someone counts or watches statements
        conn.dispatch.before_cursor_execute(conn, cursor, sql.text, args, None, many)
    go = cursor.executemany if many else cursor.execute
    try:
        if not send(raw, cursor, options[sql.blind], lambda: go(sql.text, args)):
            go(sql.text, args)
    except BaseException as e:  # as SQLAlchemy's own execute: wrapped, a lost link invalidated
        if isinstance(e, Exception) and not isinstance(e, conn.dialect.loaded_dbapi.Error):
            raise  # not the database's (SQLAlchemy leaves it as it is too)
        conn._handle_dbapi_exception(e, sql.text, args, cursor, None)
    return conn, sql, cursor


def _connection(s) -> tuple:
    """The session's Connection in its current transaction (begun if need be), its driver's
    connection and its execution options (without BLIND, with it): found once a
    transaction, not at every statement (`Session.connection` costs)."""
    tx = s.get_transaction()
    got = s.info.get(_CONNECTION)
    if tx is not None and got is not None and got[0] is tx and not got[1].closed:
        return got[1:]
    conn = s.connection()
    options = conn.get_execution_options()
    got = s.info[_CONNECTION] = (s.get_transaction(), conn, conn.connection.driver_connection,
                                 ({**options, BLIND: False}, {**options, BLIND: True}))
    return got[1:]


def _args(sql: _Sql, p: dict):
    # as SQLAlchemy: a processor sees None too (JSON's makes it the JSON null)
    values = [v if n is None else p[n] if f is None else f(p[n]) for n, f, v in sql.slots]
    return values if sql.names is None else dict(zip(sql.names, values, strict=True))


def _compile(dialect, statement, keys: frozenset) -> _Sql | None:
    """The statement for `dialect` with parameters `keys`, or None where a value comes from
    elsewhere (a column's Python default, an expanding IN) and SQLAlchemy must run it."""
    c = statement.compile(dialect=dialect, column_keys=list(keys))
    if (c.insert_prefetch or c.update_prefetch or c.escaped_bind_names
            or c.literal_execute_params or c.post_compile_params):
        return None
    names = list(c.positiontup) if c.positional else list(dict.fromkeys(c.bind_names.values()))
    slots = []
    for n in names:
        bind, f = c.binds[n], c._bind_processors.get(n)
        if n in keys:
            slots.append((n, f, None))
        elif bind.required or bind.callable is not None:
            return None
        else:
            slots.append((None, None, bind.value if f is None else f(bind.value)))
    results = None
    if c._result_columns:  # a SELECT (or a RETURNING)
        results = [(i, p) for i, col in enumerate(c._result_columns)
                   if (p := result_processor(col[3], dialect)) is not None] or None
    return _Sql(str(c), slots, None if c.positional else names, results,
                bool(statement.get_execution_options().get(BLIND)))


def result_processor(type_, dialect):
    """What SQLAlchemy's result applies to a column of `type_` read from `dialect` (JSON on
    SQLite, its datetimes and bools, UTCDateTime); None: the driver's value as is. (The
    driver's type code, None here, matters to none of our columns' types.)"""
    return type_._cached_result_processor(dialect, None)
