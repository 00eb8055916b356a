"""Who sits at which table, round by round, and in which seat: pure, no I/O, no clock.

An *entry* is an int id: one player, or a fixed partnership of two. A table holds `k`
entries (two partnerships at a four-player table, four individuals, three in cutthroat or
six-handed...). When the field does not divide by `k`, `n % k` entries sit the round out
(a *bye*).

    round_robin(entries, k)          every round of a round robin, fixed by the entries' order
    swiss(ranked, k, met, byes)      one Swiss round from the standings and the past meetings
    swiss_rounds(n, k)               the default length of a Swiss season
    seat_entries(table, sides, ...)  which entry sits in which seat of one game
    meetings(rounds)                 how often each pair shared a table

Round robins take one of three shapes:

- k == 2: the circle method; every pair meets exactly once (n - 1 rounds, or n with one bye
  each when n is odd).
- n == k * k for k in 3, 4, 5: an affine plane of order k; k + 1 rounds and every pair meets
  exactly once.
- otherwise a greedy "social golfer" schedule that avoids repeat meetings table by table. It
  may need more rounds than the minimum, and it stops at 2 * ceil((n - 1) / (k - 1)) + 1
  rounds, so a pair may never meet (with k = 3 or 4 every pair meets for 5 <= n <= 40:
  tests/test_league_pairing.py). Schedule 1 is one greedy run; schedule 2 the best of
  several with ties broken in seeded orders (fewer rounds and repeats, never more).

A Swiss round seats the field from the top of the standings. With k == 2 a bounded search
finds the pairing with fewest rematches (none if that is possible) closest to 1v2, 3v4 ...;
with bigger tables each table is filled greedily with those who have met its seats least,
then entries are swapped with the nearest tables while a swap lowers the rematches.

Randomness comes only from a `random.Random` the caller passes in (and the caller shuffles
the entries before a round robin), so every draw can be replayed.
"""

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import ceil

# GF(4) = GF(2)[a]/(a^2 + a + 1) with 0, 1, a, a + 1 as 0..3; addition is XOR.
_GF4_MUL = (
    (0, 0, 0, 0),
    (0, 1, 2, 3),
    (0, 2, 3, 1),
    (0, 3, 1, 2),
)
_AFFINE_ORDERS = (3, 4, 5)

# Versions of the round robin's greedy schedule (`round_robin`); new seasons take the last.
SCHEDULES = (1, 2)
# Schedule 2's greedy runs: at most MAX_STARTS, and about START_WORK steps in all.
MAX_STARTS = 64
START_WORK = 1_000_000

# Nodes the Swiss pairing search may visit before it settles for the greedy pairing.
SEARCH_BUDGET = 5_000
# Swaps between bigger tables a Swiss round may try to take out rematches.
SWAP_BUDGET = 20_000


@dataclass
class Round:
    tables: list[list[int]]  # each table: k entry ids
    byes: list[int]  # entries that sit this round out


def meetings(rounds: Iterable[Round]) -> Counter:
    """frozenset({a, b}) -> how many times a and b shared a table."""
    met: Counter = Counter()
    for rnd in rounds:
        for table in rnd.tables:
            met.update(frozenset(p) for p in combinations(table, 2))
    return met


# --- round robin -------------------------------------------------------------------------


def round_robin(entries: list[int], k: int, schedule: int = 1) -> list[Round]:
    """Every round of a round robin for `entries` (already shuffled by the caller), k a
    table. Deterministic: the same entries in the same order give the same schedule.
    `schedule` is the version of the greedy schedule (a season keeps the one it started
    with, so its remaining rounds never change): 1 one greedy run, 2 the best of several."""
    _check_field(entries, k)
    if schedule not in SCHEDULES:
        raise ValueError(f"no schedule version {schedule}; there are {SCHEDULES}")
    n = len(entries)
    if k == 2:
        return _circle(entries)
    if k in _AFFINE_ORDERS and n == k * k:
        return _affine_plane(entries, k)
    if schedule == 1:
        return _greedy_schedule(entries, k, greedy_cap(n, k))
    return _best_greedy(entries, k)


def _check_field(entries: Sequence[int], k: int) -> None:
    if k < 2:
        raise ValueError(f"a table holds at least 2 entries, not {k}")
    if len(entries) < k:
        raise ValueError(f"{len(entries)} entries cannot fill a table of {k}")
    if len(set(entries)) != len(entries):
        dup = sorted(e for e, c in Counter(entries).items() if c > 1)
        raise ValueError(f"entries appear more than once: {dup}")


def _circle(entries: list[int]) -> list[Round]:
    """The polygon method: the first entry stays put while the others turn one place a
    round; with an odd field an empty place turns with them and whoever meets it has a bye."""
    ring: list[int | None] = list(entries)
    if len(ring) % 2:
        ring.append(None)
    m = len(ring)
    rounds = []
    for _ in range(m - 1):
        tables: list[list[int]] = []
        byes: list[int] = []
        for i in range(m // 2):
            a, b = ring[i], ring[m - 1 - i]
            if a is None or b is None:
                byes.extend(x for x in (a, b) if x is not None)
            else:
                tables.append([a, b])
        rounds.append(Round(tables, byes))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


Operation = Callable[[int, int], int]


def _field_ops(k: int) -> tuple[Operation, Operation]:
    """Addition and multiplication of the field of order k (k prime, or 4)."""
    if k == 4:
        return (lambda a, b: a ^ b), (lambda a, b: _GF4_MUL[a][b])
    return (lambda a, b: (a + b) % k), (lambda a, b: (a * b) % k)


def _affine_plane(entries: list[int], k: int) -> list[Round]:
    """Entry i is the point (i // k, i % k); each parallel class of lines is a round and
    each line a table: first y = m*x + b for every slope m, then the verticals x = c."""
    add, mul = _field_ops(k)

    def point(x: int, y: int) -> int:
        return entries[x * k + y]

    rounds = [
        Round([[point(x, add(mul(m, x), b)) for x in range(k)] for b in range(k)], [])
        for m in range(k)
    ]
    rounds.append(Round([[point(c, y) for y in range(k)] for c in range(k)], []))
    return rounds


def greedy_cap(n: int, k: int) -> int:
    """Most rounds the greedy schedule may take: twice the least an entry needs to meet
    everyone (k - 1 new opponents a round), plus one."""
    return 2 * ceil((n - 1) / (k - 1)) + 1


class _Meetings:
    """Meeting counts by input position, kept as the greedy schedule grows."""

    def __init__(self, n: int):
        self.count = [[0] * n for _ in range(n)]
        self.unmet = [n - 1] * n  # opponents each entry has not met yet
        self.missing = n * (n - 1) // 2  # pairs that have not met yet

    def record(self, table: list[int]) -> None:
        for a, b in combinations(table, 2):
            if not self.count[a][b]:
                self.unmet[a] -= 1
                self.unmet[b] -= 1
                self.missing -= 1
            self.count[a][b] += 1
            self.count[b][a] += 1

    def with_table(self, i: int, table: list[int]) -> int:
        return sum(self.count[i][t] for t in table)


def greedy_starts(n: int) -> int:
    """How many greedy runs schedule 2 makes for n entries: a run costs about n**3 steps,
    so the starts share START_WORK (at least one, at most MAX_STARTS)."""
    return max(1, min(MAX_STARTS, START_WORK // n**3))


def _schedule_key(rounds: list[Round], entries: list[int]) -> tuple[int, int, int]:
    """What schedule 2 minimises: pairs that never meet, then rounds, then pairs that
    meet more than once."""
    met = meetings(rounds)
    pairs = len(entries) * (len(entries) - 1) // 2
    return pairs - len(met), len(rounds), sum(c > 1 for c in met.values())


def _best_greedy(entries: list[int], k: int) -> list[Round]:
    """The best of `greedy_starts(n)` greedy runs: the first is schedule 1's (so never
    worse), each other breaks the greedy's ties in orders drawn afresh each round from n, k
    and the start's number (the entries' own order follows the season's seed). A run stops
    once it has as many rounds as a best that met every pair."""
    n = len(entries)
    best = _greedy_schedule(entries, k, greedy_cap(n, k))
    best_key = _schedule_key(best, entries)
    for start in range(1, greedy_starts(n)):
        cap = best_key[1] if best_key[0] == 0 else greedy_cap(n, k)
        rng = random.Random(f"schedule:{n}:{k}:{start}")
        run = _greedy_schedule(entries, k, cap, rng)
        key = _schedule_key(run, entries)
        if key < best_key:
            best, best_key = run, key
    return best


def _greedy_schedule(entries: list[int], k: int, cap: int,
                     rng: random.Random | None = None) -> list[Round]:
    """Rounds until every pair has met (or `cap` rounds), each seated to avoid rematches.
    Ties go to the earlier in the input, or with `rng` to an order it draws each round."""
    n = len(entries)
    seen = _Meetings(n)
    byes = [0] * n
    rank = list(range(n))
    rounds: list[Round] = []
    while seen.missing and len(rounds) < cap:
        if rng is not None:
            rng.shuffle(rank)
        # Fewest byes first; of those, whoever has fewest opponents left to meet (the others
        # need the round more); then the later in the input, so byes rotate.
        out = sorted(range(n), key=lambda i: (byes[i], seen.unmet[i], -rank[i]))[: n % k]
        for i in out:
            byes[i] += 1
        free = [i for i in range(n) if i not in out]
        tables = []
        while free:
            table = _greedy_table(free, k, seen, rank)
            seen.record(table)
            tables.append([entries[i] for i in table])
        rounds.append(Round(tables, [entries[i] for i in sorted(out)]))
    return rounds


def _greedy_table(free: list[int], k: int, seen: _Meetings, rank: list[int]) -> list[int]:
    """One table from `free` (input positions, removed as they are seated): the entry with
    most opponents still to meet, then whoever has met those seated least."""
    first = min(free, key=lambda i: (-seen.unmet[i], rank[i]))
    table = [first]
    free.remove(first)
    while len(table) < k:
        nxt = min(free, key=lambda i: (seen.with_table(i, table), -seen.unmet[i], rank[i]))
        table.append(nxt)
        free.remove(nxt)
    return table


# --- Swiss --------------------------------------------------------------------------------


def swiss(ranked: list[int], k: int, met: Counter, byes: Counter) -> Round:
    """One Swiss round. `ranked` is every entry still playing, best first; `met` counts
    earlier meetings by frozenset({a, b}) and `byes` the byes each entry already had."""
    _check_field(ranked, k)
    out = _swiss_byes(ranked, k, byes)
    playing = [e for e in ranked if e not in out]
    if k == 2:
        tables = _swiss_pairs(playing, met)
    else:
        tables = _swiss_tables(playing, k, met)
    return Round(tables, [e for e in ranked if e in out])


def _swiss_byes(ranked: list[int], k: int, byes: Counter) -> set[int]:
    """n % k entries sit out: those with fewest byes so far, the lowest ranked of them."""
    position = {e: i for i, e in enumerate(ranked)}
    order = sorted(ranked, key=lambda e: (byes.get(e, 0), -position[e]))
    return set(order[: len(ranked) % k])


def _met(met: Counter, a: int, b: int) -> int:
    return met.get(frozenset((a, b)), 0)


def _swiss_tables(playing: list[int], k: int, met: Counter) -> list[list[int]]:
    """Tables of k > 2, greedily: the best unseated entry opens a table, and whoever has met
    those seated least (the better ranked on a tie) joins it, until it is full; then swaps
    between tables take out the rematches the greedy fill left (`_fewer_rematches`)."""
    free = list(playing)
    tables = []
    while free:
        table = [free.pop(0)]
        while len(table) < k:
            # min() keeps the first of equals, and `free` is in rank order.
            nxt = min(free, key=lambda e: sum(_met(met, e, t) for t in table))
            table.append(nxt)
            free.remove(nxt)
        tables.append(table)
    _fewer_rematches(tables, met)
    return tables


def _rematch_cost(table: list[int], met: Counter) -> int:
    """Rematches at a table, a pair that met twice before counting four: spread them."""
    return sum(_met(met, a, b) ** 2 for a, b in combinations(table, 2))


def _fewer_rematches(tables: list[list[int]], met: Counter, budget: int = SWAP_BUDGET) -> None:
    """In place: while a table holds a rematch, swap one of its entries with one of the
    nearest table in the standings that lowers the two tables' rematches; stop when no swap
    helps or after `budget` swaps tried."""
    tried, better = 0, True
    while better and tried < budget:
        better = False
        for i in range(len(tables)):
            if not _rematch_cost(tables[i], met):
                continue
            for j in sorted(range(len(tables)), key=lambda j: (abs(j - i), j))[1:]:
                tried += len(tables[i]) * len(tables[j])
                if _swap_helps(tables[i], tables[j], met):
                    better = True
                    break
            if tried >= budget:
                return


def _swap_helps(a: list[int], b: list[int], met: Counter) -> bool:
    """Make the first swap of an entry of `a` with one of `b` that lowers their rematches."""
    before = _rematch_cost(a, met) + _rematch_cost(b, met)
    for x in range(len(a)):
        for y in range(len(b)):
            a[x], b[y] = b[y], a[x]
            if _rematch_cost(a, met) + _rematch_cost(b, met) < before:
                return True
            a[x], b[y] = b[y], a[x]
    return False


class _GiveUp(Exception):
    pass


def _swiss_pairs(playing: list[int], met: Counter) -> list[list[int]]:
    """Pairs with as few rematches as possible: a depth-first search from the top of the
    standings, allowing 0 rematches, then 1, ...; the first pairing found is the one closest
    to 1v2, 3v4 ... If the search runs past SEARCH_BUDGET nodes, a greedy top-down pairing
    does instead."""
    search = _PairSearch(playing, met)
    try:
        found = search.best()
    except _GiveUp:
        found = search.greedy()
    return [[playing[i], playing[j]] for i, j in found]


class _PairSearch:
    """The search behind `_swiss_pairs`, on rank positions held in bitmasks."""

    def __init__(self, playing: list[int], met: Counter):
        n = len(playing)
        self.everyone = (1 << n) - 1
        # fresh[i]: the positions i has not met (a rematch-free partner for i).
        self.fresh = [
            sum(1 << j for j in range(n) if j != i and not _met(met, playing[i], playing[j]))
            for i in range(n)
        ]
        self.failed: dict[int, int] = {}  # mask -> most rematches known not to be enough
        self.nodes = 0

    def best(self) -> list[tuple[int, int]]:
        """The first pairing in rank order among those with fewest rematches."""
        for allowed in range(self.bound(self.everyone), self.everyone.bit_count() // 2 + 1):
            found = self.solve(self.everyone, allowed)
            if found is not None:
                return found
        raise AssertionError("a pairing with every table a rematch always exists")

    def greedy(self) -> list[tuple[int, int]]:
        """Top down, no backtracking: the best unpaired entry takes the best ranked partner
        that keeps this table's rematch plus the rest's least possible rematches lowest."""
        mask, pairs = self.everyone, []
        while mask:
            top = (mask & -mask).bit_length() - 1
            rest = mask & ~(1 << top)
            partner = min(_bits(rest), key=lambda j: self.cost(top, j, rest))
            pairs.append((top, partner))
            mask = rest & ~(1 << partner)
        return pairs

    def cost(self, top: int, j: int, rest: int) -> int:
        rematch = 0 if self.fresh[top] >> j & 1 else 1
        return rematch + self.bound(rest & ~(1 << j))

    def bound(self, mask: int) -> int:
        """Fewest rematches the entries in `mask` need. Split them into groups linked by
        pairs that have not met: a group of odd size cannot pair off within itself, so one
        of its entries must rematch, and one rematch table serves at most two such groups."""
        odd, left = 0, mask
        while left:
            group = frontier = left & -left
            while frontier:
                low = frontier & -frontier
                frontier ^= low
                grown = self.fresh[low.bit_length() - 1] & left & ~group
                group |= grown
                frontier |= grown
            left &= ~group
            odd += group.bit_count() % 2
        return odd // 2

    def solve(self, mask: int, allowed: int) -> list[tuple[int, int]] | None:
        """The first pairing of `mask`, in rank order, with at most `allowed` rematches."""
        if not mask:
            return []
        if self.failed.get(mask, -1) >= allowed:
            return None
        self.nodes += 1
        if self.nodes > SEARCH_BUDGET:
            raise _GiveUp
        if self.bound(mask) <= allowed:
            top = (mask & -mask).bit_length() - 1
            rest = mask & ~(1 << top)
            for j in _bits(rest):
                rematch = 0 if self.fresh[top] >> j & 1 else 1
                if rematch > allowed:
                    continue
                found = self.solve(rest & ~(1 << j), allowed - rematch)
                if found is not None:
                    return [(top, j), *found]
        self.failed[mask] = allowed
        return None


def _bits(mask: int) -> Iterable[int]:
    """The set bits of `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def swiss_rounds(n: int, k: int) -> int:
    """The default length of a Swiss season: enough rounds to separate the field,
    ceil(log2(n)), and at least 3 (with singles drawn afresh each round, even a field of one
    table has new partnerships to play). ValueError if n < k."""
    _check_field(list(range(n)), k)
    return max(3, (n - 1).bit_length())  # (n - 1).bit_length() == ceil(log2(n)), n >= 1


# --- seats --------------------------------------------------------------------------------


def seat_entries(table: list[int], sides: Sequence[Sequence[int]], pairs: bool,
                 rng: random.Random) -> list[int]:
    """The entry in each seat of one game, drawn with `rng`. `sides` are the rules'
    partnerships as seat numbers ([[0, 2], [1, 3]]; [[0], [1], [2], [3]] without partners).
    With fixed partnerships (`pairs`) each entry takes a whole side; otherwise each takes
    one seat (and partners, if the rules have them, fall where the draw puts them)."""
    seats = _seat_count(sides)
    if len(set(table)) != len(table):
        raise ValueError(f"a table cannot hold the same entry twice: {table}")
    places = len(sides) if pairs else seats
    if len(table) != places:
        what = "sides" if pairs else "seats"
        raise ValueError(f"{len(table)} entries for {places} {what}: they must match")
    drawn = list(table)
    rng.shuffle(drawn)
    if not pairs:
        return drawn
    by_seat = [0] * seats
    for entry, side in zip(drawn, sides, strict=True):
        for seat in side:
            by_seat[seat] = entry
    return by_seat


def _seat_count(sides: Sequence[Sequence[int]]) -> int:
    """The number of seats; the sides must share out seats 0..n-1, each exactly once."""
    seats = sorted(s for side in sides for s in side)
    if not seats or seats != list(range(len(seats))):
        raise ValueError(f"sides must share out seats 0..n-1 once each, not {sides}")
    return len(seats)
