"""Actions from what people type: "bid 4", "4", "nil", "blind nil", "blind 7", "play QH",
"Q♥", "queen of hearts", "pass 3C 4D 9H", "claim", "misdeal", "look", "keep", "come out",
"bid 4 little mo" (B12), "moon", "blind moon" (B10), "bid 4 aces" (S7), "bid 4 no trump" (B14);
and as people write them: "I bid 4", "bid four", "bid: 4", "I'll play the ten of hearts".
A line English cannot read is read in German, French, Spanish or Portuguese
(pbem.engine.words): "biete 4", "spiele Herz Dame", "jouer dame de cœur"."""

import re

from .cards import parse_card
from .errors import N_, Refusal
from .words import english as in_english

_WORDS: dict[str, dict[str, object]] = {
    "claim": {"type": "claim"},
    "misdeal": {"type": "misdeal"},
    "look": {"type": "look"},
    "keep": {"type": "draw", "keep": True},
    "keep it": {"type": "draw", "keep": True},
    "discard": {"type": "draw", "keep": False},
    "take next": {"type": "draw", "keep": False},
    "come out": {"type": "come_out"},
    "stay": {"type": "stay"},
    "nil": {"type": "bid", "bid": "nil"},
    "blind nil": {"type": "bid", "bid": "blind nil"},
}
for _word in ("moon", "boston", "shoot the moon"):  # B10
    for _pre in ("", "bid "):
        _WORDS[_pre + _word] = {"type": "bid", "bid": "moon"}
        _WORDS[_pre + "blind " + _word] = {"type": "bid", "bid": "blind moon"}
_BARE = {
    "bid": N_("say how many: bid 4, nil or blind nil"),
    "play": N_("say which card: play QH, play 10♠, play queen of hearts"),
    "pass": N_("say which cards: pass 3C 4D 9H"),
}
_BID = re.compile(r"^(?:bid\s+)?(blind\s+)?(\d{1,2}|nil|zero|blind nil)$")
_NO_TRUMP = re.compile(r"\s+(?:no[\s-]?trumps?|nt)$")  # B14
_ACES = re.compile(r"\s+(?:and\s+|with\s+)?(?:(?:the\s+)?four\s+)?aces$")  # S7
_MO = re.compile(r"(?:^|\s+)(?:(little|big)\s+)?(mo|bemo)$")  # B12
_NUMBERS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen".split())}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBERS) + r")$")
# what people put before a move: "I bid 4", "I'll play QH", "please pass 3C 4D 9H"
_FILLER = re.compile(r"^((i|i'll|i will|i'd|i would|i shall|let me|let's|please|ok|okay|so|"
                     r"and|then|now)\s+)+")
_VERB_COLON = re.compile(r"^(bid|play|pass|give)\s*[:=-]\s*")
_INVISIBLE = dict.fromkeys(map(ord, "\ufe0e\ufe0f\u200b\u200c\u200d\u2060\ufeff"))
# a word that names a rank or a suit: a line with none is no card at all
_CARDISH = re.compile(r"\d|[♠♥♦♣♤♡♢♧❤]|\b([2-9tjqka1][shdc]|[shdc]|ace|king|queen|jack|ten|"
                      r"nine|eight|seven|six|five|four|three|two|deuce|trey|joker|spades?|"
                      r"hearts?|diamonds?|clubs?|big|little|small|bj|lj|[tjqka])\b")


def parse_action(text: str, rules=None) -> dict:
    """The action `text` names, or ValueError saying what was not understood. Given the
    game's rules, a bid of 0 where nil is played means nil (B2)."""
    action = _read(text)
    if rules is not None and rules.nil and action == {"type": "bid", "bid": 0}:
        action["bid"] = "nil"
    if rules is not None and rules.mo != "none" and action.get("mo"):  # "mo" or "bemo":
        action["mo"] = action["mo"].split()[0] + " " + rules.mo  # the game's own call
    return action


def _read(text: str) -> dict:
    """English first, always; else the line's English reading (pbem.engine.words). Where
    that fails too, the answer quotes the line as written, or gives the reading's hint
    ("biete" alone: say how many), which quotes nothing."""
    try:
        return _parse(text)
    except ValueError as english:
        reading = in_english(text)
        if reading is None or reading == text:
            raise
        try:
            return _parse(reading)
        except ValueError as e:
            raise (english if "'" in str(e) else e) from None


def _parse(text: str) -> dict:
    raw = " ".join(text.translate(_INVISIBLE).replace("’", "'").split()).rstrip(".!")
    filler = _FILLER.match(raw.lower())
    if filler:
        raw = raw[filler.end():]
    colon = _VERB_COLON.match(raw.lower())
    if colon:  # "bid: 4" is "bid 4"
        raw = f"{colon.group(1)} {raw[colon.end():]}"
    t = raw.lower()  # same length as raw: slices of t index raw too
    if not t:
        raise Refusal(N_("empty command"))
    aces = _ACES.search(t)
    if aces and t[:aces.start()].strip():
        return _aces_bid(raw[:aces.start()])
    nt = _NO_TRUMP.search(t)
    if nt and t[:nt.start()].strip():
        return _flagged_bid(raw[:nt.start()], "no_trump",
                            N_("no trump goes with a number bid: bid 4 no trump"))
    mo = _MO.search(t)
    if mo:
        return _mo_bid(raw[:mo.start()], mo)
    if t.startswith("bid ") or t.startswith("blind ") or t in _NUMBERS:
        t = _NUMBER_WORD.sub(lambda m: _NUMBERS[m.group(1)], t)  # "bid four": bid 4
    if t in _BARE:
        raise Refusal(_BARE[t])
    if t in _WORDS:
        return dict(_WORDS[t])
    if t in ("double nil", "bid double nil"):
        raise Refusal(N_("bid nil: when both partners bid nil it scores as double nil"))
    m = _BID.match(t)
    if m:
        blind, amount = m.group(1), m.group(2)
        if amount in ("nil", "zero", "blind nil"):
            return {"type": "bid", "bid": "blind nil" if blind or amount == "blind nil" else "nil"}
        action = {"type": "bid", "bid": int(amount)}
        if blind:
            action["blind"] = True
        return action
    if t.startswith("bid "):
        raise Refusal(N_("not a bid: %(line)s: write bid 4, bid nil or bid blind nil"),
                      line=repr(raw))
    if t in ("pass none", "pass nothing", "pass no cards", "no exchange"):
        return {"type": "pass", "cards": []}  # P2: a nil bidder may keep its cards
    for verb in ("pass ", "give ", "discard "):  # "discard 3C 4D": D6's discard
        if t.startswith(verb):
            return {"type": "pass", "cards": _cards(raw[len(verb):])}
    if t.startswith("play "):
        raw = raw[5:]
    elif len(t.split()) > 1 and not _CARDISH.search(t):
        raise Refusal(N_("not a move or a command: %(line)s"), line=repr(raw))  # "thanks"
    return {"type": "play", "card": parse_card(raw)}


def _aces_bid(rest: str) -> dict:
    """S7: "bid 4 aces", "bid 4 and four aces": a number bid announcing the four aces."""
    return _flagged_bid(rest, "aces",
                        N_("the four aces are announced with a number bid: bid 4 aces"))


def _flagged_bid(rest: str, flag: str, need: str) -> dict:
    """A plain number bid with `flag` set ("bid 4 aces", "bid 4 no trump")."""
    action = _parse(rest)
    if action.get("type") != "bid" or action["bid"].__class__ is not int or action.get("blind"):
        raise Refusal(need)
    return dict(action, **{flag: True})


def _mo_bid(rest: str, mo) -> dict:
    """B12: "bid 4 little mo", "four big bemo": a number bid with its call."""
    if not mo.group(1):
        raise Refusal(N_("say little or big: bid 4 little mo (or little bemo)"))
    try:
        action = _parse(rest) if rest.strip() else {}
    except ValueError:
        action = {}
    if action.get("type") != "bid" or action["bid"].__class__ is not int or action.get("blind"):
        call = f"{mo.group(1)} {mo.group(2)}"  # a command word: not translated
        raise Refusal(N_("a %(call)s goes with a number bid: bid 4 %(call)s"), call=call)
    return dict(action, mo=f"{mo.group(1)} {mo.group(2)}")


def _cards(text: str) -> list[str]:
    """Several cards: "3C 4D 9H", "3c, 4d and 9h", "three of clubs, four of diamonds"."""
    parts = [p for p in re.split(r"\s*(?:,|;|\band\b)\s*", text, flags=re.I) if p]
    if len(parts) == 1:
        words = parts[0].split()
        if " of " not in parts[0].lower() and "joker" not in parts[0].lower():
            parts = words
    cards = [parse_card(p) for p in parts]
    if not cards:
        raise Refusal(N_("name the cards to pass"))
    return cards
