"""The one door: every move from every source (mail, web, clock, robot, CLI) comes here.

    submit(store, game_id, seat, action, expect_seq, source, ref)
    hand_over(store, game_id, seat, who, source, ref)   # a substitute takes a seat
    start(store, game_id)                               # the first deal

A move is read once and written once, whoever makes it. Before the write, and only when a
robot sits at the table, the robots' replies are decided from a read (a robot's search may
take a while; a caller that just read the game hands its read over: `Seen`), so they go in
the move's own write (`Plan`), and so is whether the hand is then settled. At a table of
players alone the write itself runs a few lines of play on the state it has
(`_judging`); when they cannot show the hand open, it holds its mails, and after the commit
the door runs the exact search on that state and either writes the rest of the hand or
queues the mails (`_judged`). The write (`_append_and_react`), in one transaction: reads
the game (from the state cache, catching up on any newer events), its seats and players;
checks the move with the engine; appends its event and everything that follows without a
human (the robots' replies foreseen, the reveal of a finished hand's salt, the next deal,
cards that play themselves, orders); then runs the reactions on that one `Table`, in this
order (`_run_reactions`): a bank clock's banks, the mails (pbem.notify), the next
deadlines (pbem.deadlines), the game's status and a league game's result
(pbem.league.results). After the commit, a league round whose last game this was opens
(pbem.league.rounds) and is dealt by a thread of its own, so the caller does not wait for
it; and any robot move the write could not foresee is made (`move_robots`). None of those
modules imports this one.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from time import perf_counter
from typing import TypedDict, Unpack

from sqlalchemy import bindparam, delete, func, insert, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from . import deadlines, logs, notify
from . import orders as seat_orders
from .engine import IllegalAction, State, advance, apply, choose, make_deal, view
from .engine.acts import QUIET, clean_talk, resign_events
from .engine.auto import auto_card
from .engine.commitment import deal_digest
from .engine.errors import N_
from .engine.game import SERVER_EVENTS
from .engine.settled import maybe_settled, settled, settled_card
from .gamelog import LogError, read_log, replay_log
from .i18n import gettext, told
from .league import results as league_results
from .league import rounds as league_rounds
from .league.duplicate import board_deal, round_seed
from .store import played, reviews
from .store.games import (
    ROBOT,
    Found,
    last_holders,
    new_token,
    player_for,
    players_of,
    read_table,
    robot_seat,
    table_of,
)
from .store.models import (
    Deadline,
    DealSecret,
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
from .store.states import CorruptGame, Store
from .table import Table, id_of

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


# The first step of a write: the events that start it (a player's move, a hand-over, a
# ruling, or none), advanced into the state, from the session, state, game and seats.
First = Callable[[Session, State, Game, list[Seat]], list[dict]]
# `submit`'s `after`: more mails written with the move, from the table the write leaves
After = Callable[[Session, Table], list[dict]]


@dataclass
class Seen:
    """What `submit`'s caller just read, so the door reads nothing more before its write:
    the state (a private copy, which the door keeps in the cache), the robots' seats, and
    the seats whose cards may play themselves, and how (`_autos`)."""
    state: State
    robots: set[int]
    autos: dict[int, str] = field(default_factory=dict)
    levels: dict[int, str] = field(default_factory=dict)  # robots' seats with a level of own

    @classmethod
    def at_table(cls, state: State, seats: Sequence[Seat],
                 players: dict[int, Player]) -> "Seen":
        """What a caller that read the game's seats and players hands over."""
        return cls(state, {x.seat for x in seats if x.robot}, _autos(seats, players),
                   {x.seat: x.robot_level for x in seats if x.robot and x.robot_level})


class How(TypedDict, total=False):
    """How a move comes to `submit`: its source ("cli" if not given) and ref, and what its
    caller adds (see `submit`)."""
    source: str
    ref: str | None
    also: Callable[[Session], list[dict] | None] | None
    seen: Seen | None
    after: After | None


@dataclass
class Result:
    game_id: int
    state: State
    events: list[dict] = field(default_factory=list)
    duplicate: bool = False  # this ref was applied before; nothing new was written
    robots_wait: bool = False  # a robot is to move (the write did not foresee it)
    untold: tuple[int, int] | None = None  # then: (hand, tricks) before the news it left
    held: list[dict] = field(default_factory=list)  # and the notices it left (a timeout's)
    # the keys of the write's mails, queued on hold while the door judges whether the hand
    # is settled (`_judged`)
    unjudged: list[str] | None = None


def submit(store: Store, game_id: int, seat: int, action: dict, expect_seq: int | None = None,
           **how: Unpack[How]) -> Result:
    """Apply `seat`'s `action` to the game, once; Refused (and nothing written) if it may not.
    `how`: the move's `source` and `ref`, and
    `also(s)`, which writes what belongs with the move in its transaction (the clock's
    timeout marks its deadline done) and returns the mails (Outbox rows, as dicts) to queue
    with the move's own; it may refuse the move too;
    `seen`: what the caller read just now and hands over (`Seen`), so the door does not read
    it again before the write;
    `after(s, table)`, which runs in the move's transaction once its events (with what
    followed without a human) are in the `Table`, and returns more mails to queue with the
    move's (an inbound mail's answer, whose Inbound row it writes in `s`): so the move and
    its answer commit together or not at all. It runs again if the write is retried; not at
    all if the ref was applied before (`Result.duplicate`)."""
    if isinstance(action, dict):  # only the server marks a play as made for the seat
        action = {k: v for k, v in action.items() if k != "auto"}
    checked = _check_claim(store, game_id, seat, action)
    also = how.get("also")
    w = _Write(game_id, _no_events, seat, how.get("source", "cli"), how.get("ref"),
               after=how.get("after"))
    if checked is None:
        w.plan = _foresee(store, game_id, how.get("seen"), (seat, action))

    def first(s: Session, st: State, game: Game, seats: list[Seat]) -> list[dict]:
        if checked is not None and checked != st.seq:  # never search inside the write
            raise Stale(gettext("the game moved on while your claim was checked: here is the "
                                "table as it is now"), st.snapshot())
        if also is not None:  # first: its refusal must find the state unchanged
            w.queued = also(s) or []
        if w.plan is not None:
            w.plan.begin(st)
        return _move(s, st, game_id, seat, action, expect_seq)

    w.first = first
    return _door(store, w)


def _check_claim(store: Store, game_id: int, seat: int, action: dict) -> int | None:
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
    return _door(store, _Write(game_id, _no_events))


def _no_events(s: Session, st: State, game: Game, seats: list[Seat]) -> list[dict]:
    return []


def hand_over(store: Store, game_id: int, seat: int, who: str, source: str = "cli",
              ref: str | None = None) -> Result:
    """`who` (an address, or "robot") plays `seat` from now on, in place of its player: the
    log records the hand-over (a `substitute` event), the seat gets a new secret token (the
    old player's links and table stop working), the robot moves if the seat is now a robot's
    turn, and the new player gets the table. Refused if the game is over or `who` already
    has a seat in this game."""
    def first(s: Session, st: State, game: Game, seats: list[Seat]) -> list[dict]:
        return _substitute(s, st, game, seats, seat, who)

    return _door(store, _Write(game_id, first, None, source, ref))


Mails = Callable[[Session, Game, list[Seat], dict], list[dict]]


def adjudicate(store: Store, game_id: int, ruling: dict, source: str = "cli",
               ref: str | None = None, mails: Mails | None = None) -> Result:
    """An organiser's ruling on a finished game (an `adjudicate` event: pbem.engine.rulings),
    or the undoing of one. In its transaction the league's copy of the result learns the
    ruling in force (pbem.league.results) and `mails(s, game, seats, ev)` gives the rows for
    the outbox. Refused (nothing written) if the engine refuses the ruling."""
    def first(s: Session, st: State, game: Game, seats: list[Seat]) -> list[dict]:
        ev = {**ruling, "seq": st.seq + 1, "type": "adjudicate"}
        advance(st, ev)
        league_results.rule(s, game, st)
        _queue(s, mails(s, game, seats, ev) if mails else [])
        return [ev]

    return _door(store, _Write(game_id, first, None, source, ref))


class Plan:
    """Robot moves decided from a read at `seq`, outside any write (a robot's search may
    take a while): the write makes each only while every event it added so far is the one
    foreseen, so a table that changed in between (an order, an auto-play) stops the plan."""

    def __init__(self, seq: int, foreseen: list[tuple[dict, dict]],
                 ahead: tuple[State, list[dict]] | None = None, settled: int | None = None,
                 judged: int | None = None):
        self.seq, self.foreseen, self.done = seq, foreseen, 0  # (action, event) pairs
        self.ahead = ahead  # (the state after the move and them, all their events)
        # the hand (its number) found settled once the foreseen events are made: the rest
        # of it plays itself (pbem.engine.settled); off when the write leaves the foreseen
        self.settled, self.off = settled, False
        self.judged = judged  # the seq whose state was judged (settled or not), if any

    def begin(self, st: State) -> bool:
        """A write (or its retry) begins: does it start from the table foreseen from?"""
        self.done, self.off = 0, False
        if st.seq != self.seq:
            self.foreseen = []  # foreseen from another table: the robots decide afresh
            self.settled = self.judged = None  # nor a settled hand from a stale search
        return bool(self.foreseen) or self.settled is not None

    def settles(self, st: State) -> bool:
        """Has the write reached the settled hand the plan found, by the events foreseen?"""
        return self.settled == st.hand_no and st.phase == "play" and not self.off \
            and self.done >= len(self.foreseen)

    def judges(self, st: State) -> bool:
        """Did the search outside judge the state the write has reached?"""
        return self.judged == st.seq and not self.off

    def first(self, s: Session, st: State, game: Game, seats: list[Seat]) -> list[dict]:
        """The door's first step when only robots move: none, if the game moved on."""
        if not self.begin(st):
            raise Stale(f"the game moved on from move {self.seq}")
        return []

    def action(self, st: State, seat: int) -> dict | None:
        if self.done >= len(self.foreseen):
            return None
        action, ev = self.foreseen[self.done]
        return action if ev["seq"] == st.seq + 1 and ev.get("seat") == seat else None

    def saw(self, ev: dict) -> None:
        if self.done < len(self.foreseen):
            same = self.foreseen[self.done][1] == ev
            self.done = self.done + 1 if same else len(self.foreseen)  # else: stop
            self.off = self.off or not same


@dataclass
class _Write:
    """One write through the door: its first step, who makes it and how (`actor`, `source`,
    `ref`), the robots' replies foreseen (`plan`), the mails its first step gave (`queued`)
    and the caller's `after` (see `submit`)."""
    game_id: int
    first: First
    actor: int | None = None
    source: str = "server"
    ref: str | None = None
    plan: Plan | None = None
    after: After | None = None
    queued: list[dict] = field(default_factory=list)
    untold: tuple[int, int] | None = None  # (hand, tricks) before a write's untold news
    replaces: list[str] = field(default_factory=list)  # held mails its own mails replace


def move_robots(store: Store, game_id: int, untold: tuple[int, int] | None = None,
                held: list[dict] | None = None) -> Result | None:
    """Let every robot whose turn it is move, each move decided from a read (no lock) and
    written through the door at the seq it was decided at: if another writer (a second
    runner, a player) got there first, decide again from a fresh read. Two runners move a
    robot once: the log's (game, seq) is unique. Returns None if no robot was to move.
    `untold`: the write before left the news of a trick or hand ended since (hand, tricks)
    to these writes (`Result.untold`), and `held`, its timeout notices, so a player hears
    it once, in the mail that asks them to move if it does (one mail, not the news and then
    the turn mail). Notices no write took are queued at the end."""
    events: list[dict] = []
    state, stale, held = None, 0, held or []
    try:
        for _ in range(_MAX_FOLLOW):
            plan = _foresee(store, game_id)
            if not plan.foreseen and plan.settled is None:
                break
            try:
                done = _write(store, _Write(game_id, plan.first, plan=plan, untold=untold,
                                            queued=held))
            except Stale:
                stale += 1
                if stale > ROBOT_TRIES:
                    raise
                continue
            events += done.events
            state, untold, held = done.state, done.untold, done.held
    finally:
        _queue_alone(store, held)
    return Result(game_id, state, events) if state is not None else None


def _queue_alone(store: Store, mails: list[dict]) -> None:
    """Mails a write held for the robots' write, which did not come: queued as they are."""
    if mails:
        with store.session() as s:
            _queue(s, mails)
            s.commit()


def _foresee(store: Store, game_id: int, seen: Seen | None = None,
             move: tuple[int, dict] | None = None) -> Plan:
    """The robots' next moves, from a read (after `move`, a seat's action, if given: the
    replies to a player's move, so they go in its write), while it is a robot's turn.
    `seen`: what the caller just read, so there is no read here; its state (the caller's
    private copy) is kept in the cache once the plan is made."""
    got = seen or _robots_read(store, game_id)
    if got is None:
        return Plan(-1, [])
    try:
        return _robots_plan(game_id, got, move)
    finally:
        store.keep(game_id, got.state)  # after its copy is made: then it is everyone's


_ROBOTS = select(Seat.seat).where(Seat.game_id == bindparam("g"), Seat.robot)


def _robots_read(store: Store, game_id: int) -> Seen | None:
    """What the robots' moves (and whether the hand is then settled) are decided from; None
    when no robot sits at the table (then one small statement is all that is read before
    the write, and the write itself tells whether the hand may be settled: `_judging`)."""
    if not store.quick_rows(_ROBOTS, g=game_id):
        return None
    with store.reader() as s:
        game = s.get(Game, game_id)
        if game is None:
            return None
        seats, players = table_of(s, game_id)
        try:
            st = store.state(s, game)
        except CorruptGame:
            return None  # the door says so
    return Seen.at_table(st, seats, players)


def _robots_plan(game_id: int, seen: Seen, move: tuple[int, dict] | None) -> Plan:
    """The robots' moves from `seen.state` (left unchanged: they are worked out on a copy),
    after `move` if given, and the table they leave (`Plan.ahead`: the caller gets that
    copy if the write makes just those events). The cards that play themselves are
    foreseen too (`seen.autos`), as the write plays them."""
    st, seq = seen.state, seen.state.seq
    events: list[dict] = []
    if move is not None:
        copy = _after_move(st, *move)
        if copy is None:
            return Plan(seq, [])
        st, events = copy
    elif not any(x in seen.robots for x in st.to_act()):
        return Plan(seq, [])
    else:
        st = st.snapshot()
    foreseen: list[tuple[dict, dict]] = []
    while len(foreseen) < _MAX_FOLLOW and st.phase not in ("deal", "over") \
            and _robot_concedes(st, seen.robots) is None:
        step = _unattended(game_id, st, seen.robots, seen.autos, seen.levels)
        if step is None:
            break
        advance(st, step[1])
        foreseen.append(step)
    return Plan(seq, foreseen, (st, events + [ev for _, ev in foreseen]) if events else None,
                _settled_hand(st, seen), judged=st.seq)


def _settled_hand(st: State, seen: Seen) -> int | None:
    """The hand's number if the rest of it plays itself from `st` (pure work, outside the
    write): no order of play changes what it scores (pbem.engine.settled), and every player
    at the table lets cards play themselves (a player with `auto off` keeps the table
    asking: docs/mail.md)."""
    if st.phase != "play" or not _everyone_auto(st.n, seen.robots, seen.autos):
        return None
    return st.hand_no if settled(st) else None


def _everyone_auto(n: int, robots: set[int], autos: dict[int, str]) -> bool:
    return all(seat in robots or seat in autos for seat in range(n))


def _after_move(st: State, seat: int, action: dict) -> tuple[State, list[dict]] | None:
    """A copy of `st` after the seat's action and its events; None for an action that does
    not depend on the table (talk, offers, undo) or that the engine refuses (the door
    refuses it, with the engine's answer)."""
    kind = action.get("type") if isinstance(action, dict) else None
    if kind in _TIMELESS:
        return None
    copy = st.snapshot()
    try:
        events = apply(copy, seat, action)
        for ev in events:
            advance(copy, ev)
    except Exception:  # a stranger's action
        return None
    return copy, events


def _unattended(game_id: int, st: State, robots: set[int], autos: dict[int, str],
                levels: dict[int, str] | None = None) -> tuple[dict, dict] | None:
    """The next (action, event) no human makes, as the write makes it (`_next_auto`): a
    robot's move, decided here (at the seat's level, if it has one), or a card that plays
    itself."""
    for seat in st.to_act():
        if seat in robots:
            action = robot_choice(game_id, st, seat, (levels or {}).get(seat))
            return action, apply(st, seat, action)[0]
        ev = _auto_play(st, seat, autos.get(seat))
        if ev is not None:
            return {"type": "play", "card": ev["card"], "auto": "forced"}, ev
    return None


def robot_choice(game_id: int, st: State, seat: int, level: str | None = None) -> dict:
    """The robot's move for `seat` (pure, and the same for every runner at this seq), at
    `level` (the seat's own; None: the rules')."""
    seed = random.Random(f"{game_id}:{st.seq}").getrandbits(32)
    return choose(view(st, seat), seed=seed, rules=st.rules, level=level)


def _robot_concedes(st: State, robots: set[int]) -> int | None:
    """A robot whose partner offers to resign agrees (a cheap move, made in the write)."""
    for seat in sorted(robots):
        if st.phase != "over" and seat not in st.offers and any(
                m in st.offers for m in st.sides[st.side_of[seat]]):
            return seat
    return None


def _door(store: Store, w: _Write) -> Result:
    """The write, tried again when another writer got there first, with the robots'
    replies its plan foresaw; then, after its commit, any robot moves left (after a deal,
    say), each decided outside the write (`move_robots`)."""
    started = perf_counter()
    result = _write(store, w)
    if result.unjudged is not None:
        result = _judged(store, w, result)
    logs.move(w.game_id, w.actor, w.source, result.state.seq, len(result.events),
              logs.ms_since(started))
    if not result.robots_wait:
        return result
    try:
        more = move_robots(store, w.game_id, result.untold, result.held)
    except Exception:  # the move stands; the robot's deadline row makes the clock retry
        log.exception("game %s: the robots did not move; the clock will retry", w.game_id)
        return result
    if more is None:
        return result
    return Result(w.game_id, more.state, result.events + more.events)


def _write(store: Store, w: _Write) -> Result:
    for _attempt in range(20):
        try:
            return _append_and_react(store, w)
        except IntegrityError as e:
            store.forget(w.game_id)
            if not _race(e):
                raise
            # someone else wrote this seq (or this ref) first: look again
        except OperationalError as e:
            store.forget(w.game_id)
            if "locked" not in str(e) and "deadlock" not in str(e):
                raise
        except CorruptGame as e:
            raise Refused(str(e)) from None
    raise Refused(gettext("the game is too busy right now: try again"))


def _race(e: IntegrityError) -> bool:
    """Was it the move log's unique (game, seq) or ref, or a deal's salt (two dealing the same
    new game, e.g. a round's opener and the clock), i.e. another writer got there first?"""
    text = str(e.orig)
    return any(x in text for x in ("uq_move_", "move.seq", "move.ref", "uq_dealsecret_",
                                   "dealsecret.game_id"))


def _append_and_react(store: Store, w: _Write) -> Result:
    """One write: the table read once, `w.first`'s events and what follows without a human
    appended to the log, and the reactions, in one transaction."""
    with store.session() as s:
        found = read_table(s, w.game_id, w.ref)
        if found is None:
            raise Refused(f"there is no game {w.game_id}")
        if found.applied:
            return _duplicate(store, s, found)
        t = _read_and_begin(store, s, found, w)
        t.earlier = _earlier(s, t, w)
        n = len(t.events)
        orders = seat_orders.Pending(s, t, found.orders)
        t.events += _follow_up(s, t, orders, w.plan)
        t.orders, t.kept = orders.texts(), _kept_dues(s, t.game, t.events)
        queued = [*w.queued, *(w.after(s, t) if w.after is not None else [])]
        _append(s, w, t.events, n)
        # a robot to move that the write did not foresee: its write tells this one's news
        t.robots_next = any(x.robot and x.seat in t.st.to_act() for x in t.seats)
        held = [m for m in queued if notify.held(t, m)]
        judging = not t.robots_next and _judging(t, w)
        _drop_unsent(s, w.replaces)
        season, unjudged = _run_reactions(s, t, [m for m in queued if m not in held],
                                          _clock_movers(t.events, n, w), judging)
        if t.answered is not None:  # its answer may be written after the commit, from `t`
            t.earlier(t.answered)
        s.commit()
    store.keep(w.game_id, t.st)
    if season is not None:
        _next_round(store, season)
    if judging:  # a write that plays the rest may follow: it takes the notices, tells the news
        held = [m for m in queued if str(m.get("dedupe_key", "")).startswith(notify.NOTICE)]
    return Result(w.game_id, _callers_copy(t, w.plan), t.events, robots_wait=t.robots_next,
                  untold=t.before if t.robots_next or judging else None, held=held,
                  unjudged=unjudged if judging else None)


def _judging(t: Table, w: _Write) -> bool:
    """Is the hand the write leaves to be judged after its commit (`_judged`)? When a card
    or bid leaves a hand in play at a table where every seat lets cards play themselves,
    no search outside judged that state before the write (`Plan.judges`), and a few lines
    of play do not already show it open (`maybe_settled`: 0.14 ms on average, pure, bounded
    by the cards left). Not for a mail's move whose answer is written with it (`after`):
    that answer tells the table it leaves, so the hand's next move judges it."""
    st = t.st
    if w.after is not None or st.phase != "play" or not t.events or not t.moved() \
            or (w.plan is not None and w.plan.judges(st)):
        return False
    robots = {x.seat for x in t.seats if x.robot}
    return _everyone_auto(st.n, robots, _autos(t.seats, t.players)) and maybe_settled(st)


def _judged(store: Store, w: _Write, result: Result) -> Result:
    """The write left a hand that lines of play could not show open: the exact search, after
    the commit and outside any write, on the state it left (the caller's copy, only read
    here). If the hand is settled, a second write plays the rest (`"auto": "settled"`) and
    tells the news of both (`untold`), one mail a player, with the first write's timeout
    notices; the first write's mails, queued on hold, are dropped in it. Else they are
    released now. Held, not kept in memory: if this process dies here, they go anyway
    once their hold ends (`HOLD`)."""
    st, unjudged = result.state, result.unjudged or []
    result.unjudged = None
    if settled(st):
        plan = Plan(st.seq, [], settled=st.hand_no, judged=st.seq)
        try:
            done = _write(store, _Write(w.game_id, plan.first, plan=plan, untold=result.untold,
                                        queued=result.held, replaces=unjudged))
        except Refused:  # another write came first: the held mails stay as they were
            pass
        except Exception:  # the move stands and its mails go; the next move judges again
            log.exception("game %s: the rest of a settled hand was not written", w.game_id)
        else:
            return Result(w.game_id, done.state, result.events + done.events,
                          robots_wait=done.robots_wait, untold=done.untold, held=done.held)
    _release(store, unjudged)
    result.untold, result.held = None, []
    return result


# how long a write's mails wait while the door judges the hand it left (`_judged`): the
# search takes milliseconds; this is only how late they go if the process dies meanwhile
HOLD = timedelta(minutes=2)


def _release(store: Store, keys: list[str]) -> None:
    """Held mails go now (their game's hand was not settled, or its rest not written)."""
    if keys:
        try:
            with store.session() as s:
                s.execute(update(Outbox).where(*_untouched(keys)).values(next_attempt=utcnow()))
                s.commit()
        except Exception:  # they go when their hold ends
            log.exception("game mails %s: not released; they go when their hold ends", keys)


def _drop_unsent(s: Session, keys: list[str]) -> None:
    """The held mails a write's own replace, gone in its transaction (before its own are
    queued: they may have the same keys)."""
    if keys:
        s.execute(delete(Outbox).where(*_untouched(keys)))


def _untouched(keys: list[str]) -> tuple:
    """Held mails no drainer has taken: one merging it into another mail holds it under
    its lease (`attempts`, pbem.store.pacing.take_waiting) and settles it itself."""
    return (col(Outbox.dedupe_key).in_(keys), col(Outbox.sent_at).is_(None),
            col(Outbox.attempts) == 0)


def _earlier(s: Session, t: Table, w: _Write) -> Callable[[int], list[tuple[dict, str]]]:
    """What was played for a seat by earlier writes that it may not have been told of
    (pbem.store.played), read in the write when a mail to the seat is written, once."""
    first = t.events[0]["seq"] if t.events else t.st.seq + 1
    # the write's own move, by its seat itself: what came before it, the seat knew
    known: dict[int, list[tuple[dict, str]]] = {w.actor: []} \
        if w.actor is not None and w.source in played.OWN and t.own else {}

    def read(seat: int) -> list[tuple[dict, str]]:
        if seat not in known:
            player = t.players.get(t.seats[seat].player_id or 0)
            known[seat] = [] if player is None or not s.in_transaction() else \
                played.since_told(s, t.game_id, seat, player.email, first)
        return known[seat]

    return read


def _duplicate(store: Store, s: Session, found: Found) -> Result:
    """This ref applied before: nothing is written, the caller gets the table as it is."""
    st = store.state(s, found.game, found.last)
    store.keep(id_of(found.game), st)
    return Result(id_of(found.game), st.snapshot(), duplicate=True)


def _read_and_begin(store: Store, s: Session, found: Found, w: _Write) -> Table:
    """The table the write read, with `w.first`'s events advanced into its state. A
    refused first step changed nothing: the state goes back to the cache as it was."""
    game, seats = found.game, found.seats
    st = store.state(s, game, found.last)
    # so mails can tell that a trick or hand ended (since the write before, if it left that)
    before, hands = w.untold or (st.hand_no, len(st.tricks)), st.hand_no
    try:
        events = w.first(s, st, game, seats)
    except Refused as e:
        store.keep(w.game_id, st)
        raise type(e)(e.reason, st.snapshot()) from None
    except IllegalAction as e:  # apply() refused without changing the state
        store.keep(w.game_id, st)
        raise Refused(told(e), st.snapshot()) from None  # in the caller's language
    players = found.players  # but a hand-over's new player too:
    if any(x.player_id is not None and x.player_id not in players for x in seats):
        players = players_of(s, seats)
    return Table(game, seats, players, st, events, before, hands=hands,
                 answered=w.actor if w.source == "mail" else None,
                 answering=w.after is not None, source=w.source, own=len(events))


def _append(s: Session, w: _Write, events: list[dict], n: int) -> None:
    """The events as Move rows, in one statement: the first `n` are `w`'s own (its
    source, and its ref on the first), the rest followed without a human."""
    if events:
        now = utcnow()
        s.connection().execute(_INSERT_MOVES, [_row(w, ev, i, n) | {"created": now}
                                               for i, ev in enumerate(events)])


# Core statements, run on the session's connection (the ORM's bulk insert cost more than the
# SQL; nothing of the write reads these rows back as objects)
_INSERT_MOVES, _INSERT_MAILS = insert(Move), insert(Outbox)
# an Outbox row's fields a mail leaves to their defaults (`_queue` adds the times)
_OUTBOX: dict[str, object] = {"game_id": None, "body_html": None, "headers": {}, "attempts": 0,
           "last_error": None, "sent_at": None}


def _queue(s: Session, mails: list[dict], hold: timedelta | None = None) -> None:
    """Mails (Outbox rows, as dicts) queued in one statement; not due before `hold` ends."""
    if mails:
        now = utcnow()
        due = now + hold if hold else now
        s.connection().execute(_INSERT_MAILS, [{**_OUTBOX, "next_attempt": due, "created": now,
                                                **mail} for mail in mails])


def _callers_copy(t: Table, plan: Plan | None) -> State:
    """The caller's copy of `t.st` (the cache's own, which its next writer changes): the
    state the read foresaw, when the write made just the events foreseen (with their seqs:
    so from the same state), which nobody else holds; else a snapshot."""
    ahead = plan.ahead if plan is not None else None
    if plan is not None and ahead is not None and ahead[1] == t.events and t.events \
            and ahead[0].seq == t.st.seq:
        plan.ahead = None  # handed over: the plan keeps no hold on it
        return ahead[0]
    return t.st.snapshot()


def _run_reactions(s: Session, t: Table, queued: list[dict],
                   movers: tuple[int | None, frozenset[int]], hold: bool = False
                   ) -> tuple[int | None, list[str]]:
    """What the move writes beside its events, in its transaction and in this order: a bank
    clock's banks paid (so the mails can say what they hold), the mails (if `hold`, on
    hold: `_judged`), the next deadlines (from `t.now`), the game's status and, when a
    league game ends, its result. Returns that game's season (its round may be done), else
    None, and the keys of the mails on hold."""
    if t.events and all(ev["type"] == "adjudicate" for ev in t.events):
        _queue(s, queued)
        return None, []  # a ruling is no move: no turn mails, no deadlines (its own mails)
    undo = next((ev for ev in t.events if ev["type"] == "undo"), None)
    t.clocks = deadlines.settle_clocks(s, t, *movers, undo=undo) if t.events else None
    mails = notify.with_notices(t, queued)
    _queue(s, mails, HOLD if hold else None)
    if t.moved():
        deadlines.arm(s, t)
    if t.st.hand_no != t.hands:  # a hand ended (or an undo took one back): its review
        reviews.mark(s, t.game_id, t.hands, t.st.hand_no)
    return _record_end(s, t), [m["dedupe_key"] for m in mails] if hold else []


def _record_end(s: Session, t: Table) -> int | None:
    """The game's status as its state now is; when a league game ends, its result (and
    its season, returned)."""
    game, st = t.game, t.st
    if st.phase == "over" and game.status != "over":
        _set_status(s, game, "over")
        return league_results.record(s, game, st)
    if t.events and game.status == "open":
        _set_status(s, game, "playing")
    return None


_STATUS = update(Game).where(col(Game.id) == bindparam("g")).values(status=bindparam("new"))


def _set_status(s: Session, game: Game, status: str) -> None:
    """The game's row given `status` in `s`'s transaction, by one UPDATE (not an ORM flush);
    `game` says so too, as its row does now (nothing left to flush)."""
    s.connection().execute(_STATUS, {"g": game.id, "new": status})
    set_committed_value(game, "status", status)


def _next_round(store: Store, season_id: int) -> None:
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


def _open_round(store: Store, season_id: int) -> None:
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


def _clock_movers(events: list[dict], n: int, w: _Write) -> tuple[int | None, frozenset[int]]:
    """For a bank clock: the seat whose own move (or timeout) this write is, unless all it
    did was look at its cards, talk or take a move back (none of which earns the increment),
    and the seats whose cards the server played for them."""
    mine = [ev for ev in events[:n] if ev.get("type") not in ("look", "undo", *QUIET)]
    moved = w.actor if mine and w.source in _OWN_MOVES else None
    return moved, frozenset(ev["seat"] for ev in events[n:] if ev.get("auto"))


def _move(s: Session, st: State, game_id: int, seat: int, action: dict | None,
          expect_seq: int | None) -> list[dict]:
    """The human move's events, advanced into `st` (empty when the server only starts)."""
    if action is None:
        if seat is not None:
            raise IllegalAction("no action given")
        return []
    if not isinstance(seat, int) or not 0 <= seat < st.n:
        raise IllegalAction(f"there is no seat {seat} in game {game_id}")
    if expect_seq is not None and _kind(action) not in _TIMELESS:
        _check_stale(s, st, game_id, seat, expect_seq)
    events = apply(st, seat, _within_limits(s, st, game_id, seat, action))
    for ev in events:
        advance(st, ev)
    return events


def _kind(action: object) -> str | None:
    return action.get("type") if isinstance(action, dict) else None


def _within_limits(s: Session, st: State, game_id: int, seat: int, action: dict) -> dict:
    """The action as the engine takes it, once the seat's talk and offers of the last hour
    leave room for it (`TALK_PER_HOUR`)."""
    kind = _kind(action)
    if kind == "say":
        return _talk(s, game_id, seat, action)
    if kind == "concede" and not action.get("off") and resign_events(st, seat, action) is None:
        _check_offers(s, game_id, seat)  # (a withdrawal, or agreeing to resign, always goes)
    return action


def _substitute(s: Session, st: State, game: Game, seats: list[Seat], seat: int,
                who: str) -> list[dict]:
    """The hand-over event, advanced into `st`; the seat row changed to its new player."""
    if not isinstance(seat, int) or not 0 <= seat < st.n:
        raise IllegalAction(f"there is no seat {seat} in game {game.id}")
    row = seats[seat]
    try:
        robot, level = robot_seat(who)
    except ValueError as e:
        raise Refused(str(e)) from None
    player = None if robot else player_for(s, who)
    if robot and row.robot:
        raise Refused(f"a robot plays seat {seat} of game {game.id} already")
    if player and any(x.player_id == player.id for x in seats):
        raise Refused(f"{player.email} already has a seat in game {game.id}")
    leaver = None if row.robot else s.get(Player, row.player_id or 0)
    ev = {"seq": st.seq + 1, "type": "substitute", "seat": seat,
          "out": leaver.email if leaver else ROBOT, "in": player.email if player else ROBOT}
    advance(st, ev)
    row.robot, row.player_id, row.accepted = robot, player.id if player else None, True
    row.robot_level = level
    row.token = new_token()  # the old player's links and table stop working
    s.add(row)
    seat_orders.drop_pending(s, id_of(game), seat)  # the leaver's orders leave with them
    players = players_of(s, seats)
    _queue(s, notify.handover_mails(game, seats, players, ev, leaver))
    return [ev]


def _talk(s: Session, game_id: int, seat: int, action: dict) -> dict:
    """A `say` as the engine takes it (one clean line), within the seat's hourly limit."""
    text = action.get("text")
    if not isinstance(text, str):
        raise IllegalAction(N_("say what? write: say and your words"))
    said = _lately(s, game_id, seat, "say")
    if said >= TALK_PER_HOUR:
        raise Refused(gettext("you have said %(said)s things in the last hour: at most "
                              "%(most)s an hour, so wait a little")
                      % {"said": said, "most": TALK_PER_HOUR})
    return {"type": "say", "text": clean_talk(text)}


def _check_offers(s: Session, game_id: int, seat: int) -> None:
    """A new offer to resign is refused once the seat's offers and withdrawals of the last
    hour reach TALK_PER_HOUR: each mails every other human, as a `say` does."""
    made = _lately(s, game_id, seat, "concede")
    if made >= TALK_PER_HOUR:
        raise Refused(gettext("you have offered to resign or taken an offer back %(made)s "
                              "times in the last hour: at most %(most)s an hour, so wait a "
                              "little")
                      % {"made": made, "most": TALK_PER_HOUR})


def _lately(s: Session, game_id: int, seat: int, kind: str) -> int:
    """The seat's `kind` events (say, concede) in the last hour."""
    since = utcnow() - timedelta(hours=1)
    return s.exec(select(func.count()).select_from(Move).where(
        Move.game_id == game_id, Move.actor == seat, Move.type == kind,
        Move.created >= since)).one()


def _kept_dues(s: Session, game: Game, events: list[dict]) -> dict[int, datetime]:
    """An undo gives the seat back the deadline it had for that move, not a fresh one."""
    undo = next((ev for ev in events if ev["type"] == "undo"), None)
    if undo is None:
        return {}
    due = s.exec(select(Deadline.due).where(
        Deadline.game_id == game.id, Deadline.seat == undo["seat"], Deadline.kind == "timeout",
        Deadline.seq < undo["undo"]).order_by(col(Deadline.seq).desc(), col(Deadline.id).desc())
    ).first()
    return {undo["seat"]: due} if due is not None else {}


def _check_stale(s: Session, st: State, game_id: int, seat: int, expect_seq: int) -> None:
    why = stale(s, st, game_id, seat, expect_seq)
    if why:
        raise Stale(why, st.snapshot())


def stale(s: Session, st: State, game_id: int, seat: int, expect_seq: int) -> str | None:
    """Why a move the seat makes from the table it saw at `expect_seq` is stale in `st` (read
    in `s`), or None if it still means the same: the one rule, for the door and for the move
    links that lead to it (pbem.web.links). Talk, offers and another seat's look or pass
    since do not count, nor a move taken back since with its undo."""
    seq = st.seq
    if expect_seq == seq:
        return None
    if expect_seq > seq:
        return gettext("move %(seen)s has not happened yet: the game is at move %(seq)s") % {
            "seen": expect_seq, "seq": seq}
    since = list(s.exec(select(Move).where(Move.game_id == game_id, Move.seq > expect_seq,
                                           Move.seq <= seq)))
    if any(m.type not in QUIET and (m.type not in _HARMLESS or m.actor == seat)
           for m in _not_taken_back(since)):
        return gettext("the game has moved on (you saw move %(seen)s, it is now at %(seq)s): "
                       "here is the table as it is now") % {"seen": expect_seq, "seq": seq}
    return None


def _not_taken_back(since: list[Move]) -> list[Move]:
    """The moves since, less each move taken back since and its undo: the two leave the table
    as it was (pbem.engine.acts), so a move made from the table seen before still means the
    same. An undo of a move made before (one its player saw) stays: the table changed."""
    seqs = {m.seq for m in since}
    gone = {m.payload.get("undo") for m in since if m.type == "undo"} & seqs
    return [m for m in since if m.seq not in gone
            and not (m.type == "undo" and m.payload.get("undo") in gone)]


def _follow_up(s: Session, t: Table, orders: seat_orders.Pending,
               plan: Plan | None) -> list[dict]:
    """What happens without a human: orders whose moment has come, the reveal of a finished
    deal's salt, the deal, the robots' moves `plan` foresaw (never a robot's search: that
    runs outside the write), and the cards that play themselves for the players who let
    them (pbem.engine.auto)."""
    unattended = _Unattended({x.seat for x in t.seats if x.robot}, _autos(t.seats, t.players),
                             plan)
    st, events = t.st, []
    for _ in range(_MAX_FOLLOW):
        orders.expire(st)
        ev = orders.next_play(st) or _next_auto(s, st, t.game, unattended)
        if ev is None:
            break
        advance(st, ev)
        events.append(ev)
        if plan is not None:
            plan.saw(ev)
    return events


@dataclass
class _Unattended:
    """Who moves without a human in a write: the robots (only as `plan` foresaw), and the
    seats whose cards play themselves, and how (`autos`)."""
    robots: set[int]
    autos: dict[int, str]
    plan: Plan | None


def _autos(seats: Sequence[Seat], players: dict[int, Player]) -> dict[int, str]:
    """The players' seats whose cards may play themselves, and how (forced or equal)."""
    autos = {x.seat: _auto_pref(players.get(x.player_id or 0)) for x in seats if not x.robot}
    return {seat: how for seat, how in autos.items() if how != "off"}


def _auto_pref(player: Player | None) -> str:
    """off, forced (the default: a seat's only legal card plays itself) or equal."""
    return (player.prefs or {}).get("auto", "forced") if player else "forced"


def _next_auto(s: Session, st: State, game: Game, who: _Unattended) -> dict | None:
    """The next event no human makes: a reveal, a deal, a robot's agreement to resign, a
    robot's move foreseen, or a card that plays itself; None when a human must act."""
    ev = _reveal(s, st, game) or _deal(s, st, game)
    if ev is not None:
        return ev
    seat = _robot_concedes(st, who.robots)
    if seat is not None:  # cheap: it stays in the write
        return apply(st, seat, {"type": "concede"})[0]
    if who.plan is not None and who.plan.settles(st) \
            and _everyone_auto(st.n, who.robots, who.autos):
        card = settled_card(st)  # any legal card keeps a settled hand settled
        return apply(st, st.turn, {"type": "play", "card": card, "auto": "settled"})[0]
    for seat in st.to_act():
        if seat in who.robots:  # only a move decided outside; else the robot waits for one
            action = who.plan.action(st, seat) if who.plan is not None else None
            return apply(st, seat, action)[0] if action is not None else None
        ev = _auto_play(st, seat, who.autos.get(seat))
        if ev is not None:
            return ev
    return None


def _reveal(s: Session, st: State, game: Game) -> dict | None:
    """A finished deal's salt, once its hand is over (or the game)."""
    rec = st.deal_record
    if st.phase not in ("deal", "over") or not rec or rec["seq"] in st.reveals:
        return None
    salt = s.exec(select(DealSecret.salt).where(DealSecret.game_id == game.id,
                                                DealSecret.deal_seq == rec["seq"])).first()
    return {"seq": st.seq + 1, "type": "reveal", "deal": rec["seq"], "salt": salt} \
        if salt else None


def _deal(s: Session, st: State, game: Game) -> dict | None:
    """The next deal, committed to by its digest; its salt kept until the hand is over."""
    if st.phase != "deal":
        return None
    seed = _duplicate_seed(s, id_of(game))
    ev = board_deal(st, seed) if seed else make_deal(st, secrets.SystemRandom())
    salt = secrets.token_hex(16)
    ev["commitment"] = deal_digest(ev, salt)
    s.add(DealSecret(game_id=id_of(game), deal_seq=ev["seq"], salt=salt))
    return ev


def _duplicate_seed(s: Session, game_id: int) -> str | None:
    """The round seed of a duplicate league's table (its boards are the round's: the same
    at every table), or None for any other game."""
    row = s.exec(select(League.seed, Season.number, Fixture.round)
                 .join(Season, col(Season.league_id) == League.id)
                 .join(Fixture, col(Fixture.season_id) == Season.id)
                 .where(Fixture.game_id == game_id, League.pairing == "duplicate")).first()
    return round_seed(*row) if row else None


def _auto_play(st: State, seat: int, how: str | None) -> dict | None:
    """The event of the card that plays itself for `seat` now (`how` it may: `_autos`)."""
    card = auto_card(st, seat, how == "equal") if how else None
    return apply(st, seat, {"type": "play", "card": card, "auto": "forced"})[0] \
        if card is not None else None


def _actor(ev: dict) -> int | None:
    """The seat that acted (None for what the server writes: deals, reveals, hand-overs)."""
    seat = ev.get("seat")
    if ev.get("type") in SERVER_EVENTS or seat.__class__ is not int:
        return None
    return seat


def _row(w: _Write, ev: dict, i: int, n: int) -> dict:
    """The Move row of the write's `i`th event (a dict: the write inserts them all in one
    statement); the first `n` are `w`'s own."""
    human = i < n
    actor = w.actor if human else _actor(ev)
    return dict(game_id=w.game_id, seq=ev["seq"], type=ev["type"], payload=ev, actor=actor,
                source=w.source if human else _auto_source(ev, actor),
                ref=w.ref if human and i == 0 else None)


def _auto_source(ev: dict, actor: int | None) -> str:
    if ev.get("auto") == "settled":
        return "settled"  # the rest of a settled hand, played by the rule
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
        gid = id_of(game)
        for i, name in enumerate(last_holders(header["seats"], events)):
            email = name if isinstance(name, str) and "@" in name else None
            try:
                player = player_for(s, email) if email else None
            except ValueError as e:  # not a mail address (pbem.store.addresses)
                raise LogError(f"seat {i}: {e}") from None
            s.add(Seat(game_id=gid, seat=i, robot=player is None, token=new_token(),
                       player_id=player.id if player else None))
        s.add_all(Move(game_id=gid, seq=ev["seq"], type=ev["type"], payload=ev,
                       actor=_actor(ev), source="import") for ev in events)
        s.commit()
        return gid
