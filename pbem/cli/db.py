"""`pbem init` (a new site) and `pbem db`: the database. Only these (and a restore) make a
database or a key: every other command refuses a site that is not there
(pbem.config.require_site)."""

import click

from ..config import Settings, ensure_data_dir, load
from ..store.db import upgrade
from ..store.push import keygen
from .common import revision, where


@click.command("init")
@click.option("--new-key", is_flag=True, help="Make a new secret key for a database that "
              "has none (every link mailed before stops working).")
def init_cmd(new_key):
    """Make a new site, or finish one: the data directory (PBEM_VAR_DIR), its secret key,
    its VAPID key (web push) and the database, each only if missing. Safe to run again."""
    cfg = load()
    lost_key = not cfg.secret_key and not cfg.key_file.exists() and _has_database(cfg)
    if lost_key and not new_key:
        raise click.ClickException(
            f"the database at {where(cfg.database_url)} has no secret key at {cfg.key_file}: "
            "restore the site's key (or set PBEM_SECRET_KEY); --new-key makes a new one, and "
            "every link mailed before stops working")
    made = ensure_data_dir(cfg)
    if keygen(cfg.vapid_key):  # web push: one key for the site's life (docs/web.md)
        made.append(f"a new VAPID key {cfg.vapid_key}")
    upgrade(cfg.database_url)
    for what in made:
        click.echo(f"made {what}")
    click.echo(f"data directory {cfg.var_dir}; database at {where(cfg.database_url)} "
               "is up to date")


def _has_database(cfg: Settings) -> bool:
    """A database with our tables in it already (a file, or a migrated PostgreSQL)?"""
    db = cfg.sqlite_file
    if db is not None and not db.exists():
        return False
    return revision(cfg.database_url) is not None


@click.group("db")
def db_group():
    """The database (DATABASE_URL; default the SQLite file in the data directory)."""


@db_group.command("upgrade")
def db_upgrade():
    """Create or migrate the database to the newest schema (Alembic upgrade head)."""
    url = load().database_url
    upgrade(url)
    click.echo(f"database at {where(url)} is up to date")


COMMANDS = [init_cmd, db_group]
