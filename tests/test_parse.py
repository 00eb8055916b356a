"""What people type, as actions and cards (docs/mail.md)."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from pbem.engine import parse_action, parse_card, pretty
from pbem.engine.cards import JOKERS, RANK_NAMES, SUIT_NAMES, all_cards


@pytest.mark.parametrize("text, card", [
    ("QH", "QH"),
    ("qh", "QH"),
    ("Q♥", "QH"),
    ("q♡", "QH"),
    ("10h", "TH"),
    ("10♥", "TH"),
    ("T♥", "TH"),
    ("10 h", "TH"),
    ("queen of hearts", "QH"),
    ("Queen of Hearts.", "QH"),
    ("ten of spades", "TS"),
    ("10 of spades", "TS"),
    ("ace-of-clubs", "AC"),
    ("2♣", "2C"),
    ("K♦", "KD"),
    ("BJ", "BJ"),
    ("lj", "LJ"),
    ("big joker", "BJ"),
    ("Little Joker", "LJ"),
    ("  js  ", "JS"),
    ("8♥\ufe0f", "8H"),  # an emoji keyboard's heart: U+2665 U+FE0F
    ("5♣\ufe0f", "5C"),
    ("Q\u2764\ufe0f", "QH"),  # the red heart emoji
    ("ten d", "TD"),
    ("ten h", "TH"),
    ("queen hearts", "QH"),
    ("the queen of hearts", "QH"),
    ("a s", "AS"),
])
def test_cards(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize("text, action", [
    ("QH", {"type": "play", "card": "QH"}),
    ("Q♥", {"type": "play", "card": "QH"}),
    ("10h", {"type": "play", "card": "TH"}),
    ("queen of hearts", {"type": "play", "card": "QH"}),
    ("big joker", {"type": "play", "card": "BJ"}),
    ("play QH", {"type": "play", "card": "QH"}),
    ("Play 10♥", {"type": "play", "card": "TH"}),
    ("play queen of hearts", {"type": "play", "card": "QH"}),
    ("nil", {"type": "bid", "bid": "nil"}),
    ("NIL", {"type": "bid", "bid": "nil"}),
    ("bid nil", {"type": "bid", "bid": "nil"}),
    ("blind nil", {"type": "bid", "bid": "blind nil"}),
    ("bid blind nil", {"type": "bid", "bid": "blind nil"}),
    ("4", {"type": "bid", "bid": 4}),
    ("bid 4", {"type": "bid", "bid": 4}),
    ("Bid 13.", {"type": "bid", "bid": 13}),
    ("blind 7", {"type": "bid", "bid": 7, "blind": True}),
    ("bid blind 7", {"type": "bid", "bid": 7, "blind": True}),
    ("pass 3C 4D 9H", {"type": "pass", "cards": ["3C", "4D", "9H"]}),
    ("pass none", {"type": "pass", "cards": []}),
    ("No exchange", {"type": "pass", "cards": []}),
    ("pass 3c, 4d and 9h", {"type": "pass", "cards": ["3C", "4D", "9H"]}),
    ("pass 3♣ 4♦ 9♥", {"type": "pass", "cards": ["3C", "4D", "9H"]}),
    ("pass three of clubs, four of diamonds and nine of hearts",
     {"type": "pass", "cards": ["3C", "4D", "9H"]}),
    ("pass big joker, 10s", {"type": "pass", "cards": ["BJ", "TS"]}),
    ("claim", {"type": "claim"}),
    ("Claim!", {"type": "claim"}),
    ("misdeal", {"type": "misdeal"}),
    ("look", {"type": "look"}),
    ("keep", {"type": "draw", "keep": True}),
    ("discard", {"type": "draw", "keep": False}),
    ("come out", {"type": "come_out"}),
    ("stay", {"type": "stay"}),
    ("play 5♣\ufe0f", {"type": "play", "card": "5C"}),
    ("I bid 4", {"type": "bid", "bid": 4}),
    ("bid four", {"type": "bid", "bid": 4}),
    ("bid: 4", {"type": "bid", "bid": 4}),
    ("Bid: Thirteen!", {"type": "bid", "bid": 13}),
    ("four", {"type": "bid", "bid": 4}),
    ("blind six", {"type": "bid", "bid": 6, "blind": True}),
    ("I bid blind nil", {"type": "bid", "bid": "blind nil"}),
    ("play the queen of hearts", {"type": "play", "card": "QH"}),
    ("I’ll play the ten of hearts.", {"type": "play", "card": "TH"}),
    ("please play: QH", {"type": "play", "card": "QH"}),
])
def test_actions(text, action):
    assert parse_action(text) == action


@pytest.mark.parametrize("text", ["1X", "eleven of hearts", "QX", "Q", "11h", "joker", "",
                                  "   ", "queen heart attack", "the queen", "ten of d of h"])
def test_bad_cards(text):
    with pytest.raises(ValueError) as err:
        parse_card(text)
    assert text.strip().lower() in str(err.value).lower()
    assert "not a card" in str(err.value)


@pytest.mark.parametrize("text, words", [
    ("1X", "not a card: '1x'"),
    ("eleven of hearts", "not a card: 'eleven of hearts'"),
    ("play eleven of hearts", "not a card: 'eleven of hearts'"),
    ("pass 3C XX 9H", "not a card: 'xx'"),
    ("", "empty command"),
    ("  ", "empty command"),
    ("double nil", "bid nil"),
    ("Thanks for the game!", "not a move or a command: 'thanks for the game'"),
    ("asdf qwerty", "not a move or a command"),
    ("bid lots", "not a bid: 'bid lots'"),
])
def test_bad_actions(text, words):
    with pytest.raises(ValueError) as err:
        parse_action(text)
    assert words in str(err.value).lower()


def test_pass_needs_cards():
    with pytest.raises(ValueError):
        parse_action("pass ,")


CARDS = all_cards() + list(JOKERS)


def spelled(card: str) -> str:
    """"queen of hearts", or "big joker"."""
    if card in JOKERS:
        return pretty(card).lower()
    return f"{RANK_NAMES[card[0]]} of {SUIT_NAMES[card[1]]}"


def test_every_card_is_in_the_round_trip():
    assert len(CARDS) == 54 and len(set(CARDS)) == 54


@given(hs.sampled_from(CARDS), hs.booleans(), hs.sampled_from(["", " ", "  "]))
def test_round_trip(card, upper, pad):
    """Every card back from its short form, its pretty form, and its name, in any case."""
    for text in (card, pretty(card), spelled(card)):
        text = pad + (text.upper() if upper else text.lower()) + pad
        assert parse_card(text) == card
        assert parse_action(text) == {"type": "play", "card": card}
        assert parse_action("play " + text) == {"type": "play", "card": card}


@given(hs.lists(hs.sampled_from(CARDS), min_size=1, max_size=4),
       hs.sampled_from([" ", ", ", " and "]))
def test_pass_round_trip(cards, sep):
    assert parse_action("pass " + sep.join(cards)) == {"type": "pass", "cards": cards}
    names = ", ".join(spelled(c) for c in cards)
    assert parse_action("pass " + names) == {"type": "pass", "cards": cards}


@given(hs.integers(0, 26))
def test_bid_numbers(n):
    assert parse_action(str(n)) == {"type": "bid", "bid": n}
    assert parse_action(f"bid {n}") == {"type": "bid", "bid": n}


@pytest.mark.parametrize("word", ["bid", "play", "pass"])
def test_a_bare_verb_asks_for_what_is_missing(word):
    with pytest.raises(ValueError, match="say "):
        parse_action(word)


def test_zero_is_nil_where_nil_is_played_and_a_number_where_not():
    from pbem.engine import advance, apply, make_deal, new_game, preset

    assert parse_action("0") == {"type": "bid", "bid": 0}
    for name, want in (("standard", "nil"), ("cutthroat-3", 0)):
        st = new_game(preset(name), 0)
        advance(st, make_deal(st, random.Random(3)))
        seat = st.to_act()[0]
        [ev] = apply(st, seat, parse_action("0", st.rules))
        assert ev["bid"] == want


@pytest.mark.parametrize("text, want", [
    ("bid 4 little mo", {"type": "bid", "bid": 4, "mo": "little mo"}),
    ("I bid four big mo", {"type": "bid", "bid": 4, "mo": "big mo"}),
    ("5 little bemo", {"type": "bid", "bid": 5, "mo": "little bemo"}),
])
def test_B12_a_bid_with_a_mo_call(text, want):
    assert parse_action(text) == want


def test_B12_mo_or_bemo_is_read_as_the_game_own_call_and_a_bare_mo_asks_more():
    from pbem.engine import preset

    bemo = preset("standard").with_options(mo="bemo")
    assert parse_action("bid 4 big mo", bemo)["mo"] == "big bemo"
    assert parse_action("bid 4 little bemo", preset("mo"))["mo"] == "little mo"
    with pytest.raises(ValueError, match="say little or big"):
        parse_action("bid mo")
    with pytest.raises(ValueError, match="goes with a number bid"):
        parse_action("bid nil little mo")


@pytest.mark.parametrize("text, bid", [
    ("moon", "moon"), ("bid moon", "moon"), ("Boston", "moon"), ("I bid moon", "moon"),
    ("shoot the moon", "moon"), ("blind moon", "blind moon"), ("bid blind boston", "blind moon"),
])
def test_B10_moon_words(text, bid):
    assert parse_action(text) == {"type": "bid", "bid": bid}


@pytest.mark.parametrize("text", ["bid 4 aces", "bid four and four aces", "4 with aces"])
def test_S7_aces_words(text):
    assert parse_action(text) == {"type": "bid", "bid": 4, "aces": True}


@pytest.mark.parametrize("text", ["bid 4 no trump", "4 nt", "bid four no-trumps"])
def test_B14_no_trump_words(text):
    assert parse_action(text) == {"type": "bid", "bid": 4, "no_trump": True}
