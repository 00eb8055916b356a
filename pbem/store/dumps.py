"""The database in a backup (pbem.store.backup): dumped as a consistent snapshot while the
site serves, and loaded into an empty site. Three kinds:

- `sqlite`: the stdlib's online backup (`sqlite3.Connection.backup`, one step: one read
  transaction, which in WAL mode never stops a writer); restored by the same API over the
  target file, or row by row into PostgreSQL;
- `pg_dump`: PostgreSQL's own dump of the site's schema, data only (one snapshot);
  restored by COPY into a schema our migrations made at the dump's revision, so it goes
  into any schema of any PostgreSQL database;
- `rows`: every table's rows as JSON lines, read through SQLAlchemy in one REPEATABLE READ
  (PostgreSQL) or reading (SQLite) transaction: where pg_dump is missing, or asked for;
  restored into either backend.

A load into tables runs in one transaction; PostgreSQL's sequences then go on from the
highest id."""

import base64
import json
import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

from alembic import command
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import MetaData, Table, func, select, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import SQLAlchemyError

from .db import READ_ONLY, alembic_config, engine_for, make_engine, upgrade

KINDS = {"sqlite": "database.sqlite", "pg_dump": "database.pgdump", "rows": "database.jsonl"}
BATCH = 1000  # rows a load inserts at once


class BackupError(Exception):
    """A backup or restore that cannot be done: one line saying why."""


def migrations(url: str) -> list[str]:
    """Our migrations' revisions, oldest first."""
    script = ScriptDirectory.from_config(alembic_config(url))
    return [r.revision for r in reversed(list(script.walk_revisions()))]


def dump(url: str, scratch: Path, logical: bool) -> tuple[str, str, Path]:
    """The database's dump, a file in `scratch`: its kind, the revision it is at, the file."""
    try:
        if url.startswith("sqlite") and not logical:
            out = scratch / "copy.db"
            return "sqlite", _sqlite_copy(url, out), out
        out = scratch / "dump.sql"
        if not url.startswith("sqlite") and not logical and shutil.which("pg_dump"):
            return "pg_dump", _pg_dump(url, out), out
        return "rows", _rows_dump(url, out), out
    except SQLAlchemyError as e:
        raise BackupError(f"cannot read the database: {first_line(e)}") from e


def _sqlite_copy(url: str, copy: Path) -> str:
    path = make_url(url).database
    if not path or not Path(path).is_file():
        raise BackupError(f"no database at {path}")
    with closing(sqlite3.connect(path, timeout=30)) as src, \
            closing(sqlite3.connect(copy)) as dst:
        src.backup(dst)  # pages=-1: the whole file in one step, one consistent read
        dst.execute("PRAGMA journal_mode=DELETE")  # one file, nothing beside it
        return _sqlite_revision(dst)


def _sqlite_revision(conn: sqlite3.Connection) -> str:
    try:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError as e:
        raise BackupError(f"not a pbem database: {e}") from e
    if row is None:
        raise BackupError("the database was never migrated (`pbem db upgrade`)")
    return str(row[0])


def _pg_dump(url: str, out: Path) -> str:
    """pg_dump of the site's schema (its search_path's first), data only: one snapshot."""
    with engine_for(url).connect() as c:
        schema = c.execute(text("SELECT current_schema()")).scalar()
    parsed = make_url(url)
    conninfo = parsed.set(drivername="postgresql", password=None)
    env = dict(os.environ, **({"PGPASSWORD": parsed.password} if parsed.password else {}))
    run = subprocess.run(["pg_dump", "--data-only", "--no-owner", f"--schema={schema}",
                          f"--file={out}", conninfo.render_as_string(hide_password=False)],
                         capture_output=True, text=True, env=env)
    if run.returncode != 0:
        raise BackupError(f"pg_dump failed: {first_line(run.stderr)}")
    revision = None
    with open(out, "rb") as f:
        for table, _columns, rows in _copy_blocks(f):
            if table == "alembic_version" and rows:
                revision = rows.decode().split("\n")[0].strip()
    if not revision:
        raise BackupError(f"the schema {schema} was never migrated (`pbem db upgrade`)")
    return revision


def _rows_dump(url: str, out: Path) -> str:
    """Every table's rows in one consistent read: a header line a table, a line a row."""
    engine = engine_for(url)
    pg = engine.dialect.name == "postgresql"
    options = {"isolation_level": "REPEATABLE READ"} if pg else {READ_ONLY: True}
    with engine.connect().execution_options(**options) as c, open(out, "w") as f:
        with c.begin():  # SQLite: one reading transaction is one snapshot too
            if pg:  # a large table may take a while
                c.execute(text("SET LOCAL statement_timeout = 0"))
            revision = MigrationContext.configure(c).get_current_revision()
            if revision is None:
                raise BackupError("the database was never migrated (`pbem db upgrade`)")
            meta = MetaData()
            meta.reflect(c)
            for table in _data_tables(meta):
                names = [col.name for col in table.columns]
                f.write(json.dumps({"table": table.name, "columns": names}) + "\n")
                for row in c.execute(select(table).order_by(*table.primary_key.columns)):
                    f.write(json.dumps([_plain(v) for v in row], ensure_ascii=False) + "\n")
    return revision


def _data_tables(meta: MetaData) -> list[Table]:
    """The tables parents first; alembic's own is the manifest's revision."""
    return [t for t in meta.sorted_tables if t.name != "alembic_version"]


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, Decimal):
        return str(value)
    return value


COPY = re.compile(rb'COPY (?:"[^"]+"|\w+)\.(\w+) \(((?:"?\w+"?, )*"?\w+"?)\) FROM stdin;\n')


def _copy_blocks(f: IO[bytes]) -> Iterator[tuple[str, str, bytes]]:
    """(table, columns, COPY text) of each table in a pg_dump, in its order (parents
    first). Only the COPY lines are read: a row's text escapes its newlines, so a block
    ends at the first line that is just `\\.`."""
    for line in f:
        m = COPY.fullmatch(line)
        if m is None:
            continue
        rows = bytearray()
        for row in f:
            if row == b"\\.\n":
                break
            rows += row
        else:
            raise BackupError("the dump ends inside a table's rows")
        yield m.group(1).decode(), m.group(2).decode(), bytes(rows)


def first_line(e: object) -> str:
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
    return lines[0] if lines else type(e).__name__


def sqlite_restore(url: str, dump: Path) -> None:
    """The archive's file copied over the (empty) target by the online backup API, which
    takes the target's locks as any writer does."""
    path = make_url(url).database
    assert path  # a file, not ":memory:"
    engine_for(url).dispose()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(dump)) as src, closing(sqlite3.connect(path)) as dst:
        try:
            if src.execute("PRAGMA quick_check").fetchall() != [("ok",)]:
                raise BackupError("the backup's database is damaged (quick_check)")
            src.backup(dst)
        except sqlite3.DatabaseError as e:
            raise BackupError(f"the backup's database is damaged: {e}") from e


def load_into(url: str, kind: str, revision: str, dump: Path) -> None:
    """Rows into a schema our migrations made at the archive's revision, in one
    transaction; then PostgreSQL's sequences go on from the highest id."""
    engine = engine_for(url)
    _migrate_to(url, engine, revision)
    with engine.begin() as c:
        meta = MetaData()
        meta.reflect(c)
        if engine.dialect.name == "postgresql":
            c.execute(text("SET LOCAL statement_timeout = 0"))
        if kind == "pg_dump":
            _copy_in(c, dump, meta)
        else:
            for table, rows in _rows(kind, dump, meta):
                c.execute(table.insert(), rows)
        if engine.dialect.name == "postgresql":
            _sequences_on(c, meta)


def _migrate_to(url: str, engine: Engine, revision: str) -> None:
    """The target's (empty) tables at `revision`, whichever way that is."""
    revisions = migrations(url)
    with engine.connect() as c:
        current = MigrationContext.configure(c).get_current_revision()
    if current is not None and revisions.index(current) > revisions.index(revision):
        command.downgrade(alembic_config(url), revision)
    elif current != revision:
        upgrade(url, revision)


def _copy_in(c: Connection, dump: Path, meta: MetaData) -> None:
    """pg_dump's COPY blocks, by psycopg's COPY on this transaction's connection, each into
    the table of its name in the target's own schema (pg_dump names the source's)."""
    driver = c.connection.driver_connection
    assert driver is not None  # a live connection: this transaction's
    with open(dump, "rb") as f, driver.cursor() as cursor:
        for table, columns, rows in _copy_blocks(f):
            if table == "alembic_version":
                continue
            if table not in meta.tables:
                raise BackupError(f"the dump has a table {table!r} we do not know")
            try:
                with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                    copy.write(rows)
            except c.dialect.loaded_dbapi.Error as e:
                raise BackupError(f"the restore failed: {first_line(e)}") from e


def _rows(kind: str, dump: Path, meta: MetaData) -> Iterator[tuple[Table, list[dict]]]:
    """The archive's rows in batches, each value as the target's column takes it."""
    if kind == "sqlite":
        yield from _sqlite_rows(dump, meta)
        return
    with open(dump) as f:
        table: Table | None = None
        columns: list[str] = []
        batch: list[dict] = []
        for line in f:
            item = json.loads(line)
            if isinstance(item, dict):
                if table is not None and batch:
                    yield table, batch
                if item["table"] not in meta.tables:
                    raise BackupError(f"the dump has a table {item['table']!r} we do not know")
                table, columns, batch = meta.tables[item["table"]], item["columns"], []
                continue
            if table is None or not isinstance(item, list):
                raise BackupError("the backup's rows are damaged (a row before its table)")
            batch.append({k: _typed(table, k, v) for k, v in zip(columns, item, strict=True)})
            if len(batch) >= BATCH:
                yield table, batch
                batch = []
        if table is not None and batch:
            yield table, batch


def _typed(table: Table, column: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        kind = table.columns[column].type.python_type
    except NotImplementedError:
        return value
    if kind in (datetime, date, time):
        return kind.fromisoformat(value)
    if kind is bytes:
        return base64.b64decode(value)
    return Decimal(value) if kind is Decimal else value


def _sqlite_rows(dump: Path, meta: MetaData) -> Iterator[tuple[Table, list[dict]]]:
    """A SQLite archive into PostgreSQL: its rows as SQLAlchemy reads them."""
    source = make_engine(f"sqlite:///{dump}")
    try:
        with source.connect() as c:
            theirs = MetaData()
            theirs.reflect(c)
            for table in _data_tables(theirs):
                result = c.execute(select(table).order_by(*table.primary_key.columns))
                for part in result.mappings().partitions(BATCH):
                    yield meta.tables[table.name], [dict(r) for r in part]
    finally:
        source.dispose()


def _sequences_on(c: Connection, meta: MetaData) -> None:
    for table in _data_tables(meta):
        if "id" not in table.columns:
            continue
        high = c.execute(select(func.max(table.columns["id"]))).scalar()
        if high is not None:
            c.execute(text("SELECT setval(pg_get_serial_sequence(:t, 'id'), :n)"),
                      {"t": table.name, "n": high})
