"""A season's results kept current in each process (issue 15): the fixtures as last read,
each finished game as the league counts it, the league table's running totals, the
reliability sums, each table's line in the fixtures and the rated games. A reader brings
it up to date by reading only the fixtures written or ruled on since the version it holds
(pbem.league.results.changed stamps them) and the rounds opened since, and folds each in:
a fixture read again is first taken back as it was counted, then counted anew, so a
ruling, or the same fixture read twice, counts right. When who is struck, the forfeit
rule or the names change, every game is counted again from memory, not from the database.
Nothing here writes; pbem.league.reports keys what it shows by the season's version."""

import itertools
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Row, or_
from sqlmodel import Session, col, select

from ..engine import Rules
from ..i18n import DEFAULT, language
from ..store.models import Entry, Fixture, League, Season
from .results import game_result
from .standings import (
    GameResult,
    add_time,
    count,
    forfeiting,
    struck_entries,
    table,
    tallies_for,
    time_sums,
    time_table,
    winner_after,
)
from .verdicts import describe

KEPT = 32  # seasons kept per process
_ledgers: OrderedDict = OrderedDict()
_lock = threading.RLock()  # one reader folds at a time: the ledgers are shared
_stamps = itertools.count(1)  # a round's stamp: new whenever one of its tables changes
T = TypeVar("T")

# The columns a ledger reads: more than select()'s overloads type, so its rows are Any
_ROW: tuple[Any, ...] = (Fixture.id, Fixture.round, Fixture.board, Fixture.game_id,
                         Fixture.seats, Fixture.status, Fixture.result, Fixture.finished)
_ENTRY: tuple[Any, ...] = (Entry.id, Entry.name, Entry.status, Entry.games, Entry.player_id,
                           Entry.partner_id)


@dataclass
class Ledger:
    sides: tuple
    forfeit_after: int | None
    version: int = -1  # the season's version and round folded in (-1: nothing yet)
    round: int = -1
    entries: dict = field(default_factory=dict)  # entry id -> its row (_ENTRY)
    names: dict = field(default_factory=dict)  # entry id -> name
    withdrawn: dict = field(default_factory=dict)  # entry id -> its games stand or struck
    struck: frozenset = frozenset()
    rows: dict = field(default_factory=dict)  # fixture id -> its row (_ROW)
    boards: dict = field(default_factory=dict)  # round -> {board: fixture id}
    counted: dict = field(default_factory=dict)  # fixture id -> GameResult as counted
    tallies: dict = field(default_factory=dict)
    sums: dict = field(default_factory=dict)
    byes: Counter = field(default_factory=Counter)
    lines: dict = field(default_factory=dict)  # fixture id -> its line in the fixtures
    stamps: dict = field(default_factory=dict)  # round -> stamp
    rounds: dict = field(default_factory=dict)  # round -> (stamp, its view)
    rated: dict = field(default_factory=dict)  # fixture id -> (order, players, pairs)
    ruled: set = field(default_factory=set)  # fixtures with a ruling in force

    def sync(self, s: Session, season: Season, league: League) -> None:
        """Fold in what changed since the version held; the season's version and round are
        read here, so that a caller's stale Season cannot hold the ledger back."""
        version, rnd = s.exec(select(Season.version, Season.round)
                              .where(Season.id == season.id)).one()
        if (self.version, self.round) == (version, rnd):
            return
        entries = {e.id: e for e in s.exec(select(*_ENTRY).where(
            Entry.season_id == season.id).order_by(col(Entry.id))).all()}
        rows = s.exec(select(*_ROW).where(
            Fixture.season_id == season.id,
            or_(col(Fixture.version) > self.version, col(Fixture.round) > self.round))).all()
        if entries != self.entries or league.timeout_forfeit != self.forfeit_after:
            self._entries(entries, league.timeout_forfeit)
        for row in rows:
            self._take(row)
        self.version, self.round = version, rnd

    def _entries(self, entries: dict, forfeit_after: int | None) -> None:
        """The entries or the forfeit rule changed (a withdrawal, mostly): every game
        counted again if who is struck or the rule changed, every line made again if the
        names or the rule did, from memory."""
        withdrawn = {e.id: e.games for e in entries.values() if e.status == "withdrawn"}
        names = {e.id: e.name for e in entries.values()}
        recount = struck_entries(withdrawn) != self.struck or set(entries) != set(self.entries)
        again = names != self.names or [members(e) for e in entries.values()] != \
            [members(e) for e in self.entries.values()]
        if forfeit_after != self.forfeit_after:
            recount = again = True
        self.entries, self.forfeit_after, self.names = entries, forfeit_after, names
        self.withdrawn, self.struck = withdrawn, struck_entries(withdrawn)
        if recount:
            self._recount()
        if again:
            self.rated, self.lines = {}, {}
            for fid, row in self.rows.items():
                self._line(row, self.counted.get(fid))

    def _recount(self) -> None:
        """Every game counted again, from memory."""
        self.tallies, self.sums = tallies_for(self.entries), time_sums(self.entries)
        for result in self.counted.values():
            count(self.tallies, result, self.forfeit_after, self.struck)
            add_time(self.sums, result)

    def _take(self, row: Row) -> None:
        """One fixture read: its old count taken back, its new one added."""
        old = self.counted.pop(row.id, None)
        if old is not None:
            count(self.tallies, old, self.forfeit_after, self.struck, -1)
            add_time(self.sums, old, -1)
        if row.id not in self.rows and row.status == "bye":
            self.byes[row.seats[0]] += 1
        self.rows[row.id] = row
        self.boards.setdefault(row.round, {})[row.board] = row.id
        shown = row.status == "over" and not (row.result or {}).get("hidden")
        new = game_result(row, self.sides) if shown else None
        if new is not None:  # None: still playing, a bye, hidden (a duplicate round still
            # playing: pbem.league.duplicate), or struck by a ruling (a replay)
            count(self.tallies, new, self.forfeit_after, self.struck)
            add_time(self.sums, new)
            self.counted[row.id] = new
        self._line(row, new)

    def _line(self, row: Row, res: GameResult | None) -> None:
        self.stamps[row.round] = next(_stamps)
        self.rated.pop(row.id, None)
        if row.status == "bye":
            return
        if res is not None and res.rated:
            self.rated[row.id] = ((row.finished, row.id), res, *self._rated_sides(res))
        names, won = self.names, winner_after(res, self.forfeit_after) if res else None
        out = forfeiting(res, self.forfeit_after) if res else set()
        ruling = (row.result or {}).get("ruling")
        hidden = (row.result or {}).get("hidden")
        played = None if hidden else (row.result or {}).get("scores")  # a struck game shows
        self.ruled.discard(row.id)
        if ruling:
            self.ruled.add(row.id)
        self.lines[row.id] = {
            "board": row.board, "game_id": row.game_id,
            "status": "playing" if hidden else row.status,
            "rated": res.rated if res else None,
            "ruling": english(ruling) if ruling else None, "ruled": ruling or None,
            "replayed_by": (row.result or {}).get("replayed_by"),
            "sides": [{"names": list(dict.fromkeys(names[row.seats[x]] for x in side)),
                       "score": res.scores[i] if res else None,
                       "played": played[i] if played else None,
                       "won": won == i, "forfeit": i in out}
                      for i, side in enumerate(self.sides)]}

    def _rated_sides(self, r: GameResult) -> tuple[tuple, tuple]:
        """The game as the ratings take it: by players, and by partnerships."""
        at = [[self.entries[r.seats[x]] for x in side] for side in self.sides]
        players = ([sorted({p for e in side for p in members(e)}) for side in at],
                   r.scores, r.winner)
        pairs = ([[pair_key(side[0])] for side in at], r.scores, r.winner)
        return players, pairs

    def standings(self) -> list:
        return table(self.names, self.tallies, self.byes, self.withdrawn)

    def reliability(self) -> list:
        return time_table(self.names, self.sums)

    def fixtures(self) -> list[tuple[int, dict]]:
        """The season's rounds in order, each with its stamp: a round is made again only
        when one of its tables changed."""
        out = []
        for r in sorted(self.boards):
            stamp = self.stamps[r]
            if self.rounds.get(r, (None,))[0] != stamp:
                self.rounds[r] = (stamp, self._round(r))
            out.append(self.rounds[r])
        return out

    def _round(self, r: int) -> dict:
        tables, byes = [], []
        for _, fid in sorted(self.boards[r].items()):
            row = self.rows[fid]
            if row.status == "bye":
                byes.append(self.names[row.seats[0]])
            else:
                tables.append(self.lines[fid])
        return {"round": r, "tables": tables, "byes": byes}

    def rulings(self) -> list[dict]:
        return [{"game_id": row.game_id, "round": row.round, "board": row.board,
                 "ruling": english(row.result["ruling"]), "ruled": row.result["ruling"]}
                for row in sorted((self.rows[x] for x in self.ruled),
                                  key=lambda f: (f.round, f.board))]


def members(entry: Entry | Row) -> list[int]:
    return [x for x in (entry.player_id, entry.partner_id) if x]


def pair_key(entry: Entry | Row) -> str:
    return "-".join(str(x) for x in sorted(members(entry)))


def read(s: Session, season: Season, league: League, what: Callable[[Ledger], T]) -> T:
    """what(ledger), the season's ledger brought up to date first; under the lock, so
    that no other reader folds into it meanwhile. An open season's is not kept (its
    entries come and go without a version)."""
    key = (league.seed, season.id)
    with _lock:
        ledger = _ledgers.get(key)
        if ledger is None:
            ledger = Ledger(Rules.from_dict(league.rules).sides, league.timeout_forfeit)
        ledger.sync(s, season, league)
        if season.status != "open":
            _ledgers[key] = ledger
            _ledgers.move_to_end(key)
            while len(_ledgers) > KEPT:
                _ledgers.popitem(last=False)
        return what(ledger)


def forget() -> None:
    with _lock:
        _ledgers.clear()


def english(ruling: dict) -> str:
    """A ruling in English, as the JSON API gives it: a line is kept across requests of every
    language, so a page says it again in its own (`ruled`, pbem.league.verdicts.describe)."""
    with language(DEFAULT):
        return describe(ruling)
