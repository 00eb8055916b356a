"""The `pbem` command: one module a command group, the helpers they share in `common`.

    rules    pbem rules list|show, simulate, demo      (no database)
    game     pbem game new|list|show|export|import, move, replay, verify
    db       pbem db upgrade
    league   pbem league ...
    mail     pbem smtp, outbox, digest, mail shunt list|retry|drop
    dkim     pbem dkim keygen|record
    serve    pbem serve, clock
"""

import click

from .. import play
from ..config import SettingError
from . import db, dkim, game, league, mail, rules, serve


class _Main(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except SettingError as e:  # a mistyped setting: say which, not a traceback
            raise click.ClickException(str(e)) from e


@click.group(cls=_Main)
def main():
    """pbem: Spades by email."""


@main.result_callback()
def _finish(*_args, **_kwargs):
    """A move that ended a league round opens the next in the background: the command
    waits for it before the process exits (else the clock's tick would open it later)."""
    play.rounds_opened()


for _module in (rules, game, db, league, mail, dkim, serve):
    for _command in _module.COMMANDS:
        main.add_command(_command)
