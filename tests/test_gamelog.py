"""The game log contract: write, read back, replay, and refuse bad logs naming the seq."""

import json

import pytest

from pbem.engine import PRESETS, can_claim, preset, score_pad
from pbem.gamelog import FORMAT, LogError, export, make_header, read_log, replay_log, write_log
from pbem.simulate import play_game

# one xdist worker runs this file (scripts/test): the game played once for the file
pytestmark = pytest.mark.xdist_group("test_gamelog")


@pytest.fixture(scope="module")
def game():
    rules = preset("standard")
    st, events = play_game(rules, "log-test")
    return rules, st, events


def _lines(rules, events, first_dealer):
    return export(rules, events, first_dealer=first_dealer).splitlines()


def test_round_trip(game):
    rules, st, events = game
    text = export(rules, events, ["ann", "bob", "cy", "di"], st.first_dealer)
    header, rules2, events2 = read_log(text)
    assert header["format"] == FORMAT and header["seats"] == ["ann", "bob", "cy", "di"]
    assert header["first_dealer"] == st.first_dealer
    assert rules2 == rules and events2 == events
    end = replay_log(text)
    assert end.phase == "over" and score_pad(end) == score_pad(st)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_replays_to_the_same_state(name):
    rules = preset(name)
    st, events = play_game(rules, f"preset-{name}", max_hands=3)
    end = replay_log(export(rules, events, first_dealer=st.first_dealer))
    assert end.seq == st.seq == len(events)
    assert end.display_scores() == st.display_scores() and end.bags == st.bags
    assert end.history == st.history and end.phase == st.phase


def test_write_log_is_one_json_object_a_line(game):
    rules, st, events = game
    text = write_log(make_header(rules, "abcd", 0), events[:5])
    assert text.endswith("\n")
    rows = [json.loads(line) for line in text.splitlines()]
    assert rows[0]["seats"] == ["a", "b", "c", "d"] and rows[1:] == events[:5]


def test_blank_lines_are_ignored(game):
    rules, st, events = game
    lines = _lines(rules, events[:10], st.first_dealer)
    lines.insert(3, "   ")
    assert read_log(lines)[2] == events[:10]


def _header(**changes):
    h = {"format": FORMAT, "rules": {"preset": "standard"}, "seats": list("abcd"),
         "first_dealer": 0}
    h.update(changes)
    return json.dumps({k: v for k, v in h.items() if v is not None})


@pytest.mark.parametrize("header, words", [
    ("not json", "not JSON"),
    ("[1, 2]", "not a JSON object"),
    (_header(format=None), "unknown log format None"),
    (_header(format="pbem/0"), "unknown log format 'pbem/0'"),
    (_header(rules={"preset": "bridge"}), "unknown preset 'bridge'"),
    (_header(rules={"players": 7}), "players must be 2, 3, 4, 5 or 6"),
    (_header(rules={"colour": "red"}), "unknown option 'colour'"),
    (_header(seats=["a", "b", "c"]), "4 players but the header names 3 seats"),
    (_header(first_dealer=4), "first_dealer 4 is not a seat"),
])
def test_bad_header(header, words):
    with pytest.raises(LogError) as e:
        read_log(header + "\n")
    assert e.value.line == 1 and e.value.seq is None
    assert words in str(e.value) and str(e.value).startswith("line 1: ")


def test_empty_log():
    with pytest.raises(LogError, match="empty"):
        read_log("")


@pytest.mark.parametrize("bad, words", [("{\"seq\": 4,", "not JSON"),
                                         ("[4]", "not a JSON object"),
                                         ("\"play\"", "not a JSON object")])
def test_malformed_event_names_its_seq(game, bad, words):
    rules, st, events = game
    lines = _lines(rules, events, st.first_dealer)
    lines[4] = bad  # line 5 holds the 4th event
    with pytest.raises(LogError) as e:
        read_log(lines)
    assert (e.value.seq, e.value.line) == (4, 5)
    assert str(e.value).startswith("seq 4: ") and words in str(e.value)


def _tamper(game, seq, changes):
    rules, st, events = game
    events = [dict(ev) for ev in events]
    events[seq - 1].update(changes)
    with pytest.raises(LogError) as e:
        replay_log(export(rules, events, first_dealer=st.first_dealer))
    assert e.value.seq == seq and str(e.value).startswith(f"seq {seq}: ")
    return e.value.reason


def _first_play(events, after=1):
    return next(ev for ev in events if ev["type"] == "play" and ev["seq"] > after)


def test_card_not_in_hand(game):
    events = game[2]
    ev = _first_play(events, after=30)
    deal = [d for d in events[: ev["seq"]] if d["type"] == "deal"][-1]
    other = next(h for s, h in enumerate(deal["hands"]) if s != ev["seat"])
    assert "is not in your hand" in _tamper(game, ev["seq"], {"card": other[0]})


def test_wrong_seq_is_named_by_its_place(game):
    assert "expected seq 12, got 99" in _tamper(game, 12, {"seq": 99})


def test_wrong_turn(game):
    ev = _first_play(game[2])
    assert "not your turn" in _tamper(game, ev["seq"], {"seat": (ev["seat"] + 1) % 4})


def test_unknown_event_type(game):
    assert "unknown event type 'dance'" in _tamper(game, 7, {"type": "dance"})


def test_event_after_the_end_is_refused(game):
    rules, st, events = game
    extra = dict(events[-1], seq=len(events) + 1)
    with pytest.raises(LogError, match=f"seq {len(events) + 1}: the game is over"):
        replay_log(export(rules, events + [extra], first_dealer=st.first_dealer))


def test_a_missing_event_is_an_error_not_skipped(game):
    rules, st, events = game
    short = events[:20] + events[21:]
    with pytest.raises(LogError) as e:
        replay_log(export(rules, short, first_dealer=st.first_dealer))
    assert e.value.seq == 21


def test_a_claim_in_a_log_replays(game):
    rules, st, events = game
    end = next(i for i, ev in enumerate(events) if i and ev["type"] == "deal")
    for cut in range(end - 8, end):  # the last tricks of hand 1: small claim searches
        part = replay_log(export(rules, events[:cut], first_dealer=st.first_dealer))
        seat = next((s for s in range(4) if can_claim(part, s)), None)
        if seat is not None:
            break
    assert seat is not None, "nobody could claim the last trick"
    claim = {"seq": cut + 1, "type": "claim", "seat": seat}
    end_st = replay_log(export(rules, events[:cut] + [claim], first_dealer=st.first_dealer))
    row = end_st.history[0]
    assert row["claimed_by"] == seat and sum(s["tricks"] for s in row["sides"]) == 13
    assert end_st.phase == "deal" and end_st.hand_no == 1
