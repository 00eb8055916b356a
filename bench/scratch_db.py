"""A throwaway database for a benchmark: a SQLite file in /tmp, or a PostgreSQL schema of
its own; migrated on creation, removed on exit."""

import secrets
import shutil
import tempfile

from sqlalchemy import create_engine, text

from pbem.store.db import engine_for, upgrade


class ScratchDatabase:
    def __init__(self, pg_url: str | None = None):
        self.pg_url = pg_url
        self.kind = "postgresql" if pg_url else "sqlite"
        if pg_url is None:
            self.dir = tempfile.mkdtemp(prefix="pbem-bench-")
            self.url = f"sqlite:///{self.dir}/bench.db"
        else:
            self.schema = f"bench_{secrets.token_hex(4)}"
            self._admin(f"CREATE SCHEMA {self.schema}")
            sep = "&" if "?" in pg_url else "?"
            self.url = f"{pg_url}{sep}options=-csearch_path%3D{self.schema}"
        upgrade(self.url)

    def _admin(self, sql: str) -> None:
        admin = create_engine(self.pg_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(sql))
        admin.dispose()

    def close(self) -> None:
        engine_for(self.url).dispose()
        if self.pg_url is None:
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            self._admin(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
