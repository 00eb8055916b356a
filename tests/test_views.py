"""Hidden information: what each seat's view, and a spectator's, may show."""

import json
import random
import re

from pbem.engine import advance, apply, choose, make_deal, new_game, preset, view

CARD = re.compile(r'"([2-9TJQKA][SHDC]|BJ|LJ)"')


def cards_in(v) -> set:
    """Every card named anywhere in a view (the ruleset's own lists of cards aside)."""
    return set(CARD.findall(json.dumps({k: x for k, x in v.items() if k != "rules"})))


def dealt(rules, first_dealer=0, seed=1):
    st = new_game(rules, first_dealer)
    deal = make_deal(st, random.Random(seed))
    advance(st, deal)
    return st, deal


def act(st, seat, action):
    for ev in apply(st, seat, action):
        advance(st, ev)


def robot_step(st):
    seat = st.to_act()[0]
    act(st, seat, choose(view(st, seat), 5))


def play_out_hand(st):
    """Robots play until the hand in progress is over."""
    hand = st.hand_no
    while st.hand_no == hand:
        robot_step(st)


def test_another_hand_never_appears():
    rules = preset("standard")
    st, deal = dealt(rules)
    while st.phase != "deal":
        for seat in range(4):
            others = {c for s in range(4) if s != seat for c in st.hands[s]}
            assert not cards_in(view(st, seat)) & others
        robot_step(st)


def test_own_hand_and_legal_moves():
    st, deal = dealt(preset("standard"), first_dealer=3)
    v = view(st, 1)
    assert v["phase"] == "bid" and v["to_act"] == [0]
    assert sorted(v["hand"]) == sorted(deal["hands"][1])
    assert v["legal"] == []  # not seat 1's turn
    assert view(st, 0)["legal"]
    assert view(st, None)["legal"] == []


def test_spectator_sees_no_hand_until_the_hand_is_over():
    st, deal = dealt(preset("standard"))
    while st.phase != "deal":
        v = view(st, None)
        on_table = {c for t in v["tricks"] for c in (x["card"] for x in t["cards"])}
        on_table |= {x["card"] for x in v["trick"]}
        assert v["hand"] is None and "last_deal" not in v
        assert cards_in(v) == on_table
        robot_step(st)
    after = view(st, None)
    assert after["last_deal"]["hands"] == deal["hands"]
    assert cards_in(after) == set(preset("standard").deck())


def test_finished_deal_is_hidden_again_once_the_next_is_dealt():
    st, deal = dealt(preset("standard"))
    play_out_hand(st)
    assert view(st, 2)["last_deal"]["hands"] == deal["hands"]
    advance(st, make_deal(st, random.Random(9)))
    for seat in (None, 0, 1, 2, 3):
        assert "last_deal" not in view(st, seat)
    assert not cards_in(view(st, None))


def test_blind_nil_seat_sees_no_hand_before_looking():
    rules = preset("standard").with_options(blind_nil_behind=0)  # eligible at 0 to 0
    st, deal = dealt(rules)
    seat = st.to_act()[0]
    v = view(st, seat)
    assert v["looked"] is False and v["hand"] is None
    assert not cards_in(v)
    assert {"type": "look"} in v["legal"] and {"type": "bid", "bid": "blind nil"} in v["legal"]
    act(st, seat, {"type": "look"})
    v = view(st, seat)
    assert v["looked"] is True and sorted(v["hand"]) == sorted(deal["hands"][seat])


def test_blind_nil_bidder_never_sees_the_hand_before_passing():
    rules = preset("standard").with_options(blind_nil_behind=0)
    st, deal = dealt(rules)
    seat = st.to_act()[0]
    act(st, seat, {"type": "bid", "bid": "blind nil"})
    assert view(st, seat)["looked"] is True  # bid made: the cards are its own again
    assert sorted(view(st, seat)["hand"]) == sorted(deal["hands"][seat])


def test_seat_not_behind_sees_its_hand_at_once():
    st, deal = dealt(preset("standard"))  # 0 to 0: nobody is behind by 100
    for seat in range(4):
        v = view(st, seat)
        assert v["looked"] is True and sorted(v["hand"]) == sorted(deal["hands"][seat])


def test_two_handed_only_the_drawer_sees_the_drawn_card():
    rules = preset("two-handed")
    st, deal = dealt(rules)
    for _ in range(len(deal["stock"]) // 2):
        drawer, other = st.turn, 1 - st.turn
        top = st.stock[0]
        assert view(st, drawer)["drawn"] == top
        assert "drawn" not in view(st, other) and top not in cards_in(view(st, other))
        assert top not in cards_in(view(st, None))
        keep = random.Random(st.seq).random() < 0.5
        act(st, drawer, {"type": "draw", "keep": keep})
        dropped = st.discards[drawer][-1]
        assert dropped in view(st, drawer)["discards"]
        assert dropped not in cards_in(view(st, other)) | cards_in(view(st, None))
    assert st.phase == "bid"
    assert [len(h) for h in st.hands] == [13, 13]


def test_cutthroat_out_card_hidden_until_the_hand_ends():
    rules = preset("cutthroat-3")
    st, deal = dealt(rules)
    out = deal["out"]
    assert len(out) == 1 and all(len(h) == 17 for h in deal["hands"])
    while st.phase != "deal":
        for seat in (None, 0, 1, 2):
            assert out[0] not in cards_in(view(st, seat))
        robot_step(st)
    for seat in (None, 0, 1, 2):
        v = view(st, seat)
        assert v["last_deal"]["out"] == out and out[0] in cards_in(v)


def test_passed_cards_seen_by_giver_and_receiver_only():
    rules = preset("standard").with_options(pass_to_partner=2)
    st, deal = dealt(rules)
    gifts = {seat: sorted(st.hands[seat])[:2] for seat in range(4)}
    for seat in range(4):
        act(st, seat, {"type": "pass", "cards": gifts[seat]})
    for seat in range(4):
        partner, opponent = (seat + 2) % 4, (seat + 1) % 4
        mine = view(st, seat)
        assert sorted(mine["passed"]) == sorted(gifts[seat])
        assert sorted(mine["received"]) == sorted(gifts[partner])
        assert set(gifts[seat]) <= cards_in(view(st, partner))
        assert not set(gifts[seat]) & cards_in(view(st, opponent))


def test_B12_a_mo_call_is_public_and_labelled():
    from pbem.mail.commands.acting import did
    from pbem.web.view import action_label

    st, _ = dealt(preset("mo"))
    seat = st.to_act()[0]
    assert {"type": "bid", "bid": 4, "mo": "big mo"} in view(st, seat)["legal"]
    act(st, seat, {"type": "bid", "bid": 4, "mo": "big mo"})
    for who in (None, *range(4)):
        assert view(st, who)["mo"] == {"seat": seat, "call": "big mo"}
    action = {"type": "bid", "bid": 4, "mo": "big mo"}
    assert (action_label(action), did(action)) == ("Bid 4 big mo", "bid 4 big mo")
