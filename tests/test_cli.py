"""The command line: simulate writes logs that replay agrees with; errors name the seq."""

import json
import re

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.engine import PRESETS, Rules, preset

# one xdist worker runs this file (scripts/test): the simulated logs made once for the file
pytestmark = pytest.mark.xdist_group("test_cli")

GAME_LINE = re.compile(r"^game (\d+): (\d+) hands, scores ([-\d /]+), (.*)$", re.M)


def run(*args, stdin=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=stdin)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    out = tmp_path_factory.mktemp("logs")
    res = run("simulate", "--games", 3, "--seed", 7, "--log-dir", out)
    assert res.exit_code == 0, res.output
    return out, res.output


def test_simulate_writes_one_log_a_game(logs):
    out, text = logs
    assert sorted(p.name for p in out.iterdir()) == [f"game-000{i}.jsonl" for i in (1, 2, 3)]
    assert len(GAME_LINE.findall(text)) == 3
    assert "3 games of standard" in text


def test_replay_agrees_with_the_simulation(logs):
    out, text = logs
    for number, hands, scores, result in GAME_LINE.findall(text):
        res = run("replay", "--json", out / f"game-{int(number):04d}.jsonl")
        assert res.exit_code == 0, res.output
        pad = json.loads(res.output)
        assert " / ".join(str(s["score"]) for s in pad["sides"]) == scores
        assert len(pad["hands"]) == int(hands)
        assert pad["over"] == ("winner" in result)
        if pad["over"]:
            assert f"winner side {pad['winner']} " in result


def test_replay_json_shape(logs):
    pad = json.loads(run("replay", "--json", logs[0] / "game-0001.jsonl").output)
    assert set(pad) == {"over", "winner", "sides", "hands"}
    for side in pad["sides"]:
        assert set(side) == {"seats", "score", "bags"}
    for hand in pad["hands"]:
        assert hand["dealer"] in range(4) and len(hand["sides"]) == 2
        for side in hand["sides"]:
            assert {"bid", "tricks", "points"} <= set(side)
    last = pad["hands"][-1]["sides"]
    assert [s["score"] for s in pad["sides"]] == [s["score"] for s in last]


def test_replay_table_for_people(logs):
    path = logs[0] / "game-0002.jsonl"
    pad = json.loads(run("replay", "--json", path).output)
    res = run("replay", path)
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert "robot0+robot2" in lines[0] and "robot1+robot3" in lines[0]
    rows = [line for line in lines if re.match(r"^\s+\d+ robot\d", line)]
    assert len(rows) == len(pad["hands"])
    scores = [str(s["score"]) for s in pad["sides"]]
    assert lines[-2] == "totals: " + ", ".join(
        f"{n} {sc} ({s['bags']} bags)"
        for n, sc, s in zip(["robot0+robot2", "robot1+robot3"], scores, pad["sides"], strict=True))
    winner = ["robot0+robot2", "robot1+robot3"][pad["winner"]]
    assert lines[-1] == f"winner: {winner}"


def test_replay_from_stdin(logs):
    text = (logs[0] / "game-0003.jsonl").read_text()
    from_stdin = run("replay", "--json", "-", stdin=text)
    assert from_stdin.exit_code == 0
    assert from_stdin.output == run("replay", "--json", logs[0] / "game-0003.jsonl").output


def _tampered(logs, tmp_path, seq, change):
    lines = (logs[0] / "game-0001.jsonl").read_text().splitlines()
    lines[seq] = change(lines[seq])  # line 0 is the header: event `seq` is on line `seq`
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return run("replay", path)


def _set(**changes):
    return lambda line: json.dumps({**json.loads(line), **changes})


@pytest.mark.parametrize("seq, change, words", [
    (9, _set(seq=40), "expected seq 9, got 40"),
    (8, lambda line: line[:-3], "not JSON"),
    (10, lambda line: "[]", "not a JSON object"),
    (3, _set(type="play", card="XX"), "not the time to play"),
])
def test_tampered_log_exits_1_naming_the_seq(logs, tmp_path, seq, change, words):
    res = _tampered(logs, tmp_path, seq, change)
    assert res.exit_code == 1
    assert res.stderr.startswith(f"error: seq {seq}: ") and words in res.stderr
    assert res.stdout == ""


def test_card_not_in_hand_exits_1(logs, tmp_path):
    events = [json.loads(x) for x in (logs[0] / "game-0001.jsonl").read_text().splitlines()[1:]]
    play = next(e for e in events if e["type"] == "play" and e["seq"] > 10)
    hands = events[0]["hands"]
    stranger = hands[(play["seat"] + 1) % 4][0]
    res = _tampered(logs, tmp_path, play["seq"], _set(card=stranger))
    assert res.exit_code == 1
    assert res.stderr == f"error: seq {play['seq']}: {stranger!r} is not in your hand\n"


def test_bad_header_exits_1(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"format": "pbem/9"}\n')
    res = run("replay", path)
    assert res.exit_code == 1 and res.stderr.startswith("error: line 1: unknown log format")


def test_rules_list_names_every_preset():
    res = run("rules", "list")
    names = [line.split()[0] for line in res.output.splitlines()]
    assert res.exit_code == 0 and names == list(PRESETS)
    assert all(len(line.split()) > 3 for line in res.output.splitlines())


@pytest.mark.parametrize("name", list(PRESETS))
def test_rules_show_every_preset(name):
    res = run("rules", "show", name)
    assert res.exit_code == 0
    shown = dict(line.split(None, 1) for line in res.output.splitlines())
    assert set(shown) == set(preset(name).to_dict())
    assert json.loads(shown["players"]) == preset(name).players
    data = json.loads(run("rules", "show", name, "--json").output)
    assert Rules.from_dict(data) == preset(name)


def test_rules_show_with_options():
    res = run("rules", "show", "standard", "-o", "target=300", "--option", "bag-limit=6",
              "-o", "misdeal=no_spades,no_faces", "--json")
    data = json.loads(res.output)
    assert (data["target"], data["bag_limit"]) == (300, 6)
    assert data["misdeal"] == ["no_spades", "no_faces"]


@pytest.mark.parametrize("args, words", [
    (["standard", "-o", "colour=red"], "unknown option 'colour'"),
    (["standard", "-o", "target"], "is not KEY=VALUE"),
    (["standard", "-o", "target=lots"], "takes a whole number"),
    (["cutthroat-3", "-o", "partnerships=true"], "partnerships need 4 or 6 players"),
    (["bridge"], "unknown preset 'bridge'"),
])
def test_rules_show_refuses(args, words):
    res = run("rules", "show", *args)
    assert res.exit_code == 2 and words in res.stderr


def test_simulate_is_deterministic_and_guards_endless_games():
    a = run("simulate", "--games", 2, "--seed", 3, "--max-hands", 2)
    b = run("simulate", "--games", 2, "--seed", 3, "--max-hands", 2)
    assert a.exit_code == 0 and a.output == b.output
    assert [m[3] for m in GAME_LINE.findall(a.output)] == ["unfinished"] * 2
    assert "unfinished 2" in a.output


def test_simulate_other_presets(tmp_path):
    res = run("simulate", "--rules", "two-handed", "--games", 1, "--seed", 1, "--max-hands",
              4, "--log-dir", tmp_path)
    assert res.exit_code == 0, res.output
    replayed = run("replay", "--json", tmp_path / "game-0001.jsonl")
    scores = GAME_LINE.findall(res.output)[0][2]
    assert " / ".join(str(s["score"]) for s in json.loads(replayed.output)["sides"]) == scores


def test_simulate_refuses_bad_rules():
    res = run("simulate", "--rules", "standard", "-o", "players=7", "--games", 1)
    assert res.exit_code == 2 and "players must be" in res.stderr


def test_demo_prints_the_game():
    res = run("demo", "--seed", 4)
    assert res.exit_code == 0
    out = res.output
    assert out == run("demo", "--seed", 4).output
    assert out.count("== hand 1: seat") == 1 and "bids" in out
    tricks = re.findall(r"^  trick: (.*) -> seat \d$", out, re.M)
    hands = len(re.findall(r"^== hand \d+", out, re.M))
    assert len(tricks) == 13 * hands
    assert all(len(t.split(", ")) == 4 for t in tricks)
    assert "♠" in out and out.splitlines()[-1].startswith("game over: ")


@pytest.mark.parametrize("name, value", [("PBEM_SMTP_PROCESSES", "abc"),
                                         ("PBEM_SMTP_PROCESSES", "0"),
                                         ("PBEM_SMTP_PORT", "99999"),
                                         ("PBEM_WEB_PORT", "-1")])
def test_a_mistyped_setting_is_named_not_a_traceback(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    res = CliRunner().invoke(main, ["smtp"])
    assert res.exit_code == 1
    assert f"{name} must be a whole number" in res.output and repr(value) in res.output
    assert "Traceback" not in res.output
