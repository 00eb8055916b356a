"""The clock: deadlines, reminders, timeouts and vacations, each handled exactly once.

Deadline rows are derived from a game's state and time control and written by pbem.play
in the move's own transaction (`arm`). A periodic `tick` (APScheduler 3, in `pbem serve`
or `pbem clock`) claims due rows in the database, so even two clocks fire a row once, and
a row whose clock died mid-way is claimed again after a lease: every effect is idempotent
(a timeout is a submit with its own ref at the seq it was armed for; a mail has a dedupe
key). APScheduler's own job store decides nothing (PITFALLS.md).
"""

from datetime import UTC, date, datetime, timedelta

from sqlalchemy import or_, update
from sqlmodel import select

from .engine import choose, view
from .store.models import Deadline, Game, Outbox, Player, Seat
from .store.models import now as utcnow

DEFAULTS = {
    "move_hours": 72,  # the deadline for each move (e.g. 24, 48, 72, 120, 168, 336; or hours)
    "remind_hours": [24, 2],  # reminders this long before the deadline
    "weekend_pause": False,  # Saturday and Sunday (UTC) do not count
    "on_timeout": "robot",  # robot: the robot moves; forfeit: the side loses; wait: the organiser
}
ON_TIMEOUT = ("robot", "forfeit", "wait")
LEASE = timedelta(minutes=5)  # a claimed row whose clock died is claimed again after this
BANK = {"start": 14, "per_month": 2, "cap": 30}  # vacation days


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


def arm(s, game: Game, st, seats, players, now: datetime) -> None:
    """Write the deadlines the game's state calls for now (inside play's transaction)."""
    s.exec(update(Deadline).where(Deadline.game_id == game.id, Deadline.state == "pending",
                                  Deadline.seq < st.seq).values(state="cancelled"))
    if st.phase == "over":
        return
    tc = time_control(game)
    for seat in seats:
        if seat.robot or seat.player_id is None or seat.seat not in st.to_act():
            continue
        due = due_time(game, players.get(seat.player_id), now)
        s.add(Deadline(game_id=game.id, seat=seat.seat, seq=st.seq, kind="timeout", due=due))
        for h in sorted(set(tc["remind_hours"]), reverse=True):
            when = due - timedelta(hours=h)
            if when > now and h < tc["move_hours"]:
                s.add(Deadline(game_id=game.id, seat=seat.seat, seq=st.seq, kind="reminder",
                               hours_before=h, due=when))


def rebuild(store, now: datetime | None = None) -> int:
    """Derive every playing game's deadlines again from its state and time control (after
    a restore, or a change of time control). Rows already armed at a game's current seq
    keep their due times; returns the number of games armed afresh."""
    from sqlalchemy import func

    from .store.models import Move

    now = now or utcnow()
    armed = 0
    with store.session() as s:
        games = s.exec(select(Game).where(Game.status == "playing")).all()
        last = {g: q for g, q in s.exec(select(Move.game_id, func.max(Move.seq))
                                        .group_by(Move.game_id)).all()}
        have = {(g, q) for g, q in s.exec(select(Deadline.game_id, Deadline.seq)
                                          .distinct()).all()}
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
    with store.session() as s:
        rows = s.exec(select(Deadline).where(Deadline.game_id == game_id, Deadline.seq == seq,
                                             Deadline.kind == "timeout",
                                             Deadline.state == "pending")).all()
    return {r.seat: r.due for r in rows}


def tick(store, now: datetime | None = None, limit: int = 500) -> int:
    """Handle every deadline due by `now`, oldest first; returns how many were handled."""
    now = now or utcnow()
    with store.session() as s:
        rows = s.exec(select(Deadline).where(
            Deadline.due <= now,
            or_(Deadline.state == "pending",
                (Deadline.state == "firing") & (Deadline.claimed_at < now - LEASE)))
            .order_by(Deadline.due, Deadline.id).limit(limit)).all()
    handled = 0
    for row in rows:
        if _claim(store, row, now):
            result = _fire(store, row, now)
            _finish(store, row, result)
            handled += 1
    return handled


def _claim(store, row, now) -> bool:
    """Take the row for this clock; False if another clock has it."""
    with store.engine.begin() as c:
        res = c.execute(update(Deadline).where(
            Deadline.id == row.id,
            or_(Deadline.state == "pending",
                (Deadline.state == "firing") & (Deadline.claimed_at < now - LEASE)))
            .values(state="firing", claimed_at=now))
        return res.rowcount == 1


def _finish(store, row, result: str) -> None:
    with store.engine.begin() as c:
        c.execute(update(Deadline).where(Deadline.id == row.id)
                  .values(state="done", result=result[:60]))


def _fire(store, row, now) -> str:
    from . import play

    with store.session() as s:
        game = s.get(Game, row.game_id)
        st = store.state(s, game)
        store.keep(game.id, st)
        seats = s.exec(select(Seat).where(Seat.game_id == game.id).order_by(Seat.seat)).all()
        players = {p.id: p for p in s.exec(select(Player).where(
            Player.id.in_([x.player_id for x in seats if x.player_id]))).all()}
        from .store.models import Move

        # a clock that died after submitting this timeout's move: only the mails are left
        applied = row.kind == "timeout" and s.exec(select(Move.id).where(
            Move.ref == f"timeout:{row.id}")).first() is not None
    if not applied and (st.seq != row.seq or st.phase == "over"):
        return "moved on"  # the player moved in time, or the game ended
    names = _names(seats, players)
    who = names[row.seat]
    if row.kind == "reminder":
        timeout = row.due + timedelta(hours=row.hours_before)
        left = f"in {row.hours_before} hours" if timeout > now else "now (the clock was down)"
        _mail(store, seats[row.seat], players, f"remind:{row.id}",
              f"Game {game.id}: your move is due {left}",
              f"A reminder: it is your move in game {game.id}, due by {_when(timeout)}.\n")
        return "reminded"
    how = time_control(game)["on_timeout"]
    if how == "robot":
        action = None if applied else choose(view(st, row.seat), seed=row.id, rules=st.rules)
        text = f"{who} did not move in time in game {game.id}: the robot moved for them."
    elif how == "forfeit":
        action = {"type": "resign"}
        text = f"{who} did not move in time in game {game.id}: their side forfeits the game."
    else:
        action = None
        text = f"{who} did not move in time in game {game.id}: the game waits for the organiser."
    if action is not None and not applied:
        try:
            play.submit(store, game.id, row.seat, action, expect_seq=row.seq, source="clock",
                        ref=f"timeout:{row.id}")
        except play.Refused:
            return "moved on"
    for x in seats:  # the others hear whom they were waiting for
        if x.player_id and not x.robot and x.seat != row.seat:
            _mail(store, x, players, f"timeout:{row.id}:{x.seat}",
                  f"Game {game.id}: {who} ran out of time", text + "\n")
    _mail(store, seats[row.seat], players, f"timeout:{row.id}:{row.seat}",
          f"Game {game.id}: your time ran out", text + "\n")
    return f"timeout: {how}"


def _names(seats, players):
    from .notify import seat_names

    return seat_names(seats, players)


def _when(t: datetime) -> str:
    return t.strftime("%a %d %b %H:%M UTC")


def _mail(store, seat, players, key, subject, text) -> None:
    player = players.get(seat.player_id)
    if player is None or seat.robot:
        return
    from sqlalchemy.exc import IntegrityError

    try:
        with store.session() as s:
            s.add(Outbox(game_id=seat.game_id, to_addr=player.email, subject=subject,
                         body_text=text, headers={"Auto-Submitted": "auto-generated"},
                         dedupe_key=key))
            s.commit()
    except IntegrityError:
        pass  # sent before: a redo after a crash


# -- vacations and extra time ----------------------------------------------------------------


def bank(prefs: dict, today: date) -> tuple[int, str]:
    """(vacation days in the bank today, the month it was last topped up): it starts at
    BANK["start"] and gains BANK["per_month"] a month, up to BANK["cap"]."""
    days = prefs.get("vacation_bank", BANK["start"])
    since = prefs.get("bank_month", today.strftime("%Y-%m"))
    y, m = map(int, since.split("-"))
    months = (today.year - y) * 12 + today.month - m
    return min(BANK["cap"], days + max(0, months) * BANK["per_month"]), today.strftime("%Y-%m")


def start_vacation(store, player_id: int, days: int, today: date | None = None) -> date:
    """Spend `days` from the bank: the player's deadlines stand still until the end."""
    today = today or utcnow().date()
    with store.session() as s:
        player = s.get(Player, player_id)
        have, month = bank(player.prefs or {}, today)
        if days > have:
            raise ValueError(f"you have {have} vacation days left")
        until = today + timedelta(days=days)
        player.prefs = dict(player.prefs or {}, vacation_until=until.isoformat(),
                            vacation_bank=have - days, bank_month=month)
        s.add(player)
        _shift(s, player_id, timedelta(days=days))
        s.commit()
    return until


def end_vacation(store, player_id: int, today: date | None = None) -> int:
    """Back early: the unused days return to the bank."""
    today = today or utcnow().date()
    with store.session() as s:
        player = s.get(Player, player_id)
        prefs = dict(player.prefs or {})
        until = prefs.pop("vacation_until", None)
        left = max(0, (date.fromisoformat(until) - today).days) if until else 0
        have, month = bank(prefs, today)
        player.prefs = dict(prefs, vacation_bank=min(BANK["cap"], have + left), bank_month=month)
        s.add(player)
        s.commit()
    return left


def extra_time(store, game_id: int, hours: int) -> int:
    """Give the players to act more time: every pending deadline of the game moves on."""
    with store.session() as s:
        rows = s.exec(select(Deadline).where(Deadline.game_id == game_id,
                                             Deadline.state == "pending")).all()
        for row in rows:
            row.due = row.due + timedelta(hours=hours)
            s.add(row)
        s.commit()
        return len(rows)


def _shift(s, player_id: int, by: timedelta) -> None:
    seats = s.exec(select(Seat).where(Seat.player_id == player_id)).all()
    for seat in seats:
        for row in s.exec(select(Deadline).where(Deadline.game_id == seat.game_id,
                                                 Deadline.seat == seat.seat,
                                                 Deadline.state == "pending")).all():
            row.due = row.due + by
            s.add(row)


def record(store, player_id: int) -> dict:
    """A player's record: moves made in time, reminders needed, timeouts."""
    from .store.models import Move

    with store.session() as s:
        seats = s.exec(select(Seat).where(Seat.player_id == player_id)).all()
        moves = reminders = timeouts = 0
        for seat in seats:
            moves += len(s.exec(select(Move.id).where(
                Move.game_id == seat.game_id, Move.actor == seat.seat,
                Move.source.in_(["mail", "web", "cli"]))).all())
            done = s.exec(select(Deadline.kind).where(
                Deadline.game_id == seat.game_id, Deadline.seat == seat.seat,
                Deadline.state == "done", Deadline.result != "moved on")).all()
            reminders += done.count("reminder")
            timeouts += done.count("timeout")
    return {"moves_on_time": moves, "reminders": reminders, "timeouts": timeouts}


# -- running it --------------------------------------------------------------------------------


def scheduler(store, every: float = 30.0):
    """An APScheduler 3 BackgroundScheduler running `tick` (deadlines) and the leagues' tick
    every `every` seconds. Missed runs are harmless: the next tick handles everything due
    since."""
    from apscheduler.schedulers.background import BackgroundScheduler

    sched = BackgroundScheduler(timezone=UTC)
    for job in (tick, league_tick):
        sched.add_job(job, "interval", seconds=every, args=[store], max_instances=1,
                      coalesce=True, misfire_grace_time=None, next_run_time=datetime.now(UTC))
    return sched


def league_tick(store) -> int:
    """Seasons that start today, rounds to open, quiet tables (pbem.league.rounds.tick)."""
    from .league.rounds import tick as tick_leagues

    return tick_leagues(store)
