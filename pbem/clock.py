"""The clock's ticker: reminders and timeouts, each handled exactly once.

pbem.deadlines writes the rows (in each move's transaction); a periodic `tick` (APScheduler 3,
in `pbem serve` or `pbem clock`) claims due rows in the database, so even two clocks fire a
row once, and a row whose clock died mid-way is claimed again after a lease: every effect is
idempotent (a timeout is a submit with its own ref at the seq it was armed for; a mail has a
dedupe key). APScheduler's own job store decides nothing: its defaults
skip a job that fell due while the process was down, and a store shared by processes runs
jobs twice or misses them.
"""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from babel.dates import format_datetime
from sqlalchemy import bindparam, case, insert, or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from . import compose, logs, play, vacation
from .config import load
from .deadlines import CLOSED, PAUSED, ROBOT, time_control
from .engine import choose, view
from .i18n import N_, _, current, language, ngettext
from .organise import seasons, seeks
from .signing import CARE, Signer, secret_keys
from .store import prefs, reviews
from .store.games import mailable, players_of
from .store.models import (
    Deadline,
    Fixture,
    Game,
    League,
    Move,
    Outbox,
    Player,
    Season,
    Seat,
)
from .store.models import now as utcnow
from .table import seat_names

LEASE = timedelta(minutes=5)  # a claimed row whose clock died is claimed again after this
CARE_ACTIONS = ((N_("Let the robot make this move"), "robot"),
                (N_("Give them 24 more hours"), 24), (N_("Give them 72 more hours"), 72))
OVERTAKEN = "overtaken"  # a reminder whose timeout came first (the clock was down)


def tick(store, now: datetime | None = None, limit: int = 500) -> int:
    """Handle every deadline due by `now`, oldest first; returns how many were handled."""
    now = now or utcnow()
    with store.reader() as s:  # state first: the index (state, due) skips the past rows
        rows = s.exec(select(Deadline).where(
            col(Deadline.state).in_(("pending", "firing")), col(Deadline.due) <= now,
            or_(col(Deadline.state) == "pending", col(Deadline.claimed_at) < now - LEASE))
            .order_by(col(Deadline.due), col(Deadline.id)).limit(limit)).all()
    handled = 0
    read = _timeouts_read(store, rows)
    for row in rows:
        done = _timeout_at_once(store, row, now, read) if row.state == "pending" else None
        if done is not None:
            handled += done
        elif _claim(store, row, now):
            result = _fire(store, row, now)
            _finish(store, row, result)
            handled += 1
    return handled


class _Seen:
    """What a timeout's move needs from a read: the game, its state (a private copy, till
    play.submit keeps it), seats and players."""

    def __init__(self, game, st, seats, players):
        self.game, self.st, self.seats, self.players = game, st, seats, players

    def for_door(self) -> play.Seen:
        return play.Seen.at_table(self.st, self.seats, self.players)


def _timeouts_read(store, rows) -> dict[int | None, _Seen | None]:
    """One read for the pending timeouts due: row id (SQLModel's Optional primary key) ->
    what it needs, or None where the at-once path does not apply (see `_applies`). A
    game's first such row only: a second one is read after the first moved
    (`_timeout_read`)."""
    first: dict[int, Deadline] = {}
    for row in rows:
        if row.kind == "timeout" and row.state == "pending":
            first.setdefault(row.game_id, row)
    if not first:
        return {}
    with store.reader() as s:
        games = s.exec(select(Game).where(col(Game.id).in_(list(first)))).all()
        refs = [_ref(row) for row in first.values()]
        applied = set(s.exec(select(Move.ref).where(col(Move.ref).in_(refs))).all())
        games = {g.id: g for g in games if _applies(g, _ref(first[g.id]) in applied)}
        states = store.states(s, list(games))
        seats = s.exec(select(Seat).where(col(Seat.game_id).in_(list(games)))
                       .order_by(col(Seat.game_id), col(Seat.seat))).all()
        players = players_of(s, seats)
    by_game: dict[int, list] = {g: [] for g in games}
    for x in seats:
        by_game[x.game_id].append(x)
    return {row.id: _Seen(games[g], states[g], by_game[g], players)
            if g in games else None for g, row in first.items()}


def _timeout_read(store, row) -> _Seen | None:
    """`_timeouts_read` for one row."""
    with store.reader() as s:
        game = s.get(Game, row.game_id)
        applied = s.exec(select(Move.id).where(Move.ref == _ref(row))).first() is not None
        if not _applies(game, applied):
            return None
        st = store.state(s, game)
        seats = s.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat))).all()
        return _Seen(game, st, seats, players_of(s, seats))


def _applies(game, applied: bool) -> bool:
    """Does a timeout move for the seat at once? Not on a vacation day, in a game that
    waits, or once its move was made (a clock that died: `_fire` sends what is left)."""
    tc = time_control(game)
    return not (tc["auto_vacation"] or tc["on_timeout"] == "wait" or applied)


def _ref(row) -> str:
    return f"timeout:{row.id}"


def _timeout_at_once(store, row, now, read) -> int | None:
    """A pending timeout that moves for the seat (robot or forfeit), in one transaction:
    the move, the row marked done (only if still pending: of two clocks one wins) and the
    mails. `read`: what `_timeouts_read` read for the tick's rows. Returns 1 if handled, 0
    if another clock had it, None where this does not apply (a reminder, a vacation day, a
    game that waits, a move already made)."""
    if row.kind != "timeout":
        return None
    seen = read[row.id] if row.id in read else _timeout_read(store, row)
    if seen is None:
        return None
    game, st, seats, players = seen.game, seen.st, seen.seats, seen.players
    if st.move_seq != row.seq or st.phase == "over":
        store.keep(game.id, st)
        return _done(store, row, now, "moved on")
    how = time_control(game)["on_timeout"]
    action, text = _timeout_move(game, st, row, how, seat_names(seats, players)[row.seat])
    mails = _timeout_mails(game, seats, players, row, text)
    assert action is not None  # (_applies: a game that waits or a move made was not read)

    def also(s):
        if not _take(s, row, now, f"timeout: {how}"):
            raise play.Refused("another clock has this timeout")
        return mails  # queued with the move's own

    try:
        result = play.submit(store, game.id, row.seat, action, expect_seq=row.seq,
                             source="clock", ref=_ref(row), also=also, seen=seen.for_door())
    except play.Stale:
        return _done(store, row, now, "moved on")
    except play.Refused:
        return 0
    if not result.duplicate:
        logs.timeout(game.id, row.seat, _late(row, now), f"timeout: {how}")
    return 0 if result.duplicate else 1


def _late(row, now) -> float:
    """Seconds from the row's due time to `now` (SQLite gives naive UTC back)."""
    due = row.due if row.due.tzinfo else row.due.replace(tzinfo=UTC)
    return (now - due).total_seconds()


def _done(store, row, now, result: str) -> int:
    """Mark a pending row done in one statement; 1 if this clock did, 0 if another had it."""
    with store.session() as s:
        done = _done_in(s, row, now, result)
        s.commit()
    return int(done)


# a pending row marked done (built once: building the statement cost more than running it)
_DONE = update(Deadline).where(col(Deadline.id) == bindparam("row"),
                               col(Deadline.state) == "pending") \
    .values(state="done", claimed_at=bindparam("at"), result=bindparam("said"))


def _done_in(s, row, now, result: str) -> bool:
    res = s.connection().execute(_DONE, {"row": row.id, "at": now, "said": result})
    return res.rowcount == 1


def _mine(value, other):
    """`value` for the timeout's own row, `other` for the rest."""
    return case((Deadline.id == bindparam("row"), value), else_=other)


# a timeout taken by its move's write: the row done (only if still pending: of two clocks one
# wins) and, in the same statement, the game's other open rows at its move or before
# cancelled (its reminders, its robot's row, rows a league pause keeps), which the move's
# `deadlines.arm` would otherwise cancel in a statement of its own (`deadlines.CLOSED`)
_TAKE = update(Deadline).where(
    col(Deadline.game_id) == bindparam("g"), col(Deadline.seq) <= bindparam("q"),
    or_(col(Deadline.state) == "pending",
        (col(Deadline.state) == PAUSED) & (col(Deadline.id) != bindparam("row")))
).values(state=_mine("done", "cancelled"), claimed_at=_mine(bindparam("at"), Deadline.claimed_at),
         result=_mine(bindparam("said"), Deadline.result)).returning(col(Deadline.id))


def _take(s, row, now, result: str) -> bool:
    """Take a pending timeout in its move's transaction (`_TAKE`). False if another clock,
    a move or a league pause came first: the caller refuses the move, and the rollback takes
    back whatever the statement cancelled."""
    ids = s.connection().execute(_TAKE, {"g": row.game_id, "q": row.seq, "row": row.id,
                                         "at": now, "said": result}).scalars().all()
    if row.id not in ids:
        return False
    s.info[CLOSED] = row.game_id
    return True


def _timeout_move(game, st, row, how, who, applied=False) -> tuple[dict | None, str]:
    """The move a timeout makes for the seat (None: the game waits, or a clock that died
    made it already: `applied`) and what all are told."""
    if how == "robot":
        return (None if applied else choose(view(st, row.seat), seed=row.id, rules=st.rules),
                N_("%(name)s did not move in time in game %(game)s: the robot moved for them."))
    if how == "forfeit":
        return ({"type": "resign"},
                N_("%(name)s did not move in time in game %(game)s: their side forfeits the "
                   "game."))
    return None, N_("%(name)s did not move in time in game %(game)s: the game waits for the "
                    "organiser.")


def _timeout_mails(game, seats, players, row, text) -> list[dict]:
    """The others hear whom they were waiting for; the seat hears its time ran out (`text`:
    the words of what was done, told in each player's language)."""
    values = {"name": seat_names(seats, players)[row.seat], "game": game.id}
    told = lambda: _(text) % values + "\n"  # noqa: E731
    out = [_mail_row(x, players, f"timeout:{row.id}:{x.seat}", lambda: (
        _("Game %(game)s: %(name)s ran out of time") % values, told()))
           for x in seats if x.seat != row.seat]
    out.append(_mail_row(seats[row.seat], players, f"timeout:{row.id}:{row.seat}", lambda: (
        _("Game %(game)s: your time ran out") % values, told())))
    return [m for m in out if m is not None]


def _claim(store, row, now) -> bool:
    """Take the row for this clock; False if another clock has it."""
    with store.engine.begin() as c:
        res = c.execute(update(Deadline).where(
            col(Deadline.id) == row.id,
            or_(col(Deadline.state) == "pending",
                (col(Deadline.state) == "firing") & (col(Deadline.claimed_at) < now - LEASE)))
            .values(state="firing", claimed_at=now))
        return res.rowcount == 1


def _finish(store, row, result: str) -> None:
    with store.engine.begin() as c:
        c.execute(update(Deadline).where(Deadline.id == row.id)
                  .values(state="done", result=result[:60]))


def _fire(store, row, now) -> str:
    if row.kind == ROBOT:  # the runner after the move's commit did not get to it
        return "robot moved" if play.move_robots(store, row.game_id) else "moved on"
    with store.reader() as s:
        game = s.get(Game, row.game_id)
        st = store.state(s, game)
        store.keep(game.id, st)
        seats = s.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat))).all()
        players = players_of(s, seats)
        # a clock that died after submitting this timeout's move: only the mails are left
        applied = row.kind == "timeout" and s.exec(select(Move.id).where(
            Move.ref == f"timeout:{row.id}")).first() is not None
        timeout = _timeout_of(s, row)
    if not applied and (st.move_seq != row.seq or st.phase == "over"):
        return "moved on"  # the player moved in time, or the game ended
    names = seat_names(seats, players)
    who = names[row.seat]
    if row.kind == "reminder":
        if timeout <= now:  # the clock was down: the timeout, due too, says all there is
            return OVERTAKEN
        _mail(store, seats[row.seat], players, f"remind:{row.id}", lambda: (
            _("Game %(game)s: your move is due in %(left)s") % {"game": game.id,
                                                                 "left": _left(timeout - now)},
            _("A reminder: it is your move in game %(game)s, due by %(when)s.") % {
                "game": game.id, "when": _when(timeout)} + "\n"))
        return "reminded"
    tc = time_control(game)
    if tc["auto_vacation"] and not applied and vacation.auto_day(store, row, now):
        return "vacation day"  # the player was mailed; the seat's timeout is a day later
    how = tc["on_timeout"]
    action, text = _timeout_move(game, st, row, how, who, applied)
    if action is not None and not applied:
        try:
            play.submit(store, game.id, row.seat, action, expect_seq=row.seq, source="clock",
                        ref=f"timeout:{row.id}")
        except play.Refused:
            return "moved on"
    for mail in _timeout_mails(game, seats, players, row, text):
        _add(store, mail)
    if how == "wait":
        _ask_the_carer(store, game, row, who)
    logs.timeout(game.id, row.seat, _late(row, now), f"timeout: {how}")
    return f"timeout: {how}"


def _timeout_of(s, row) -> datetime:
    """The timeout a reminder warns of: the seat's latest for that move (a player with
    rest days is reminded in their own hours, so it is not always `hours_before` later)."""
    if row.kind != "reminder":
        return row.due
    due = s.exec(select(Deadline.due).where(
        Deadline.game_id == row.game_id, Deadline.seat == row.seat, Deadline.seq == row.seq,
        Deadline.kind == "timeout", Deadline.state != "cancelled")
        .order_by(col(Deadline.id).desc())).first()
    return due or row.due + timedelta(hours=row.hours_before)


def _ask_the_carer(store, game, row, who) -> None:
    """A table that waits: whoever looks after it (the league's organiser, else the game's
    creator) gets one-use links to let the robot make this move or give more time. A game
    the operator made has no carer: `pbem move` is theirs."""
    with store.reader() as s:
        carer = carer_of(s, game)
    if carer is None or not mailable(carer):  # none, or its mail bounces
        return
    cfg = load()
    sign = Signer(secret_keys(cfg), CARE)
    what = {"g": game.id, "s": row.seat, "q": row.seq}
    # each link alone on its line: a mail's lines stop at 78 columns, a link does not
    values = {"game": game.id, "name": who, "move": row.seq}
    with language(prefs.language(carer)):
        links = "\n".join(f"{_(text)}:\n  {cfg.base_url}/c/{sign.dumps(dict(what, a=act))}"
                          for text, act in CARE_ACTIONS)
        _send(store, carer.email, game.id, f"care:{row.id}",
              _("Game %(game)s waits for %(name)s") % values,
              _("%(name)s did not make move %(move)s of game %(game)s in time, and the game "
                "waits for you.") % values + "\n" + _("Each link works once:") + f"\n\n{links}\n")


def carer_of(s, game) -> Player | None:
    """Who looks after a game: its league's organiser, else whoever created it."""
    league = s.exec(select(League).join(Season, col(Season.league_id) == League.id)
                    .join(Fixture, col(Fixture.season_id) == Season.id)
                    .where(Fixture.game_id == game.id)).first()
    boss = league.organiser_id if league else game.created_by
    return s.get(Player, boss) if boss else None


def _left(delta: timedelta) -> str:
    """The time left, as a person says it: "3 hours", "1 hour", "40 minutes"."""
    hours = round(delta / timedelta(hours=1))
    if hours >= 1:
        return ngettext("%(num)s hour", "%(num)s hours", hours) % {"num": hours}
    minutes = max(1, round(delta / timedelta(minutes=1)))
    return ngettext("%(num)s minute", "%(num)s minutes", minutes) % {"num": minutes}


def _when(t: datetime) -> str:
    """A deadline as the context's language writes it ("Mon 03 Mar 14:00 UTC")."""
    return format_datetime(t, "EEE dd MMM HH:mm 'UTC'", tzinfo=UTC, locale=current())


Words = Callable[[], tuple[str, str]]  # a mail's (subject, text), made in the context's language


def _mail(store, seat, players, key, words: Words) -> None:
    mail = _mail_row(seat, players, key, words)
    if mail is not None:
        _add(store, mail)


def _mail_row(seat, players, key, words: Words) -> dict | None:
    """An Outbox row for the seat's player in its language, or None (a robot, no mail, a
    bouncing one)."""
    player = players.get(seat.player_id)
    if not mailable(player) or seat.robot:
        return None
    with language(prefs.language(player)):
        return _outbox(player.email, seat.game_id, key, *words())


def _outbox(to, game_id, key, subject, text) -> dict:
    mail = compose.game_mail(game_id, load().mail_domain, subject, text)
    mail["headers"]["Auto-Submitted"] = "auto-generated"
    return dict(mail, to_addr=to, dedupe_key=key)


def _send(store, to, game_id, key, subject, text) -> None:
    _add(store, _outbox(to, game_id, key, subject, text))


def _add(store, mail: dict) -> None:
    try:
        with store.session() as s:
            s.connection().execute(insert(Outbox), mail)
            s.commit()
    except IntegrityError:
        pass  # sent before: a redo after a crash


# -- running it --------------------------------------------------------------------------------


def scheduler(store, every: float = 30.0):
    """An APScheduler 3 BackgroundScheduler running `tick` (deadlines), the leagues' tick and
    the open seeks' and the hand reviews' every `every` seconds. Missed runs are harmless:
    the next tick handles everything due since."""
    from apscheduler.schedulers.background import BackgroundScheduler

    sched = BackgroundScheduler(timezone=UTC)
    for job in (tick, league_tick, seek_tick, review_tick):
        sched.add_job(job, "interval", seconds=every, args=[store], max_instances=1,
                      coalesce=True, misfire_grace_time=None, next_run_time=datetime.now(UTC))
    return sched


def league_tick(store) -> int:
    """Seasons that start today, rounds to open, quiet tables (pbem.organise.seasons.tick)."""
    return seasons.tick(store)


def seek_tick(store) -> int:
    """Open seeks whose day has come: robots fill them, or they expire (pbem.organise.seeks)."""
    return seeks.tick(store)


def review_tick(store) -> int:
    """Finished hands with no review get one (issue 33): worked out from a read, outside
    any write, then stored in a short write of its own; a few a tick, each bounded."""
    done = 0
    for game_id, hand in reviews.pending(store):
        data = reviews.work_out(store, game_id, hand) or reviews.NOT_REVIEWED
        done += reviews.save(store, game_id, hand, data)
    return done
