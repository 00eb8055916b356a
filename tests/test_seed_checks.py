"""docs/rules.md "Checks the sources give" and "Traps", played through the real engine.

Hands are really dealt, bid and played: a small search (`play_hand`) finds plays of a
shuffled deal that give each side the tricks the example needs, and the engine then
plays them and keeps the score. Where an example starts from a score, the score and
bag count are set before the hand, as the examples state them.
"""

import copy
import random

import pytest
from helpers import deal, do

from pbem.engine import choose, legal, make_deal, new_game, preset, view
from pbem.engine.tricks import playable_cards

# -- playing a hand so each side takes the tricks it should -----------------------------


def play_hand(st, bids, want, hands=None, come_out=None, seeds=range(100)):
    """Deal (these `hands`, or a shuffle), bid `bids` (seat -> 4, "nil", "blind nil",
    ("blind", 6)) in the engine's order, then play so that every group of seats in `want`
    ({(0, 2): 7, (1, 3): 6}) takes exactly its count. Returns the hand's score pad row."""
    for seed in seeds:
        trial = copy.deepcopy(st)
        _deal_and_bid(trial, bids, hands, seed, come_out)
        plan = Steer(trial, want).plan()
        if plan is not None:
            break
    else:
        raise AssertionError(f"no deal tried can be played so that {want}")
    _deal_and_bid(st, bids, hands, seed, come_out)
    for seat, card in plan:
        do(st, seat, card)
    assert st.phase in ("deal", "over")
    return st.history[-1]


def _deal_and_bid(st, bids, hands, seed, come_out):
    if hands is None:
        hands = make_deal(st, random.Random(seed)).get("hands")
    deal(st, hands)
    while st.phase in ("bid", "pass"):
        if st.comeout_side is not None:
            do(st, st.to_act()[0], {"type": "come_out" if come_out else "stay"})
            continue
        seat = st.to_act()[0]
        if st.phase == "pass":
            do(st, seat, choose(view(st, seat), 0))
            continue
        seat = next(s for s in st.to_act() if s in bids)
        do(st, seat, bid_action(bids[seat]))


def bid_action(value) -> dict:
    if isinstance(value, tuple):
        return {"type": "bid", "bid": value[1], "blind": True}
    return {"type": "bid", "bid": value}


class Steer:
    """Depth-first search for plays of the hand in progress giving each group its count."""

    def __init__(self, st, want, budget=1_500):
        self.st, self.want, self.budget = st, list(want.items()), budget
        self.dead = set()

    def plan(self):
        st = self.st
        if st.phase != "play":
            return None
        hands = tuple(tuple(h) for h in st.hands)
        return self._run(hands, tuple(st.trick), st.turn, st.broken, len(st.tricks),
                         tuple(st.won), st.must_lead)

    def _run(self, hands, trick, turn, broken, done, won, must_lead):
        st = self.st
        left = st.rules.hand_size - done
        for seats, k in self.want:
            got = sum(won[s] for s in seats)
            if got > k or got + left < k:
                return None
        if left == 0:
            return []
        key = (hands, trick, turn, broken, won)
        if key in self.dead or self.budget <= 0:
            return None
        self.budget -= 1
        cards = playable_cards(st.rules, st.table, list(hands[turn]), list(trick), broken,
                               done, must_lead)
        for card in self._order(cards, turn, won, left):
            rest = self._after(hands, trick, turn, broken, done, won, card)
            if rest is not None:
                return [(turn, card)] + rest
        self.dead.add(key)
        return None

    def _after(self, hands, trick, turn, broken, done, won, card):
        st = self.st
        hand = list(hands[turn])
        hand.remove(card)
        hands = hands[:turn] + (tuple(hand),) + hands[turn + 1:]
        trick = trick + ((turn, card),)
        broken = broken or st.table.suit[card] == "S"
        if len(trick) < st.n:
            return self._run(hands, trick, (turn + 1) % st.n, broken, done, won, None)
        winner = trick[st.table.winning(list(trick))][0]
        won = won[:winner] + (won[winner] + 1,) + won[winner + 1:]
        return self._run(hands, (), winner, broken, done + 1, won, None)

    def _order(self, cards, seat, won, left):
        """High cards first for a seat whose side wants most of the tricks left, else low."""
        needs = [k - sum(won[s] for s in seats) for seats, k in self.want if seat in seats]
        if needs:
            high = 2 * min(needs) >= left
        else:
            others = sum(k - sum(won[s] for s in seats) for seats, k in self.want)
            high = 2 * others <= left
        power = self.st.table.power
        return sorted(cards, key=lambda c: -power[c] if high else power[c])


def low_hands(rules, seat0_wins=()):
    """Hands where seats 0 and 2 hold the lowest cards (seat 0 also `seat0_wins`): a side that
    can be held to no trick, or to one trick per card of `seat0_wins`."""
    power = copy.copy(new_game(rules).table.power)
    rest = sorted((c for c in rules.deck() if c not in seat0_wins), key=power.get)
    low = rest[:26 - len(seat0_wins)]
    high = rest[26 - len(seat0_wins):]
    return [list(seat0_wins) + low[1::2], high[0::2], low[0::2], high[1::2]]


def game(name="standard", first_dealer=3, **options):
    """A new game; dealer 3 by default so seat 0 bids and leads first."""
    return new_game(preset(name).with_options(**options), first_dealer)


def side_row(row, side):
    return row["sides"][side]


# -- the seeds' worked examples ---------------------------------------------------------


@pytest.mark.parametrize("took, score, bags", [(7, 389, 9), (8, 290, 0), (9, 291, 1)])
def test_seed_standard_337_with_7_bags_bids_5(took, score, bags):
    st = game()
    st.scores[0], st.bags[0] = 337, 7
    row = play_hand(st, {0: 2, 1: 3, 2: 3, 3: 3}, {(0, 2): took})
    assert st.scores[0] == score
    assert st.bags[0] == bags
    assert side_row(row, 0)["points"] == 50 + took - 5


def test_seed_nil_beside_partner_who_bid_5_and_took_4():
    st = game()
    row = play_hand(st, {0: "nil", 1: 4, 2: 5, 3: 4}, {(0,): 0, (2,): 4})
    assert side_row(row, 0)["points"] == 50
    assert st.scores[0] == 50


@pytest.mark.parametrize("nil_took, mate_took, points", [
    (0, 5, 110),  # both made
    (0, 4, 10),  # nil made, partner set
    (1, 5, -10),  # nil failed, partner made
    (1, 4, -110),  # both failed
])
def test_seed_tournament_300_nil_and_5(nil_took, mate_took, points):
    st = game("tournament-300")
    row = play_hand(st, {0: "nil", 2: 5, 1: 4, 3: 4}, {(0,): nil_took, (2,): mate_took})
    assert side_row(row, 0)["points"] == points
    assert st.scores[0] == points
    assert st.bags[0] == 0  # S4c: a failed nil's tricks count for nothing here


def test_seed_standard_108_with_8_bags_bids_5_takes_8():
    st = game()
    st.scores[0], st.bags[0] = 108, 8
    row = play_hand(st, {0: 2, 1: 4, 2: 3, 3: 4}, {(0, 2): 8})
    assert side_row(row, 0)["points"] == 53
    assert side_row(row, 0)["bag_penalty"] == 100
    assert st.scores[0] == 61
    assert st.bags[0] == 1


def test_seed_bags_kept_apart_369_bids_7_takes_9():
    st = game(bags_in_score=True, overtrick_points=0)
    st.scores[0], st.bags[0] = 360, 9
    assert st.display_scores()[0] == 369
    play_hand(st, {0: 4, 1: 2, 2: 3, 3: 2}, {(0, 2): 9})
    assert st.display_scores()[0] == 331
    assert st.bags[0] == 1


def test_seed_cutthroat_3_bet_4_take_5_and_bet_3_take_7():
    st = new_game(preset("cutthroat-3"), 2)
    row = play_hand(st, {0: 4, 1: 3, 2: 5}, {(0,): 5, (1,): 7})
    assert [s["points"] for s in row["sides"][:2]] == [30, -10]
    assert st.scores[:2] == [30, -10]


# -- traps other implementations fell into ----------------------------------------------


def test_trap_bags_counted_apart_from_a_negative_score():
    st = game()
    play_hand(st, {0: 5, 1: 1, 2: 5, 3: 1}, {(0, 2): 5})  # set: -100
    assert (st.scores[0], st.bags[0]) == (-100, 0)
    play_hand(st, {1: 2, 2: 2, 3: 2, 0: 2}, {(0, 2): 6})  # 42 with 2 bags
    assert (st.scores[0], st.bags[0]) == (-58, 2)
    play_hand(st, {2: 2, 3: 1, 0: 1, 1: 1}, {(0, 2): 11})  # 38 with 8 more bags
    assert (st.scores[0], st.bags[0]) == (-120, 0)
    assert st.history[-1]["sides"][0]["bag_penalty"] == 100


def test_trap_two_bag_penalties_in_one_hand():
    st = game()
    play_hand(st, {0: 1, 1: 1, 2: 1, 3: 1}, {(0, 2): 10})  # 28 with 8 bags
    assert (st.scores[0], st.bags[0]) == (28, 8)
    hands = [[c + s for c in "AKQJT98765432"] for s in "SHDC"]  # seat 0 holds every spade
    row = play_hand(st, {1: 1, 2: "nil", 3: 1, 0: 1}, {(0,): 13}, hands=hands)
    assert side_row(row, 0)["points"] == 100 + 10 + 12  # nil made, bid 1 took 13
    assert side_row(row, 0)["bag_penalty"] == 200
    assert (st.scores[0], st.bags[0]) == (28 + 122 - 200, 0)


def test_trap_several_sides_over_the_target_the_higher_wins():
    st = game()
    st.scores = [480, 490]
    play_hand(st, {0: 3, 1: 4, 2: 3, 3: 3}, {(0, 2): 6})
    assert st.scores == [540, 560]
    assert st.phase == "over" and st.winner == 1


def test_trap_several_sides_over_the_target_tied_play_on():
    st = game()
    st.scores = [480, 470]
    play_hand(st, {0: 3, 1: 4, 2: 3, 3: 3}, {(0, 2): 6})
    assert st.scores == [540, 540]
    assert st.phase == "deal" and st.winner is None


def test_trap_spade_on_another_lead_breaks_spades():
    st = game()
    ranks = "AKQJT98765432"
    hands = [["2C"] + [c + "H" for c in ranks[:12]],
             ["2S"] + [c + "D" for c in ranks[:12]],
             [c + "C" for c in ranks[:12]] + ["2D"],
             [c + "S" for c in ranks[:12]] + ["2H"]]
    deal(st, hands)
    for seat in (0, 1, 2, 3):
        do(st, seat, {"type": "bid", "bid": 3})
    do(st, 0, "2C")
    assert not st.broken
    do(st, 1, "2S")  # void in clubs: a spade on a club lead
    assert st.broken
    do(st, 2, "3C")
    do(st, 3, "AS")
    assert st.turn == 3
    assert "KS" in [a["card"] for a in legal(st, 3)]  # seat 3 also holds 2H
    do(st, 3, "KS")


def test_trap_leader_holding_only_spades_may_lead_one():
    st = game()
    hands = [[c + "S" for c in "AKQJT98765432"]] + [[c + s for c in "AKQJT98765432"]
                                                   for s in "HDC"]
    deal(st, hands)
    for seat in (0, 1, 2, 3):
        do(st, seat, {"type": "bid", "bid": 3})
    assert not st.broken
    assert [c["card"] for c in legal(st, 0)] == hands[0]
    do(st, 0, "2S")
    do(st, 1, "2H")  # a heart on a spade lead
    assert not st.broken  # only a spade on another suit's lead breaks spades (Y3)


def test_trap_first_dealer_is_chosen_and_the_lead_passes_with_the_deal():
    st = new_game(preset("standard"), 2)
    assert st.dealer == 2
    play_hand(st, {3: 3, 0: 3, 1: 3, 2: 3}, {(0, 2): 6})
    first = st.history[-1]
    assert first["dealer"] == 2
    assert st.dealer == 3
    deal(st, make_deal(st, random.Random(5))["hands"])
    assert st.to_act() == [0]  # dealer 3: seat 0 bids first
    for seat in (0, 1, 2, 3):
        do(st, seat, {"type": "bid", "bid": 3})
    assert st.phase == "play" and st.turn == 0


def test_trap_first_lead_from_dealers_left_with_dealer_2():
    st = new_game(preset("standard"), 2)
    deal(st, make_deal(st, random.Random(1))["hands"])
    assert st.to_act() == [3]
    for seat in (3, 0, 1, 2):
        do(st, seat, {"type": "bid", "bid": 3})
    assert st.turn == 3
