"""Claims (Y6, docs/rules.md "Claims"): a claim holds only if the
claiming side wins every remaining trick however the others play."""

import random
import time

import pytest
from helpers import deal, do

from pbem.engine import IllegalAction, apply, can_claim, choose, new_game, preset, view

RANKS = "AKQJT98765432"
STD = preset("standard")
CLAIM = {"type": "claim"}


def start(hands, bids, rules=STD, dealer=3):
    """Deal `hands`, bid `bids` (seat -> bid) in the engine's order."""
    st = new_game(rules, dealer)
    deal(st, hands)
    while st.phase == "bid":
        seat = st.to_act()[0]
        do(st, seat, {"type": "bid", "bid": bids[seat]})
    return st


def snapshot(st):
    return (st.seq, [list(h) for h in st.hands], list(st.trick), list(st.won), st.phase,
            list(st.scores), list(st.bags))


def by_suit(spec):
    """{seat: "SAKQ HJT ..."} -> hands: a suit letter then its ranks."""
    return [[r + part[0] for part in spec[s].split() for r in part[1:]] for s in range(4)]


ALL_SPADES = by_suit({0: "S" + RANKS, 1: "H" + RANKS, 2: "D" + RANKS, 3: "C" + RANKS})


# -- a claim that holds, one that does not --------------------------------------------------


def test_Y6_valid_claim_ends_the_hand_and_scores():
    st = start(ALL_SPADES, {0: 4, 1: 3, 2: 3, 3: 3})
    assert can_claim(st, 0)
    events = do(st, 0, CLAIM)
    assert events == [{"seq": 6, "type": "claim", "seat": 0}]
    assert st.phase == "deal" and st.dealer == 0
    row = st.history[-1]
    assert row["claimed_by"] == 0
    assert [s["tricks"] for s in row["sides"]] == [13, 0]
    assert st.scores == [70 + 6, -60]
    assert st.bags == [6, 0]


def test_Y6_claim_after_some_tricks_gives_only_the_rest():
    st = start(ALL_SPADES, {0: 4, 1: 3, 2: 3, 3: 3})
    for card in ("2S", "2H", "2D", "2C", "3S", "3H", "3D", "3C"):
        do(st, st.turn, card)
    assert st.won[0] == 2
    do(st, 0, CLAIM)
    assert st.history[-1]["sides"][0]["tricks"] == 13


def test_Y6_invalid_claim_is_refused_and_changes_nothing():
    st = start(ALL_SPADES, {0: 4, 1: 3, 2: 3, 3: 3})
    before = snapshot(st)
    assert can_claim(st, 2)  # the partner's claim for the side would hold
    for seat in (1, 3):
        assert not can_claim(st, seat)
        with pytest.raises(IllegalAction, match="does not hold"):
            apply(st, seat, CLAIM)
    assert snapshot(st) == before
    assert st.history == []


def _valid(hands):
    """Crafted hands must be the whole pack, 13 each."""
    every = sorted(c for h in hands for c in h)
    assert every == sorted(STD.deck()) and all(len(h) == 13 for h in hands), hands
    return hands


def test_Y6_top_cards_but_an_opponent_can_ruff():
    # seat 0 holds every heart, but seats 1 and 3 are void in hearts and hold spades
    hands = _valid(by_suit({0: "H" + RANKS, 1: "S2 DAKQJT98765 C23",
                            2: "D432 CKQJT987654", 3: "SAKQJT9876543 CA"}))
    st = start(hands, {0: 4, 1: 3, 2: 3, 3: 3})
    assert not can_claim(st, 0) and not can_claim(st, 2)
    before = snapshot(st)
    with pytest.raises(IllegalAction):
        do(st, 0, CLAIM)
    assert snapshot(st) == before


def test_Y6_claim_with_the_trick_in_progress():
    st = start(ALL_SPADES, {0: 4, 1: 3, 2: 3, 3: 3}, dealer=0)  # seat 1 leads a heart
    do(st, 1, "AH")
    assert st.trick == [(1, "AH")]
    assert not can_claim(st, 1) and not can_claim(st, 3)
    before = snapshot(st)
    with pytest.raises(IllegalAction):
        do(st, 3, CLAIM)
    assert snapshot(st) == before
    assert can_claim(st, 0) and can_claim(st, 2)
    do(st, 2, CLAIM)  # the partner of the seat holding the spades
    assert st.history[-1]["claimed_by"] == 2
    assert st.history[-1]["sides"][0]["tricks"] == 13


# -- the partner of a nil bidder ----------------------------------------------------------------


@pytest.mark.parametrize("seat0_bid, holds", [("nil", False), (3, True)])
def test_Y6_claim_beside_a_nil_bidder_only_the_claimer_may_win(seat0_bid, holds):
    # Seat 1 leads the KH; seat 2 must follow with the 2H and seat 0 must win with its AH.
    # The side takes every trick either way, but beside a nil only the claimer may win.
    hands = _valid(by_suit({0: "HA DAKQJT9876 CAKQ", 1: "HKQJT98765 S2 C234",
                            2: "H2 SAKQJT9876543", 3: "H43 D5432 CJT98765"}))
    st = start(hands, {0: seat0_bid, 1: 3, 2: 4, 3: 3}, dealer=0)
    do(st, 1, "KH")
    before = snapshot(st)
    assert can_claim(st, 2) is holds
    if not holds:
        with pytest.raises(IllegalAction):
            do(st, 2, CLAIM)
        assert snapshot(st) == before
        return
    do(st, 2, CLAIM)
    assert st.history[-1]["sides"][0]["tricks"] == 13


# -- the claim check against a brute-force oracle ----------------------------------------------


SUIT_ORDER = "23456789TJQKA"


def oracle_legal(hand, trick, broken):
    """Standard rules, written out again: follow suit; no spade lead until broken unless
    the hand holds only spades."""
    if trick:
        led = trick[0][1][1]
        follow = [c for c in hand if c[1] == led]
        return follow or list(hand)
    if broken:
        return list(hand)
    return [c for c in hand if c[1] != "S"] or list(hand)


def oracle_winner(trick):
    led = trick[0][1][1]
    spades = [(SUIT_ORDER.index(c[0]), s) for s, c in trick if c[1] == "S"]
    if spades:
        return max(spades)[1]
    return max((SUIT_ORDER.index(c[0]), s) for s, c in trick if c[1] == led)[1]


def oracle(hands, trick, turn, broken, ours, winners):
    """Does side `ours` win every remaining trick (each won by a seat of `winners`)?
    Plain enumeration of every play, no pruning but the first failure."""
    if not trick and not any(hands):
        return True
    outcomes = []
    for card in oracle_legal(hands[turn], trick, broken):
        rest = [list(h) for h in hands]
        rest[turn].remove(card)
        now = trick + [(turn, card)]
        brk = broken or card[1] == "S"
        if len(now) < 4:
            ok = oracle(rest, now, (turn + 1) % 4, brk, ours, winners)
        else:
            w = oracle_winner(now)
            ok = w in winners and oracle(rest, [], w, brk, ours, winners)
        outcomes.append(ok)
    return any(outcomes) if turn in ours else all(outcomes)


def robot_endgame(rng, tricks_left):
    """A standard hand played by robots until `tricks_left` tricks (and part of one) remain."""
    st = new_game(STD, rng.randrange(4))
    deal(st, _shuffled(rng))
    seed = rng.randrange(1000)
    while st.phase == "bid":
        seat = st.to_act()[0]
        do(st, seat, choose(view(st, seat), seed, rules=st.rules))
    extra = rng.randrange(4)
    while 13 - len(st.tricks) > tricks_left or (13 - len(st.tricks) == tricks_left
                                                and len(st.trick) < extra):
        do(st, st.turn, choose(view(st, st.turn), seed, rules=st.rules))
    return st


def _shuffled(rng):
    deck = STD.deck()
    rng.shuffle(deck)
    return [deck[i::4] for i in range(4)]


def test_Y6_claim_check_agrees_with_brute_force_on_random_endgames():
    rng = random.Random(20240601)
    counts = {True: 0, False: 0}
    for i in range(240):
        st = robot_endgame(rng, 2 + i % 2)
        seat = rng.randrange(4)
        side = st.sides[st.side_of[seat]]
        nil = any(st.bids[s] in ("nil", "blind nil") for s in side)
        winners = {seat} if nil else set(side)
        expect = oracle([list(h) for h in st.hands], list(st.trick), st.turn, st.broken,
                        set(side), winners)
        before = snapshot(st)
        assert can_claim(st, seat) is expect, (st.hands, st.trick, st.turn, seat, st.bids)
        assert snapshot(st) == before
        counts[expect] += 1
    assert counts[True] >= 20 and counts[False] >= 20, counts


def test_Y6_claim_check_agrees_after_a_valid_claim_is_played():
    rng = random.Random(7)
    done = 0
    for _ in range(80):
        st = robot_endgame(rng, 3)
        for seat in range(4):
            if can_claim(st, seat):
                won = sum(st.won[s] for s in st.sides[st.side_of[seat]])
                side = st.side_of[seat]
                before_tricks = len(st.tricks)
                do(st, seat, CLAIM)
                row = st.history[-1]
                assert row["sides"][side]["tricks"] == won + 13 - before_tricks
                assert row["claimed_by"] == seat
                done += 1
                break
    assert done >= 10


# -- a claim made at the first trick does not hang ---------------------------------------------


def _timed_claim(st, seat, label, capsys):
    t0 = time.perf_counter()
    ok = can_claim(st, seat)
    took = time.perf_counter() - t0
    with capsys.disabled():
        print(f"\nclaim check at trick 1, {label}: {took * 1000:.1f} ms -> {ok}")
    return ok, took


def test_Y6_claim_check_at_trick_one_with_all_13_spades_is_quick(capsys):
    others = [r + s for s in "HDC" for r in RANKS]
    hands = _valid([[r + "S" for r in RANKS]] + [others[i::3] for i in range(3)])
    for dealer in (3, 0):  # seat 0 leads; seat 1 leads
        st = start(hands, {0: 4, 1: 3, 2: 3, 3: 3}, dealer=dealer)
        for seat in (0, 2):  # the holder, or its partner for the side
            ok, took = _timed_claim(st, seat, f"all 13 spades, dealer {dealer}, seat {seat}",
                                    capsys)
            assert ok and took < 1
        assert not can_claim(st, 1) and not can_claim(st, 3)


def test_Y6_early_claim_check_is_bounded(capsys):
    # 12 top spades and the AH: a valid claim the search must work through (bench/claims.py
    # times it; tests/test_claims_search.py covers the budget)
    others = [r + s for s in "HDC" for r in RANKS if r + s != "AH"] + ["2S"]
    hands = _valid([[r + "S" for r in RANKS[:12]] + ["AH"]] + [others[i::3] for i in range(3)])
    st = start(hands, {0: 4, 1: 3, 2: 3, 3: 3})
    ok, took = _timed_claim(st, 0, "12 top spades and the AH", capsys)
    assert ok and took < 30
