"""Deadlines: what a game's state and time control ask of the clock, written by pbem.play in
the move's own transaction (`arm`), and derived again from the database at any time
(`rebuild`), so they never depend on a process that was running. The ticker that fires
them is pbem.clock; vacations that move them are pbem.vacation."""

from datetime import UTC, datetime, timedelta

from sqlalchemy import func, update
from sqlmodel import select

from .engine.acts import QUIET
from .store.models import Deadline, Game, Move, Player, Seat
from .store.models import now as utcnow

DEFAULTS = {
    "move_hours": 72,  # the deadline for each move (e.g. 24, 48, 72, 120, 168, 336; or hours)
    "remind_hours": [24, 2],  # reminders this long before the deadline
    "weekend_pause": False,  # Saturday and Sunday (UTC) do not count
    "on_timeout": "robot",  # robot: the robot moves; forfeit: the side loses; wait: the organiser
}
ON_TIMEOUT = ("robot", "forfeit", "wait")
EXTRA = "extra"  # a row that records who gave more time at which move (never fires)

def time_control(game: Game) -> dict:
    tc = dict(DEFAULTS, **(game.time_control or {}))
    if tc["on_timeout"] not in ON_TIMEOUT or tc["move_hours"] <= 0:
        raise ValueError(f"game {game.id} has a bad time control: {tc}")
    return tc


def add_hours(start: datetime, hours: float, weekend_pause: bool) -> datetime:
    """`start` plus `hours` of clock time; with the weekend pause, Saturdays and Sundays
    (UTC) stand still."""
    if not weekend_pause:
        return start + timedelta(hours=hours)
    t, left = start, timedelta(hours=hours)
    while left > timedelta(0):
        if t.weekday() >= 5:  # jump to Monday 00:00
            t = datetime(t.year, t.month, t.day, tzinfo=t.tzinfo) + timedelta(days=7 - t.weekday())
            continue
        midnight = datetime(t.year, t.month, t.day, tzinfo=t.tzinfo) + timedelta(days=1)
        step = min(left, midnight - t)
        t, left = t + step, left - step
    return t


def vacation_end(player: Player | None) -> datetime | None:
    until = (player.prefs or {}).get("vacation_until") if player else None
    if not until:
        return None
    return datetime.fromisoformat(until).replace(tzinfo=UTC) + timedelta(days=1)


def due_time(game: Game, player: Player | None, now: datetime) -> datetime:
    """When a move asked for `now` is due: the time control's hours from now, or from the
    end of the player's vacation, skipping weekends if the game pauses for them."""
    tc = time_control(game)
    start = max(now, vacation_end(player) or now)
    return add_hours(start, tc["move_hours"], tc["weekend_pause"])


def arm(s, game: Game, st, seats, players, now: datetime, kept=None) -> None:
    """Write the deadlines the game's state calls for now (inside play's transaction), at
    the game's last move (talk does not move it). `kept`: seat -> the due time a seat keeps
    (after an undo, the one it had for that move)."""
    s.exec(update(Deadline).where(Deadline.game_id == game.id, Deadline.state == "pending",
                                  Deadline.seq < st.move_seq).values(state="cancelled"))
    if st.phase == "over":
        return
    tc = time_control(game)
    for seat in seats:
        if seat.robot or seat.player_id is None or seat.seat not in st.to_act():
            continue
        due = (kept or {}).get(seat.seat) or due_time(game, players.get(seat.player_id), now)
        s.add(Deadline(game_id=game.id, seat=seat.seat, seq=st.move_seq, kind="timeout",
                       due=due))
        for h in sorted(set(tc["remind_hours"]), reverse=True):
            when = due - timedelta(hours=h)
            if when > now and h < tc["move_hours"]:
                s.add(Deadline(game_id=game.id, seat=seat.seat, seq=st.move_seq, kind="reminder",
                               hours_before=h, due=when))


def rearm(s, game: Game, seat: int, seq: int, hours: int, now: datetime) -> Deadline:
    """A new timeout for a seat whose game waits (its `wait` timeout fired): `hours` from
    now, in the caller's transaction. The first timeout stays on the seat's record; the new
    one counts the times given (in hours_before, which only reminders use otherwise)."""
    given = s.exec(select(func.max(Deadline.hours_before)).where(
        Deadline.game_id == game.id, Deadline.seat == seat, Deadline.seq == seq,
        Deadline.kind == "timeout")).one() or 0
    row = Deadline(game_id=game.id, seat=seat, seq=seq, kind="timeout", hours_before=given + 1,
                   due=add_hours(now, hours, time_control(game)["weekend_pause"]))
    s.add(row)
    return row


def rebuild(store, now: datetime | None = None) -> int:
    """Derive every playing game's deadlines again from its state and time control (after
    a restore, or a change of time control). Rows already armed at a game's current seq
    keep their due times; returns the number of games armed afresh."""
    now = now or utcnow()
    armed = 0
    with store.session() as s:
        games = s.exec(select(Game).where(Game.status == "playing")).all()
        last = {g: q for g, q in s.exec(select(Move.game_id, func.max(Move.seq))
                                        .where(Move.type.not_in(QUIET))  # talk moves none
                                        .group_by(Move.game_id)).all()}
        have = {(g, q) for g, q in s.exec(select(Deadline.game_id, Deadline.seq)
                                          .where(Deadline.kind != EXTRA).distinct()).all()}
    for game in games:
        if (game.id, last.get(game.id)) in have:
            continue  # armed at its current move already: no replay needed
        with store.session() as s:
            st = store.state(s, game)
            store.keep(game.id, st)
            seats = s.exec(select(Seat).where(Seat.game_id == game.id)).all()
            players = {p.id: p for p in s.exec(select(Player).where(
                Player.id.in_([x.player_id for x in seats if x.player_id]))).all()}
            arm(s, game, st, seats, players, now)
            s.commit()
            armed += 1
    return armed


def due_for(store, game_id: int, seq: int) -> dict[int, datetime]:
    """The timeout of each seat to act at `seq` (for turn mails and tables)."""
    with store.reader() as s:
        rows = s.exec(select(Deadline).where(Deadline.game_id == game_id, Deadline.seq == seq,
                                             Deadline.kind == "timeout",
                                             Deadline.state == "pending")).all()
    return {r.seat: r.due for r in rows}


def record(store, player_id: int) -> dict:
    """A player's record: moves made in time, reminders needed, timeouts (a reminder the
    player moved before, or whose timeout came first, does not count)."""
    with store.reader() as s:
        seats = s.exec(select(Seat).where(Seat.player_id == player_id)).all()
        moves = reminders = timeouts = 0
        for seat in seats:
            moves += len(s.exec(select(Move.id).where(
                Move.game_id == seat.game_id, Move.actor == seat.seat,
                Move.source.in_(["mail", "web", "cli"]))).all())
            done = s.exec(select(Deadline.kind).where(
                Deadline.game_id == seat.game_id, Deadline.seat == seat.seat,
                Deadline.state == "done",
                Deadline.result.not_in(["moved on", "overtaken"]))).all()
            reminders += done.count("reminder")
            timeouts += done.count("timeout")
    return {"moves_on_time": moves, "reminders": reminders, "timeouts": timeouts}
