"""A move's mails rendered before its write (issue 15): a turn mail costs more to render
than the rest of a due timeout's write, and the write holds the lock. The caller renders
them from the table its read foresaw (the move, the robots' replies: pbem.play.Plan); the
write takes the rows only if everything the mails are made of is exactly what it finds
(`fits`), else it renders them itself, as before."""

from dataclasses import dataclass
from datetime import datetime

from . import notify


@dataclass(frozen=True)
class Prepared:
    key: tuple  # what the mails were made of (`key`)
    now: datetime  # the time they count deadlines from: the write arms from it too
    rows: list[dict]


def key(game, seats, players, st, events, before) -> tuple:
    """All a move's mails depend on, beside the pending orders and bank clocks (a prepared
    move has neither): the game row, its seats, their players (names, addresses, settings),
    the state (its seq, after `events`) and where the hand and trick stood before."""
    return (game.id, game.status, game.time_control, st.seq, events, before,
            [(x.seat, x.player_id, x.robot, x.token, _player(players.get(x.player_id)))
             for x in seats])


def _player(p) -> tuple | None:
    return None if p is None else (p.email, p.name, p.prefs)


def prepare(game, seats, players, st, events, before, now) -> Prepared:
    """The mails the write would queue for `events` (the table being `st` after them)."""
    return Prepared(key(game, seats, players, st, events, before), now,
                    notify.mails(game, seats, players, st, events, before, now=now))


def fits(prepared: Prepared | None, game, seats, players, st, events, before, orders,
         clocks) -> bool:
    """Does the write find the table as prepared for? No pending orders and no bank clock
    (the prepared mails tell of neither), and the same key."""
    return (prepared is not None and not orders and clocks is None
            and prepared.key == key(game, seats, players, st, events, before))
