"""Database fixtures: every store test runs on SQLite, and again on PostgreSQL when
PBEM_TEST_DATABASE_URL is set (.ci/run sets it to the local server)."""

import os
import uuid

import pytest
from sqlalchemy import create_engine, text

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


@pytest.fixture(params=BACKENDS)
def db_url(request, tmp_path):
    """A fresh, migrated database: a SQLite file, or a PostgreSQL schema of its own."""
    from pbem.store.db import upgrade

    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'pbem.db'}"
        upgrade(url)
        yield url
        return
    schema = "t_" + uuid.uuid4().hex[:12]
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in PG_URL else "?"
    url = f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    upgrade(url)
    yield url
    from pbem.store.db import engine_for

    engine_for(url).dispose()
    with admin.connect() as c:
        c.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


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
