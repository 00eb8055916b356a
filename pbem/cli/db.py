"""`pbem db`: the database."""

import click

from ..config import load
from ..store.db import upgrade
from .common import where


@click.group("db")
def db_group():
    """The database (DATABASE_URL; default a SQLite file under ./var)."""


@db_group.command("upgrade")
def db_upgrade():
    """Create or migrate the database to the newest schema (Alembic upgrade head)."""
    url = load().database_url
    upgrade(url)
    click.echo(f"database at {where(url)} is up to date")


COMMANDS = [db_group]
