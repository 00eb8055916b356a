"""The `pbem` command: one module a command group, the helpers they share in `common`.

    rules    pbem rules list|show, simulate, demo      (no database)
    game     pbem game new|list|show|export|import, move, replay, verify
    db       pbem init, pbem db upgrade
    backup   pbem backup FILE, restore FILE
    league   pbem league ...
    mail     pbem smtp, outbox, digest, mail shunt list|retry|drop
    dkim     pbem dkim keygen|record
    serve    pbem serve, clock
    player   pbem player export|forget
"""

import click
from sqlalchemy import exc

from .. import play
from ..config import SettingError, load
from . import backup, db, dkim, game, league, mail, player, rules, serve
from .common import stop_on_signals, unreachable


class _Main(click.Group):
    """Every command stops cleanly on SIGINT and SIGTERM, and fails in one line (no
    traceback) on a setting it cannot use or a database it cannot reach."""

    def invoke(self, ctx):
        stop_on_signals()
        try:
            return super().invoke(ctx)
        except SettingError as e:  # a mistyped setting, a missing site: say which
            raise click.ClickException(str(e)) from None
        except exc.OperationalError as e:  # a database down, missing, refusing us
            raise unreachable(load().database_url, e) from None


@click.group(cls=_Main)
@click.version_option(package_name="pbem", message="pbem %(version)s")
def main():
    """pbem: Spades by email. Settings: docs/settings.md (the environment, or the TOML file
    that PBEM_CONFIG names)."""


@main.result_callback()
def _finish(*_args, **_kwargs):
    """A move that ended a league round opens the next in the background: the command
    waits for it before the process exits (else the clock's tick would open it later)."""
    play.rounds_opened()


for _module in (rules, game, db, backup, league, mail, dkim, serve, player):
    for _command in _module.COMMANDS:
        main.add_command(_command)
