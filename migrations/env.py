"""Alembic environment: the tables are pbem.store.models' SQLModel metadata."""

from alembic import context
from sqlmodel import SQLModel

import pbem.store.models  # noqa: F401  (registers the tables)
from pbem.store.db import make_engine

config = context.config
target_metadata = SQLModel.metadata


def run_migrations_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"),
                      target_metadata=target_metadata, literal_binds=True,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = make_engine(config.get_main_option("sqlalchemy.url"))
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:  # a copied table is dropped and renamed: rows pointing at it must not stop that
            _foreign_keys(connection, "OFF")
        else:  # a migration may rewrite a large table: longer than a page's statement may take
            connection.connection.dbapi_connection.execute("SET statement_timeout = 0")
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=True)  # SQLite alters tables by copying them
        with context.begin_transaction():
            context.run_migrations()
            if sqlite:
                _no_broken_references(connection)
        if sqlite:
            _foreign_keys(connection, "ON")
    engine.dispose()


def _foreign_keys(connection, on_off: str) -> None:
    """SQLite takes this pragma only outside a transaction (the connection autocommits)."""
    connection.connection.dbapi_connection.execute(f"PRAGMA foreign_keys={on_off}")


def _no_broken_references(connection) -> None:
    """With the checks off while tables were copied, check every reference before commit."""
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        raise RuntimeError(f"the migration left rows pointing nowhere: {broken[:5]}")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
