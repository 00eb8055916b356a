"""`pbem league ...` on a real database, each backend: a league made, filled, started, shown,
changed and exported from the command line; refusals exit 1 with the reason."""

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlmodel import select

from pbem.cli import main
from pbem.store.models import Fixture
from pbem.store.states import store_for
from tests.league_helpers import play_season
from tests.test_store_cli import fails, ok


@pytest.fixture
def pbem(db_url, tmp_path):
    runner = CliRunner()

    def run(*args):
        return runner.invoke(main, [str(a) for a in args],
                             env={"DATABASE_URL": db_url, "PBEM_VAR_DIR": str(tmp_path)})
    return run


def test_a_league_from_the_command_line(pbem, db_url, tmp_path):
    out = ok(pbem("league", "new", "--name", "CLI Pairs", "--organiser", "boss@x.test",
                  "--entries", "pair", "--pairing", "round-robin", "-o", "max_hands=1",
                  "--starts", "2027-01-04", "--ends", "2027-04-30", "--move-hours", 48))
    assert out.startswith("league 1: CLI Pairs") and "/o/" in out and "/j/" in out
    for i in range(0, 8, 2):
        assert ok(pbem("league", "join", 1, f"p{i}@x.test", "--partner",
                       f"p{i + 1}@x.test")).startswith("entry ")
    fails(pbem("league", "join", 1, "p0@x.test", "--partner", "q@x.test"),
          "p0@x.test is entered in CLI Pairs already")
    fails(pbem("league", "join", 1, "solo@x.test"), "name your partner")
    listed = ok(pbem("league", "list"))
    assert "CLI Pairs" in listed and "season 1 open" in listed

    assert ok(pbem("league", "start", 1)) == "season 1 started: 3 rounds\n"
    fails(pbem("league", "start", 1), "CLI Pairs has no season waiting to start")
    shown = json.loads(ok(pbem("league", "show", 1, "--json")))
    assert shown["round"] == 1 and len(shown["standings"]) == 4
    game = shown["fixtures"][0]["tables"][0]["game_id"]
    out = ok(pbem("league", "substitute", 1, game, 0, "sub@x.test"))
    assert out.startswith(f"game {game} seat 0: sub@x.test in place of p")
    fails(pbem("league", "substitute", 1, game, 2, "sub@x.test"), "already has a seat")
    fails(pbem("league", "substitute", 1, 999, 0, "x@x.test"), "game 999 is not a game")

    play_season(store_for(db_url), 1)
    text = ok(pbem("league", "show", 1))
    assert "CLI Pairs, season 1 (over, round 3 of 3" in text and "ratings (pairs)" in text
    assert ok(pbem("league", "season", 1, "--starts", "2027-05-03", "--ends", "2027-08-27")) \
        == "season 2: 2027-05-03 to 2027-08-27\n"
    shown = json.loads(ok(pbem("league", "show", 1, "--season", 2, "--json")))
    assert shown["status"] == "open" and len(shown["standings"]) == 4
    entry = shown["standings"][0]["entry"]
    assert ok(pbem("league", "withdraw", 1, entry)).endswith(" is out\n")
    fails(pbem("league", "withdraw", 1, entry), f"there is no entry {entry}")

    ok(pbem("league", "export", 1, tmp_path / "out"))
    record = json.loads((tmp_path / "out" / "league.json").read_text())
    logs = sorted(p.name for p in (tmp_path / "out" / "games").iterdir())
    assert len(logs) == 6 == len(record["seasons"][0]["tables"])
    fails(pbem("league", "show", 7), "there is no league 7")
    assert [x["schedule"] for x in record["seasons"]] == [2, 2]  # a new season's version
    documented = docs_league_json()
    assert set(documented) == set(record) and set(documented["league"]) == set(record["league"])
    assert set(documented["seasons"][0]) == set(record["seasons"][0])
    assert set(documented["seasons"][0]["tables"][0]) == set(record["seasons"][0]["tables"][0])
    assert set(documented["seasons"][0]["entries"][0]) == set(
        record["seasons"][0]["entries"][0])


def docs_league_json() -> dict:
    """docs/leagues.md's example of league.json."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "leagues.md").read_text()
    part = doc.split("`league.json`:", 1)[1]
    return json.loads(re.search(r"```json\n(.*?)```", part, re.S).group(1))


def test_the_organisers_actions_from_the_command_line(pbem, db_url, tmp_path):
    ok(pbem("league", "new", "--name", "Care", "--organiser", "boss@x.test", "-o",
            "max_hands=1", "--starts", "2027-01-04", "--ends", "2027-04-30"))
    for i in range(8):
        ok(pbem("league", "join", 1, f"p{i}@x.test"))
    ok(pbem("league", "start", 1))
    first, second = [t["game_id"] for t in json.loads(ok(pbem(
        "league", "show", 1, "--json")))["fixtures"][0]["tables"]]
    store = store_for(db_url)
    from tests.league_helpers import play_out
    play_out(store, first)
    assert f"game {first}: ruling at seq" in ok(pbem("league", "rule", "--reason", "a revoke", 1,
                                                     first, "adjust", "--", "+10", "-10"))
    table = json.loads(ok(pbem("league", "show", 1, "--json")))["fixtures"][0]["tables"][0]
    assert "side 1 +10, side 2 -10 (a revoke)" in table["ruling"]
    assert "more hours" in ok(pbem("league", "more-hours", 1, second, 48))
    assert "reminded" in ok(pbem("league", "remind", 1, second))
    assert "the robot moved" in ok(pbem("league", "robot-move", 1, second))
    assert ok(pbem("league", "message", 1, "--subject", "Hi", "--text", "Hello")) == \
        "mailed 8 player(s)\n"
    fails(pbem("league", "rule", 1, second, "win", "1", "--reason", "x"), "is not over")
    fails(pbem("league", "rule", 1, first, "win", "7", "--reason", "x"),
          "side 7 is not a side of this game: sides 1 to 2")
    fails(pbem("league", "more-hours", 1, second, 0), "from 1 to")
    fails(pbem("league", "remind", 1, 999), "is not a game of")

    play_out(store, second)  # the export tells the organiser's robot move from the player's
    ok(pbem("league", "export", 1, tmp_path / "out"))
    record = json.loads((tmp_path / "out" / "league.json").read_text())
    [table] = [t for t in record["seasons"][0]["tables"] if t["game"] == second]
    with store.reader() as s:
        result = s.exec(select(Fixture).where(Fixture.game_id == second)).one().result
    assert table["own"] == result["own"] and sum(result["moves"]) - sum(table["own"]) == 1


def test_pause_and_resume_from_the_command_line(pbem):
    ok(pbem("league", "new", "--name", "Pause", "--organiser", "boss@x.test",
            "--starts", "2027-01-04", "--ends", "2027-04-30"))
    for i in range(4):
        ok(pbem("league", "join", 1, f"p{i}@x.test"))
    fails(pbem("league", "pause", 1), "Pause has no running season to pause")
    ok(pbem("league", "start", 1))
    assert ok(pbem("league", "pause", 1)) == "paused season(s) 1\n"
    fails(pbem("league", "pause", 1, "--season", 1), "no running season to pause")
    fails(pbem("league", "resume", 1, "--season", 3), "Pause has no season 3")
    assert ok(pbem("league", "resume", 1)) == "resumed season(s) 1\n"
