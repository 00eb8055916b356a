"""`pbem backup FILE` and `pbem restore FILE`: the whole site, its keys too (docs/backup.md)."""

from pathlib import Path

import click

from ..config import load
from ..store.backup import BackupError, backup, restore
from .common import fail, where


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--logical", is_flag=True, help="Dump the rows through SQLAlchemy (restores "
              "into either backend) rather than SQLite's backup or pg_dump.")
def backup_command(file: Path, logical: bool) -> None:
    """Write a consistent snapshot of the database and the site's keys to FILE (0600),
    while the site serves."""
    cfg = load()
    try:
        made = backup(cfg, file, logical=logical)
    except BackupError as e:
        fail(str(e), 1)
    click.echo(f"backup of {where(cfg.database_url)} ({made['kind']}, revision "
               f"{made['revision']}) written to {file}")


@click.command("restore")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def restore_command(file: Path) -> None:
    """Restore FILE (made by `pbem backup`) into this empty site: the database, migrated up
    if it is older, and the keys."""
    cfg = load()
    try:
        made = restore(cfg, file)
    except BackupError as e:
        fail(str(e), 1)
    click.echo(f"restored the backup of {made['time']} (revision {made['revision']}) into "
               f"{where(cfg.database_url)}; it is up to date")


COMMANDS = [backup_command, restore_command]
