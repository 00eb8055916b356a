"""The league table kept current result by result (pbem.league.ledger, issue 15) is the table
computed afresh: after every step of a random season (rounds opened, results written with
timeouts that forfeit, rulings given and taken back, withdrawals whose games stand or are
struck) the kept standings, reliability, fixtures, rulings and rated games are compared
with a full recompute from the database, and at the end the ratings too."""

import random
from collections import Counter

import pytest
from sqlmodel import select

from pbem.league import ledger, reports, results
from pbem.league.manage import OPERATOR, withdraw
from pbem.league.reports import (
    fixture_rounds,
    ratings,
    rulings,
    season_reliability,
    season_standings,
)
from pbem.league.results import game_result
from pbem.league.standings import reliability, standings
from pbem.store.models import Entry, Fixture, League, Season
from tests.league_helpers import league

FORFEIT = 2
SIDES = ((0, 2), (1, 3))


def _running(store, lid) -> int:
    """The league's season, set running (as start_season leaves it, without its round)."""
    with store.session() as s:
        sn = s.exec(select(Season).where(Season.league_id == lid)).one()
        sn.status = "running"
        s.add(sn)
        s.commit()
        return sn.id


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_kept_table_is_the_table_computed_afresh_after_every_step(store, seed):
    rng = random.Random(seed)
    lid = league(store, players=10, timeout_forfeit=FORFEIT)
    sid = _running(store, lid)
    steps = Counter()
    for _ in range(80):
        step = _step(store, lid, sid, rng)
        steps[step] += 1
        _same_as_afresh(store, lid, sid)
    assert {"round", "result", "ruling", "undo", "stand", "struck"} <= set(steps), steps
    with store.reader() as s:
        kept = ratings(s, s.get(League, lid))
        reports.forget()
        assert kept == ratings(s, s.get(League, lid)) and kept["players"]


def test_a_result_counts_at_once_in_the_transaction_that_writes_it(store):
    """The move that ends a round's last game draws the next Swiss round from the table,
    in the same transaction: the table must count that game already."""
    lid = league(store, players=10)
    sid = _running(store, lid)
    _open_round(store, sid, random.Random(4))
    with store.session() as s:
        sn = s.get(Season, sid)
        assert {row.played for row in season_standings(s, sn)} == {0}
        fixture = s.exec(select(Fixture).where(Fixture.season_id == sid,
                                               Fixture.board == 1)).one()
        results.finish(s, fixture, _result(random.Random(5)))
        played = {row.entry: row.played for row in season_standings(s, sn)}
        assert [played[e] for e in fixture.seats] == [1, 1, 1, 1]
        assert sum(played.values()) == 4


def _step(store, lid, sid, rng) -> str:
    with store.session() as s:
        rows = s.exec(select(Fixture).where(Fixture.season_id == sid)).all()
        playing = [f for f in rows if f.status == "playing"]
        over = [f for f in rows if f.status == "over"]
        active = [e.id for e in s.exec(select(Entry).where(Entry.season_id == sid)).all()
                  if e.status == "active"]
    choice = rng.random()
    if not playing and (not over or choice < 0.5):
        _open_round(store, sid, rng)
        return "round"
    if playing and choice < 0.55:
        with store.session() as s:
            results.finish(s, s.get(Fixture, rng.choice(playing).id), _result(rng))
            s.commit()
        return "result"
    if over and choice < 0.85:
        return _rule(store, sid, rng.choice(over).id, rng)
    if len(active) > 6 and choice > 0.9:
        how = ("stand", "struck")[len(active) % 2]  # both kinds, at random times
        withdraw(store, lid, OPERATOR, rng.choice(active), how)
        return how
    _open_round(store, sid, rng)
    return "round"


def _open_round(store, sid, rng) -> None:
    """Two tables of four and two byes among all ten entries (the withdrawn ones too: a
    robot plays for them in a round robin)."""
    with store.session() as s:
        sn = s.get(Season, sid)
        ids = [e.id for e in s.exec(select(Entry).where(Entry.season_id == sid)).all()]
        rng.shuffle(ids)
        sn.round += 1
        for board in (1, 2):
            s.add(Fixture(season_id=sid, round=sn.round, board=board,
                          seats=ids[4 * board - 4:4 * board]))
        for board, entry in ((3, ids[8]), (4, ids[9])):
            s.add(Fixture(season_id=sid, round=sn.round, board=board, seats=[entry],
                          status="bye"))
        s.add(sn)
        s.commit()


def _result(rng) -> dict:
    scores = [rng.randrange(-100, 300), rng.randrange(-100, 300)]
    own, moves = [rng.randrange(13) for _ in range(4)], [13] * 4
    return {"winner": int(scores[1] > scores[0]), "scores": scores,
            "bags": [rng.randrange(6), rng.randrange(6)],
            "nils": [[rng.randrange(2), rng.randrange(2)] for _ in range(4)],
            "timeouts": [rng.choice([0, 0, 1, 2]) for _ in range(4)],
            "vacations": [rng.randrange(2) for _ in range(4)], "own": own, "moves": moves,
            "rated": all(2 * o > m for o, m in zip(own, moves, strict=True)) or rng.random() < .7}


def _rule(store, sid, fixture_id, rng) -> str:
    """A ruling given (or the one in force taken back), as pbem.league.results.rule keeps it."""
    with store.session() as s:
        f = s.get(Fixture, fixture_id)
        played = {k: v for k, v in f.result.items() if k != "ruling"}
        kind = rng.choice(["win", "loss", "adjust", "replay", "undo", "undo"])
        ruling = {"result": kind, "side": rng.randrange(2), "reason": "test", "seq": 1,
                  "points": [rng.randrange(-50, 50), rng.randrange(-50, 50)]}
        f.result = played if kind == "undo" else dict(played, ruling=ruling)
        results.changed(s, sid, f)
        s.commit()
    return "undo" if kind == "undo" else "ruling"


def _same_as_afresh(store, lid, sid) -> None:
    with store.reader() as s:
        sn, lg = s.get(Season, sid), s.get(League, lid)
        kept = (season_standings(s, sn), season_reliability(s, sn), fixture_rounds(s, sn),
                rulings(s, sn), ledger.read(s, sn, lg, _rated))
        rows = s.exec(select(Fixture).where(Fixture.season_id == sid)).all()
        entries = s.exec(select(Entry).where(Entry.season_id == sid)).all()
        fresh = ledger.Ledger(SIDES, lg.timeout_forfeit)
        fresh.sync(s, sn, lg)
    names = {e.id: e.name for e in entries}
    withdrawn = {e.id: e.games for e in entries if e.status == "withdrawn"}
    counted = [r for f in rows if f.status == "over" if (r := game_result(f, SIDES))]
    byes = Counter(f.seats[0] for f in rows if f.status == "bye")
    assert kept[0] == standings(names, counted, byes, FORFEIT, withdrawn)
    assert kept[1] == reliability(names, counted)
    assert [v for _, v in kept[2]] == [view for _, view in fresh.fixtures()]
    assert kept[3] == fresh.rulings() and kept[4] == _rated(fresh)


def _rated(led) -> list:
    return [g[1:] for g in sorted(led.rated.values())]
