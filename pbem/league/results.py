"""A league game's result. pbem.play calls `record` in the transaction of the move that ends
the game, so a result is never lost and never written twice; the standings read results
back with `game_result`."""

from sqlmodel import select

from ..engine import score_pad
from ..store.models import Fixture
from ..store.models import now as utcnow
from .standings import GameResult


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


def game_result(fixture: Fixture, sides) -> GameResult:
    r = fixture.result
    return GameResult(game_id=fixture.game_id, seats=tuple(fixture.seats),
                      sides=tuple(tuple(x) for x in sides), scores=tuple(r["scores"]),
                      bags=tuple(r["bags"]), nils=tuple(tuple(x) for x in r["nils"]),
                      winner=r["winner"])
