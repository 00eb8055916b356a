"""The one door: every move from every source (mail, web, clock, robot, CLI) comes here.

    submit(store, game_id, seat, action, expect_seq, source, ref)
    hand_over(store, game_id, seat, who, source, ref)   # a substitute takes a seat
    start(store, game_id)                               # the first deal

Each loads the game (from the state cache, catching up on any newer events), checks the move
with the engine, then in one transaction appends the event, everything that follows from
it without a human (the robots' replies, decided before the write from a read: `Plan`; the
reveal of a finished hand's salt, the next deal, cards that play themselves), and
the reactions, in this order (`_react`): the mails (pbem.notify), the next deadlines
(pbem.deadlines), the game's status and a league game's result (pbem.league.results). The
mails are rendered from the table the door's read (or its caller's, `Seen`) foresaw, before
the write, which takes them only if it finds that table (pbem.prepared). After the
commit, a league round whose last game this was opens (pbem.league.rounds) and is dealt by
a thread of its own, so the caller does not wait for it; and any robot move the write could
not foresee is made (`move_robots`). None of those modules imports this one.

(game, seq) and ref are unique in the database, so of two racing writers exactly one wins,
and the same ref (a Message-ID, a link's token id) applies once.

A stale move (made at an older seq) is refused, unless everything that happened since was
another seat's look or pass, anyone's talk or resignation offer, or a move and its undo:
those change nothing this seat could do, so the move still means what its player meant
(simultaneous passing would otherwise refuse good moves). Talk, offers and undo do not
depend on the table the player saw, so they are never stale; an undo names the move it
takes back instead.
Talk and offers (engine.acts.QUIET) write no turn mails and leave the deadlines alone.
"""

import logging
import random
import secrets
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import bindparam, func, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import select

from . import deadlines, notify, prepared
from . import orders as seat_orders
from .engine import IllegalAction, State, advance, apply, choose, make_deal, view
from .engine.acts import QUIET, clean_talk, resign_events
from .engine.auto import auto_card
from .engine.commitment import deal_digest
from .engine.game import SERVER_EVENTS
from .gamelog import LogError, read_log, replay_log
from .league import results as league_results
from .league import rounds as league_rounds
from .store import bulk
from .store.bulk import insert_all
from .store.games import ROBOT, last_holders, new_token, player_for, players_of, table_of
from .store.models import Deadline, DealSecret, Game, Move, Outbox, Player, Seat
from .store.models import now as utcnow
from .store.states import CorruptGame, Store

log = logging.getLogger(__name__)
_HARMLESS = ("look", "pass")  # another seat's look or pass leaves my move meaning the same
_TIMELESS = ("say", "concede", "undo")  # never stale: they do not depend on the table seen
TALK_PER_HOUR = 10  # `say` events a seat may make in an hour, and as many offers to resign
# and withdrawals (each mails every other human at the table, whatever their notify setting)
# a seat's own move, or the robot's at its timeout (the clock, or the carer's link): it pays
_OWN_MOVES = ("mail", "web", "cli", "clock", "organiser")
_MAX_FOLLOW = 10_000  # robot moves and deals after one human move: a whole robot game at most
ROBOT_TRIES = 20  # fresh reads for a robot's move before leaving it to the clock
ROUNDS_IN_BACKGROUND = True  # False: the last move's caller waits while the next round opens
_openers: list[threading.Thread] = []  # the threads opening rounds (rounds_opened waits)
_openers_lock = threading.Lock()


class Refused(Exception):
    """The move was not applied; `reason` says why, for the player."""

    def __init__(self, reason: str, state: State | None = None):
        super().__init__(reason)
        self.reason, self.state = reason, state


class Stale(Refused):
    pass


@dataclass
class Seen:
    """What `submit`'s caller just read, so there is no second read: the state (a private
    copy, kept in the cache by submit) and the robots' seats; with `table` (the game, its
    seats and players, the game having no pending orders) the move's mails are rendered
    before the write, from the table foreseen (pbem.prepared)."""
    state: State
    robots: set[int]
    table: tuple | None = None


@dataclass(frozen=True)
class Asked:
    """What a turn mail written with a move tells beyond the table, as its write arms it:
    the time the deadlines count from, each seat's pending orders (their texts), the due
    times seats keep (after an undo: `_kept_dues`). The read before the write foresees the
    first, and neither of the others (as pbem.prepared does)."""
    now: datetime
    orders: dict = field(default_factory=dict)
    kept: dict = field(default_factory=dict)


@dataclass
class Result:
    game_id: int
    state: State
    events: list[dict] = field(default_factory=list)
    duplicate: bool = False  # this ref was applied before; nothing new was written
    robots_wait: bool = False  # a robot is to move (the write did not foresee it)


def submit(store: Store, game_id: int, seat: int, action: dict, expect_seq: int | None = None,
           source: str = "cli", ref: str | None = None, also=None, seen=None,
           after=None) -> Result:
    """Apply `seat`'s `action` to the game, once; Refused (and nothing written) if it may not.
    `also(s)`, if given, writes what belongs with the move in its transaction (the clock's
    timeout marks its deadline done) and returns the mails (Outbox rows, as dicts) to queue
    with the move's own in one statement; it may refuse the move too.
    `seen`: what the caller read just now and hands over (`Seen`; see `_foresee`).
    `after(s, st, events, asked)`, if given, runs in the move's transaction once its events
    (with what followed without a human) are in `st`, and returns more mails to queue with
    the move's (an inbound mail's answer, whose Inbound row it writes in `s`; `asked`: what
    a turn mail tells besides, `Asked`): so the move and its answer commit together or not
    at all. It runs again if the write is retried; not at all if the ref was applied before
    (`Result.duplicate`). If it has `prepare(st, events, asked)`, that is called first,
    outside the write, with the table, events and `Asked` foreseen."""
    if isinstance(action, dict):  # only the server marks a play as made for the seat
        action = {k: v for k, v in action.items() if k != "auto"}
    checked = _check_claim(store, game_id, seat, action)

    answered = seat if source == "mail" else None  # pbem.notify: the answer tells it
    plan = _foresee(store, game_id, seat, action, seen, expect_seq, answered,
                    after is not None) if checked is None else None
    if plan is not None and plan.ahead is not None and hasattr(after, "prepare"):
        after.prepare(*plan.ahead[:2], Asked(plan.now))  # rendered outside the write too

    queued = []  # the mails `also` gives

    def first(s, st, game, seats):
        if checked is not None and checked != st.seq:  # never search inside the write
            raise Stale("the game moved on while your claim was checked: here is the table "
                        "as it is now", st.snapshot())
        if also is not None:  # first: its refusal must find the state unchanged
            queued[:] = also(s) or []
        if plan is not None:
            plan.begin(st)
        return _move(s, st, game_id, seat, action, expect_seq)

    return _door(store, game_id, first, seat, source, ref, plan, queued, after)


def _check_claim(store, game_id, seat, action) -> int | None:
    """A claim's search can take a second: it runs here, in a read that holds no lock, and
    the engine keeps its answer for the write. Returns the seq it was checked at."""
    if not isinstance(action, dict) or action.get("type") != "claim":
        return None
    with store.reader() as s:
        game = s.get(Game, game_id)
        if game is None:
            return None
        st = store.state(s, game)
    try:
        apply(st, seat, action)
    except IllegalAction:
        pass  # the door refuses it the same way, from the engine's answer
    finally:
        store.keep(game_id, st)
    return st.seq


def start(store: Store, game_id: int) -> Result:
    """Deal the first hand (and let robots act): the game begins."""
    return settle(store, game_id)


def settle(store: Store, game_id: int) -> Result:
    """Let happen now what needs no human: a deal, robots' moves, cards that play
    themselves, orders whose moment has come (after a player gave orders, say)."""
    return _door(store, game_id, lambda s, st, game, seats: [], None, "server", None)


def hand_over(store: Store, game_id: int, seat: int, who: str, source: str = "cli",
              ref: str | None = None) -> Result:
    """`who` (an address, or "robot") plays `seat` from now on, in place of its player: the
    log records the hand-over (a `substitute` event), the seat gets a new secret token (the
    old player's links and table stop working), the robot moves if the seat is now a robot's
    turn, and the new player gets the table. Refused if the game is over or `who` already
    has a seat in this game."""
    def first(s, st, game, seats):
        return _substitute(s, st, game, seats, seat, who)

    return _door(store, game_id, first, None, source, ref)


def adjudicate(store: Store, game_id: int, ruling: dict, source: str = "cli",
               ref: str | None = None, mails=None) -> Result:
    """An organiser's ruling on a finished game (an `adjudicate` event: pbem.engine.rulings),
    or the undoing of one. In its transaction the league's copy of the result learns the
    ruling in force (pbem.league.results) and `mails(s, game, seats, ev)` gives the rows for
    the outbox. Refused (nothing written) if the engine refuses the ruling."""
    def first(s, st, game, seats):
        ev = {**ruling, "seq": st.seq + 1, "type": "adjudicate"}
        advance(st, ev)
        league_results.rule(s, game, st)
        s.add_all(Outbox(**mail) for mail in (mails(s, game, seats, ev) if mails else []))
        return [ev]

    return _door(store, game_id, first, None, source, ref)


class Plan:
    """Robot moves decided from a read at `seq`, outside any write (a robot's search may
    take a while): the write makes each only while every event it added so far is the one
    foreseen, so a table that changed in between (an order, an auto-play) stops the plan."""

    def __init__(self, seq: int, foreseen: list[tuple[dict, dict]], ahead=None):
        self.seq, self.foreseen, self.done = seq, foreseen, 0  # (action, event) pairs
        self.ahead = ahead  # (the state after them, every event, (hand, trick) before)
        self.prepared = None  # the mails for `ahead`, rendered before the write
        self.now = None  # with `ahead`: the time its deadlines count from, the write's too

    def begin(self, st) -> bool:
        """A write (or its retry) begins: does it start from the table foreseen from?"""
        self.done = 0
        if st.seq != self.seq:
            self.foreseen = []  # foreseen from another table: the robots decide afresh
        return bool(self.foreseen)

    def first(self, s, st, game, seats) -> list[dict]:
        """The door's first step when only robots move: none, if the game moved on."""
        if not self.begin(st):
            raise Stale(f"the game moved on from move {self.seq}")
        return []

    def action(self, st, seat) -> dict | None:
        if self.done >= len(self.foreseen):
            return None
        action, ev = self.foreseen[self.done]
        return action if ev["seq"] == st.seq + 1 and ev.get("seat") == seat else None

    def saw(self, ev) -> None:
        if self.done < len(self.foreseen):
            same = self.foreseen[self.done][1] == ev
            self.done = self.done + 1 if same else len(self.foreseen)  # else: stop


def move_robots(store: Store, game_id: int) -> Result | None:
    """Let every robot whose turn it is move, each move decided from a read (no lock) and
    written through the door at the seq it was decided at: if another writer (a second
    runner, a player) got there first, decide again from a fresh read. Two runners move a
    robot once: the log's (game, seq) is unique. Returns None if no robot was to move."""
    events, state, stale = [], None, 0
    for _ in range(_MAX_FOLLOW):
        plan = _foresee(store, game_id)
        if not plan.foreseen:
            break
        try:
            done = _write(store, game_id, plan.first, None, "server", None, plan)
        except Stale:
            stale += 1
            if stale > ROBOT_TRIES:
                raise
            continue
        events += done.events
        state = done.state
    return Result(game_id, state, events) if state is not None else None


def _foresee(store, game_id, seat=None, action=None, seen=None, expect_seq=None,
             answered=None, answering=False) -> Plan:
    """The robots' next moves, from a read (after `seat`'s `action`, if given: the replies
    to a player's move, so they go in its write): while it is a robot's turn. `seen`: what
    its caller just read (`Seen`), so there is no second read; the state is the caller's
    private copy, kept in the cache here. A move the write will refuse as stale (made at
    `expect_seq`: `_fresh`) gets no mails rendered for nothing."""
    seen = seen or _robots_read(store, game_id, table=action is not None)
    if isinstance(seen, Plan):
        return seen
    st, robots = seen.state, seen.robots
    autos = _autos(*seen.table[1:]) if seen.table else {}  # as the write will find them
    at = (st.seq, st.move_seq)  # before the cache has `st` back: then it is everyone's
    try:
        plan = _robots_plan(game_id, st, robots, seat, action, autos)
    finally:
        store.keep(game_id, st)  # after its copy is made: the cache's state is everyone's
    if plan.ahead is not None:
        plan.now = utcnow()
        if seen.table and _fresh(store, game_id, seat, *at, expect_seq):  # outside the write
            plan.prepared = prepared.prepare(*seen.table, *plan.ahead, plan.now, answered,
                                             answering)
    return plan


def _fresh(store, game_id, seat, seq, move_seq, expect_seq) -> bool:
    """Will the write let the move by? The door's rule (`stale`), from the read's state at
    `seq`: the state alone says yes when nothing but talk and offers came since the move
    the player saw; else (another seat's look or pass, a move and its undo since) one more
    read asks the rule, so the mails are still rendered outside the write."""
    if expect_seq is None or move_seq <= expect_seq <= seq:
        return True
    with store.reader() as s:
        return _stale_at(s, seq, game_id, seat, expect_seq) is None


def _robots_read(store, game_id, table: bool = False) -> Seen | Plan:
    """The game's state and its robots' seats, or the empty Plan when there is nothing to
    foresee. With `table`, before a move: its game, seats and players too (unless it has
    pending orders, which its write plays), for the move's mails (pbem.prepared)."""
    with store.reader() as s:
        game = s.get(Game, game_id)
        if game is None:
            return Plan(0, [])
        seats, players = table_of(s, game_id)
        robots = {x.seat for x in seats if x.robot}
        if not robots and not table:
            return Plan(-1, [])  # a table of players: nothing to foresee
        try:
            st = store.state(s, game)
        except CorruptGame:
            return Plan(-1, [])  # the door says so
        table = table and not seat_orders.any_pending(s, game_id)
    return Seen(st, robots, (game, seats, players) if table else None)


def _robots_plan(game_id, st, robots, seat, action, autos=None) -> Plan:
    """The robots' moves from `st` (left unchanged: they are worked out on a copy), and
    the table they leave (`Plan.ahead`) after a move. With `autos` (seat: how, see
    `_autos`), the cards that play themselves too, so the mails rendered for `ahead` fit
    the write when one does (else it renders them again, holding the write lock)."""
    seq, foreseen, events = st.seq, [], []
    before = (st.hand_no, len(st.tricks))
    if action is not None:
        kind = action.get("type") if isinstance(action, dict) else None
        if kind in _TIMELESS:
            return Plan(seq, [])
        st = st.snapshot()
        try:
            events = apply(st, seat, action)
            for ev in events:
                advance(st, ev)
        except Exception:  # a stranger's action: the door refuses it, with the engine's answer
            return Plan(seq, [])
    elif not any(x in robots for x in st.to_act()):
        return Plan(seq, [])
    else:
        st = st.snapshot()
    while len(foreseen) < _MAX_FOLLOW and st.phase not in ("deal", "over") \
            and _robot_concedes(st, robots) is None:
        step = _unattended(game_id, st, robots, autos or {})
        if step is None:
            break
        advance(st, step[1])
        foreseen.append(step)
    ahead = (st, events + [ev for _, ev in foreseen], before) if events else None
    return Plan(seq, foreseen, ahead)


def _unattended(game_id, st, robots, autos) -> tuple[dict, dict] | None:
    """The next (action, event) no human makes, as the write makes it (`_next_auto`): a
    robot's move, decided here, or a card that plays itself."""
    for seat in st.to_act():
        if seat in robots:
            action = robot_choice(game_id, st, seat)
            return action, apply(st, seat, action)[0]
        ev = _auto_play(st, seat, autos.get(seat))
        if ev is not None:
            return {"type": "play", "card": ev["card"], "auto": "forced"}, ev
    return None


def robot_choice(game_id: int, st: State, seat: int) -> dict:
    """The robot's move for `seat` (pure, and the same for every runner at this seq)."""
    seed = random.Random(f"{game_id}:{st.seq}").getrandbits(32)
    return choose(view(st, seat), seed=seed, rules=st.rules)


def _robot_concedes(st, robots) -> int | None:
    """A robot whose partner offers to resign agrees (a cheap move, made in the write)."""
    for seat in sorted(robots):
        if st.phase != "over" and seat not in st.offers and any(
                m in st.offers for m in st.sides[st.side_of[seat]]):
            return seat
    return None


def _door(store, game_id, first, actor, source, ref, plan=None, queued=(), after=None) -> Result:
    """The write (`_once`), tried again when another writer got there first, with the
    robots' replies `plan` foresaw; then, after its commit, any robot moves left (after a
    deal, say), each decided outside the write (`move_robots`)."""
    result = _write(store, game_id, first, actor, source, ref, plan, queued, after)
    if not result.robots_wait:
        return result
    try:
        more = move_robots(store, game_id)
    except Exception:  # the move stands; the robot's deadline row makes the clock retry
        log.exception("game %s: the robots did not move; the clock will retry", game_id)
        return result
    if more is None:
        return result
    return Result(game_id, more.state, result.events + more.events)


def _write(store, game_id, first, actor, source, ref, plan, queued=(), after=None) -> Result:
    for _attempt in range(20):
        try:
            return _once(store, game_id, first, actor, source, ref, plan, queued, after)
        except IntegrityError as e:
            store.forget(game_id)
            if not _race(e):
                raise
            # someone else wrote this seq (or this ref) first: look again
        except OperationalError as e:
            store.forget(game_id)
            if "locked" not in str(e) and "deadlock" not in str(e):
                raise
        except CorruptGame as e:
            raise Refused(str(e)) from None
    raise Refused("the game is too busy right now: try again")


def _race(e: IntegrityError) -> bool:
    """Was it the move log's unique (game, seq) or ref, or a deal's salt (two dealing the same
    new game, e.g. a round's opener and the clock), i.e. another writer got there first?"""
    text = str(e.orig)
    return any(x in text for x in ("uq_move_", "move.seq", "move.ref", "uq_dealsecret_",
                                   "dealsecret.game_id"))


def _once(store, game_id, first, actor, source, ref, plan=None, queued=(), after=None) -> Result:
    """One write: `first` gives the events that start it (a player's move, a hand-over, or
    none to start the game), advanced into the state; then what follows without a human.
    `queued`: mails `first` gave, queued with the move's; `after`: see `submit`."""
    with store.session() as s:
        ready = plan.prepared if plan is not None else None
        # then not loaded again; nor added to the session: the write changes none of them
        # (the game's status is one UPDATE of its own: `_set_status`)
        table = prepared.same_table(s, game_id, ready, ref)
        game = table.game if table else s.get(Game, game_id)
        if game is None:
            raise Refused(f"there is no game {game_id}")
        last = table.last if table else None
        if ref is not None and (table.applied if table else s.connection().execute(
                select(Move.id).where(Move.ref == ref)).first()):
            st = store.state(s, game, last)
            store.keep(game_id, st)
            return Result(game_id, st.snapshot(), duplicate=True)
        st = store.state(s, game, last)
        before = (st.hand_no, len(st.tricks))  # so mails can tell that a trick or hand ended
        seats = table.seats if table else s.exec(
            select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat)).all()
        try:
            events = first(s, st, game, seats)
        except Refused as e:  # refused before anything changed the state
            store.keep(game_id, st)
            raise type(e)(e.reason, st.snapshot()) from None
        except IllegalAction as e:  # apply() refused without changing the state
            store.keep(game_id, st)
            raise Refused(str(e), st.snapshot()) from None
        n = len(events)
        players = table.players if table else players_of(s, seats)
        orders = seat_orders.Pending(s, game, seats, players, table is None or table.orders)
        events += _follow_up(s, st, game, seats, players, orders, plan)
        # the deadlines count from the time the read foresaw the move (its mails say it)
        asked = Asked(plan.now if plan is not None and plan.now else utcnow(),
                      orders.texts(), _kept_dues(s, game, events))
        if after is not None:
            queued = [*queued, *after(s, st, events, asked)]
        rows = [_row(game_id, ev, actor if i < n else _actor(ev), source, ref, i, n)
                for i, ev in enumerate(events)]
        insert_all(s, Move, rows)
        season = _react(s, game, seats, players, st, events, before, asked,
                        _clock_movers(events, n, actor, source), ready, table, queued,
                        actor if source == "mail" else None, after is not None)
        wait = any(x.robot and x.seat in st.to_act() for x in seats)  # not foreseen
        s.commit()
    store.keep(game_id, st)
    if season is not None:
        _next_round(store, season)
    return Result(game_id, _copy(st, plan, events), events, robots_wait=wait)


def _copy(st, plan, events) -> State:
    """The caller's copy of `st` (the cache's own, which its next writer changes): the state
    the read foresaw, when the write made just the events foreseen (with their seqs: so from
    the same state), which nobody else holds; else a snapshot."""
    ahead = plan.ahead if plan is not None else None
    if ahead is not None and events and ahead[1] == events and ahead[0].seq == st.seq:
        plan.ahead = None  # handed over: the plan keeps no hold on it
        return ahead[0]
    return st.snapshot()


def _react(s, game, seats, players, st, events, before, asked, movers, ready=None,
           table=None, queued=(), answered=None, answering=False) -> int | None:
    """What the move writes beside its events, in its transaction and in this order: the
    mails (`ready`: rendered before the write, taken if they fit), the next deadlines (from
    `asked.now`: `Asked`), the game's status and, when a league game ends, its result. (A
    bank clock's banks are paid first, so the mails can say what they hold.) Returns that
    game's season (its round may be done), else None."""
    if events and all(ev["type"] == "adjudicate" for ev in events):
        insert_all(s, Outbox, list(queued))
        return None  # a ruling is no move: no turn mails, no deadlines (its mails are its own)
    now, orders = asked.now, asked.orders
    undo = next(((ev, asked.kept) for ev in events if ev["type"] == "undo"), None)
    clocks = deadlines.settle_clocks(s, game, st, seats, players, now, *movers, undo=undo) \
        if events else None
    if prepared.fits(ready, table, st, events, before, orders, clocks) and ready.now == now:
        mails = ready.rows
    else:
        mails = notify.mails(game, seats, players, st, events, before, orders, clocks, now,
                             answered, answering, asked.kept)
    insert_all(s, Outbox, [*queued, *mails])
    if any(ev["type"] not in QUIET for ev in events):
        deadlines.arm(s, game, st, seats, players, now, clocks, asked.kept)
    if st.phase == "over" and game.status != "over":
        _set_status(s, game, "over")
        return league_results.record(s, game, st)
    if events and game.status == "open":
        _set_status(s, game, "playing")
    return None


_STATUS = update(Game).where(Game.id == bindparam("g")).values(status=bindparam("new"))


def _set_status(s, game, status: str) -> None:
    """The game's row given `status` in `s`'s transaction, by one UPDATE (not an ORM flush:
    the write needs not hold the game in its session); `game` says so too, as its row does
    now (nothing left to flush, in a session or out of one)."""
    bulk.run(s, _STATUS, {"g": game.id, "new": status})
    set_committed_value(game, "status", status)


def _next_round(store, season_id: int) -> None:
    """A league game just ended (and its move is committed): the next round, if this one is
    done, opens and is dealt in a thread of its own, so the player who made the last move
    does not wait for up to 50 new tables. A process that dies first leaves it to the
    clock's league tick; two runners open it once (pbem.league.rounds)."""
    if not ROUNDS_IN_BACKGROUND:
        _open_round(store, season_id)
        return
    opener = threading.Thread(target=_open_round, args=(store, season_id), daemon=True,
                              name=f"round-of-season-{season_id}")
    with _openers_lock:
        _openers[:] = [x for x in _openers if x.is_alive()] + [opener]
    opener.start()


def _open_round(store, season_id: int) -> None:
    """The move stands whatever happens here; if this fails, the clock's tick repairs it."""
    try:
        for gid in league_rounds.open_next(store, season_id):
            start(store, gid)
    except Exception:
        log.exception("season %s: the next round did not open; the clock will retry",
                      season_id)


def rounds_opened(timeout: float | None = None) -> bool:
    """Wait for the rounds this process is opening in the background (a command does,
    before it exits); False if one is still at work after `timeout` seconds."""
    with _openers_lock:
        openers = list(_openers)
    for opener in openers:
        opener.join(timeout)
    return not any(x.is_alive() for x in openers)


def _clock_movers(events, n, actor, source) -> tuple[int | None, frozenset]:
    """For a bank clock: the seat whose own move (or timeout) this write is, unless all it
    did was look at its cards, talk or take a move back (none of which earns the increment),
    and the seats whose cards the server played for them."""
    mine = [ev for ev in events[:n] if ev.get("type") not in ("look", "undo", *QUIET)]
    moved = actor if mine and source in _OWN_MOVES else None
    return moved, frozenset(ev["seat"] for ev in events[n:] if ev.get("auto"))


def _move(s, st, game_id, seat, action, expect_seq) -> list[dict]:
    """The human move's events, advanced into `st` (empty when the server only starts)."""
    if action is None:
        if seat is not None:
            raise IllegalAction("no action given")
        return []
    if not isinstance(seat, int) or not 0 <= seat < st.n:
        raise IllegalAction(f"there is no seat {seat} in game {game_id}")
    kind = action.get("type") if isinstance(action, dict) else None
    if expect_seq is not None and kind not in _TIMELESS:
        _check_stale(s, st, game_id, seat, expect_seq)
    if kind == "say":
        action = _talk(s, game_id, seat, action)
    if kind == "concede" and not action.get("off") and resign_events(st, seat, action) is None:
        _check_offers(s, game_id, seat)  # (a withdrawal, or agreeing to resign, always goes)
    events = apply(st, seat, action)
    for ev in events:
        advance(st, ev)
    return events


def _substitute(s, st, game, seats, seat, who) -> list[dict]:
    """The hand-over event, advanced into `st`; the seat row changed to its new player."""
    if not isinstance(seat, int) or not 0 <= seat < st.n:
        raise IllegalAction(f"there is no seat {seat} in game {game.id}")
    row = seats[seat]
    robot = who.strip().lower() == ROBOT
    player = None if robot else player_for(s, who)
    if robot and row.robot:
        raise Refused(f"a robot plays seat {seat} of game {game.id} already")
    if player and any(x.player_id == player.id for x in seats):
        raise Refused(f"{player.email} already has a seat in game {game.id}")
    leaver = None if row.robot else s.get(Player, row.player_id)
    ev = {"seq": st.seq + 1, "type": "substitute", "seat": seat,
          "out": leaver.email if leaver else ROBOT, "in": player.email if player else ROBOT}
    advance(st, ev)
    row.robot, row.player_id, row.accepted = robot, player.id if player else None, True
    row.token = new_token()  # the old player's links and table stop working
    s.add(row)
    seat_orders.drop_pending(s, game.id, seat)  # the leaver's orders leave with them
    players = players_of(s, seats)
    for mail in notify.handover_mails(game, seats, players, ev, leaver):
        s.add(Outbox(**mail))
    return [ev]


def _talk(s, game_id, seat, action) -> dict:
    """A `say` as the engine takes it (one clean line), within the seat's hourly limit."""
    text = action.get("text")
    if not isinstance(text, str):
        raise IllegalAction("say what? write: say and your words")
    said = _lately(s, game_id, seat, "say")
    if said >= TALK_PER_HOUR:
        raise Refused(f"you have said {said} things in the last hour: at most "
                      f"{TALK_PER_HOUR} an hour, so wait a little")
    return {"type": "say", "text": clean_talk(text)}


def _check_offers(s, game_id, seat) -> None:
    """A new offer to resign is refused once the seat's offers and withdrawals of the last
    hour reach TALK_PER_HOUR: each mails every other human, as a `say` does."""
    made = _lately(s, game_id, seat, "concede")
    if made >= TALK_PER_HOUR:
        raise Refused(f"you have offered to resign or taken an offer back {made} times in the "
                      f"last hour: at most {TALK_PER_HOUR} an hour, so wait a little")


def _lately(s, game_id, seat, kind: str) -> int:
    """The seat's `kind` events (say, concede) in the last hour."""
    since = utcnow() - timedelta(hours=1)
    return s.exec(select(func.count()).select_from(Move).where(
        Move.game_id == game_id, Move.actor == seat, Move.type == kind,
        Move.created >= since)).one()


def _kept_dues(s, game, events) -> dict:
    """An undo gives the seat back the deadline it had for that move, not a fresh one."""
    undo = next((ev for ev in events if ev["type"] == "undo"), None)
    if undo is None:
        return {}
    due = s.exec(select(Deadline.due).where(
        Deadline.game_id == game.id, Deadline.seat == undo["seat"], Deadline.kind == "timeout",
        Deadline.seq < undo["undo"]).order_by(Deadline.seq.desc(), Deadline.id.desc())).first()
    return {undo["seat"]: due} if due is not None else {}


def _check_stale(s, st, game_id, seat, expect_seq):
    why = stale(s, st, game_id, seat, expect_seq)
    if why:
        raise Stale(why, st.snapshot())


def stale(s, st, game_id, seat, expect_seq) -> str | None:
    """Why a move the seat makes from the table it saw at `expect_seq` is stale in `st` (read
    in `s`), or None if it still means the same: the one rule, for the door and for the move
    links that lead to it (pbem.web.links). Talk, offers and another seat's look or pass
    since do not count, nor a move taken back since with its undo."""
    return _stale_at(s, st.seq, game_id, seat, expect_seq)


def _stale_at(s, seq, game_id, seat, expect_seq) -> str | None:
    """`stale` for a game at `seq` (the read before a move asks it of a state it has lent)."""
    if expect_seq == seq:
        return None
    if expect_seq > seq:
        return f"move {expect_seq} has not happened yet: the game is at move {seq}"
    since = s.exec(select(Move).where(Move.game_id == game_id, Move.seq > expect_seq,
                                      Move.seq <= seq)).all()
    if any(m.type not in QUIET and (m.type not in _HARMLESS or m.actor == seat)
           for m in _not_taken_back(since)):
        return (f"the game has moved on (you saw move {expect_seq}, it is now at {seq}): "
                "here is the table as it is now")
    return None


def _not_taken_back(since: list[Move]) -> list[Move]:
    """The moves since, less each move taken back since and its undo: the two leave the table
    as it was (pbem.engine.acts), so a move made from the table seen before still means the
    same. An undo of a move made before (one its player saw) stays: the table changed."""
    seqs = {m.seq for m in since}
    gone = {m.payload.get("undo") for m in since if m.type == "undo"} & seqs
    return [m for m in since if m.seq not in gone
            and not (m.type == "undo" and m.payload.get("undo") in gone)]


def _follow_up(s, st, game, seats, players, orders, plan=None) -> list[dict]:
    """What happens without a human: reveal a finished deal's salt, deal, the robots' moves
    `plan` foresaw (never a robot's search: that runs outside the write), and the cards
    that play themselves for the players who let them (pbem.engine.auto)."""
    robots = {x.seat for x in seats if x.robot}
    autos = _autos(seats, players)
    events = []
    for _ in range(_MAX_FOLLOW):
        orders.expire(st)
        ev = orders.next_play(st) or _next_auto(s, st, game, robots, autos, plan)
        if ev is None:
            break
        advance(st, ev)
        events.append(ev)
        if plan is not None:
            plan.saw(ev)
    return events


def _autos(seats, players) -> dict[int, str]:
    """The players' seats whose cards may play themselves, and how (forced or equal)."""
    autos = {x.seat: _auto_pref(players.get(x.player_id)) for x in seats if not x.robot}
    return {seat: how for seat, how in autos.items() if how != "off"}


def _auto_pref(player) -> str:
    """off, forced (the default: a seat's only legal card plays itself) or equal."""
    return (player.prefs or {}).get("auto", "forced") if player else "forced"


def _next_auto(s, st, game, robots, autos, plan) -> dict | None:
    rec = st.deal_record
    if st.phase in ("deal", "over") and rec and rec["seq"] not in st.reveals:
        salt = s.exec(select(DealSecret.salt).where(DealSecret.game_id == game.id,
                                                    DealSecret.deal_seq == rec["seq"])).first()
        if salt:
            return {"seq": st.seq + 1, "type": "reveal", "deal": rec["seq"], "salt": salt}
    if st.phase == "deal":
        ev = make_deal(st, secrets.SystemRandom())
        salt = secrets.token_hex(16)
        ev["commitment"] = deal_digest(ev, salt)
        s.add(DealSecret(game_id=game.id, deal_seq=ev["seq"], salt=salt))
        return ev
    seat = _robot_concedes(st, robots)
    if seat is not None:  # cheap: it stays in the write
        return apply(st, seat, {"type": "concede"})[0]
    for seat in st.to_act():
        if seat in robots:  # only a move decided outside; else the robot waits for one
            action = plan.action(st, seat) if plan is not None else None
            return apply(st, seat, action)[0] if action is not None else None
        ev = _auto_play(st, seat, autos.get(seat))
        if ev is not None:
            return ev
    return None


def _auto_play(st, seat, how: str | None) -> dict | None:
    """The event of the card that plays itself for `seat` now (`how` it may: `_autos`)."""
    card = auto_card(st, seat, how == "equal") if how else None
    return apply(st, seat, {"type": "play", "card": card, "auto": "forced"})[0] \
        if card is not None else None


def _actor(ev) -> int | None:
    """The seat that acted (None for what the server writes: deals, reveals, hand-overs)."""
    seat = ev.get("seat")
    if ev.get("type") in SERVER_EVENTS or seat.__class__ is not int:
        return None
    return seat


def _row(game_id, ev, actor, source, ref, i, first) -> dict:
    """The event's Move row (a dict: the write inserts them all in one statement)."""
    human = i < first
    return dict(game_id=game_id, seq=ev["seq"], type=ev["type"], payload=ev, actor=actor,
                source=source if human else _auto_source(ev, actor),
                ref=ref if human and i == 0 else None)


def _auto_source(ev, actor) -> str:
    if ev.get("auto"):
        return "auto"  # the seat's own card, played for it (forced, equal, or an order)
    return "robot" if actor is not None else "server"


def import_log(store: Store, text: str) -> int:
    """A new game from a log in the contract format; returns its id. The whole log is
    replayed first: an illegal event refuses the import (gamelog.LogError naming its seq)
    and nothing is written. Seats, as the log's hand-overs leave them: an entry with "@" is
    a player with that address; any other name (e.g. "robot", "seat1") cannot get mail, so
    a robot plays that seat. Every event becomes a move (source "import"). A hand still in
    progress keeps its deal's commitment, but its salt stays with the server that dealt it:
    that deal is never revealed here."""
    st = replay_log(text)
    header, rules, events = read_log(text)
    status = "over" if st.phase == "over" else ("playing" if events else "open")
    with store.session() as s:
        game = Game(rules=rules.to_dict(), first_dealer=header.get("first_dealer", 0),
                    status=status)
        s.add(game)
        s.flush()
        for i, name in enumerate(last_holders(header["seats"], events)):
            email = name if isinstance(name, str) and "@" in name else None
            try:
                player = player_for(s, email) if email else None
            except ValueError as e:  # not a mail address (pbem.store.addresses)
                raise LogError(f"seat {i}: {e}") from None
            s.add(Seat(game_id=game.id, seat=i, robot=player is None, token=new_token(),
                       player_id=player.id if player else None))
        s.add_all(Move(game_id=game.id, seq=ev["seq"], type=ev["type"], payload=ev,
                       actor=_actor(ev), source="import") for ev in events)
        s.commit()
        return game.id
