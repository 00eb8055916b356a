"""The game's words on pages, in the request's language: cards, bids and moves as a button
or a notice names them. A card stays symbolic ("Q♥", "10♠": the index a printed card shows,
read the same in every language here); only the jokers and the suits' names are words."""

from babel.dates import format_datetime

from ..engine import pretty
from ..i18n import DEFAULT, N_, _, current, ngettext, pgettext
from ..store import prefs

SUIT_NAMES = {"S": N_("Spades"), "H": N_("Hearts"), "C": N_("Clubs"), "D": N_("Diamonds")}
JOKERS = {"BJ": N_("Big Joker"), "LJ": N_("Little Joker")}


def card_text(c: str) -> str:
    return _(JOKERS[c]) if c in JOKERS else pretty(c)


def bid_text(bid: object) -> str:
    """A bid's number, or its word ("nil", "moon")."""
    if bid == "nil":
        return pgettext("bid", "nil")
    if bid == "moon":
        return pgettext("bid", "moon")
    return str(bid)


def bid_words(a: dict) -> str:
    """A bid as words: "4", "blind 7", "nil", "4 little mo", "5 aces" (B12, S7)."""
    words = bid_text(a["bid"])
    if a.get("no_trump"):
        words = _("%(bid)s no trump") % {"bid": words}
    if a.get("mo"):
        words = f"{words} {a['mo']}"  # B12's calls keep their table names (little mo)
    if a.get("aces"):
        words = _("%(bid)s aces") % {"bid": words}
    return _("blind %(bid)s") % {"bid": words} if a.get("blind") else words


MOVES = {"look": N_("Look"), "claim": N_("Claim"), "misdeal": N_("Misdeal"),
         "come_out": N_("Come out"), "stay": N_("Stay")}


def action_label(a: dict) -> str:
    """A move's button: "Play Q♥", "Bid 4", "Bid blind nil"."""
    kind = a["type"]
    if kind == "play":
        return _("Play %(card)s") % {"card": card_text(a["card"])}
    if kind == "bid":
        return _("Bid %(bid)s") % {"bid": bid_words(a)}
    if kind == "draw":
        return _("Keep it") if a["keep"] else _("Take the next")
    return _(MOVES[kind]) if kind in MOVES else kind.replace("_", " ").capitalize()


def undo_label(u: dict) -> str:
    """What the undo button takes back: "your 7♥", "your bid of 4"."""
    if u["type"] == "play":
        return _("your %(card)s") % {"card": card_text(u["card"])}
    return _("your bid of %(bid)s") % {"bid": bid_words(u)}


def done(action: dict) -> str:
    """The notice after a move: "Done: played Q♥."."""
    kind = action["type"]
    if kind == "play":
        return _("Done: played %(card)s.") % {"card": card_text(action["card"])}
    if kind == "bid":
        return _("Done: bid %(bid)s.") % {"bid": bid_words(action)}
    if kind == "pass":
        cards = " ".join(card_text(c) for c in action["cards"])
        return _("Done: passed %(cards)s.") % {"cards": cards}
    return _("Done: %(move)s.") % {"move": action_label(action)}


def count(n: int, singular: str, plural: str) -> str:
    """`ngettext` with its number filled in: count(2, "%(num)s day", "%(num)s days")
    (scripts/catalogues extracts `count`'s two words as one plural message)."""
    return ngettext(singular, plural, n) % {"num": n}


def time_words(hours: int) -> str:
    """A time left: "5 hours", "2 days 4 hours"."""
    in_hours = count(hours % 24 if hours >= 24 else hours, "%(num)s hour", "%(num)s hours")
    if hours < 24:
        return in_hours
    return count(hours // 24, "%(num)s day", "%(num)s days") + " " + in_hours


def welcome_back(days: int) -> str:
    return ngettext("Welcome back: %(num)s day returned.", "Welcome back: %(num)s days returned.",
                    days) % {"num": days}


def on_vacation(until) -> str:
    return _("On vacation until %(day)s: your deadlines stand still.") % {
        "day": until.isoformat()}


STATUS = {"open": N_("waiting for its players"), "playing": N_("playing"), "over": N_("over")}


def status_words(status: str) -> str:
    """A game's status as a list shows it."""
    return _(STATUS[status]) if status in STATUS else status


def duration(hours: int) -> str:
    """A choice of time in a form: "6 hours", "1 day", "14 days"."""
    if hours and hours % 24 == 0:
        return count(hours // 24, "%(num)s day", "%(num)s days")
    return time_words(hours)


# pbem.signing's refusals, as a page says them (its words are the keys)
LINK_REFUSALS = {"this link has expired": N_("This link has expired: nothing was done."),
                 "this link is not valid": N_("This link is not valid: nothing was done.")}


def link_refusal(e: Exception) -> str:
    """Why a signed link was refused, in the page's language."""
    return _(LINK_REFUSALS.get(str(e), N_("This link is damaged or out of date: nothing was "
                                          "done.")))


def clock_words(player, when) -> str:
    """`when` on the player's own clock, named in the page's language: "Tue 01 Dec 18:49
    UTC", "Di., 1. Dez. 18:49 UTC" (Babel's CLDR names of days and months)."""
    if current() == DEFAULT:
        return prefs.clock_words(player, when)  # the words the mails use too
    local = prefs.local(player, when).replace(tzinfo=None)  # already on the player's clock
    return f"{format_datetime(local, 'EEE d MMM HH:mm', locale=current())} " \
        f"{prefs.get(player, 'zone')}"
