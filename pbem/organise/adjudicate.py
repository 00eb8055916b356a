"""The organiser's rulings on a league game (docs/leagues.md, "Rulings"): a win, a loss for
one side, a replay or a score adjustment, each with a reason, and taking one back. A ruling
is an `adjudicate` event in the game's log, written through the door (pbem.play.adjudicate);
the players at the table are mailed it. What the league then counts: pbem.league.verdicts."""

from typing import NamedTuple

from ..config import load
from ..engine import Rules
from ..engine.acts import clean_talk
from ..i18n import N_, _, language
from ..league.manage import LeagueError, league_fixture
from ..league.rounds import open_replay
from ..league.verdicts import describe
from ..notify import mail_row
from ..numbers import whole
from ..play import Refused, Result, start
from ..play import adjudicate as write_ruling
from ..store import prefs
from ..store.games import mailable, players_of
from ..store.states import Store

USAGE = N_("a ruling is: win SIDE, loss SIDE, replay, adjust POINTS... (one whole number a "
           "side, e.g. +20 -20), or undo MOVE; sides are numbered from 1")
MAX_WORDS = 12  # a ruling is a few words; more is not a ruling


def parse(words: list[str], reason: str) -> dict:
    """A ruling from its words, as the organiser writes it (sides from 1), or LeagueError.
    The engine checks the rest (the game's sides, the bounds) when it is written."""
    if not words or len(words) > MAX_WORDS:
        raise LeagueError(_(USAGE))
    kind, rest = words[0].lower(), words[1:]
    reason = clean_talk(reason or "")
    if not reason:
        raise LeagueError(_("give the reason for the ruling"))
    numbers = [_number(w) for w in rest]
    if kind in ("win", "loss") and len(numbers) == 1:
        return {"result": kind, "side": numbers[0] - 1, "reason": reason}
    if kind == "replay" and not numbers:
        return {"result": kind, "reason": reason}
    if kind == "adjust" and numbers:
        return {"result": kind, "points": numbers, "reason": reason}
    if kind == "undo" and len(numbers) == 1:
        return {"result": kind, "undo": numbers[0], "reason": reason}
    raise LeagueError(_(USAGE))


def _number(word: str) -> int:
    digits = word[1:] if word[:1] in "+-" else word
    number = whole(digits, 999999)
    if number is None:
        raise LeagueError(_("%(word)s is not a whole number here: %(usage)s")
                          % {"word": repr(word[:20]), "usage": _(USAGE)})
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
            raise LeagueError(_("game %(game)s is not over: a ruling comes once it is")
                              % {"game": game_id})
        replayed = (fixture.result or {}).get("replayed_by")
        if replayed:  # its replay counts now: a ruling belongs on that game
            raise LeagueError(_("game %(game)s was replayed as game %(new)s: rule on that "
                                "game") % {"game": game_id, "new": replayed})
        _check_side(ruling, len(Rules.from_dict(league.rules).sides))
        name = league.name
    try:
        return write_ruling(store, game_id, ruling, via.source, via.ref,
                            mails=lambda s, game, seats, ev: _mails(s, game, seats, ev, name))
    except Refused as e:
        raise LeagueError(e.reason) from None


def deal_replay(store: Store, league_id: int, by: int | str, game_id: int) -> int:
    """Deal again, inside the league, a game ruled "replay": a new table of the same round
    and seats whose result counts in its place (pbem.league.rounds.open_replay). Returns
    the new game's id; LeagueError (nothing written) if the game is not ruled a replay, is
    replayed already, or its season does not run."""
    new_id = open_replay(store, league_id, by, game_id)
    start(store, new_id)  # a crash before this: the league tick deals it
    return new_id


def _check_side(ruling: dict, sides: int) -> None:
    """In the organiser's words (sides from 1); the engine checks the rest."""
    side = ruling.get("side")
    if side is not None and not 0 <= side < sides:
        raise LeagueError(_("side %(side)s is not a side of this game: sides 1 to %(sides)s")
                          % {"side": side + 1, "sides": sides})


def _mails(s, game, seats, ev, league_name) -> list[dict]:
    """Every player at the table is told the ruling and its reason."""
    cfg, players = load(), players_of(s, seats)
    out = []
    for x in seats:
        if x.robot or not mailable(players.get(x.player_id)):
            continue
        with language(prefs.language(players[x.player_id])):
            values = {"league": league_name, "game": game.id, "ruling": describe(ev),
                      "link": f"{cfg.base_url}/g/{game.id}"}
            out.append(mail_row(cfg, x, players[x.player_id],
                                f"ruling:{game.id}:{ev['seq']}:{x.seat}",
                                _("Game %(game)s: the organiser's ruling") % values,
                                _("The organiser of %(league)s ruled on game %(game)s: "
                                  "%(ruling)s.\nThe league's table counts it so. The game: "
                                  "%(link)s") % values + "\n"))
    return out
