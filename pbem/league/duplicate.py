"""Duplicate leagues (issue 34): every table of a round plays the same boards, and each
board's result is scored against the others who held the same cards.

A round's boards come from one round seed: board b is the deck shuffled by
random.Random(f"{seed}:{b}") and dealt as every game deals (pbem.engine.make_deal), with
seat 0 North, the dealer North on board 1 and moving on one seat a board (every duplicate
game starts with dealer 0, and a game's dealer moves on one seat a hand). The seed is a
SHA-256 of the league's secret seed, the season and the round, so no one can work it out;
its own SHA-256 (the round's commitment) is public from the round's start, and the seed
itself once the round is over, when anyone can deal the boards again and check every
table's deals (each deal keeps its own commitment and salt too).

The scoring is pure: a table's result on a board is North-South's points on the hand less
East-West's (the score pad's `points`, before any bag penalty); matchpoints compare it with
every other table's on the same board, cross-IMPs too (docs/leagues.md, "Duplicate")."""

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..engine import Rules, State, make_deal, score_pad
from ..i18n import _


class DuplicateError(ValueError):
    """Rules a duplicate league cannot play."""


def check_rules(rules: Rules, entry: str) -> None:
    """A duplicate league: fixed partnerships at four seats, a known number of boards (the
    rules' `max_hands`), dealt cards (no draw) and no redeal (a misdeal would deal the
    same board again)."""
    if entry != "pair" or tuple(map(tuple, rules.sides)) != ((0, 2), (1, 3)):
        raise DuplicateError(_("a duplicate league is of pairs, two partnerships a table"))
    if not 1 <= rules.max_hands <= 100:
        raise DuplicateError(_("a duplicate league needs its boards a round: set max_hands "
                               "(1 to 100)"))
    if rules.deal != "deal" or rules.misdeal or rules.dummy:
        raise DuplicateError(_("a duplicate league deals every board as it is: no draw, "
                               "dummy or misdeal rules"))


def round_seed(league_seed: str, season: int, rnd: int) -> str:
    """The seed of a round's boards: secret until the round is over."""
    return hashlib.sha256(f"{league_seed}:duplicate:{season}:{rnd}".encode()).hexdigest()


def commitment(seed: str) -> str:
    """What a round's boards are committed to, public from the round's start."""
    return hashlib.sha256(seed.encode()).hexdigest()


def board_deal(st: State, seed: str) -> dict:
    """The deal event of the board due now at a table of the round whose seed is `seed`."""
    return make_deal(st, random.Random(f"{seed}:{st.hand_no + 1}"))


def north_south(table: Sequence[int], held: dict[int, int], rnd: int) -> list[int]:
    """A table's two partnerships in seat order (North-South first): the one that has held
    North-South less often this season takes it (in turn when equal), so that over a season
    every partnership holds both directions."""
    a, b = table
    if held.get(a, 0) != held.get(b, 0):
        first = a if held.get(a, 0) < held.get(b, 0) else b
    else:
        first = a if rnd % 2 else b
    return [first, b if first == a else a]


def board_lines(st: State) -> list[dict]:
    """Each board a finished game played: the bids, tricks and points of North-South and
    East-West (the score pad's, before any bag penalty). A game tied after its last board
    plays on for its winner (E4); those hands are no boards and score nothing here."""
    return [{"bids": [x["bid"] for x in hand["sides"]],
             "tricks": [x["tricks"] for x in hand["sides"]],
             "points": [x["points"] for x in hand["sides"]]}
            for hand in score_pad(st)["hands"][:st.rules.max_hands]]


# -- scoring (pure) ---------------------------------------------------------------------------

# IMPs for a difference in points (one side's result less the other's): our own scale, as
# Spades scores run lower than bridge's: 10 points (a trick) is 1 IMP, a set or a lost nil
# (100 or more) 5 or more, at most 10.
IMP_STEPS = (10, 30, 50, 80, 120, 170, 230, 300, 400, 500)


def imps(diff: int) -> int:
    """The IMPs for winning (or, negative, losing) a board by `diff` points."""
    n = sum(1 for step in IMP_STEPS if abs(diff) >= step)
    return n if diff >= 0 else -n


def matchpoints(results: Sequence[int]) -> list[int]:
    """Each result's matchpoints among `results` (the same cards held at every table):
    2 for each other result it beats, 1 for each it ties."""
    return [sum(2 if r > o else 1 if r == o else 0 for j, o in enumerate(results) if j != i)
            for i, r in enumerate(results)]


def cross_imps(results: Sequence[int]) -> list[float]:
    """Each result's IMPs against every other result, averaged over them."""
    n = len(results)
    if n < 2:
        return [0.0] * n
    return [round(sum(imps(r - o) for j, o in enumerate(results) if j != i) / (n - 1), 2)
            for i, r in enumerate(results)]


@dataclass(frozen=True)
class Table:
    """One table's round as the scoring reads it: its North-South and East-West entries and
    North-South's net points on each board it played (`nets[b - 1]`)."""
    round: int
    ns: int
    ew: int
    nets: tuple[int, ...]


@dataclass
class Row:
    """An entry's line in the duplicate table."""
    entry: int
    name: str = ""
    boards: int = 0
    mp: int = 0
    top: int = 0
    imps: float = 0.0
    rank: int | None = None
    percent: float = field(default=0.0)


def board_scores(tables: Sequence[Table]) -> dict[tuple[int, int], list[tuple[int, int, float]]]:
    """(round, board) -> for each table of the round that played it, in the order given:
    North-South's (net, matchpoints, IMPs). East-West's are the top less North-South's
    matchpoints, and minus their IMPs."""
    out: dict[tuple[int, int], list[tuple[int, int, float]]] = {}
    for (rnd, board), nets in _fields(tables).items():
        mps, ims = matchpoints(nets), cross_imps(nets)
        out[(rnd, board)] = list(zip(nets, mps, ims, strict=True))
    return out


def _fields(tables: Sequence[Table]) -> dict[tuple[int, int], list[int]]:
    fields: dict[tuple[int, int], list[int]] = {}
    for t in tables:
        for b, net in enumerate(t.nets, 1):
            fields.setdefault((t.round, b), []).append(net)
    return fields


def standings(tables: Sequence[Table], names: dict[int, str]) -> list[Row]:
    """The duplicate table: each entry's matchpoints of the most it could have had (`top`),
    as a percentage, and its cross-IMPs; ranked by percentage, then IMPs (equal on both:
    one rank). A board played at one table alone scores nothing."""
    rows = {e: Row(e, name) for e, name in names.items()}
    scores = board_scores(tables)
    seen: dict[tuple[int, int], int] = {}
    for t in tables:
        for b in range(1, len(t.nets) + 1):
            i = seen.get((t.round, b), 0)
            seen[(t.round, b)] = i + 1
            field_ = scores[(t.round, b)]
            top = 2 * (len(field_) - 1)
            if top == 0:
                continue
            _, mp, im = field_[i]
            for entry, got, imp in ((t.ns, mp, im), (t.ew, top - mp, -im)):
                row = rows.setdefault(entry, Row(entry, str(entry)))
                row.boards, row.mp, row.top = row.boards + 1, row.mp + got, row.top + top
                row.imps = round(row.imps + imp, 2)
    for row in rows.values():
        row.percent = round(100 * row.mp / row.top, 2) if row.top else 0.0
    ranked = sorted(rows.values(), key=lambda r: (-r.percent, -r.imps, r.entry))
    for i, row in enumerate(ranked):
        prev = ranked[i - 1] if i else None
        same = prev is not None and (prev.percent, prev.imps) == (row.percent, row.imps)
        row.rank = prev.rank if same and prev is not None else i + 1
    return ranked


def table_of(rnd: int, seats: Sequence[int], boards: Sequence[dict]) -> Table:
    """A finished fixture's Table, from its seats and its result's `boards` (board_lines)."""
    return Table(rnd, seats[0], seats[1],
                 tuple(b["points"][0] - b["points"][1] for b in boards))
