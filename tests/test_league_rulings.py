"""The organiser's rulings (issue 16): an `adjudicate` event through the door, counted by the
standings and ratings, shown with its reason, undoable; refused for anyone else, a bad
ruling, or a game not of the league, with nothing written."""

import json

import pytest
from sqlmodel import select

from pbem.gamelog import read_log, replay_log
from pbem.league.manage import OPERATOR, LeagueError, LeagueSpec, create_league, join
from pbem.league.reports import fixtures as table_fixtures
from pbem.league.reports import ratings, rulings, season_standings
from pbem.league.verdicts import counted, in_force
from pbem.organise.adjudicate import adjudicate, parse
from pbem.organise.seasons import start_season
from pbem.store.games import export
from pbem.store.models import Fixture, League, Move, Outbox, Player
from tests.league_helpers import TODAY, fixtures, league, play_out, season, snapshot


@pytest.fixture
def played(store):
    """A Swiss league of four: round one's game played out. (league id, game id)"""
    lid = league(store, players=4)
    start_season(store, lid, OPERATOR)
    gid = fixtures(store, lid)[0].game_id
    play_out(store, gid, seed=1)
    return lid, gid


def _table(store, lid):
    sn = season(store, lid)
    with store.session() as s:
        return {r.name: r for r in season_standings(s, sn)}


def _result(store, gid):
    with store.session() as s:
        return s.exec(select(Fixture).where(Fixture.game_id == gid)).one().result


def _entries_of_side(store, lid, gid, side):
    names = {r.entry: r.name for r in _table(store, lid).values()}
    with store.session() as s:
        f = s.exec(select(Fixture).where(Fixture.game_id == gid)).one()
    return {names[f.seats[x]] for x in read_rules(store, lid).sides[side]}


def test_a_win_given_to_the_losers_turns_the_table_and_is_undone(store, played):
    lid, gid = played
    before = _result(store, gid)
    losers = 1 - before["winner"]
    them = _entries_of_side(store, lid, gid, losers)
    assert all(_table(store, lid)[n].won == 0 for n in them)
    res = adjudicate(store, lid, OPERATOR, gid,
                     parse(["win", str(losers + 1)], "the winners revoked twice"))
    ev = res.events[0]
    assert ev["type"] == "adjudicate" and ev["side"] == losers
    table = _table(store, lid)
    assert all(table[n].won == 1 and table[n].lost == 0 for n in them)
    assert all(table[n].won == 0 for n in set(table) - them)
    sn = season(store, lid)
    with store.session() as s:
        listed = rulings(s, sn)
        shown = table_fixtures(s, sn)[0]["tables"][0]
    assert listed[0]["game_id"] == gid and "the winners revoked twice" in listed[0]["ruling"]
    assert shown["sides"][losers]["won"] and "revoked" in shown["ruling"]
    # the players are told, with the reason; the ruling is in the exported log
    with store.session() as s:
        told = s.exec(select(Outbox).where(Outbox.dedupe_key.like(f"ruling:{gid}:%"))).all()
    log = export(store, gid)
    assert len(told) == 4 and all("revoked twice" in m.body_text for m in told)
    assert in_force(read_log(log)[2])["seq"] == ev["seq"]
    assert replay_log(log).rulings[-1]["reason"] == "the winners revoked twice"
    # undone: the table is as played again
    adjudicate(store, lid, OPERATOR, gid, parse(["undo", str(ev["seq"])], "my mistake"))
    assert "ruling" not in _result(store, gid)
    assert all(_table(store, lid)[n].won == 0 for n in them)
    with store.session() as s:
        assert rulings(s, sn) == []


def test_a_replay_strikes_the_game_from_table_and_ratings(store, played):
    lid, gid = played
    adjudicate(store, lid, OPERATOR, gid, parse(["replay"], "a misdeal nobody noticed"))
    assert all(r.played == 0 for r in _table(store, lid).values())
    with store.session() as s:
        assert ratings(s, s.get(League, lid))["players"] == []


def test_an_adjustment_changes_the_scores_counted(store, played):
    lid, gid = played
    before = _result(store, gid)
    adjudicate(store, lid, OPERATOR, gid, parse(["adjust", "-30", "+30"], "a claim misread"))
    after = counted(before, _result(store, gid)["ruling"])
    assert after["scores"] == [before["scores"][0] - 30, before["scores"][1] + 30]
    side0 = _entries_of_side(store, lid, gid, 0)
    assert {_table(store, lid)[n].points_for for n in side0} == {after["scores"][0]}


def test_a_loss_for_one_side_makes_the_other_the_winner(store, played):
    lid, gid = played
    winner = _result(store, gid)["winner"]
    adjudicate(store, lid, OPERATOR, gid, parse(["loss", str(winner + 1)], "cheated"))
    assert counted(_result(store, gid), _result(store, gid)["ruling"])["winner"] == 1 - winner


@pytest.mark.parametrize("words,reason", [
    (["win", "3"], "no side 3"), (["win", "0"], "sides count from 1"),
    (["adjust", "5"], "one number for two sides"), (["adjust", "0", "0"], "nothing"),
    (["adjust", "+99999", "-1"], "too much"), (["undo", "1"], "no ruling at seq 1"),
    (["draw"], "no such ruling"), (["win", "1"], ""), (["win", "1e3"], "not whole"),
])
def test_a_bad_ruling_changes_nothing(store, played, words, reason):
    lid, gid = played
    before = snapshot(store)
    with pytest.raises(LeagueError):
        adjudicate(store, lid, OPERATOR, gid, parse(words, reason))
    assert snapshot(store) == before


def test_only_the_organiser_and_only_its_own_finished_games(store, played):
    lid, gid = played
    with store.session() as s:
        player = s.exec(select(Player).where(Player.email == "p0@league.test")).one().id
    spec = LeagueSpec("other@league.test", "Other", read_rules(store, lid), TODAY, TODAY)
    other = create_league(store, spec).id
    join(store, other, "q@league.test")
    still = [f.game_id for f in fixtures(store, lid) if f.status == "playing"]
    before = snapshot(store)
    ruling = parse(["win", "1"], "because")
    for who, league_id, game in [(player, lid, gid), (None, lid, gid), (OPERATOR, other, gid),
                                 (OPERATOR, lid, 10**6)] + [(OPERATOR, lid, g) for g in still]:
        with pytest.raises(LeagueError):
            adjudicate(store, league_id, who, game, ruling)
    assert snapshot(store) == before
    with store.session() as s:
        assert s.exec(select(Move).where(Move.type == "adjudicate")).first() is None


def read_rules(store, lid):
    from pbem.engine import Rules
    with store.session() as s:
        return Rules.from_dict(s.get(League, lid).rules)



def test_no_player_can_write_a_ruling_and_a_log_cannot_rule_a_game_in_play(store, played):
    from pbem.play import Refused, submit

    lid, gid = played
    before = snapshot(store)
    for seat in range(4):
        with pytest.raises(Refused, match="not an action a player can take"):
            submit(store, gid, seat, {"type": "adjudicate", "result": "win", "side": 0,
                                      "reason": "I say so"})
    assert snapshot(store) == before
    lines = export(store, gid).splitlines()
    early = dict(seq=2, type="adjudicate", result="replay", reason="too soon")
    tampered = "\n".join([lines[0], lines[1], json.dumps(early)]) + "\n"
    with pytest.raises(Exception, match="seq 2: a game is adjudicated once it is over"):
        replay_log(tampered)
