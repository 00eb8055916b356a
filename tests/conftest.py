"""Database fixtures: every store test runs on SQLite, and again on PostgreSQL when
PBEM_TEST_DATABASE_URL is set (.ci/run sets it to the local server)."""

import hashlib
import os
import shutil
import sqlite3
import subprocess
import uuid
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy import create_engine, make_url, text

# Hypothesis's 200 ms a example is a timed test: on a loaded machine (xdist's two processes a
# core, a CI neighbour) it failed properties that were right. Speed is measured in bench/.
settings.register_profile("pbem", deadline=None)
settings.load_profile("pbem")

PG_URL = os.environ.get("PBEM_TEST_DATABASE_URL")
BACKENDS = ["sqlite"] + (["postgresql"] if PG_URL else [])


def pytest_report_header(config):
    if not PG_URL:
        return "PostgreSQL tests skipped: set PBEM_TEST_DATABASE_URL to run them"
    return f"PostgreSQL tests on {PG_URL}"


@pytest.fixture(autouse=True)
def rounds_at_once(monkeypatch):
    """The move that ends a league round opens the next before it returns, so a test sees
    it at once (tests/test_league_rounds.py tests the background opening itself)."""
    from pbem import play

    monkeypatch.setattr(play, "ROUNDS_IN_BACKGROUND", False)


@pytest.fixture(autouse=True)
def site_key(monkeypatch):
    """A secret key in the environment, as an operator may set it: the commands that tests
    run on a database of their own in a folder of their own find a site, not a missing key
    (pbem.config.require_site). Tests of the key file unset it."""
    monkeypatch.setenv("PBEM_SECRET_KEY", "tests-secret-key")


def migrations_key() -> str:
    """A digest of the migration files alembic runs, so a template is never stale."""
    import pbem.migrations

    folder = Path(pbem.migrations.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    """One migrated SQLite file a test run, in the run's own temporary folder."""
    from pbem.store.db import engine_for, upgrade

    path = tmp_path_factory.mktemp("template") / f"pbem-{migrations_key()}.db"
    url = f"sqlite:///{path}"
    upgrade(url)
    engine_for(url).dispose()
    with closing(sqlite3.connect(path)) as conn:  # all in the main file: it is copied alone
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def pg_schema_url(schema: str) -> str:
    sep = "&" if "?" in PG_URL else "?"
    return f"{PG_URL}{sep}options=-csearch_path%3D{schema}"


@pytest.fixture(scope="session")
def pg_admin():
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    yield admin
    admin.dispose()


def pg_dump(schema: str) -> str:
    """The schema's DDL and rows as SQL (pg_dump, the server's client tools), without the
    psql-only backslash lines."""
    url = make_url(PG_URL).set(drivername="postgresql", password=None)
    password = make_url(PG_URL).password  # in the environment, never on a command line
    env = dict(os.environ, **({"PGPASSWORD": password} if password else {}))
    out = subprocess.run(["pg_dump", "--inserts", "--no-owner",
                          f"--schema={schema}", url.render_as_string(hide_password=False)],
                         capture_output=True, text=True, check=True, env=env).stdout
    return "\n".join(line for line in out.splitlines() if not line.startswith("\\"))


@pytest.fixture(scope="session")
def pg_template(pg_admin) -> tuple[str, str]:
    """One migrated PostgreSQL schema a test run, and its dump, replayed for each test. Its
    name is this run's own (other runs use the same server), dropped at the end."""
    from pbem.store.db import engine_for, upgrade

    name = f"pbem_tpl_{migrations_key()}_{uuid.uuid4().hex[:8]}"
    with pg_admin.connect() as c:
        c.execute(text(f"CREATE SCHEMA {name}"))
    try:
        upgrade(pg_schema_url(name))
        engine_for(pg_schema_url(name)).dispose()
        yield name, pg_dump(name)
    finally:
        with pg_admin.connect() as c:
            c.execute(text(f"DROP SCHEMA IF EXISTS {name} CASCADE"))


@pytest.fixture(params=BACKENDS)
def db_url(request, tmp_path):
    """A fresh, migrated database: a copy of the run's migrated SQLite file (1-2 ms), or a
    PostgreSQL schema made by replaying the dump of the run's migrated one (0.05-0.2 s; a
    database cloned with CREATE DATABASE TEMPLATE is as quick to make, but dropping it took
    0.2-9 s on a busy server), rather than the whole migration chain each (0.5-1.9 s)."""
    from pbem.store.db import engine_for

    if request.param == "sqlite":
        path = tmp_path / "pbem.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite:///{path}"
        return
    template, dump = request.getfixturevalue("pg_template")
    admin = request.getfixturevalue("pg_admin")
    schema = "t_" + uuid.uuid4().hex[:12]
    with admin.connect() as c:  # the names are ours, unique: a plain replace is exact
        c.exec_driver_sql(dump.replace(template, schema))
    url = pg_schema_url(schema)
    yield url
    engine_for(url).dispose()
    with admin.connect() as c:
        c.execute(text(f"DROP SCHEMA {schema} CASCADE"))


@pytest.fixture
def store(db_url):
    from pbem.store.states import Store

    return Store(db_url)


@pytest.fixture
def app(store, tmp_path, monkeypatch):
    """The web app on `store`, with settings of its own (tests.web_helpers.make_app)."""
    from tests.web_helpers import make_app

    return make_app(store, tmp_path, monkeypatch)


@pytest.fixture
def client(app):
    return app.test_client()
