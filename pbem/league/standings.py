"""The league table and the Elo ratings, computed from finished games. Pure: no I/O.

An *entry* is one player, or a fixed partnership of two players. A partnership's entry sits
in both seats of its side; with individuals (partners drawn per game) a side's two seats hold
two different entries.

The league table
----------------
For each game, each side, and each distinct entry seated on that side:

- played +1; won +1 if the side won the game, otherwise lost +1;
- points for: the side's final score;
- points against: the best final score among the other sides (with two sides, simply the
  opponents' score);
- bags: the bags the side's hands counted over the whole game (overtricks, and a failed
  nil's tricks where the rules make them bags: docs/leagues.md);
- nils made and failed: those of the seats the entry holds (a partnership: both its seats;
  an individual: its own seat).

A partnership counts each game once, not once per seat.

With `forfeit_after` set, a side whose seats timed out that often in the game loses it
(`winner_after`). A withdrawn entry's games either stand or are struck (for everyone).

points = won + byes: a bye (a round sat out) counts as a win, as in Swiss tournaments.
diff = points for - points against.

The table is ordered by, in turn:

1. points, more first;
2. diff, more first;
3. points for, more first;
4. bags, fewer first.

Entries equal on all four share a rank, and the next rank skips ("1, 2, 2, 4"). Within a
shared rank entries are listed by name, then id: that orders the listing, it is no tie-break.
Every entry of the season is listed, those with no games yet with zeros.

The ratings
-----------
Elo ratings, updated game by game in the order the games finished, so the same games in
another order give other ratings. A side is rated by its members (players, or one id per
partnership when rating partnerships); anyone not seen before starts at 1500.

- The game's order of finish: the winner first, then the other sides by final score, higher
  first; two losing sides with equal scores are tied.
- A side's rating R_i is the mean of its members' ratings before the game.
- Against every other side j: expected E_ij = 1 / (1 + 10 ** ((R_j - R_i) / 400)), and
  actual S_ij = 1 if i finished above j, 1/2 if tied, 0 if below.
- Side i's change: delta_i = K / (m - 1) * sum over j of (S_ij - E_ij), with m sides and
  K = 32. A two-side game is plain Elo with K = 32. (1500 and 32 are the defaults.)
- Every member of side i gains delta_i (each the whole of it, not a share); all the game's
  changes are worked out from the ratings before the game. A member listed twice on a side
  counts once.

When all sides have the same number of members the changes add up to zero, so the total of
the ratings stays 1500 per rated player.
"""

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class GameResult:
    """A finished league game, as the league keeps it."""

    game_id: int | None  # as its fixture has it
    seats: tuple[int, ...]  # the entry id at each seat
    sides: tuple[tuple[int, ...], ...]  # the seats of each side, from the rules
    scores: tuple[int, ...]  # each side's final score
    bags: tuple[int, ...]  # bags each side took over the whole game
    nils: tuple[tuple[int, int], ...]  # per seat: (nils made, nils failed)
    winner: int  # index into sides
    timeouts: tuple[int, ...] = ()  # per seat: times its clock ran out (empty: none)
    vacations: tuple[int, ...] = ()  # per seat: timeouts that spent a vacation day instead
    own: tuple[int, ...] = ()  # per seat: moves its entry's own player made
    rated: bool = True  # every seat played mostly by its own player (docs/leagues.md)
    ruled: bool = False  # the organiser ruled on it: the ruling decides, not timeouts


@dataclass(frozen=True)
class Row:
    """One line of the league table."""

    rank: int
    entry: int
    name: str
    played: int
    won: int
    lost: int
    byes: int
    points: int
    points_for: int
    points_against: int
    diff: int
    bags: int
    nils_made: int
    nils_failed: int
    forfeits: int = 0  # games lost by timeouts (the league's `timeout_forfeit`)
    note: str = ""  # a withdrawn entry: "games stand" or "games struck"


@dataclass(frozen=True)
class Rating:
    rating: float
    games: int


# -- the league table ----------------------------------------------------------------------


@dataclass
class _Tally:
    """An entry's running totals while the results are read."""

    played: int = 0
    won: int = 0
    lost: int = 0
    points_for: int = 0
    points_against: int = 0
    bags: int = 0
    nils_made: int = 0
    nils_failed: int = 0
    forfeits: int = 0


STAND, STRUCK = "stand", "struck"  # a withdrawn entry's games


def standings(entries: dict[int, str], results: Iterable[GameResult],
              byes: Mapping[int, int] | None = None, forfeit_after: int | None = None,
              withdrawn: Mapping[int, str] | None = None) -> list[Row]:
    """The league table: one row per entry of `entries` (id -> name), best first.
    `forfeit_after`: a side whose seats timed out that many times in a game loses it.
    `withdrawn`: entry -> STAND or STRUCK; a struck entry's games count for no one, and it
    is listed last, unranked (rank 0)."""
    struck = struck_entries(withdrawn)
    tallies = tallies_for(entries)
    for result in results:
        count(tallies, result, forfeit_after, struck)
    return table(entries, tallies, byes, withdrawn)


def struck_entries(withdrawn: Mapping[int, str] | None) -> frozenset[int]:
    return frozenset(e for e, how in (withdrawn or {}).items() if how == STRUCK)


def tallies_for(entries: Iterable[int]) -> dict[int, "_Tally"]:
    """Empty running totals, one per entry: `count` adds (or takes back) games to them."""
    return {entry: _Tally() for entry in entries}


def count(tallies: dict, result: GameResult, forfeit_after: int | None,
          struck: frozenset[int] | set[int], sign: int = 1) -> None:
    """Add one game to the running totals (sign -1: take it back, as it was added), unless
    a struck entry played in it."""
    _check_result(result)
    if not all(entry in tallies for entry in result.seats):
        _require_known(set(tallies), result.seats, f"game {result.game_id}")
    if not struck.intersection(result.seats):
        _add_game(tallies, result, forfeit_after, sign)


def table(entries: dict[int, str], tallies: dict, byes: Mapping[int, int] | None = None,
          withdrawn: Mapping[int, str] | None = None) -> list[Row]:
    """The league table from each entry's running totals (`standings`: the rules)."""
    byes = dict(byes or {})
    withdrawn = dict(withdrawn or {})
    _require_known(set(entries), byes, "a bye")
    struck = struck_entries(withdrawn)
    rows = [_unranked_row(entry, entries[entry], tallies[entry],
                          0 if entry in struck else byes.get(entry, 0),
                          _NOTES.get(withdrawn.get(entry, ""), ""))
            for entry in entries]
    rows.sort(key=_listing_order)
    return _ranked([r for r in rows if r.entry not in struck]) + \
        [r for r in rows if r.entry in struck]


_NOTES = {STAND: "games stand", STRUCK: "games struck"}


def forfeiting(r: GameResult, forfeit_after: int | None) -> set[int]:
    """The sides (indices) that lose the game by timeouts: `forfeit_after` or more among
    their seats; none in a game the organiser ruled on."""
    if not forfeit_after or not r.timeouts or r.ruled:
        return set()
    return {i for i, side in enumerate(r.sides)
            if sum(r.timeouts[seat] for seat in side) >= forfeit_after}


def winner_after(r: GameResult, forfeit_after: int | None) -> int | None:
    """The side that wins once timeouts are counted: the winner, unless it forfeits; then
    the best scoring side that does not (the earlier side on equal scores), or nobody."""
    out = forfeiting(r, forfeit_after)
    if r.winner not in out:
        return r.winner
    left = [i for i in range(len(r.sides)) if i not in out]
    return max(left, key=lambda i: (r.scores[i], -i)) if left else None


def _require_known(known: set[int], ids: Iterable[int], where: str) -> None:
    unknown = sorted(set(ids) - known)
    if unknown:
        raise ValueError(f"{where} names entries not in the league: {unknown}")


def _check_result(r: GameResult) -> None:
    """Refuse a result whose parts do not fit together rather than count it wrongly."""
    n = len(r.sides)
    if n < 2 or len(r.scores) != n or len(r.bags) != n or not 0 <= r.winner < n:
        raise ValueError(f"game {r.game_id}: sides, scores, bags and winner do not match")
    if len(r.nils) != len(r.seats) or any(not 0 <= x < len(r.seats) for s in r.sides for x in s):
        raise ValueError(f"game {r.game_id}: seats, sides and nils do not match")
    per_side = [set(_entries_on(r, side)) for side in r.sides]
    if sum(map(len, per_side)) != len(set().union(*per_side)):
        raise ValueError(f"game {r.game_id}: an entry sits on two sides")


def _entries_on(r: GameResult, side: Sequence[int]) -> list[int]:
    """The distinct entries seated on a side, in seat order."""
    return list(dict.fromkeys(r.seats[seat] for seat in side))


def _add_game(tallies: dict[int, _Tally], r: GameResult, forfeit_after: int | None,
              sign: int = 1) -> None:
    winner, out = winner_after(r, forfeit_after), forfeiting(r, forfeit_after)
    for i, side in enumerate(r.sides):
        best_other = max(score for j, score in enumerate(r.scores) if j != i)
        for entry in _entries_on(r, side):
            t = tallies[entry]
            t.played += sign
            if i == winner:
                t.won += sign
            else:
                t.lost += sign
            t.forfeits += sign * (i in out)
            t.points_for += sign * r.scores[i]
            t.points_against += sign * best_other
            t.bags += sign * r.bags[i]
            held = [seat for seat in side if r.seats[seat] == entry]
            t.nils_made += sign * sum(r.nils[seat][0] for seat in held)
            t.nils_failed += sign * sum(r.nils[seat][1] for seat in held)


def _unranked_row(entry: int, name: str, t: _Tally, byes: int, note: str) -> Row:
    return Row(rank=0, entry=entry, name=name, played=t.played, won=t.won, lost=t.lost,
               byes=byes, points=t.won + byes, points_for=t.points_for,
               points_against=t.points_against, diff=t.points_for - t.points_against,
               bags=t.bags, nils_made=t.nils_made, nils_failed=t.nils_failed,
               forfeits=t.forfeits, note=note)


def _tie_break_key(row: Row) -> tuple[int, int, int, int]:
    """The documented tie-breaks, in order; rows equal here share a rank."""
    return (-row.points, -row.diff, -row.points_for, row.bags)


def _listing_order(row: Row) -> tuple:
    return (*_tie_break_key(row), row.name, row.entry)


def _ranked(rows: list[Row]) -> list[Row]:
    """Competition ranking over rows already in order: equal rows share the first's rank."""
    out: list[Row] = []
    for position, row in enumerate(rows, start=1):
        shares = out and _tie_break_key(out[-1]) == _tie_break_key(row)
        out.append(replace(row, rank=out[-1].rank if shares else position))
    return out


# -- reliability -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reliability:
    """How an entry's players kept time over the season's finished games (all of them,
    struck or not): moves they made, timeouts, vacation days a timeout spent."""

    entry: int
    name: str
    moves: int
    timeouts: int
    vacations: int

    @property
    def on_time(self) -> float | None:
        """Share of the moves asked of the entry that it made in time, or None if none."""
        asked = self.moves + self.timeouts
        return self.moves / asked if asked else None


def reliability(entries: dict[int, str], results: Iterable[GameResult]) -> list[Reliability]:
    """One line per entry, by name: summed over the seats the entry held."""
    sums = time_sums(entries)
    for r in results:
        add_time(sums, r)
    return time_table(entries, sums)


def time_sums(entries: Iterable[int]) -> dict[int, list[int]]:
    """Empty reliability sums (moves, timeouts, vacations), one per entry."""
    return {entry: [0, 0, 0] for entry in entries}


def add_time(sums: dict[int, list[int]], r: GameResult, sign: int = 1) -> None:
    """Add one game's seat records to the sums (sign -1: take them back)."""
    for seat, entry in enumerate(r.seats):
        if entry in sums:
            for k, column in enumerate((r.own, r.timeouts, r.vacations)):
                sums[entry][k] += sign * column[seat] if column else 0


def time_table(entries: dict[int, str], sums: dict[int, list[int]]) -> list[Reliability]:
    return sorted((Reliability(e, entries[e], *sums[e]) for e in entries),
                  key=lambda x: (x.name, x.entry))


# -- the ratings -------------------------------------------------------------------------------


RatedGame = tuple[Sequence[Sequence[Hashable]], Sequence[int], int]


def elo(games: Iterable[RatedGame], start: float = 1500.0, k: float = 32.0,
        before: Mapping[Hashable, Rating] | None = None) -> dict[Hashable, Rating]:
    """Ratings after `games`, each (sides, scores, winner), taken in the order given: the
    order the games finished, from the ratings `before` them (none: everyone new). Returns
    every id seen."""
    rating = {who: r.rating for who, r in (before or {}).items()}
    played = {who: r.games for who, r in (before or {}).items()}
    for sides, scores, winner in games:
        members = [list(dict.fromkeys(side)) for side in sides]
        check_rated_game(members, scores, winner)
        for side in members:
            for who in side:
                rating.setdefault(who, start)
        means = [sum(rating[who] for who in side) / len(side) for side in members]
        deltas = _deltas(means, places(scores, winner), k)
        for side, delta in zip(members, deltas, strict=True):
            for who in side:
                rating[who] += delta
                played[who] = played.get(who, 0) + 1
    return {who: Rating(rating[who], played[who]) for who in rating}


def check_rated_game(members: list[list[Hashable]], scores: Sequence[int], winner: int) -> None:
    m = len(members)
    if m < 2 or len(scores) != m or not 0 <= winner < m or not all(members):
        raise ValueError("a rated game needs two or more non-empty sides, a score for each "
                         "and a winner among them")
    everyone = [who for side in members for who in side]
    if len(everyone) != len(set(everyone)):
        raise ValueError("a rated player is on two sides of one game")


def places(scores: Sequence[int], winner: int) -> list[int]:
    """Each side's place in the order of finish, 0 first. The winner is first whatever its
    score (a game can be won by the rules, not only the score); the others go by score, and
    equal scores share a place."""
    losers = [score for i, score in enumerate(scores) if i != winner]
    return [0 if i == winner else 1 + sum(other > score for other in losers)
            for i, score in enumerate(scores)]


def _deltas(before: list[float], place: list[int], k: float) -> list[float]:
    m = len(before)
    return [k / (m - 1) * sum(outcome(place[i], place[j]) - _expected(before[i], before[j])
                              for j in range(m) if j != i)
            for i in range(m)]


def _expected(r_i: float, r_j: float) -> float:
    return 1 / (1 + 10 ** ((r_j - r_i) / 400))


def outcome(place_i: int, place_j: int) -> float:
    if place_i == place_j:
        return 0.5
    return 1.0 if place_i < place_j else 0.0


def rating_table(ratings: dict[Hashable, Rating], names: dict) -> list[dict]:
    """Ratings for display, highest first, then by name. An id without a name shows its id.
    The order uses the rating as shown (one decimal), so rounding noise cannot unsort names."""
    rows = [{"id": who, "name": names.get(who, str(who)), "rating": round(r.rating, 1),
             "games": r.games} for who, r in ratings.items()]
    rows.sort(key=lambda row: (-row["rating"], row["name"], str(row["id"])))
    return rows
