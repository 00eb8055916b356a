"""A game the organiser ruled "replay", dealt again inside the league (issue 34): a new table
of its round, the same seats, whose result the standings count in its place; and the rough
edges a new organiser met around it: the struck game's scores, the rounds' plural, the
ratings' empty text."""

import json

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.league.manage import OPERATOR, LeagueError
from pbem.league.pause import pause, resume
from pbem.organise.adjudicate import deal_replay
from pbem.store.states import store_for
from pbem.web.leagues import season_text
from tests.league_helpers import fixtures, league, play_out, replay_ruled, season, snapshot
from tests.test_store_cli import fails, ok


def test_only_the_organiser_deals_a_replay(store):
    lid, gid = replay_ruled(store)
    other = league(store, players=4)
    before = snapshot(store)
    with pytest.raises(LeagueError, match="not the organiser|organiser"):
        deal_replay(store, lid, 999999, gid)
    with pytest.raises(LeagueError, match="is not a game of"):
        deal_replay(store, other, OPERATOR, gid)
    pause(store, lid, OPERATOR)
    before = snapshot(store)
    with pytest.raises(LeagueError, match="is paused: resume it"):
        deal_replay(store, lid, OPERATOR, gid)
    assert snapshot(store) == before
    resume(store, lid, OPERATOR)
    new = deal_replay(store, lid, OPERATOR, gid)
    before = snapshot(store)
    with pytest.raises(LeagueError, match=f"replayed already, as game {new}"):
        deal_replay(store, lid, OPERATOR, gid)
    assert snapshot(store) == before


@pytest.fixture
def pbem(db_url, tmp_path):
    runner = CliRunner()

    def run(*args):
        return runner.invoke(main, [str(a) for a in args],
                             env={"DATABASE_URL": db_url, "PBEM_VAR_DIR": str(tmp_path)})
    return run


def test_the_command_line_shows_a_struck_game_and_deals_its_replay(pbem, db_url):
    store = store_for(db_url)
    lid, gid = replay_ruled(store)
    text = ok(pbem("league", "show", lid))
    assert "None" not in text and f"game {gid}, over" in text
    side = json.loads(ok(pbem("league", "show", lid, "--json")))["fixtures"][0]["tables"][0][
        "sides"][0]
    assert side["score"] is None and isinstance(side["played"], int)  # counted, as played
    assert "(ruled: to be replayed: the game counts for nothing (a misdeal went unseen))" \
        in text
    out = ok(pbem("league", "replay", lid, gid))
    assert out.startswith(f"game {gid} is replayed as game ")
    new = int(out.split("as game ")[1].split(",")[0])
    assert f"game {gid}, over: " in (text := ok(pbem("league", "show", lid)))
    assert f"(replayed as game {new})" in text and f"game {new}, playing" in text
    fails(pbem("league", "replay", lid, gid), "replayed already")


def test_one_round_is_one_round(pbem, db_url, app):
    store = store_for(db_url)
    lid = league(store, players=4, rounds=1)
    assert ok(pbem("league", "start", lid)) == "season 1 started: 1 round\n"
    play_out(store, fixtures(store, lid)[0].game_id)
    assert season_text(season(store, lid)) == "over after 1 of 1 round"
    with app.test_request_context():
        assert "1 rounds" not in app.test_client().get(f"/l/{lid}").text
