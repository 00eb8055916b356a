"""A league game's result. pbem.play calls `record` in the transaction of the move that ends
the game, so a result is never lost and never written twice; the standings read results
back with `game_result`."""

from sqlmodel import select

from ..engine import score_pad
from ..store.models import Fixture
from ..store.models import now as utcnow
from .standings import GameResult
from .verdicts import counted


def record(s, game, st) -> int | None:
    """If `game` is a league fixture, write its result; returns its season's id, or None."""
    fixture = s.exec(select(Fixture).where(Fixture.game_id == game.id)).first()
    if fixture is None or fixture.status == "over":
        return None
    fixture.status, fixture.result, fixture.finished = "over", result_of(st), utcnow()
    s.add(fixture)
    return fixture.season_id


def result_of(st) -> dict:
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


def rule(s, game, st) -> None:
    """An organiser's ruling was written: the fixture keeps the ruling in force beside the
    result as played (pbem.league.verdicts)."""
    fixture = s.exec(select(Fixture).where(Fixture.game_id == game.id)).first()
    if fixture is None or fixture.result is None:
        return
    played = {k: v for k, v in fixture.result.items() if k != "ruling"}
    fixture.result = dict(played, ruling=st.rulings[-1]) if st.rulings else played
    s.add(fixture)


def league_counts(fixture: Fixture) -> dict | None:
    """The hook the standings and ratings read a game through: its result as the league
    counts it, after any ruling; None when a ruling struck it (a replay)."""
    return counted(fixture.result, fixture.result.get("ruling"))


def game_result(fixture: Fixture, sides) -> GameResult | None:
    r = league_counts(fixture)
    if r is None:
        return None
    return GameResult(game_id=fixture.game_id, seats=tuple(fixture.seats),
                      sides=tuple(tuple(x) for x in sides), scores=tuple(r["scores"]),
                      bags=tuple(r["bags"]), nils=tuple(tuple(x) for x in r["nils"]),
                      winner=r["winner"])
