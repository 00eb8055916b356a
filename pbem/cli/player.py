"""pbem player export ID|ADDRESS [FILE], pbem player forget ID|ADDRESS: a player's own data
for the operator (pbem.privacy), as the player gets it from their home page or by mail."""

import click

from ..privacy.export import NoPlayer, as_json, find, player_data
from ..privacy.forget import forget
from .common import fail, open_store


@click.group("player")
def player_group():
    """A player's own data: export it, or forget the player."""


@player_group.command("export")
@click.argument("who")
@click.argument("file", required=False, type=click.Path(dir_okay=False, writable=True))
def player_export(who, file):
    """Everything held about a player (by id or address) as JSON, to FILE or stdout."""
    store = open_store()
    try:
        text = as_json(player_data(store, _id(find(store, who))))
    except NoPlayer as e:
        fail(str(e), 1)
    if file:
        with open(file, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        click.echo(text, nl=False)


@player_group.command("forget")
@click.argument("who")
@click.option("--yes", is_flag=True, help="Do not ask first.")
def player_forget(who, yes):
    """Stop all mail to a player and put an anonymous handle in place of their address and
    name everywhere; their seats in games in play go to robots. It cannot be undone."""
    store = open_store()
    try:
        player = find(store, who)
    except NoPlayer as e:
        fail(str(e), 1)
    if not yes:
        click.confirm(f"Forget player {player.id} for good?", abort=True)
    click.echo(f"player {player.id} is now {forget(store, _id(player))}")


def _id(player) -> int:
    assert player.id is not None  # a stored player's
    return player.id


COMMANDS = [player_group]
