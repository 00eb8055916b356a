"""The bank clock: each seat has a bank of hours. The time it spends waiting to act (its own
time, pbem.owntime: not its rest days, vacation or the game's weekend pause) is taken from
the bank; each of its moves adds the increment, up to the cap; its timeout falls when the
bank runs out. `sync` keeps the SeatClock rows, in the move's own transaction.

A move the server makes for the seat (an automatic play or an order: source "auto") costs
nothing and adds nothing: the seat was never really asked. A timeout (the robot's move, by
the clock or by the carer's link) empties the bank and then adds the increment, so the
player has that long for the next move (rather than the robot playing all the rest of the
seat's moves at once)."""

from datetime import datetime, timedelta

from sqlmodel import Session, select

from . import owntime
from .engine.errors import N_, Refusal, Words
from .store.models import Player, SeatClock
from .table import Table

DEFAULTS = {"bank_hours": 72, "increment_hours": 24, "cap_hours": 168}
HOUR = 3600


def check(tc: dict, most: int) -> None:
    """A Refusal (a ValueError) unless the bank's numbers are whole hours in bounds."""
    for key, lo, what in (("bank_hours", 1, N_("the starting bank")),
                          ("increment_hours", 0, N_("the increment a move")),
                          ("cap_hours", 1, N_("the cap of the bank"))):
        if type(tc[key]) is not int or not lo <= tc[key] <= most:
            raise Refusal(N_("%(what)s is a whole number of hours from %(lo)s to %(hi)s, not "
                             "%(given)s"), what=Words(what), lo=lo, hi=most,
                          given=repr(tc[key]))
    if tc["cap_hours"] < tc["bank_hours"]:
        raise Refusal(N_("the cap (%(cap)s h) is below the starting bank (%(bank)s h)"),
                      cap=tc["cap_hours"], bank=tc["bank_hours"])


def start_hours(tc: dict, clock: SeatClock | None) -> float:
    """The own hours a new wait may last: what the seat's bank holds."""
    return (clock.bank_seconds if clock else tc["bank_hours"] * HOUR) / HOUR


def sync(s: Session, t: Table, tc: dict, moved: int | None = None,
         played_for: frozenset[int] = frozenset(), rows: dict[int, SeatClock] | None = None
         ) -> dict[int, SeatClock]:
    """Bring each human seat's bank to `t.now`: a wait that ended is paid for (`moved`: the
    seat whose own move, or timeout, this is, which also earns the increment;
    `played_for`: seats whose card the server played, free), and a seat now asked to act
    starts waiting. Returns the rows by seat (pending in `s`); `rows`: the game's rows,
    read already (`deadlines.rebuild` reads a batch's at once)."""
    st = t.st
    rows = dict(for_game(s, t.game_id) if rows is None else rows)
    acting = set(st.to_act()) if st.phase != "over" else set()
    for seat in t.seats:
        if seat.robot or seat.player_id is None:
            continue
        row = rows.get(seat.seat)
        if row is None:
            row = rows[seat.seat] = SeatClock(game_id=t.game_id, seat=seat.seat,
                                              bank_seconds=tc["bank_hours"] * HOUR)
        _settle(row, tc, t.players.get(seat.player_id), t.now, seat.seat in acting,
                seat.seat == moved, seat.seat in played_for, st.move_seq)
        s.add(row)
    return rows


def _settle(row: SeatClock, tc: dict, player: Player | None, now: datetime, acting: bool,
            moved: bool, free: bool, seq: int) -> None:
    if row.since is not None and (not acting or moved or free):
        if moved or not free:
            used = owntime.calendar(player, tc["weekend_pause"]).spent(row.since, now)
            row.bank_seconds = max(0, row.bank_seconds - int(used.total_seconds()))
        if moved:
            row.bank_seconds = min(tc["cap_hours"] * HOUR,
                                   row.bank_seconds + tc["increment_hours"] * HOUR)
        row.since = None
    if row.since is None and acting:
        row.since, row.seq = owntime.wait_starts(player, now), seq


def forget_waits(rows: dict[int, SeatClock], undone: int) -> None:
    """An undo of move `undone`: the waits that move began never were, so they cost the
    seats nothing (their rows as the move found them, but for a bank a table gave meanwhile).
    Before `sync`, which then starts no wait for a seat no longer asked."""
    for row in rows.values():
        if row.since is not None and row.seq >= undone:
            row.since = None


def resume(row: SeatClock, tc: dict, player: Player | None, due: datetime) -> None:
    """After `sync`: the seat that took its move back waits again to the deadline it had
    for it (`due`), so its bank holds its own time from now to then: the move's increment
    goes with the move, and bid then undo, again and again, mints no time."""
    since = row.since or due  # (it waits: `sync` started it)
    spent = owntime.calendar(player, tc["weekend_pause"]).spent(since, due) \
        if due > since else timedelta(0)
    row.bank_seconds = int(spent.total_seconds())


def left(tc: dict, clock: SeatClock | None, player: Player | None, now: datetime) -> timedelta:
    """What the seat's bank holds at `now` (its wait so far paid for)."""
    if clock is None:
        return timedelta(hours=tc["bank_hours"])
    bank = timedelta(seconds=clock.bank_seconds)
    if clock.since is None:
        return bank
    used = owntime.calendar(player, tc["weekend_pause"]).spent(clock.since, now)
    return max(timedelta(0), bank - used)


def for_game(s: Session, game_id: int) -> dict[int, SeatClock]:
    return {r.seat: r for r in s.exec(select(SeatClock).where(SeatClock.game_id == game_id))}
