"""The organiser's rulings on a league game (docs/leagues.md, "Rulings"): a win, a loss for
one side, a replay or a score adjustment, each with a reason, and taking one back. A ruling
is an `adjudicate` event in the game's log, written through the door (pbem.play.adjudicate);
the players at the table are mailed it. What the league then counts: pbem.league.verdicts."""

from typing import NamedTuple

from ..config import load
from ..engine import Rules
from ..engine.acts import clean_talk
from ..league.manage import LeagueError, league_fixture
from ..league.verdicts import describe
from ..notify import mail_row
from ..numbers import whole
from ..play import Refused, Result
from ..play import adjudicate as write_ruling
from ..store.games import mailable, players_of
from ..store.states import Store

USAGE = ("a ruling is: win SIDE, loss SIDE, replay, adjust POINTS... (one whole number a "
         "side, e.g. +20 -20), or undo MOVE; sides are numbered from 1")
MAX_WORDS = 12  # a ruling is a few words; more is not a ruling


def parse(words: list[str], reason: str) -> dict:
    """A ruling from its words, as the organiser writes it (sides from 1), or LeagueError.
    The engine checks the rest (the game's sides, the bounds) when it is written."""
    if not words or len(words) > MAX_WORDS:
        raise LeagueError(USAGE)
    kind, rest = words[0].lower(), words[1:]
    reason = clean_talk(reason or "")
    if not reason:
        raise LeagueError("give the reason for the ruling")
    numbers = [_number(w) for w in rest]
    if kind in ("win", "loss") and len(numbers) == 1:
        return {"result": kind, "side": numbers[0] - 1, "reason": reason}
    if kind == "replay" and not numbers:
        return {"result": kind, "reason": reason}
    if kind == "adjust" and numbers:
        return {"result": kind, "points": numbers, "reason": reason}
    if kind == "undo" and len(numbers) == 1:
        return {"result": kind, "undo": numbers[0], "reason": reason}
    raise LeagueError(USAGE)


def _number(word: str) -> int:
    digits = word[1:] if word[:1] in "+-" else word
    number = whole(digits, 999999)
    if number is None:
        raise LeagueError(f"{word[:20]!r} is not a whole number here: {USAGE}")
    return -number if word[:1] == "-" else number


class Via(NamedTuple):
    """Where a ruling came from, as the door logs it: the source, and the ref that applies a
    mail's line once."""
    source: str = "cli"
    ref: str | None = None


COMMAND_LINE = Via("cli")


def adjudicate(store: Store, league_id: int, by: int | str, game_id: int, ruling: dict,
               via: Via = COMMAND_LINE) -> Result:
    """Write `ruling` (from `parse`) on a finished game of the league, as its organiser
    (`by`): returns the door's Result; LeagueError (nothing written) if it may not."""
    with store.session() as s:
        league, fixture = league_fixture(s, league_id, by, game_id)
        if fixture.status != "over":
            raise LeagueError(f"game {game_id} is not over: a ruling comes once it is")
        _check_side(ruling, len(Rules.from_dict(league.rules).sides))
        name = league.name
    try:
        return write_ruling(store, game_id, ruling, via.source, via.ref,
                            mails=lambda s, game, seats, ev: _mails(s, game, seats, ev, name))
    except Refused as e:
        raise LeagueError(e.reason) from None


def _check_side(ruling: dict, sides: int) -> None:
    """In the organiser's words (sides from 1); the engine checks the rest."""
    side = ruling.get("side")
    if side is not None and not 0 <= side < sides:
        raise LeagueError(f"side {side + 1} is not a side of this game: sides 1 to {sides}")


def _mails(s, game, seats, ev, league_name) -> list[dict]:
    """Every player at the table is told the ruling and its reason."""
    cfg, players = load(), players_of(s, seats)
    text = (f"The organiser of {league_name} ruled on game {game.id}: {describe(ev)}.\n"
            f"The league's table counts it so. The game: {cfg.base_url}/g/{game.id}\n")
    return [mail_row(cfg, x, players[x.player_id], f"ruling:{game.id}:{ev['seq']}:"
                     f"{x.seat}", f"Game {game.id}: the organiser's ruling", text)
            for x in seats if not x.robot and mailable(players.get(x.player_id))]
