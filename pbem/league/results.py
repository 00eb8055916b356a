"""A league game's result. pbem.play calls `record` in the transaction of the move that ends
the game, so a result is never lost and never written twice; the standings and ratings read
results back with `game_result`, the one place a result is read (an organiser's ruling on a
result belongs there)."""

from collections.abc import Sequence

from sqlalchemy import Row, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col, select

from ..engine import State, score_pad
from ..store.models import Deadline, Fixture, Game, League, Move, Season
from ..store.models import now as utcnow
from . import news
from .duplicate import board_lines
from .rows import id_of
from .standings import GameResult
from .verdicts import counted


def record(s: Session, game: Game, st: State) -> int | None:
    """If `game` is a league fixture, write its result; returns its season's id, or None."""
    fixture = s.exec(select(Fixture).where(Fixture.game_id == game.id)).first()
    if fixture is None or fixture.status == "over":
        return None
    result = result_of(st) | seat_record(s, id_of(game), st.n)
    league, season = s.exec(select(League, Season).join(
        Season, col(Season.league_id) == League.id).where(Season.id == fixture.season_id)).one()
    if league.pairing == "duplicate":  # each board, hidden from the other tables until the
        result |= {"boards": board_lines(st), "hidden": True}  # round ends
    finish(s, fixture, result)
    news.result(s, league, season, fixture)  # a hidden result is told when its round ends
    return fixture.season_id


def finish(s: Session, fixture: Fixture, result: dict) -> None:
    """Write a fixture's result, in the caller's transaction."""
    fixture.status, fixture.result, fixture.finished = "over", result, utcnow()
    changed(s, fixture.season_id, fixture)


def changed(s: Session, season_id: int, fixture: Fixture | None = None) -> None:
    """The season's results (or how they count) changed: bump its version, the key of the
    cached standings and ratings (pbem.league.reports), in the caller's transaction, and
    stamp the fixture that changed with it (pbem.league.ledger reads only those). One
    UPDATE adds the one: two writers at once get two versions, never the same."""
    version = s.connection().execute(update(Season).where(col(Season.id) == season_id).values(
        version=col(Season.version) + 1).returning(col(Season.version))).scalar_one()
    held = s.identity_map.get(identity_key(Season, season_id))
    if held is not None:  # the caller's Season keys the caches by its version: keep it true
        set_committed_value(held, "version", version)
    if fixture is not None:
        fixture.version = version
        s.add(fixture)


MOVES = ("bid", "play", "claim")  # what a seat's player is asked to do
# the seat's player moved (auto: their own order or only card; settled: the rest of a hand
# no play could change, pbem.engine.settled, which their `auto on` let play itself)
OWN = ("mail", "web", "cli", "auto", "settled")


def seat_record(s: Session, game_id: int, n: int) -> dict:
    """Per seat: `own` moves its first player made themselves, of `moves` in all (the
    rest were the clock's robot on a timeout, a robot's, or a substitute's); `timeouts` and
    `vacations` (a timeout that spent a vacation day). A game is `rated` only if every
    seat's first player made more than half of that seat's moves (docs/leagues.md)."""
    rows = s.exec(select(Move.type, Move.actor, Move.source, Move.payload).where(
        Move.game_id == game_id, col(Move.type).in_((*MOVES, "substitute")))
        .order_by(col(Move.seq))).all()
    own, moves, handed = [0] * n, [0] * n, [False] * n
    for kind, actor, source, payload in rows:
        if kind == "substitute":  # the server's event (no actor): its payload names the seat
            actor = payload.get("seat")
        if actor is None or not 0 <= actor < n:
            continue
        if kind == "substitute":
            handed[actor] = True
            continue
        moves[actor] += 1
        own[actor] += source in OWN and not handed[actor]
    timeouts, vacations = [0] * n, [0] * n
    for seat, count in _timeouts(s, game_id).items():
        if 0 <= seat < n:
            timeouts[seat] = count
    for seat in s.exec(select(Deadline.seat).where(
            Deadline.game_id == game_id, Deadline.kind == "timeout",
            Deadline.result == "vacation day")).all():
        if 0 <= seat < n:
            vacations[seat] += 1
    return {"own": own, "moves": moves, "timeouts": timeouts, "vacations": vacations,
            "rated": all(2 * o > m for o, m in zip(own, moves, strict=True))}


def result_of(st: State) -> dict:
    """What the league keeps of a finished game: each side's final score and the bags it
    took over the game, each seat's nils made and failed, the winner, and how it ended."""
    pad = score_pad(st)
    bags = [0] * len(st.sides)
    nils = [[0, 0] for _ in range(st.n)]
    for hand in pad["hands"]:
        for i, side in enumerate(hand["sides"]):
            bags[i] += side.get("bags", 0)
            for nil in side.get("nils", []):
                nils[nil["seat"]][0 if nil["made"] else 1] += 1
    return {"winner": st.winner, "scores": [side["score"] for side in pad["sides"]],
            "bags": bags, "nils": nils, "hands": st.hand_no, "resigned": st.resigned}


def rule(s: Session, game: Game, st: State) -> None:
    """An organiser's ruling was written: the fixture keeps the ruling in force beside the
    result as played (pbem.league.verdicts), and the season's cached standings go stale."""
    fixture = s.exec(select(Fixture).where(Fixture.game_id == game.id)).first()
    if fixture is None or fixture.result is None:
        return
    played = {k: v for k, v in fixture.result.items() if k != "ruling"}
    fixture.result = dict(played, ruling=st.rulings[-1]) if st.rulings else played
    changed(s, fixture.season_id, fixture)


def league_counts(fixture: Fixture | Row) -> dict | None:
    """A game's result as the league counts it, after any ruling; None when a ruling struck
    it (a replay)."""
    return counted(fixture.result, fixture.result.get("ruling"))


def game_result(fixture: Fixture | Row, sides: Sequence[Sequence[int]]) -> GameResult | None:
    """The result as the standings and ratings count it, from a finished Fixture (or a row
    of its game_id, seats and result), after any ruling (None: struck by a replay). Results
    written before the seat record was kept count as rated, with no timeouts."""
    r = league_counts(fixture)
    if r is None:
        return None
    n = len(fixture.seats)
    return GameResult(game_id=fixture.game_id, seats=tuple(fixture.seats),
                      sides=tuple(tuple(x) for x in sides), scores=tuple(r["scores"]),
                      bags=tuple(r["bags"]), nils=tuple(tuple(x) for x in r["nils"]),
                      winner=r["winner"], timeouts=tuple(r.get("timeouts", (0,) * n)),
                      vacations=tuple(r.get("vacations", (0,) * n)),
                      own=tuple(r.get("own", (0,) * n)), rated=r.get("rated", True),
                      ruled=fixture.result.get("ruling") is not None)


def _timeouts(s: Session, game_id: int) -> dict[int, int]:
    """Timeouts by seat: the deadlines the clock has fired as timeouts, and those whose move
    is written but whose row the clock has not marked done yet (the move that ends the game
    may be the clock's own)."""
    fired = dict(s.exec(select(Deadline.id, Deadline.seat).where(
        Deadline.game_id == game_id, Deadline.kind == "timeout",
        col(Deadline.result).startswith("timeout"))).all())
    for ref, seat in s.exec(select(Move.ref, Move.actor).where(
            Move.game_id == game_id, col(Move.ref).startswith("timeout:"))).all():
        if ref is not None and seat is not None:
            fired[int(ref.split(":")[1])] = seat
    counts: dict[int, int] = {}
    for seat in fired.values():
        counts[seat] = counts.get(seat, 0) + 1
    return counts
