"""Database fixtures: every store test runs on SQLite, and again on PostgreSQL when
PBEM_TEST_DATABASE_URL is set (.ci/run sets it to the local server)."""

import hashlib
import os
import shutil
import sqlite3
import uuid
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url, text

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


def pg_database_url(name: str) -> str:
    return make_url(PG_URL).set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def pg_admin():
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    yield admin
    admin.dispose()


@pytest.fixture(scope="session")
def pg_template(pg_admin) -> str:
    """One migrated PostgreSQL database a test run, cloned for each test. Its name is this
    run's own (other runs on the server clone theirs), and it is dropped at the end."""
    from pbem.store.db import engine_for, upgrade

    name = f"pbem_tpl_{migrations_key()}_{uuid.uuid4().hex[:8]}"
    with pg_admin.connect() as c:
        c.execute(text(f"CREATE DATABASE {name}"))
    try:
        upgrade(pg_database_url(name))
        engine_for(pg_database_url(name)).dispose()  # a template takes no connection
        yield name
    finally:
        with pg_admin.connect() as c:
            c.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture(params=BACKENDS)
def db_url(request, tmp_path):
    """A fresh, migrated database: a copy of the run's migrated SQLite file (1-2 ms), or a
    PostgreSQL database cloned from the run's migrated template (about 50 ms) rather than
    the whole migration chain for each test (0.5-1.9 s)."""
    from pbem.store.db import engine_for

    if request.param == "sqlite":
        path = tmp_path / "pbem.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite:///{path}"
        return
    template = request.getfixturevalue("pg_template")
    admin = request.getfixturevalue("pg_admin")
    name = "t_" + uuid.uuid4().hex[:12]
    with admin.connect() as c:
        c.execute(text(f"CREATE DATABASE {name} TEMPLATE {template}"))
    url = pg_database_url(name)
    yield url
    engine_for(url).dispose()
    with admin.connect() as c:  # FORCE: a connection a test left open does not block it
        c.execute(text(f"DROP DATABASE {name} WITH (FORCE)"))


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
