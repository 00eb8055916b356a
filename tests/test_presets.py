"""Each preset plays what docs/rules.md's "Presets" says it plays."""

from collections import Counter

import pytest

from pbem.engine import PRESETS, IllegalAction, Rules, RulesError, legal, new_game, preset
from pbem.engine.cards import all_cards
from tests.helpers import bid_round, deal, do, fixed_hands, play_out, top_trumps

PACK = all_cards()


def pack_less(*cards, jokers=False):
    return Counter((["BJ", "LJ"] if jokers else []) + [c for c in PACK if c not in cards])


# name: (players, deck, hand size, top five trumps, sides)
TABLES = {
    "standard": (4, pack_less(), 13, ["AS", "KS", "QS", "JS", "TS"], ((0, 2), (1, 3))),
    "tournament-300": (4, pack_less("2H", "2D", jokers=True), 13,
                       ["BJ", "LJ", "2S", "AS", "KS"], ((0, 2), (1, 3))),
    "tournament-500": (4, pack_less("2H", "2D", jokers=True), 13,
                       ["BJ", "LJ", "2S", "AS", "KS"], ((0, 2), (1, 3))),
    "barmore": (4, pack_less("2C", "2H", jokers=True), 13,
                ["BJ", "LJ", "2S", "AS", "KS"], ((0, 2), (1, 3))),
    "nyc": (4, pack_less("2H", "2C", jokers=True), 13,
            ["BJ", "LJ", "2D", "2S", "AS"], ((0, 2), (1, 3))),
    "cutthroat-3": (3, pack_less(), 17, ["AS", "KS", "QS", "JS", "TS"], ((0,), (1,), (2,))),
    "cutthroat-4": (4, pack_less(), 13, ["AS", "KS", "QS", "JS", "TS"],
                    ((0,), (1,), (2,), (3,))),
    "dummy-3": (3, pack_less(), 13, ["AS", "KS", "QS", "JS", "TS"], ((0,), (1,), (2,))),
    "two-handed": (2, pack_less(), 13, ["AS", "KS", "QS", "JS", "TS"], ((0,), (1,))),
    "six-handed": (6, pack_less("2D") + pack_less("2D"), 17, ["AS", "AS", "KS", "KS", "QS"],
                   ((0, 3), (1, 4), (2, 5))),
    "whiz": (4, pack_less(), 13, ["AS", "KS", "QS", "JS", "TS"], ((0, 2), (1, 3))),
    "suicide": (4, pack_less(), 13, ["AS", "KS", "QS", "JS", "TS"], ((0, 2), (1, 3))),
    "mo": (4, pack_less(), 13, ["AS", "KS", "QS", "JS", "TS"], ((0, 2), (1, 3))),
}

# name: (bid range, nil, blind nil, blind bids from, target)
BIDS = {
    "standard": ((1, 13), True, True, 0, 500),
    "tournament-300": ((1, 13), True, True, 0, 300),
    "tournament-500": ((1, 13), True, True, 0, 500),
    "barmore": ((1, 13), False, False, 7, 500),
    "nyc": ((4, 10), False, False, 6, 500),
    "cutthroat-3": ((0, 17), False, False, 0, 300),
    "cutthroat-4": ((1, 13), True, False, 0, 500),
    "dummy-3": ((0, 13), False, False, 0, 300),
    "two-handed": ((1, 13), True, False, 0, 500),
    "six-handed": ((1, 17), True, True, 0, 500),
    "whiz": ((1, 13), True, False, 0, 500),
    "suicide": ((1, 13), True, False, 0, 500),
    "mo": ((1, 13), True, True, 0, 500),
}


def test_every_preset_is_covered():
    assert set(TABLES) == set(BIDS) == set(PRESETS)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_preset_table_deck_and_trumps(name):
    players, deck, size, top5, sides = TABLES[name]
    r = preset(name)
    assert r.preset == name and r.players == players
    assert Counter(r.deck()) == deck
    assert r.hand_size == size and top_trumps(r, 5) == top5
    assert new_game(r, 0).sides == sides


@pytest.mark.parametrize("name", sorted(BIDS))
def test_preset_bids_nil_and_target(name):
    (low, high), nil, blind_nil, blind_min, target = BIDS[name]
    r = preset(name)
    assert (r.bid_min, r.max_bid) == (low, high)
    assert (r.nil, r.blind_nil, r.blind_min, r.target) == (nil, blind_nil, blind_min, target)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_round_trips_through_json(name):
    r = preset(name)
    assert Rules.from_dict(r.to_dict()) == r


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_plays_a_whole_hand(name):
    r = preset(name)
    st = new_game(r, 1)
    deal(st)
    play_out(st, seed=7)
    assert st.phase == "deal" and len(st.history) == 1
    assert sum(s["tricks"] for s in st.history[0]["sides"]) == r.hand_size


# -- who bids first, and who leads -------------------------------------------------


@pytest.mark.parametrize("name, first", [
    ("standard", [3]), ("tournament-300", [3]), ("cutthroat-4", [3]),
    ("barmore", [1, 3]), ("six-handed", [3]), ("cutthroat-3", [0]),
])
def test_preset_first_bidder(name, first):
    r = preset(name)
    st = new_game(r, 2)
    deal(st)
    assert st.phase == "bid" and st.to_act() == first


def test_tournament_non_dealing_team_bids_first_then_dealers_team():
    st = new_game(preset("tournament-500"), 0)
    deal(st)
    order = []
    while st.phase == "bid":
        order.append(st.to_act()[0])
        do(st, order[-1], {"type": "bid", "bid": 4})
    assert order == [1, 3, 2, 0]


def test_nyc_first_hand_unbid_then_non_dealers_bid_as_a_side():
    r = preset("nyc")
    st = new_game(r, 0)
    deal(st)
    assert st.phase == "play" and st.turn == 1
    play_out(st)
    deal(st)
    assert sorted(st.to_act()) == [0, 2]  # seat 1 deals the second hand


def test_barmore_dealer_leads_any_card():
    r = preset("barmore")
    st = new_game(r, 0)
    deal(st, fixed_hands(r, {0: top_trumps(r)}))
    bid_round(st)
    assert st.turn == 0 and len(legal(st, 0)) == 13  # all trumps, led at once


def test_nyc_no_spade_lead_on_the_first_trick():
    r = preset("nyc")
    st = new_game(r, 0)
    hand = ["BJ", "2D", "AS", "KS"] + [c + "H" for c in "AKQJT9876"]
    deal(st, fixed_hands(r, {1: hand}))
    assert st.turn == 1
    assert {a["card"] for a in legal(st, 1)} == set(hand[4:])


def test_cutthroat_3_two_of_clubs_leads():
    r = preset("cutthroat-3")
    st = new_game(r, 0)
    deal(st, fixed_hands(r, {2: ["2C"]}))
    bid_round(st)
    assert st.turn == 2 and legal(st, 2) == [{"type": "play", "card": "2C"}]
    with pytest.raises(IllegalAction, match="2C"):
        do(st, 2, [c for c in st.hands[2] if c != "2C"][0])


def test_cutthroat_3_three_of_clubs_leads_when_the_two_is_out():
    r = preset("cutthroat-3")
    st = new_game(r, 0)
    deal(st, fixed_hands(r), out=["2C"])
    assert st.out == ["2C"]
    bid_round(st)
    holder = next(s for s in range(3) if "3C" in st.hands[s])
    assert st.turn == holder and legal(st, holder) == [{"type": "play", "card": "3C"}]


def test_cutthroat_4_must_beat():
    assert preset("cutthroat-4").must_beat and not preset("standard").must_beat


def test_two_handed_draws_then_bids():
    r = preset("two-handed")
    st = new_game(r, 0)
    deal(st)
    assert st.phase == "draw" and len(st.stock) == 52
    play_out(st)
    assert [len(d) for d in st.last_deal["discards"]] == [13, 13]


def test_six_handed_second_identical_card_wins():
    assert preset("six-handed").identical == "second"


@pytest.mark.parametrize("name, values", [
    ("tournament-300", dict(nil_points=60, blind_nil_points=120, double_nil=(120, 0, -120),
                            ten_for=120, bag_limit=6, bag_penalty=60, bag_overflow="reset",
                            side_min=4, misdeal=("no_faces", "no_spades"))),
    ("tournament-500", dict(nil_points=100, blind_nil_points=200, double_nil=(200, 0, -200),
                            ten_for=200, bag_limit=10, bag_penalty=100, side_min=4)),
    ("standard", dict(nil_points=100, blind_nil_points=200, blind_nil_penalty=200,
                      blind_nil_behind=100, blind_nil_exchange=2, bag_limit=10,
                      bag_penalty=100, bag_overflow="carry", spade_lead="broken")),
    ("barmore", dict(bidding="side", first_lead="dealer", spade_lead="any",
                     blind_lost="double")),
    ("nyc", dict(bidding="side", blind_behind=100, blind_lost="single", blind_come_out=True,
                 spade_lead="after3", contract="nyc", first_hand_unbid=True,
                 sets_to_lose=2, boston_wins=True)),
    ("cutthroat-3", dict(contract="cutthroat", first_lead="low_club", leftover="out")),
])
def test_preset_scoring_and_play_options(name, values):
    r = preset(name)
    assert {k: getattr(r, k) for k in values} == values


# -- illegal options name the option ---------------------------------------------------


@pytest.mark.parametrize("options, named", [
    (dict(bid_order="random"), "bid_order"),
    (dict(players=5), "players"),
    (dict(colour="red"), "colour"),
    (dict(jokers="maybe"), "jokers"),
    (dict(target="lots"), "target"),
    (dict(blind_come_out=True), "blind_come_out"),
    (dict(partnerships=False, pass_to_partner=3, blind_nil_exchange=0), "pass_to_partner"),
    (dict(misdeal=["bad_luck"]), "misdeal"),
    (dict(top_trumps=["ZZ"]), "ZZ"),
    (dict(bidding="side"), "side bidding"),
    (dict(contract="nyc"), "nyc"),
])
def test_illegal_options_raise_rules_error_naming_the_option(options, named):
    with pytest.raises(RulesError, match=named):
        preset("standard").with_options(**options)


def test_unknown_preset_is_refused():
    with pytest.raises(RulesError, match="unknown preset"):
        preset("hearts")
    with pytest.raises(RulesError, match="unknown preset"):
        Rules.from_dict({"preset": "hearts"})


# -- ranges (issue 12): numbers a real table plays, and no more -----------------------------


@pytest.mark.parametrize("options, named", [
    (dict(target=30000), "'target' runs from 50 to 1000"), (dict(target=0), "'target'"),
    (dict(floor=-5000), "'floor'"), (dict(floor=10), "'floor'"),
    (dict(max_hands=101), "'max_hands'"), (dict(sets_to_lose=-1), "'sets_to_lose'"),
    (dict(bag_limit=21), "'bag_limit'"), (dict(bag_penalty=1001), "'bag_penalty'"),
    (dict(overtrick_points=-11), "'overtrick_points'"), (dict(nil_points=10**9), "'nil_points'"),
    (dict(blind_nil_points=-1), "'blind_nil_points'"), (dict(ten_for=2000), "'ten_for'"),
    (dict(pass_to_partner=5), "'pass_to_partner'"), (dict(double_nil=(1, 2, 1001)), "double_nil"),
    (dict(remove=("2H", "2H")), "'remove' names something twice"),
    (dict(misdeal=("no_faces", "no_faces")), "'misdeal' names something twice"),
])
def test_number_options_stay_within_their_ranges(options, named):
    with pytest.raises(RulesError, match=named):
        preset("standard").with_options(**options)
    with pytest.raises(RulesError, match=named):  # a stored or imported ruleset too
        Rules.from_dict({"preset": "standard", **options})


def test_every_preset_and_the_ends_of_each_range_are_allowed():
    from pbem.engine.rules import BOUNDS

    for name in PRESETS:
        preset(name)
    for key, (lo, hi) in BOUNDS.items():
        for value in (lo, hi if key != "side_min" else 4):  # side_min: up to the tricks too
            assert getattr(preset("standard").with_options(**{key: value}), key) == value


def test_editions_new_games_play_the_latest_stored_rules_without_one_keep_edition_1():
    """docs/rules.md "Editions": a new ruleset plays the latest edition and records it;
    rules stored by a game, league or log before editions were recorded read as edition 1,
    so an old game goes on (and replays) under the rules it began with."""
    from pbem.engine.rules import EDITION

    fresh = Rules.from_dict({"preset": "six-handed", "identical": "cancel"})
    assert fresh.edition == EDITION == 2 and fresh.to_dict()["edition"] == 2
    stored = fresh.to_dict()
    assert Rules.stored(stored).edition == 2  # it names its edition: kept
    del stored["edition"]
    assert Rules.stored(stored).edition == 1
    assert Rules.stored({"preset": "whiz", "raise_round": True}).raise_round  # (edition 1)
    with pytest.raises(RulesError, match="'edition' runs from 1 to 2"):
        Rules.from_dict({"edition": 3})

