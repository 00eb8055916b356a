"""The engine's hot paths, made quick, still answer as before: `State.snapshot` gives what
copy.deepcopy gives and shares nothing with the state that ever changes; a card taken back
(`undo`, which works the play out backwards) leaves the table as it was; a deal that is
not the deck is refused with what is wrong and changes nothing."""

import copy
import json
import pickle
import random
from dataclasses import fields

import pytest
from helpers import random_step

from pbem.engine import (
    PRESETS,
    IllegalAction,
    advance,
    apply,
    legal,
    make_deal,
    new_game,
    preset,
)
from pbem.engine.acts import undoable

PLAY_FIELDS = ("hands", "trick", "tricks", "won", "broken", "must_lead", "turn", "phase")


def deep(st):
    memo = {id(st.rules): st.rules, id(st.table): st.table}
    return copy.deepcopy(st, memo)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_snapshot_is_a_deepcopy_sharing_nothing(name):
    rng = random.Random(name)
    st = new_game(preset(name), 0)
    for step in range(300):
        if st.phase == "over":
            break
        random_step(st, rng)
        if step % 7:
            continue
        twin = st.snapshot()
        assert twin.__dict__ == deep(st).__dict__
        assert twin.rules is st.rules and twin.table is st.table
        for seat, hand in enumerate(twin.hands):
            hand.append("XX")  # changing the copy's cards leaves the state's alone
            assert "XX" not in st.hands[seat]
        twin.trick.append((0, "XX"))
        twin.history.append({})
        assert (0, "XX") not in st.trick and {} not in st.history


def test_a_snapshot_keeps_shared_values_shared():
    st = new_game(preset("standard"), 0)
    shared = ["AS"]
    st.talk = [{"seq": 1, "seat": 0, "text": "hi", "cards": shared}, shared]
    twin = st.snapshot()
    assert twin.talk[0]["cards"] is twin.talk[1] and twin.talk[1] is not shared


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_rules_as_data_are_a_new_dict_each_time(name):
    """`Rules.to_dict` reads the options once per ruleset: each caller still gets its own
    dict and lists, every option but the derived sides, tuples as lists."""
    rules = preset(name)
    first = rules.to_dict()
    assert first == {f: list(v) if isinstance(v, tuple) else v
                     for f, v in ((f.name, getattr(rules, f.name)) for f in fields(rules))
                     if f != "sides"}
    first["preset"] = "changed"
    for value in first.values():
        if isinstance(value, list):
            value.append("XX")
    assert rules.to_dict() == json.loads(rules.to_json()) != first
    assert type(rules).from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize("name", ["standard", "cutthroat-3", "six-handed", "nyc"])
def test_a_snapshot_stays_as_it_was_whatever_the_state_does_next(name):
    """The copy shares the finished tricks and the deal records (write-once) with the state:
    the state playing on, taking cards back (a trick that ends, too) and ending hands never
    changes the copy."""
    rng = random.Random(name)
    st = new_game(preset(name), 0)
    kept = []  # (snapshot, deepcopy) pairs taken along the way
    for step in range(400):
        if st.phase == "over":
            break
        if step % 5 == 0:
            kept.append((st.snapshot(), deep(st).__dict__))
        seat = random_step(st, rng)
        if st.phase == "play" and undoable(st, seat) and step % 2:  # (not a bid that
            # showed a card: tests/test_undo_fair.py)
            for ev in apply(st, seat, {"type": "undo", "undo": st.undo_point[1]}):
                advance(st, ev)  # a card taken back: a trick it ended is popped
            random_step(st, rng)
    assert len(kept) > 20
    for twin, then in kept:
        assert twin.__dict__ == then


@pytest.mark.parametrize("name", ["standard", "cutthroat-3", "six-handed", "nyc"])
def test_a_card_taken_back_leaves_the_table_as_it_was(name):
    rng = random.Random(7)
    st = new_game(preset(name), 0)
    undone = 0
    while st.phase != "over" and undone < 150:
        if st.phase != "play":
            random_step(st, rng)
            continue
        before = st.snapshot()
        seat = random_step(st, rng)
        if st.phase != "play" or st.hand_no != before.hand_no:
            continue  # the hand's last card: it cannot be taken back
        for ev in apply(st, seat, {"type": "undo"}):
            advance(st, ev)
        undone += 1
        assert [getattr(st, f) for f in PLAY_FIELDS] == [getattr(before, f) for f in PLAY_FIELDS]
        random_step(st, rng)  # play on from the table as it was
    assert undone >= 100


@pytest.mark.parametrize(("change", "words"), [
    (lambda hands: hands[0].__setitem__(0, 7), "lists cards as strings"),
    (lambda hands: hands[0].__setitem__(0, hands[1][0]), "once too often, .* missing"),
])
def test_a_deal_that_is_not_the_deck_is_refused_and_changes_nothing(change, words):
    st = new_game(preset("standard"), 0)
    ev = make_deal(st, random.Random(1))
    change(ev["hands"])
    before = deep(st).__dict__
    with pytest.raises(IllegalAction, match=words):
        advance(st, ev)
    assert st.__dict__ == before


def test_an_event_advanced_twice_is_refused_the_second_time():
    st = new_game(preset("standard"), 0)
    advance(st, make_deal(st, random.Random(3)))
    while st.phase != "over" and st.seq < 40:  # bids and cards, each checked by apply()
        seat = st.to_act()[0]
        [ev] = apply(st, seat, random.Random(st.seq).choice(legal(st, seat)))
        advance(st, ev)
        before = deep(st).__dict__
        with pytest.raises(IllegalAction, match="expected seq"):
            advance(st, ev)
        assert st.__dict__ == before


@pytest.mark.parametrize("kind", [[], {}, ["play"], 7, None])
def test_an_event_type_that_is_not_a_word_is_refused_with_words(kind):
    st = new_game(preset("standard"), 0)
    advance(st, make_deal(st, random.Random(1)))
    before = deep(st).__dict__
    with pytest.raises(IllegalAction, match="unknown event type|not an action"):
        apply(st, 1, {"type": kind})
    with pytest.raises(IllegalAction, match="unknown event type"):
        advance(st, {"seq": st.seq + 1, "type": kind, "seat": 1})
    assert st.__dict__ == before


def test_a_made_deal_changed_before_it_is_advanced_is_checked():
    st = new_game(preset("standard"), 0)
    ev = make_deal(st, random.Random(1))
    ev["hands"][0][0], ev["hands"][1][0] = ev["hands"][1][0], ev["hands"][0][0]
    advance(st, ev)  # still the deck: checked, and dealt as changed
    assert st.hands[0][0] == ev["hands"][0][0]
    st = new_game(preset("standard"), 0)
    ev = make_deal(st, random.Random(1))
    ev["dealer"] = 1
    with pytest.raises(IllegalAction, match="deals now"):
        advance(st, ev)


def test_legal_actions_are_shared_and_refuse_to_change():
    rng = random.Random(2)
    st = new_game(preset("standard"), 0)
    seen = 0
    while st.phase != "over" and seen < 60:
        if st.phase != "deal":
            seat = st.to_act()[0]
            for act in legal(st, seat):
                if act["type"] not in ("bid", "play"):
                    continue
                seen += 1
                with pytest.raises(TypeError, match="shared"):
                    act["type"] = "resign"
                with pytest.raises(TypeError, match="shared"):
                    act.update(card="AS")
                for twin in (dict(act), copy.copy(act), copy.deepcopy(act),
                             pickle.loads(pickle.dumps(act))):
                    assert twin == act and twin.__class__ is dict
                    twin["auto"] = True  # a copy is the caller's own
                assert "auto" not in act and json.loads(json.dumps(act)) == act
        random_step(st, rng)
    assert seen >= 60


def test_a_legal_action_of_another_moment_is_answered_as_its_plain_copy():
    """apply() takes legal()'s own card actions the quick way: one kept from an earlier
    turn, another seat or another game gets the answer a plain dict of it gets (the
    refusal's words, or the same event) and changes nothing."""
    rng = random.Random(5)
    st, other = new_game(preset("standard"), 0), new_game(preset("standard"), 0)
    kept, tried = [], 0
    while st.phase != "over" and tried < 300:
        random_step(st, rng)
        if other.phase != "over":
            random_step(other, rng)
        if st.phase != "play":
            continue
        seat = st.to_act()[0]
        kept = (kept + [a for s in range(st.n) for a in legal(st, s)]
                + [a for s in range(other.n) for a in legal(other, s)])[-40:]
        before = deep(st).__dict__
        for act in kept:
            for who in (seat, (seat + 1) % st.n):
                tried += 1
                assert _answer(st, who, act) == _answer(st, who, dict(act))
                assert st.__dict__ == before
        kept = kept[-20:]
    assert tried >= 300


def _answer(st, seat, action):
    try:
        events = apply(st, seat, action)
    except IllegalAction as e:
        return f"refused: {e}"
    st._checked = None  # (an event not advanced leaves no mark for the next try)
    return events


def test_a_deal_starts_from_a_clear_table_even_after_an_offer_between_hands():
    """The deal no longer clears the table (the hand's end did): what may come between the
    hands, an offer to resign, talk, a substitute, is gone or kept as before."""
    rng = random.Random(7)
    st = new_game(preset("standard"), 0)
    while st.hand_no == 0:
        random_step(st, rng)
    twin = st.snapshot()
    for ev in ({"type": "concede", "seat": 0}, {"type": "say", "seat": 1, "text": "gg"},
               {"type": "substitute", "seat": 2, "out": "cy", "in": "dee"}):
        advance(st, {"seq": st.seq + 1, **ev})
    assert st.offers == {0}
    deal = make_deal(st, random.Random(1))
    advance(st, deal)
    advance(twin, dict(make_deal(twin, random.Random(1)), seq=twin.seq + 1))
    assert st.offers == set()
    mine, theirs = deep(st).__dict__, deep(twin).__dict__
    between = {"seq", "talk", "move_seq", "last_moved", "deal_record"}  # what those events
    assert {k for k in mine if mine[k] != theirs[k]} <= between  # and the deal's seq change


def test_a_bid_offered_at_another_moment_is_answered_as_its_plain_copy():
    """apply() takes a plain bid of legal()'s answer the quick way: one offered at another
    turn, to another seat, in another game or under other rules (blind bids, a bid of 17,
    no nil) gets the answer a plain dict of it gets and changes nothing."""
    rng = random.Random(9)
    names = ["standard", "barmore", "nyc", "cutthroat-3", "six-handed", "whiz"]
    games = [new_game(preset(name), 0) for name in names]
    kept, tried = [], 0
    while tried < 2000 and any(st.phase != "over" for st in games):
        for st in games:
            if st.phase == "over":
                continue
            if st.phase == "bid":
                seat = st.to_act()[0]
                tried += _same_answers(st, seat, kept)  # the last offer: an earlier move's
                kept = (kept + [a for s in range(st.n) for a in legal(st, s)
                                if a["type"] == "bid"])[-60:]
                legal(st, seat)  # (the seat on turn's own offer is the latest)
                tried += _same_answers(st, seat, kept)
            random_step(st, rng)
    assert tried >= 2000


def _same_answers(st, seat, actions) -> int:
    """apply() answers each action, for `seat` and the next, as it does its plain copy."""
    before = deep(st).__dict__
    for act in actions:
        for who in (seat, (seat + 1) % st.n):
            assert _answer(st, who, act) == _answer(st, who, dict(act))
            assert st.__dict__ == before
    return 2 * len(actions)
