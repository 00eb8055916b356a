"""The game-state cache every reader and writer shares: replaying a long game on every move
would cost a whole replay, so each Store keeps recent states and only catches up on the
events it has not seen (at most CACHE_GAMES games)."""

import json
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Row, case, func
from sqlalchemy.sql import Select
from sqlmodel import Session, col, select

from ..engine import IllegalAction, Rules, State, advance
from .db import READ_ONLY, engine_for
from .models import Game, Move

CACHE_GAMES = 2_000  # game states kept in memory per Store


class CorruptGame(Exception):
    """A stored event the engine refuses: the message names the game and the seq."""


class Store:
    """One database and its cache of game states."""

    def __init__(self, url: str):
        self.url = url
        self.engine = engine_for(url)
        self._read_engine = self.engine.execution_options(**{READ_ONLY: True})
        self._states: dict[int, State] = {}
        self._lock = threading.Lock()

    def session(self) -> Session:
        """A transaction that may write (on SQLite it takes the write lock at once)."""
        return Session(self.engine, expire_on_commit=False)

    def reader(self) -> Session:
        """A transaction that only reads: it never takes or waits for the write lock."""
        return Session(self._read_engine, expire_on_commit=False)

    def quick_rows(self, statement: Select[*tuple[Any, ...]], **params: Any
                   ) -> Sequence[Row[*tuple[Any, ...]]]:
        """The rows of one SELECT, read on a pooled connection as a reader reads (it never
        takes the write lock), its values as SQLAlchemy gives them."""
        with self._read_engine.connect() as c:
            return c.execute(statement, params).all()

    def state(self, s: Session, game: Game, last: int | None = None) -> State:
        """The game's state as of the database now (a private copy when it had to catch up
        inside this transaction; the cache keeps it only once the transaction commits).
        `last`: the game's last seq, when the caller read it in this transaction."""
        gid = game.id
        assert gid is not None  # a stored game
        with self._lock:
            st = self._states.pop(gid, None)
        if last is None:  # Core: a move's write asks this, and the ORM's query costs more
            last = s.connection().execute(select(func.max(Move.seq))
                                          .where(Move.game_id == gid)).scalar() or 0
        if st is None or st.seq > last:
            st = fresh(game)
        if st.seq < last:
            catch_up(st, gid, s.connection().execute(select(Move.seq, Move.payload).where(
                Move.game_id == gid, col(Move.seq) > st.seq).order_by(col(Move.seq))).all())
        return st

    def cached(self, game_id: int, last: int) -> State | None:
        """The game's cached state if it is at `last` (taken, as `state` takes it: the
        caller keeps it back), else None, leaving it to `state` (a read) to catch up."""
        with self._lock:
            st = self._states.get(game_id)
            return self._states.pop(game_id) if st is not None and st.seq == last else None

    def states(self, s: Session, ids: list[int]) -> dict[int, State]:
        """`state` for many games in a few queries (their last seqs, the games the cache
        lacks, and the moves it lacks); each a private copy, as `state` gives, for the
        caller to keep back."""
        ids = sorted(set(ids))
        if not ids:
            return {}
        last: dict[int, int] = dict(s.exec(select(Move.game_id, func.max(Move.seq)).where(
            col(Move.game_id).in_(ids)).group_by(col(Move.game_id))).all())
        with self._lock:
            kept = {g: self._states.pop(g, None) for g in ids}
        out = {g: st for g, st in kept.items() if st is not None and st.seq <= last.get(g, 0)}
        stale = [g for g in ids if g not in out]
        if stale:
            for game in s.exec(select(Game).where(col(Game.id).in_(stale))):
                assert game.id is not None  # a stored game
                out[game.id] = fresh(game)
        behind = {g: st.seq for g, st in out.items() if st.seq < last.get(g, 0)}
        if behind:
            rows: dict[int, list[tuple[int, Any]]] = {g: [] for g in behind}
            for g, seq, payload in s.exec(select(Move.game_id, Move.seq, Move.payload).where(
                    col(Move.game_id).in_(list(behind)),
                    col(Move.seq) > case(behind, value=Move.game_id)).order_by(
                        col(Move.game_id), col(Move.seq))):
                rows[g].append((seq, payload))
            for g, moves in rows.items():
                catch_up(out[g], g, moves)
        return out

    def keep(self, game_id: int, st: State) -> None:
        with self._lock:
            self._states[game_id] = st
            while len(self._states) > CACHE_GAMES:  # dicts keep order: the oldest goes
                self._states.pop(next(iter(self._states)))

    def forget(self, game_id: int) -> None:
        with self._lock:
            self._states.pop(game_id, None)


_rules: dict[str, Rules] = {}  # a ruleset by its JSON: many games share one, and it never changes
MAX_RULES = 256


def rules_of(game: Game) -> Rules:
    """The game's rules (checking a ruleset costs more than replaying a deal: done once)."""
    key = json.dumps(game.rules, sort_keys=True)
    rules = _rules.get(key)
    if rules is None:
        rules = Rules.stored(game.rules)
        if len(_rules) >= MAX_RULES:
            _rules.clear()
        _rules[key] = rules
    return rules


def fresh(game: Game) -> State:
    """A game's state before its first event."""
    return State(rules_of(game), game.first_dealer)


def catch_up(st: State, game_id: int, rows: Iterable[tuple[int, Any]]) -> State:
    """`st` advanced by the (seq, payload) rows after it, in order (pure work)."""
    for seq, payload in rows:
        if seq <= st.seq:
            continue  # already in the state
        try:
            advance(st, payload)
        except IllegalAction as e:
            raise CorruptGame(f"game {game_id} has a corrupt event at seq {seq}: {e}") from None
    return st


_stores: dict[str, Store] = {}


def store_for(url: str) -> Store:
    """The process's one Store for `url` (so every part of it shares the cache)."""
    if url not in _stores:
        _stores[url] = Store(url)
    return _stores[url]
