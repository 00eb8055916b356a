"""Rendering mail: the turn mail and the reply to a player's mail, text and HTML.

Every mail of a game is threaded under one root Message-ID; a turn mail's own Message-ID
names the game, seat and move number, so a reply to it (In-Reply-To) tells which move
its player saw.
"""

import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from functools import cache, lru_cache
from importlib.resources import files
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, Template, select_autoescape
from markupsafe import Markup, escape

from . import i18n
from .engine import Rules, pretty
from .engine.tricks import CardTable, table_for
from .engine.view import plural, sort_cards
from .i18n import _, ngettext

_TURN_ID = re.compile(r"<turn\.(\d+)\.(\d+)\.(\d+)\.[0-9a-f]+@")
_BODY = re.compile(r"<body[^>]*>")
RED = "#b3261e"  # the web's red (templates/web/base.html)


class _MailEnvironment(Environment):
    """`v.trick` on a dict looks the key up first. Jinja tries the attribute first, and a
    dict's missing attribute raises AttributeError: a caught exception per field shown, a
    tenth of a mail's render. The mail templates name no dict method (items, get...), so
    both ways find the same thing. With _template's plain globals, bench/render.py: 474 to
    662 us CPU a mail, 634 to 797 without both (five runs each, alternated)."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if obj.__class__ is dict and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)


@lru_cache(maxsize=1)
def env() -> Environment:
    """The mail templates, compiled once: they never change while the server runs, so a
    render need not look at their files again (auto_reload: a stat per template a mail)."""
    folder = str(files("pbem.templates"))
    e = _MailEnvironment(loader=FileSystemLoader(folder), autoescape=select_autoescape(["html"]),
                    trim_blocks=False, keep_trailing_newline=True, auto_reload=False,
                    extensions=["jinja2.ext.i18n"])
    # the words come out in the context's language (pbem.i18n.language), read at each render
    e.install_gettext_callables(  # type: ignore[attr-defined]
        i18n.gettext, i18n.ngettext, newstyle=True, pgettext=i18n.pgettext)
    e.filters["card"] = card_html
    e.filters["cards"] = cards_html
    e.filters["played"] = played_html
    e.filters["buttons"] = buttons_html
    e.filters["plural"] = plural
    e.globals["shared"] = shared
    e.globals["lang"] = i18n.current  # the HTML part's lang attribute
    return e


# What the table shows alike to every seat at one move: the trick, the last trick and
# hand, bids and tricks, the score. Only these fields reach the shared fragment (the
# `public` macro of mail/table.*), so it cannot show a seat's own cards.
PUBLIC = ("trick", "last_trick", "last_hand", "over", "players", "bids", "blind", "mo", "won",
          "sides", "hints")


def public_view(v: dict) -> dict:
    p = {k: v.get(k) for k in PUBLIC}
    p["scored"] = len(v["history"])  # the hands scored: not the whole pad in every key
    return p


def shared(kind: str, v: dict, names: Sequence[str]) -> str:
    """The public part of the table (`kind`: "txt" or "html"), rendered once for all the
    mails of a move (each seat's turn mail or news, the answer) and reused. Found by its
    whole content (==), not by game and move, so it is never stale and never another
    table's. == takes True for 1: the fragment prints only the public fields' ints and
    strs, and tests its bools. A view is made anew by each view() and compose.context and
    never changed after, so a kept one still says what its fragment shows. Rendered by
    the `public` macro of mail/table.*: shared, 615 and 554 us CPU a mail against 661 and
    665 rendered by each mail (bench/render.py, runs alternated on a loaded machine)."""
    key = (kind, public_view(v), tuple(names), i18n.current())  # each language its own
    out: str | None = _SHARED.get(key)
    if out is None:
        table: Any = _template(f"table.{kind}").module  # its macros, made once by Jinja
        out = table.public(*key[1:3])
        _SHARED.keep(key, out)
    return out


def card_html(text: str) -> Markup:
    """A pretty card ("Q♥") for an HTML part: hearts and diamonds in red, by an inline style
    (mail clients drop <style> blocks), never wrapped inside the card. A deck's few cards
    are formatted once each (Markup.format costs more than the rest of a card's render);
    only a plain str is looked up, as Markup("x") == "x" would escape differently."""
    if type(text) is str:
        return _card_span(text)
    return _span(text)


def cards_html(cards: Iterable[str]) -> Markup:
    """A run of cards (a suit of the hand), a space between: what a Jinja macro looping
    over `card` wrote, without a macro call and an escape per card."""
    return Markup(" ".join([card_html(c) for c in cards]))  # each is Markup: no escape


# The hottest loops of the HTML table are filters in Python, not Jinja macros: a macro call
# and an escape per item cost more than the item's text. Each writes what the macro wrote
# (tests/test_render_cache.py). bench/render.py: 529 and 670 us CPU a mail with these four
# filters (card, cards, played, buttons), 950 and 842 with them as macros of mail/table.html.
def played_html(trick: list[dict], names: Sequence[str]) -> Markup:
    """The cards of a trick, who played each ("ann 10♥, bob (dummy) J♥")."""
    dummy = " " + _("(dummy)")
    return Markup(", ".join([f"{escape(names[t['seat']])}{escape(dummy) if t.get('dummy') else ''}"
                             f" {card_html(t['card_pretty'])}" for t in trick]))


_BUTTON = ('<a href="{}" style="display: inline-block; padding: 6px 10px; margin: 2px; '
           'border: 1px solid #333; border-radius: 4px; color: #003; text-decoration: none">'
           '{}</a> ')


def buttons_html(moves: list[dict]) -> Markup:
    """A link per legal move: its signed web link, else its mailto (pbem.compose.moves)."""
    return Markup("".join([_BUTTON.format(escape(m["url"] or m["mailto"]), _label(m))
                           for m in moves]))


def _label(move: dict) -> Markup:
    return card_html(move["label"]) if move["card"] else escape(move["label"])


@lru_cache(maxsize=512)
def _card_span(text: str) -> Markup:
    return _span(text)


def _span(text: str) -> Markup:
    red = text[-1:] in "♥♦"
    style = f"white-space: nowrap{'; color: ' + RED if red else ''}"
    return Markup('<span style="{}">{}</span>').format(style, escape(text))


def thread_root(game_id: int, domain: str) -> str:
    return f"<game.{game_id}@{domain}>"


def game_subject(game_id: int) -> str:
    return _("Spades game %(game)s") % {"game": game_id}


def game_mail(game_id: int, domain: str, headline: str, text: str, html: str | None = None
              ) -> dict:
    """An Outbox row's subject, bodies and threading headers for a mail about a game.

    Every mail of a game has the same subject and hangs under the game's root Message-ID:
    Gmail threads only mails with the same subject (and References), Outlook groups by
    subject, others by References. What the mail says ("Game 3: you played 10♥") is its
    first line, which clients show beside the subject as the preview."""
    root = thread_root(game_id, domain)
    if html:
        body = _BODY.search(html)
        if body:
            at = body.end()
            html = f"{html[:at]}\n<p><strong>{escape(headline)}</strong></p>{html[at:]}"
    return {"game_id": game_id, "subject": game_subject(game_id),
            "body_text": f"{headline}\n\n{text.lstrip()}", "body_html": html,
            "headers": {"In-Reply-To": root, "References": root,
                        "Content-Language": i18n.current()}}


def turn_message_id(game_id: int, seat: int, seq: int, domain: str) -> str:
    return f"<turn.{game_id}.{seat}.{seq}.{secrets.token_hex(4)}@{domain}>"


def seen_seq(in_reply_to: list[str], game_id: int, seat: int) -> int | None:
    """The move number of our turn mail this mail replies to, if it replies to one."""
    for mid in in_reply_to:
        m = _TURN_ID.match(mid)
        if m and int(m.group(1)) == game_id and int(m.group(2)) == seat:
            return int(m.group(3))
    return None


def context(v: dict, game_id: int, names: list[str], card_table: CardTable | None = None
            ) -> dict:
    """The view, with what templates need to show it (pretty cards, labels). `card_table`: the
    card table of the state the view was made from (`State.table`), which the view's rules
    would otherwise be read back into (`table_for_view`, twice a mail by mail). Passed,
    bench/mail.py's CPU a mail: median 3.93 -> 3.62 ms (three runs each, alternated)."""
    rules_table = card_table or table_for_view(v)
    v = dict(v, game_id=game_id, card_table=rules_table)  # moves() needs it again
    if v["hand"]:
        cards = sort_cards(v["hand"], rules_table)
        by_suit: dict[str, list[str]] = {}
        for c in cards:
            by_suit.setdefault(rules_table.suit[c], []).append(pretty(c))
        v["hand_by_suit"] = [(s, cs) for s, cs in by_suit.items()]
    v["trick"] = [dict(t, card_pretty=pretty(t["card"])) for t in v["trick"]]
    if (v.get("dummy") or {}).get("hand"):  # T4: the exposed dummy, in suits
        v["dummy_pretty"] = " ".join(pretty(c) for c in sort_cards(v["dummy"]["hand"],
                                                                   rules_table))
    if v["tricks"]:
        last = v["tricks"][-1]
        v["last_trick"] = {"winner": last["winner"],
                           "cards": [dict(t, card_pretty=pretty(t["card"])) for t in last["cards"]]}
    v["sides"] = [dict(side, label=" & ".join(names[s] for s in side["seats"]))
                  for side in v["sides"]]
    if v["history"] and not (v["tricks"] or v["trick"] or v["over"]):
        v["last_hand"] = last_hand(v["history"][-1], names)  # until the new hand's first trick
    return v


def last_hand(row: dict, names: list[str]) -> str:
    """A score pad row in words: "ann & cy bid 5, took 7, +52; bob & di bid 4, took 6, -40"."""
    return "; ".join(_("%(side)s bid %(bid)s, took %(tricks)s, %(points)s") % {
        "side": " & ".join(names[x] for x in side["seats"]), "bid": side["bid"],
        "tricks": side["tricks"], "points": f"{side['points']:+d}"} for side in row["sides"])


class _Recent:
    """The last few (key, value) pairs kept, newest first, found by comparing keys (==).
    Copied on write: a thread reads one list, never a half-changed one."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.pairs: list[tuple[Any, Any]] = []

    def get(self, key: Any) -> Any:
        for known, value in self.pairs:
            if known == key:
                return value
        return None

    def keep(self, key: Any, value: Any) -> None:
        self.pairs = [(key, value), *self.pairs[:self.most - 1]]


# The fragments of the last few moves, by (kind, public view, names). A move's fragments are
# asked for at once (its turn mail, its answer, text and HTML): a few moves' worth is enough.
_SHARED = _Recent(16)

def table_for_view(v: dict) -> CardTable:
    """A view's card table, from its rules (engine.tricks.table_for keeps one a ruleset:
    equal options make equal Rules), for a view whose state is not at hand. Reading the
    rules back costs ~0.16 ms (bench/mail.py): the mails pass the state's own table to
    `context` instead."""
    return table_for(Rules.from_dict(v["rules"]))


def moves(v: dict, address: str, link: Callable[[dict], str] | None = None
          ) -> list[dict]:
    """One entry per legal move: the words to reply with, a label, a mailto link, and
    (given `link`, a function of the action) the move's signed web link."""
    out = []
    table = v["card_table"] if "card_table" in v else table_for_view(v)
    order = {c: i for i, c in enumerate(sort_cards([a["card"] for a in v["legal"]
                                                    if a["type"] == "play"], table))}
    for a in sorted(offered(v), key=lambda a: order.get(a.get("card"), -1)):
        text, label = _words(a)
        line = text if label == text else _("%(label)s reply: %(words)s") % {
            "label": f"{label:<6}", "words": text}
        out.append({"text": text, "label": label, "line": line, "card": a["type"] == "play",
                    "mailto": f"mailto:{address}{_mail_query(text)}",
                    "url": link(a) if link and a["type"] != "pass" else None})
    return out


def offered(v: dict) -> list:
    """The legal moves a button or link offers the seat. A seat that has not looked at its
    cards (blind nil is open to it) is offered the look and the blind bids only: the rules
    let it bid a number or nil unseen, but nobody means to bid on cards they have not seen,
    and a mail that hides the hand should not offer bids on it (issue 32). Written by hand,
    "bid 4" is still taken."""
    if v.get("looked", True) or v.get("phase") != "bid":
        return v["legal"]
    return [a for a in v["legal"]
            if a["type"] != "bid" or a.get("blind") or str(a["bid"]).startswith("blind")]


@lru_cache(maxsize=256)
def _mail_query(text: str) -> str:
    """A mailto link's subject and body: a move's words, from a small set ("play QH")."""
    return f"?subject={quote(text)}&body={quote(text)}"


def _words(a: dict) -> tuple[str, str]:
    kind = a["type"]
    if kind == "play":
        return f"play {a['card']}", pretty(a["card"])  # the label shows the suit symbol
    if kind == "bid":
        bid = f"blind {a['bid']}" if a.get("blind") else str(a["bid"])
        return f"bid {bid}", f"bid {bid}"  # the words a reply writes: what the parser reads
    if kind == "pass" and not a["count"]:
        return "pass none", _("keep your cards (no exchange)")
    if kind == "pass":
        return (f"pass {' '.join(['<card>'] * a['count'])}",
                ngettext("pass %(num)s card", "pass %(num)s cards", a["count"])
                % {"num": a["count"]})
    if kind == "draw":
        return ("keep", _("keep it")) if a["keep"] else ("discard", _("take the next"))
    word = kind.replace("_", " ")
    return word, word


def render(name: str, **values: Any) -> str:
    return _template(name).render(**values)


@cache
def _template(name: str) -> Template:
    """A mail template, its globals one plain dict: Jinja chains them to the environment's
    (a ChainMap, walked in Python at each render to make a context). Ours are all set when
    env() makes the environment and never change after, so the copy is never stale."""
    template = env().get_template(f"mail/{name}")
    template.globals = dict(template.globals)
    return template
