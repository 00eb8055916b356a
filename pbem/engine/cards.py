"""Cards as short strings: rank then suit ("QH", "TS"), jokers "BJ" and "LJ".

Parsing accepts what people type: "qh", "Q♥", "Q♥️" (an emoji keyboard's), "10h", "T♥",
"ten d", "queen of hearts", "the queen of hearts", "big joker".
"""

import re

from .errors import N_, Refusal

SUITS = "SHDC"
RANKS = "23456789TJQKA"
JOKERS = ("BJ", "LJ")
FACES = "JQK"
SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {
    "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
    "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace",
}

_SUIT_WORDS = {
    "s": "S", "h": "H", "d": "D", "c": "C",
    "♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C", "❤": "H",
    "spade": "S", "spades": "S", "heart": "H", "hearts": "H",
    "diamond": "D", "diamonds": "D", "club": "C", "clubs": "C",
}
_RANK_WORDS = {name: rank for rank, name in RANK_NAMES.items()}
_RANK_WORDS.update({r.lower(): r for r in RANKS})
_RANK_WORDS.update({"10": "T", "1": "A", "deuce": "2", "trey": "3"})
_JOKER_WORDS = {
    "bj": "BJ", "lj": "LJ", "big joker": "BJ", "little joker": "LJ",
    "small joker": "LJ", "big": "BJ", "little": "LJ",
}
_WORDY = re.compile(r"^(\w+)\s+(?:of\s+)?(\S+)$")  # "queen of hearts", "ten d", "10 ♥"
_SHORT = re.compile(r"^(10|[2-9tjqka1])\s*([shdc♠♥♦♣♤♡♢♧❤])$")
_ARTICLE = re.compile(r"^(the|my|a|an)\s+")
# emoji keyboards send a suit with a variation selector (U+FE0F) after it
_INVISIBLE = dict.fromkeys(map(ord, "\ufe0e\ufe0f\u200b\u200c\u200d\u2060\ufeff"))


def all_cards() -> list[str]:
    """The 52 cards of one pack, spades first, high to low."""
    return [r + s for s in SUITS for r in reversed(RANKS)]


def parse_card(text: str) -> str:
    """The card named by `text`, or ValueError saying what was not understood."""
    t = " ".join(text.translate(_INVISIBLE).lower().replace("-", " ").split())
    t = t.removesuffix(".")
    for w in (t, _ARTICLE.sub("", t)):  # "a s" is the ace of spades, "a king of s" a king
        if w in _JOKER_WORDS:
            return _JOKER_WORDS[w]
        m = _SHORT.match(w) or _WORDY.match(w)
        if m and m.group(1) in _RANK_WORDS and m.group(2) in _SUIT_WORDS:
            return _RANK_WORDS[m.group(1)] + _SUIT_WORDS[m.group(2)]
    raise Refusal(N_("not a card: %(card)s"), card=repr(text.translate(_INVISIBLE).strip()))


def is_card(text: str) -> bool:
    """True for a card written canonically ("QH", "BJ")."""
    return text in JOKERS or (len(text) == 2 and text[0] in RANKS and text[1] in SUITS)


def pretty(card: str) -> str:
    """A card for people: "Q♥", "10♠", "Big Joker"."""
    if card == "BJ":
        return "Big Joker"
    if card == "LJ":
        return "Little Joker"
    rank = "10" if card[0] == "T" else card[0]
    return rank + SYMBOLS[card[1]]
