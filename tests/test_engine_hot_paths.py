"""The engine's hot paths, made quick, still answer as before: `State.snapshot`
(pbem/engine/clone.py) gives what copy.deepcopy gave and shares nothing with the state; a
card taken back (`undo`, which works the play out backwards) leaves the table as it was;
a deal that is not the deck is refused with what is wrong and changes nothing."""

import copy
import random

import pytest
from helpers import random_step

from pbem.engine import (
    PRESETS,
    IllegalAction,
    advance,
    apply,
    make_deal,
    new_game,
    preset,
)

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
