"""Does a line look like a command at all, in any address's commands?

The reader (mail.quotes) asks, to tell what a player meant as a command from their own
other lines: once a command was read, the first line that is not one (a sign-off, a phone's
footer, a name, an attribution in a language we were never told about) ends the mail
quietly, while a command written wrong ("play ZZ", "bid 15", "vacation tomorow") is still
given to the commands, to be answered "not done" with the reason.

A line looks like a command when it reads as a move or an order, or holds a move after
other words ("best play QH"), or its first word (after "I", "please" and the like) is a
command's name, a move's verb, or a card's word, in English or another language we read.
"""

import re
from functools import lru_cache

from ..engine import parse_action
from ..engine.orders import read as read_orders
from ..engine.words import WORDS, fold
from .commands import aliases
from .commands.registry import NAMES
from .normal import normal

# the first words of moves and orders (pbem.engine.parse, pbem.engine.orders)
_VERBS = set(
    "bid play pass give discard blind nil double claim misdeal look keep stay moon boston "
    "lead if follow duck cover "
    "ace king queen jack ten nine eight seven six five four three two deuce trey joker big "
    "little spade spades heart hearts diamond diamonds club clubs".split())
_FILLER = re.compile(r"^((i|i'll|i will|i'd|i would|let me|let's|please|ok|okay|so|and|then|"
                     r"now)\s+)+")
_MOVE_VERBS = {"bid", "play", "pass", "give", "discard"}
MAX_TRIES = 5  # moves looked for inside one line
MAX_LEN = 200  # a longer line is no move: only its first word is looked at


def looks_like_command(line: str) -> bool:
    """Is `line` (one line as the reader cleaned it) a command, well or badly written?"""
    if len(line) > MAX_LEN:  # no move: only its first word can say
        return _first_word(" ".join(normal(line[:MAX_LEN]).casefold().split()))
    return _short(line)


@lru_cache(maxsize=4096)  # the reader asks again of a row as it tries each shape on it
def _short(line: str) -> bool:
    text = " ".join(normal(line).replace("’", "'").casefold().split())
    return bool(text) and (_reads(text) or _first_word(text))


def _first_word(text: str) -> bool:
    """Is the first word (after "I", "please"...) a command's name or a move's word?"""
    word = _FILLER.sub("", text).split(" ", 1)[0].rstrip(":,.!")
    return word in NAMES or word in _VERBS or aliases.name(word) in NAMES or _foreign(word)


def _foreign(word: str) -> bool:
    """A move's verb, a card's rank or suit, or a number in German, French, Spanish or
    Portuguese (pbem.engine.words): "biete 15" is a bid written wrong, not a sign-off."""
    means = WORDS.get(fold(word), "")
    return means in _VERBS or means[:1] in ("#", "@")


def _reads(text: str) -> bool:
    """Does the line read as a move, or hold one after other words ("best play QH"), or
    read as an order (well or badly written)?"""
    words = text.split(" ")
    starts = [0] + [i for i, w in enumerate(words) if i and w in _MOVE_VERBS]
    for i in starts[:MAX_TRIES]:
        try:
            parse_action(" ".join(words[i:]))
            return True
        except ValueError:
            pass
    try:
        return read_orders(text) is not None
    except ValueError:
        return True  # an order with a word that is no card: the commands say so
