"""Reading a duplicate season (pbem.league.duplicate) for pages, the JSON API and the
export: the duplicate table, each round's commitment (and its seed once the round is over),
and a board's page. Nothing of a round shows before every table of it has finished: a table
still playing a board must not learn another table's result on it, or its cards."""

from dataclasses import asdict

from sqlmodel import Session, col, select

from ..store.models import Entry, Fixture, League, Move, Season
from . import duplicate


def closed(season: Season, rnd: int) -> bool:
    """Is round `rnd` over at every table (so its boards may be shown)?"""
    return season.status == "over" or rnd < season.round


def _shown(s: Session, season: Season) -> list[Fixture]:
    """The season's finished tables whose round is over, in round and table order."""
    rows = s.exec(select(Fixture).where(Fixture.season_id == season.id,
                                        Fixture.status == "over")
                  .order_by(col(Fixture.round), col(Fixture.board))).all()
    return [f for f in rows if closed(season, f.round) and not f.result.get("hidden")]


def tables(s: Session, season: Season) -> list[duplicate.Table]:
    return [duplicate.table_of(f.round, f.seats, f.result.get("boards", [])) for f in
            _shown(s, season)]


def table(s: Session, season: Season) -> list[dict]:
    """The duplicate table of the season's rounds that are over."""
    names = {e: name for e, name in s.exec(select(Entry.id, Entry.name).where(
        Entry.season_id == season.id).order_by(col(Entry.id))).all() if e is not None}
    return [asdict(row) for row in duplicate.standings(tables(s, season), names)]


def rounds(league: League, season: Season) -> list[dict]:
    """Each round opened so far: its commitment, and its seed once it is over."""
    out = []
    for r in range(1, season.round + 1):
        seed = duplicate.round_seed(league.seed, season.number, r)
        out.append({"round": r, "commitment": duplicate.commitment(seed),
                    "seed": seed if closed(season, r) else None})
    return out


def board(s: Session, league: League, season: Season, rnd: int, number: int) -> dict | None:
    """Board `number` of round `rnd`: the deal (as dealt at every table) and each table's
    result on it with its matchpoints and IMPs; None unless the round is over."""
    if league.pairing != "duplicate" or not closed(season, rnd) or \
            not 1 <= number <= int(league.rules.get("max_hands", 0)):
        return None
    fixtures = [f for f in _shown(s, season) if f.round == rnd
                and len(f.result.get("boards", [])) >= number]
    if not fixtures:
        return None
    names = dict(s.exec(select(Entry.id, Entry.name).where(
        Entry.season_id == season.id)).all())
    scored = duplicate.board_scores(tables(s, season)).get((rnd, number), [])
    top = 2 * (len(scored) - 1)
    lines = []
    for f, (net, mp, imp) in zip(fixtures, scored, strict=True):
        b = f.result["boards"][number - 1]
        lines.append({"table": f.board, "game_id": f.game_id, "ns": names.get(f.seats[0]),
                      "ew": names.get(f.seats[1]), "bids": b["bids"], "tricks": b["tricks"],
                      "points": b["points"], "net": net, "mp": [mp, top - mp],
                      "imps": [imp, -imp]})
    return {"round": rnd, "board": number, "dealer": (number - 1) % 4, "top": top,
            "deal": _deal(s, fixtures[0].game_id, number), "tables": lines,
            "seed": duplicate.round_seed(league.seed, season.number, rnd)}


def _deal(s: Session, game_id: int | None, number: int) -> dict | None:
    """The board's deal event, as the table's log holds it."""
    deal = s.exec(select(Move.payload).where(Move.game_id == game_id, Move.type == "deal")
                  .order_by(col(Move.seq)).offset(number - 1)).first()
    return dict(deal) if deal is not None else None
