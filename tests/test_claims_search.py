"""The fast claim search (issue 15) against a brute-force reference, on every preset; the
known hard claims; the node budget; and replay of logs with claims (an accepted claim is
verified again, a false one refused)."""

import random
from functools import cache

import pytest
from helpers import deal, do, random_step
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from test_properties import VARIANTS

from pbem.engine import (
    PRESETS,
    IllegalAction,
    ReplayError,
    apply,
    can_claim,
    claims,
    new_game,
    preset,
    replay,
)
from pbem.engine.rules import NILS
from pbem.engine.tricks import breaks_spades, playable_cards

STD = preset("standard")
# every preset, and the property tests' variants (rake, identical cards that cancel, ...)
RULESETS = {name: preset(name) for name in PRESETS}
RULESETS.update({name: preset(base).with_options(**o) for name, (base, o) in VARIANTS.items()})
RULESETS = {k: r for k, r in RULESETS.items() if not r.dummy}  # T4 plays without claims
RANKS = "AKQJT98765432"


# -- the reference: every play tried, positions remembered exactly --------------------------


def reference(st, seat) -> bool:
    """Does the side of `seat` (beside a nil: `seat` alone) take every trick left? Plain
    enumeration with the engine's own legality and trick winner; no abstraction, no
    shortcut, no budget."""
    side = set(st.sides[st.side_of[seat]])
    winners = {seat} if any(st.bids[s] in NILS for s in side) else side
    rules, table, n = st.rules, st.table, st.n

    @cache
    def holds(hands, trick, turn, broken, done, must_lead):
        if not trick and not any(hands):
            return True
        outcomes = []
        for card in dict.fromkeys(playable_cards(rules, table, list(hands[turn]), list(trick),
                                                 broken, done, must_lead)):
            hand = list(hands[turn])
            hand.remove(card)
            rest = hands[:turn] + (tuple(sorted(hand)),) + hands[turn + 1:]
            now = trick + ((turn, card),)
            brk = broken or breaks_spades(table, now)
            if len(now) < n:
                ok = holds(rest, now, (turn + 1) % n, brk, done, None)
            else:
                w = now[table.winning(list(now))][0]
                ok = w in winners and holds(rest, (), w, brk, done + 1, None)
            outcomes.append(ok)
        return any(outcomes) if turn in side else all(outcomes)

    return holds(tuple(tuple(sorted(h)) for h in st.hands), tuple(st.trick), st.turn,
                 st.broken, len(st.tricks), st.must_lead)


def endgame(name, seed, tricks_left, extra):
    """A hand of ruleset `name` played at random (bids and passes too) until `tricks_left`
    tricks and `extra` cards of the next are left; None if the hand ended before."""
    rules, rng = RULESETS[name], random.Random(seed)
    st = new_game(rules, rng.randrange(rules.players))
    while st.phase != "play" or st.trick or rules.hand_size - len(st.tricks) > tricks_left:
        if st.phase == "over" or st.hand_no > 0:
            return None
        random_step(st, rng)
    for _ in range(extra % st.n):
        do(st, st.turn, rng.choice(st.playable(st.turn)))
    return st


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=hs.sampled_from(sorted(RULESETS)), seed=hs.integers(0, 10**9),
       tricks_left=hs.integers(1, 4), extra=hs.integers(0, 5))
def test_the_search_agrees_with_brute_force_on_every_preset(name, seed, tricks_left, extra):
    if RULESETS[name].players > 4:
        tricks_left = min(tricks_left, 3)  # 6 hands of 4: the reference takes seconds
    st = endgame(name, seed, tricks_left, extra)
    if st is None:
        return
    for seat in range(st.n):
        assert claims._search(st, seat, claims.REPLAY_BUDGET) is reference(st, seat), \
            (name, st.hands, st.trick, st.turn, seat, st.bids, st.broken)


def test_many_endgames_of_every_preset_agree_and_both_answers_occur():
    """Fixed seeds: the brute force over a few thousand claims, holding and not."""
    seen = {True: 0, False: 0}
    rng = random.Random(15)
    for i in range(540):
        name = sorted(RULESETS)[i % len(RULESETS)]
        st = endgame(name, rng.randrange(10**9), 2 + i % 3 - (RULESETS[name].players > 4),
                     rng.randrange(6))
        if st is None:
            continue
        for seat in range(st.n):
            expect = reference(st, seat)
            assert claims._search(st, seat, claims.REPLAY_BUDGET) is expect
            seen[expect] += 1
    assert seen[True] >= 100 and seen[False] >= 500, seen


# -- known hard claims -----------------------------------------------------------------------


def twelve_top_spades_and_the_ace_of_hearts():
    others = [r + s for s in "HDC" for r in RANKS if r + s != "AH"] + ["2S"]
    hands = [[r + "S" for r in RANKS[:12]] + ["AH"]] + [others[i::3] for i in range(3)]
    st = new_game(STD, 3)
    events = [deal(st, hands)]
    for seat, bid in ((0, 4), (1, 3), (2, 3), (3, 3)):
        events += do(st, seat, {"type": "bid", "bid": bid})
    return st, events


def test_the_first_trick_claim_with_twelve_top_spades_and_the_ace_of_hearts_holds():
    st, _ = twelve_top_spades_and_the_ace_of_hearts()
    for seat in (0, 2):  # the holder, and its partner for the side
        assert claims._search(st, seat, claims.LIVE_BUDGET) is True
        assert can_claim(st, seat)
    for seat in (1, 3):
        assert claims._search(st, seat, claims.LIVE_BUDGET) is False
    do(st, 0, {"type": "claim"})
    assert st.history[-1]["sides"][0]["tricks"] == 13


def test_the_sweep_needs_the_top_cards_and_the_trumps_drawn_first():
    st, _ = twelve_top_spades_and_the_ace_of_hearts()
    search = claims._Search(st, {0, 2}, {0, 2}, claims.LIVE_BUDGET)
    hands = (("AS", "KS", "AH"), ("QS", "2H", "3D"), ("5D", "6D", "7D"), ("8C", "9C", "TC"))
    assert search.sweeps(hands, 0, True, 10)  # draws the QS, then the AH
    assert not search.sweeps(hands, 0, False, 10)  # may not lead a spade: the AH is ruffed
    one_trump = (("AS", "AH", "KH"), ("QS", "KS", "3D"), ("5D", "6D", "7D"), ("8C", "9C", "TC"))
    assert not search.sweeps(one_trump, 0, True, 10)  # seat 1 keeps a trump for the hearts
    not_top = (("AS", "KS", "QH"), ("QS", "AH", "3D"), ("5D", "6D", "7D"), ("8C", "9C", "TC"))
    assert not search.sweeps(not_top, 0, True, 10)


# -- the budget: "not provable yet", and replay verifies exactly ------------------------------


# a first-trick claim by seat 0 that fails (seat 1's AH, seat 3's AC) but takes thousands of
# positions to refute: too many for a claim made now
EARLY = [["KH", "JC", "QS", "2H", "4D", "8S", "5S", "7C", "KC", "JH", "9H", "7S", "AS"],
         ["9C", "3C", "6H", "KD", "8H", "AH", "5C", "6D", "8C", "2D", "5H", "6C", "QD"],
         ["5D", "2C", "4H", "3H", "AD", "9D", "JS", "QC", "3D", "4S", "3S", "QH", "KS"],
         ["TC", "TD", "8D", "7H", "6S", "2S", "4C", "JD", "7D", "TS", "AC", "TH", "9S"]]


def early_claim_position():
    st = new_game(STD, 3)
    events = [deal(st, EARLY)]
    for seat, bid in ((0, 4), (1, 2), (2, 2), (3, "nil")):
        events += do(st, seat, {"type": "bid", "bid": bid})
    return st, events


def test_a_claim_too_early_to_settle_is_refused_as_not_provable_and_changes_nothing():
    st, _ = early_claim_position()
    claims._known.clear()
    before = (st.seq, [list(h) for h in st.hands], st.phase, list(st.won))
    assert claims._search(st, 0, claims.LIVE_BUDGET) is None
    assert not can_claim(st, 0)
    with pytest.raises(IllegalAction, match="cannot prove that claim yet"):
        apply(st, 0, {"type": "claim"})
    assert (st.seq, [list(h) for h in st.hands], st.phase, list(st.won)) == before
    assert claims._search(st, 0, claims.REPLAY_BUDGET) is False  # exact, given the room


def test_an_imported_log_with_a_false_claim_is_refused_even_when_too_early_to_play():
    st, events = early_claim_position()
    claims._known.clear()
    assert not can_claim(st, 0)  # the live answer, kept: "not provable yet"
    bad = events + [{"seq": st.seq + 1, "type": "claim", "seat": 0}]
    with pytest.raises(ReplayError, match="does not hold"):
        replay(STD, bad, 3)


def test_a_log_with_a_first_trick_claim_replays_and_a_forged_one_is_refused():
    st, events = twelve_top_spades_and_the_ace_of_hearts()
    good = events + [{"seq": st.seq + 1, "type": "claim", "seat": 0}]
    claims._known.clear()  # searched again, not remembered
    end = replay(STD, good, 3)
    assert end.history[-1]["claimed_by"] == 0
    assert end.history[-1]["sides"][0]["tricks"] == 13
    for seat in (1, 3):
        forged = events + [{"seq": st.seq + 1, "type": "claim", "seat": seat}]
        with pytest.raises(ReplayError, match="does not hold"):
            replay(STD, forged, 3)


def test_a_kept_answer_is_per_position_and_a_short_budget_is_searched_again_when_longer():
    st, _ = early_claim_position()
    claims._known.clear()
    with pytest.raises(IllegalAction, match="cannot prove"):
        claims.claim_holds(st, 0, claims.LIVE_BUDGET)
    assert claims.claim_holds(st, 0, claims.REPLAY_BUDGET) is False  # not the kept refusal
    assert claims.claim_holds(st, 0, claims.LIVE_BUDGET) is False  # now known exactly
