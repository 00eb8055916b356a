"""The game-state cache every reader and writer shares: replaying a long game on every move
would cost a whole replay, so each Store keeps recent states and only catches up on the
events it has not seen (at most CACHE_GAMES games)."""

import json
import threading

from sqlalchemy import case, exc, func
from sqlmodel import Session, select

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
        self._sql: dict = {}  # quick_rows' statements, compiled
        self._quick = threading.local()  # quick_rows' connection, one a thread

    def session(self) -> Session:
        """A transaction that may write (on SQLite it takes the write lock at once)."""
        return Session(self.engine, expire_on_commit=False)

    def reader(self) -> Session:
        """A transaction that only reads: it never takes or waits for the write lock."""
        return Session(self._read_engine, expire_on_commit=False)

    def quick_rows(self, statement, **params) -> list[tuple]:
        """The rows of one SELECT, run on a driver connection this thread keeps for them, in
        autocommit: no pool checkout, ping or rollback (three round trips to PostgreSQL where
        the SELECT is one), no SQLAlchemy transaction, events or result processing (a cached
        page's one read cost more in those than in the database). One statement reads one
        snapshot; it never takes the write lock or holds a transaction open. A connection
        that fails is dropped and the SELECT tried once more on a new one (the database
        restarted, say); a second failure is raised as SQLAlchemy raises it (an
        OperationalError for a lost server), so callers handle one kind of error whatever
        path the SQL took. Values come as the driver gives them (SQLite: 0/1 for bools)."""
        sql, names = self._compiled(statement)
        args = [params[n] for n in names] if names is not None else params
        for attempt in (0, 1):
            try:
                cur = self._quick_connection().cursor()
                cur.execute(sql, args)
                return cur.fetchall()
            except self.engine.dialect.dbapi.Error as e:  # a closed connection, a lost server
                self._drop_quick()
                if attempt:
                    raise self._wrapped(sql, e) from e
        raise AssertionError("unreachable")

    def _drop_quick(self) -> None:
        raw, self._quick.conn = getattr(self._quick, "conn", None), None
        if raw is not None:
            raw.close()

    def _wrapped(self, sql: str, e: Exception) -> Exception:
        dialect = self.engine.dialect
        return exc.DBAPIError.instance(sql, None, e, dialect.dbapi.Error, hide_parameters=True,
                                       dialect=dialect, ismulti=False)

    def _quick_connection(self):
        raw = getattr(self._quick, "conn", None)
        if raw is None:
            fairy = self.engine.raw_connection()
            raw = fairy.driver_connection
            fairy.detach()  # ours, outside the pool, until it fails or the Store goes
            self._quick.conn = raw  # from now on: closed by `_drop_quick` if it fails
            raw.rollback()  # the pool's ping may have begun one
            if hasattr(raw, "autocommit"):
                raw.autocommit = True  # psycopg: no transaction left open between SELECTs
        return raw

    def _compiled(self, statement) -> tuple[str, list[str] | None]:
        """The statement's SQL for this database, and its parameters' order (None: by
        name), compiled once."""
        got = self._sql.get(statement)
        if got is None:
            c = statement.compile(dialect=self.engine.dialect)
            got = self._sql[statement] = (str(c), list(c.positiontup) if c.positional
                                          else None)
        return got

    def state(self, s: Session, game: Game, last: int | None = None) -> State:
        """The game's state as of the database now (a private copy when it had to catch up
        inside this transaction; the cache keeps it only once the transaction commits).
        `last`: the game's last seq, when the caller read it in this transaction."""
        with self._lock:
            st = self._states.pop(game.id, None)
        if last is None:  # Core: a move's write asks this, and the ORM's query costs more
            last = s.connection().execute(select(func.max(Move.seq))
                                          .where(Move.game_id == game.id)).scalar() or 0
        if st is None or st.seq > last:
            st = fresh(game)
        if st.seq < last:
            catch_up(st, game.id, s.connection().execute(select(Move.seq, Move.payload).where(
                Move.game_id == game.id, Move.seq > st.seq).order_by(Move.seq)).all())
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
        last = dict(s.exec(select(Move.game_id, func.max(Move.seq))
                           .where(Move.game_id.in_(ids)).group_by(Move.game_id)).all())
        with self._lock:
            out = {g: self._states.pop(g, None) for g in ids}
        stale = [g for g, st in out.items() if st is None or st.seq > last.get(g, 0)]
        if stale:
            for game in s.exec(select(Game).where(Game.id.in_(stale))):
                out[game.id] = fresh(game)
        behind = {g: st.seq for g, st in out.items() if st.seq < last.get(g, 0)}
        if behind:
            rows: dict[int, list] = {g: [] for g in behind}
            for g, seq, payload in s.exec(select(Move.game_id, Move.seq, Move.payload).where(
                    Move.game_id.in_(list(behind)),
                    Move.seq > case(behind, value=Move.game_id)).order_by(Move.game_id,
                                                                          Move.seq)):
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
        rules = Rules.from_dict(game.rules)
        if len(_rules) >= MAX_RULES:
            _rules.clear()
        _rules[key] = rules
    return rules


def fresh(game: Game) -> State:
    """A game's state before its first event."""
    return State(rules_of(game), game.first_dealer)


def catch_up(st: State, game_id: int, rows) -> State:
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
