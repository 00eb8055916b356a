"""Deadlines: what a game's state and time control ask of the clock, written by pbem.play in
the move's own transaction (`arm`), and derived again from the database at any time
(`rebuild`), so they never depend on a process that was running. The ticker that fires
them is pbem.clock; vacations that move them are pbem.vacation."""

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import ColumnElement, bindparam, case, func, insert, literal_column, update
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from . import owntime, seatclock
from .engine.acts import QUIET
from .engine.errors import N_, Refusal, Words
from .store.models import Deadline, Game, Move, Player, Seat, SeatClock
from .store.models import now as utcnow
from .store.states import Store, catch_up, fresh
from .table import Table, id_of

DEFAULTS = {
    "clock": "move",  # move: a fixed time for each move; bank: a bank of time with increments
    "move_hours": 72,  # the deadline for each move (e.g. 24, 48, 72, 120, 168, 336; or hours)
    "remind_hours": [24, 2],  # reminders this long before the deadline
    "weekend_pause": False,  # Saturday and Sunday (UTC) do not count
    "on_timeout": "robot",  # robot: the robot moves; forfeit: the side loses; wait: the organiser
    "auto_vacation": False,  # a timeout first spends a vacation day, if the player has one
} | seatclock.DEFAULTS  # bank_hours, increment_hours, cap_hours (the bank clock)
ON_TIMEOUT = ("robot", "forfeit", "wait")
CLOCKS = ("move", "bank")
MAX_HOURS = 24 * 60  # the longest deadline, and the largest bank
MAX_REMINDERS = 5
EXTRA = "extra"  # a row that records who gave more time at which move (never fires)
PAUSED = "paused"  # a row's state while its league is paused: it keeps the time it has left
ROBOT = "robot"  # a robot's turn: moved after the commit; if that runner died, by the clock
ROBOT_GRACE = timedelta(minutes=1)  # the runner after the commit has this long first
# in a transaction's Session.info: the game whose open rows a statement of this transaction
# cancelled already, up to the move its pending timeout was armed for (pbem.clock's timeout
# taken in its move's write), so `arm` has none left to cancel
CLOSED = "pbem_deadlines_closed"


def check(tc: dict | None) -> dict:
    """A time control with its defaults, every value checked, or a Refusal (a ValueError:
    English in str(), told in the asker's language) saying which one is wrong and what it
    may be."""
    tc = dict(DEFAULTS, **(tc or {}))
    if tc["clock"] not in CLOCKS:
        raise Refusal(N_("the clock is move (a fixed time a move) or bank, not %(clock)s"),
                      clock=repr(tc["clock"]))
    if tc["on_timeout"] not in ON_TIMEOUT:
        raise Refusal(N_("at the deadline: %(choices)s; not %(given)s"),
                      choices=", ".join(ON_TIMEOUT), given=repr(tc["on_timeout"]))
    _whole(tc, "move_hours", 1, MAX_HOURS, Words(N_("the time for a move")))
    for key, what in (("weekend_pause", N_("weekend pause is true or false")),
                      ("auto_vacation", N_("auto vacation is true or false"))):
        if not isinstance(tc[key], bool):
            raise Refusal(what)
    hours = tc["remind_hours"]
    if not isinstance(hours, list) or len(hours) > MAX_REMINDERS or not all(
            type(h) is int and 1 <= h <= MAX_HOURS for h in hours):
        raise Refusal(N_("reminders are up to %(most)s whole hours before the deadline, each "
                         "1 to %(hours)s"), most=MAX_REMINDERS, hours=MAX_HOURS)
    if tc["clock"] == "bank":
        seatclock.check(tc, MAX_HOURS)
    return tc


def _whole(tc: dict, key: str, lo: int, hi: int, what: Words) -> None:
    if type(tc[key]) is not int or not lo <= tc[key] <= hi:
        raise Refusal(WHOLE_HOURS, what=what, lo=lo, hi=hi, given=repr(tc[key]))


WHOLE_HOURS = N_("%(what)s is a whole number of hours from %(lo)s to %(hi)s, not %(given)s")


def time_control(game: Game) -> dict:
    try:
        return check(game.time_control)
    except ValueError as e:
        raise Refusal(N_("game %(game)s has a bad time control: %(why)s"), game=game.id,
                      why=getattr(e, "words", str(e))) from None


def add_hours(start: datetime, hours: float, weekend_pause: bool) -> datetime:
    """`start` plus `hours` of clock time; with the weekend pause, Saturdays and Sundays
    (UTC) stand still."""
    return owntime.Calendar(weekend_pause=weekend_pause).add(start, hours)


def due_time(tc: dict, player: Player | None, now: datetime,
             clock: SeatClock | None = None) -> datetime:
    """When a move asked for `now` is due: the time control's hours (`tc`: time_control's)
    or what is left in the seat's bank (`clock`) of the player's own time, from now or from
    the end of the player's vacation; rest days and the game's weekend pause stand still
    (pbem.owntime)."""
    return _plan(tc, player, now, clock)[0]


def _plan(tc: dict, player: Player | None, now: datetime,
          clock: SeatClock | None) -> tuple[datetime, datetime, float]:
    """(due, start, own hours from start to due) for a seat asked to move."""
    cal = owntime.calendar(player, tc["weekend_pause"])
    if tc["clock"] == "bank" and clock is not None and clock.since is not None:
        start, hours = clock.since, clock.bank_seconds / 3600
    else:
        start = owntime.wait_starts(player, now)
        hours = tc["move_hours"] if tc["clock"] == "move" else seatclock.start_hours(tc, clock)
    return cal.add(start, hours), start, hours


def settle_clocks(s: Session, t: Table, moved: int | None = None,
                  played_for: frozenset[int] = frozenset(), undo: dict | None = None
                  ) -> dict[int, SeatClock] | None:
    """A bank clock's seats brought to `t.now` (pbem.seatclock.sync), before the move's
    mails tell them what their banks hold; None for a fixed time a move. `undo`: the undo
    event: the taken-back move's time goes with it, and the seat gets back the due time it
    had (`t.kept`)."""
    tc = time_control(t.game)
    if tc["clock"] != "bank" or t.st.phase == "over":
        return None
    if undo is None:
        return seatclock.sync(s, t, tc, moved, played_for)
    rows = seatclock.for_game(s, t.game_id)
    seatclock.forget_waits(rows, undo["undo"])
    rows = seatclock.sync(s, t, tc, moved, played_for, rows)
    row, due = rows.get(undo["seat"]), t.kept.get(undo["seat"])
    if row is not None and row.since is not None and due is not None:
        seat = next(x for x in t.seats if x.seat == undo["seat"])
        seatclock.resume(row, tc, t.players.get(seat.player_id or 0), due)
    return rows


_CANCEL = update(Deadline).where(  # a game's rows for moves before seq q; the states are
    # constants in its SQL: an IN of bound values is rendered again at every execution
    col(Deadline.game_id) == bindparam("g"),
    col(Deadline.state).in_([literal_column("'pending'"), literal_column(f"'{PAUSED}'")]),
    col(Deadline.seq) < bindparam("q")).values(state="cancelled")
# Core, on the session's connection (the ORM's bulk insert cost more than the SQL)
_INSERT = insert(Deadline)


def arm(s: Session, t: Table, cancelled: bool = False,
        clock_rows: dict[int, SeatClock] | None = None, out: list[dict] | None = None) -> None:
    """Write the deadlines the game's state calls for now (inside play's transaction), at
    the game's last move (talk does not move it), counted from `t.now`; a seat that keeps
    a due time (`t.kept`: after an undo, the one it had for that move) keeps it. A bank
    clock's seats are brought up to date first, unless the caller did (`t.clocks`).
    `rebuild` cancels the stale rows of many games in one statement (`cancelled`), reads
    their bank rows at once (`clock_rows`) and writes all their new rows in one statement
    (`out`: a list they are added to)."""
    game, st = t.game, t.st
    if not cancelled and s.info.get(CLOSED) != game.id:  # Core, built once: the ORM cost more
        s.connection().execute(_CANCEL, {"g": game.id, "q": st.move_seq})
    if st.phase == "over":
        return
    tc = time_control(game)
    if t.clocks is None and tc["clock"] == "bank":
        t.clocks = seatclock.sync(s, t, tc, rows=clock_rows)
    rows = [*_seat_rows(t, tc), *_robot_row(t)]
    if game.paused_at is not None:  # its league is paused: they wait (pbem.league.pause)
        for row in rows:
            row.update(state=PAUSED, paused_at=t.now)
    if out is None:
        insert_rows(s, rows)
    else:
        out += rows


def _seat_rows(t: Table, tc: dict) -> list[dict]:
    """The timeout and reminders of each human seat asked to act."""
    rows = []
    for seat in t.seats:
        if seat.robot or seat.player_id is None or seat.seat not in t.st.to_act():
            continue
        player = t.players.get(seat.player_id)
        due, start, hours = _plan(tc, player, t.now, (t.clocks or {}).get(seat.seat))
        cal = owntime.calendar(player, tc["weekend_pause"])
        if t.kept.get(seat.seat):  # an undo's: the reminders count to that deadline
            due = t.kept[seat.seat]
            hours = cal.spent(start, due).total_seconds() / 3600 if due > start else 0
        at = (t.game_id, seat.seat, t.st.move_seq)
        rows.append(_row(at, "timeout", 0, due))
        for h in sorted(set(tc["remind_hours"]), reverse=True):
            when = _reminder(cal, start, hours, due, h)
            if when > t.now and h < hours:
                rows.append(_row(at, "reminder", h, when))
    return rows


def _robot_row(t: Table) -> list[dict]:
    """A robot to act: its move is decided outside the write, so a crash could leave it
    unmade; this row makes the clock make it."""
    robot = next((x.seat for x in t.seats if x.robot and x.seat in t.st.to_act()), None)
    if robot is None:
        return []
    return [_row((t.game_id, robot, t.st.move_seq), ROBOT, 0, t.now + ROBOT_GRACE)]


def _row(at: tuple[int, int, int], kind: str, hours_before: int, due: datetime) -> dict:
    """A Deadline row for (game, seat, seq) `at`."""
    game_id, seat, seq = at
    return {"game_id": game_id, "seat": seat, "seq": seq, "kind": kind,
            "hours_before": hours_before, "due": due, "state": "pending", "claimed_at": None,
            "result": "", "paused_at": None}


def insert_rows(s: Session, rows: list[dict]) -> None:
    """New Deadline rows in one statement (building ORM objects cost more than the SQL)."""
    if rows:
        s.connection().execute(_INSERT, rows)


def _reminder(cal: owntime.Calendar, start: datetime, hours: float, due: datetime,
              h: int) -> datetime:
    """`h` hours before the deadline; for a player with rest days, `h` hours of the
    player's own time (a reminder never comes on a rest day to count through it)."""
    if not cal.rest:
        return due - timedelta(hours=h)  # as before: plain, or the game's weekend pause
    return cal.add(start, hours - h)


def shift_bank(s: Session, game: Game, clock: SeatClock, player: Player | None,
               by: timedelta, now: datetime) -> None:
    """A seat waiting on a bank clock goes on vacation (pbem.vacation, pbem.league.pause):
    the wait so far is paid for and counted from `by` later (back early: `by` is
    negative). Its pending deadlines are derived again from the bank (`_rebank`)."""
    since = clock.since or now  # (it waits: the caller found it so)
    if by > timedelta(0):
        cal = owntime.calendar(player, time_control(game)["weekend_pause"])
        used = cal.spent(since, now)
        clock.bank_seconds = max(0, clock.bank_seconds - int(used.total_seconds()))
        since = max(now, since)
    clock.since = since + by
    _rebank(s, game, clock, player, by)


def add_to_bank(s: Session, game: Game, clock: SeatClock, player: Player | None,
                more: timedelta) -> None:
    """Extra time (`more`) goes into a waiting seat's bank (pbem.vacation); its pending
    deadlines are derived again from the bank (`_rebank`)."""
    clock.bank_seconds += int(more.total_seconds())
    _rebank(s, game, clock, player, more)


def _rebank(s: Session, game: Game, clock: SeatClock, player: Player | None,
            later: timedelta) -> None:
    """The seat's pending deadlines derived again from its bank, as `arm` would (a rest day
    does not move with the calendar); a timeout given again moves `later`."""
    s.add(clock)
    since = clock.since or utcnow()
    cal = owntime.calendar(player, time_control(game)["weekend_pause"])
    hours = clock.bank_seconds / 3600
    due = cal.add(since, hours)
    for row in s.exec(select(Deadline).where(Deadline.game_id == game.id,
                                             Deadline.seat == clock.seat,
                                             Deadline.state == "pending")).all():
        if row.kind == "reminder":
            row.due = _reminder(cal, since, hours, due, row.hours_before)
        else:  # a timeout given again (care, a vacation day) moves as the days do
            row.due = due if row.hours_before == 0 else row.due + later
        s.add(row)


def rearm(s: Session, game: Game, seat: int, seq: int, hours: int, now: datetime) -> Deadline:
    """A new timeout for a seat whose game waits (its `wait` timeout fired): `hours` from
    now, in the caller's transaction. The first timeout stays on the seat's record; the new
    one counts the times given (in hours_before, which only reminders use otherwise)."""
    given = s.exec(select(func.max(Deadline.hours_before)).where(
        Deadline.game_id == game.id, Deadline.seat == seat, Deadline.seq == seq,
        Deadline.kind == "timeout")).one() or 0
    due = add_hours(now, hours, time_control(game)["weekend_pause"])
    clock = s.exec(select(SeatClock).where(SeatClock.game_id == game.id, SeatClock.seat == seat,
                                           col(SeatClock.since).is_not(None))).first()
    if clock is not None:  # a bank clock: the hours given are the bank, from now
        at = s.exec(select(Seat).where(Seat.game_id == game.id, Seat.seat == seat)).one()
        player = s.get(Player, at.player_id) if at.player_id else None
        clock.bank_seconds, clock.since = hours * 3600, now
        s.add(clock)
        due = owntime.calendar(player, time_control(game)["weekend_pause"]).add(now, hours)
    row = Deadline(game_id=id_of(game), seat=seat, seq=seq, kind="timeout",
                   hours_before=given + 1, due=due)
    s.add(row)
    return row


REBUILD_BATCH = 500  # games replayed, then armed in one write transaction


def rebuild(store: Store, now: datetime | None = None) -> int:
    """Derive every playing game's deadlines again from its state and time control (after
    a restore, or a change of time control). Rows already armed at a game's current seq
    keep their due times; returns the number of games armed afresh. A few bulk queries,
    which read the open rows only, not the history: only games with no row at their current
    move are replayed, a batch at a time, the
    replay done outside the write transaction."""
    now = now or utcnow()
    playing = col(Game.status) == "playing"  # games over keep their history: never read here
    with store.reader() as s:
        # ids only: a whole Game (its JSON parsed) cost most of the read; the replay loads its own
        ids = cast(list[int], s.exec(select(Game.id).where(playing).order_by(col(Game.id))).all())
        last = _last_moves(s, playing=playing)
        have = _armed(s, ids, last, playing)
    todo = [g for g in ids if (g, last.get(g)) not in have]
    armed = 0
    for i in range(0, len(todo), REBUILD_BATCH):
        armed += _rebuild_batch(store, todo[i:i + REBUILD_BATCH], now)
    return armed


# the states of a row still to fire; the rest (done, cancelled) is history
OPEN = ("pending", "firing", PAUSED)


def armed_moves(where: ColumnElement[bool]) -> Select[int, int]:
    """(game, seq) of the open rows of the games `where` selects: the restart's read, served
    by ix_deadline_state_due, so it grows with the games in play, not with their history."""
    return (select(Deadline.game_id, Deadline.seq).join(Game, col(Game.id) == Deadline.game_id)
            .where(where, col(Deadline.state).in_(OPEN), Deadline.kind != EXTRA).distinct())


def _armed(s: Session, ids: Sequence[int], last: dict[int, int],
           playing: ColumnElement[bool]) -> set[tuple[int, int]]:
    """(game, seq) of the games in play that have a row at their last move."""
    have = set(s.exec(armed_moves(playing)).all())
    unsure = [(g, last[g]) for g in ids if g in last and (g, last[g]) not in have]
    for i in range(0, len(unsure), REBUILD_BATCH):
        have |= _armed_at(s, dict(unsure[i:i + REBUILD_BATCH]))
    return have


def _armed_at(s: Session, last: dict[int, int]) -> set[tuple[int, int]]:
    """Of the games `last` (id -> its last move) with no open row, those with a row at that
    move all the same (a `wait` timeout fired: the game waits for its organiser). Only
    their rows at that move are read, not their history."""
    at = case(last, value=Deadline.game_id)
    return set(s.exec(select(Deadline.game_id, Deadline.seq).where(
        col(Deadline.game_id).in_(list(last)), Deadline.seq == at, Deadline.kind != EXTRA)
        .distinct()).all())


def _last_moves(s: Session, ids: list[int] | None = None,
                playing: ColumnElement[bool] | None = None) -> dict[int, int]:
    """Each game's last move (talk moves none), by game id: of the games `ids`, or of the
    games in play."""
    q = select(Move.game_id, func.max(Move.seq)).where(col(Move.type).not_in(QUIET))
    if ids is not None:
        q = q.where(col(Move.game_id).in_(ids))
    if playing is not None:
        q = q.join(Game, col(Game.id) == Move.game_id).where(playing)
    return dict(s.exec(q.group_by(col(Move.game_id))).all())


def _rebuild_batch(store: Store, ids: list[int], now: datetime) -> int:
    with store.reader() as s:  # the batch's games, moves, seats and players: four queries
        games = s.exec(select(Game).where(col(Game.id).in_(ids)).order_by(col(Game.id))).all()
        moves: dict[int, list] = {g: [] for g in ids}
        for gid, seq, payload in s.exec(select(Move.game_id, Move.seq, Move.payload)
                                        .where(col(Move.game_id).in_(ids))
                                        .order_by(col(Move.game_id), col(Move.seq))):
            moves[gid].append((seq, payload))
        seats: dict[int, list] = {g: [] for g in ids}
        for seat in s.exec(select(Seat).where(col(Seat.game_id).in_(ids)).order_by(col(Seat.seat))):
            seats[seat.game_id].append(seat)
        players = {id_of(p): p for p in s.exec(select(Player).where(col(Player.id).in_(
            sorted({x.player_id for xs in seats.values() for x in xs if x.player_id}))))}
    states = {id_of(g): catch_up(fresh(g), id_of(g), moves.pop(id_of(g))) for g in games}
    with store.session() as s:  # (the replay above: pure work, outside the write)
        moved = _last_moves(s, ids)  # a game that moved meanwhile was armed by its move
        games = [g for g in games if moved.get(id_of(g), 0) == states[id_of(g)].move_seq]
        if not games:
            return 0
        gids = [id_of(g) for g in games]
        s.exec(update(Deadline).where(
            col(Deadline.game_id).in_(gids), col(Deadline.state) == "pending",
            col(Deadline.seq) < case({g: states[g].move_seq for g in gids},
                                     value=Deadline.game_id)).values(state="cancelled"))
        clocks = _clock_rows(s, [id_of(g) for g in games if time_control(g)["clock"] == "bank"])
        rows: list[dict] = []
        for game in games:
            t = Table(game, seats[id_of(game)], players, states[id_of(game)], now=now)
            arm(s, t, cancelled=True, clock_rows=clocks.get(id_of(game), {}), out=rows)
        insert_rows(s, rows)
        s.commit()
    for gid in gids:
        store.keep(gid, states[gid])
    return len(games)


def _clock_rows(s: Session, ids: list[int]) -> dict[int, dict[int, SeatClock]]:
    rows: dict[int, dict[int, SeatClock]] = {}
    if ids:
        for r in s.exec(select(SeatClock).where(col(SeatClock.game_id).in_(ids))):
            rows.setdefault(r.game_id, {})[r.seat] = r
    return rows


def due_for(store: Store, game_id: int, seq: int) -> dict[int, datetime]:
    """The timeout of each seat to act at `seq` (for turn mails and tables)."""
    with store.reader() as s:
        rows = s.exec(select(Deadline).where(Deadline.game_id == game_id, Deadline.seq == seq,
                                             Deadline.kind == "timeout",
                                             Deadline.state == "pending")).all()
    return {r.seat: r.due for r in rows}


def record(store: Store, player_id: int) -> dict:
    """A player's record: moves made in time, reminders needed, timeouts (a reminder the
    player moved before, or whose timeout came first, does not count)."""
    with store.reader() as s:
        seats = s.exec(select(Seat).where(Seat.player_id == player_id)).all()
        moves = reminders = timeouts = 0
        for seat in seats:
            moves += len(s.exec(select(Move.id).where(
                Move.game_id == seat.game_id, Move.actor == seat.seat,
                col(Move.source).in_(["mail", "web", "cli"]))).all())
            done = s.exec(select(Deadline.kind).where(
                Deadline.game_id == seat.game_id, Deadline.seat == seat.seat,
                Deadline.state == "done",
                col(Deadline.result).not_in(["moved on", "overtaken"]))).all()
            reminders += done.count("reminder")
            timeouts += done.count("timeout")
    return {"moves_on_time": moves, "reminders": reminders, "timeouts": timeouts}
