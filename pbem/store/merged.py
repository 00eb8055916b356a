"""One mail for several waiting turn and news mails of one player (pbem.store.pacing).

Each game keeps its own section: the mail as it was written (its table, its move links, its
mailto lines to the seat's own address), headed by the game and the address that moves in
it. So a reply to any one game's address, or a click on any link, works as in that game's
own mail. The mail's Reply-To is the first turn's seat address (a plain "reply" moves in that
game; the text says so), and its Message-ID is that turn mail's own, so a reply to it still
tells which move its player saw.
"""

import re

from markupsafe import Markup, escape

from ..i18n import N_, _, language, listing, ngettext
from .models import Outbox
from .pacing import kind, turn_of

# the sentences of templates/mail/turn.* that send a reply to "this mail", and what a
# section of a merged mail says instead (in the section's own language)
_REPLY_TO_THIS = ((N_("It is your turn. Reply to this mail with one of:"),
                   N_("It is your turn. Write to %(address)s with one of:")),
                  (N_("Your move: click one (or reply to this mail with its words):"),
                   N_("Your move: click one (or write its words to %(address)s):")))
_BREAK = "overflow-wrap: anywhere; word-break: break-all"
_BODY = re.compile(r"<body[^>]*>(.*)</body>", re.S | re.I)


def pick(rows: list[Outbox]) -> list[Outbox]:
    """The rows a merged mail shows: the newest turn mail of each seat, then the newest news
    of each game without a turn mail (the others are needless beside them)."""
    turns, news = {}, {}
    for r in sorted(rows, key=lambda r: r.id or 0):
        turn = turn_of(r.dedupe_key)
        if turn is not None:
            turns[turn[:2]] = r
        elif kind(r) == "news":
            news[r.game_id] = r
    with_turn = {g for g, _ in turns}
    shown = sorted(turns.values(), key=lambda r: r.id or 0) + sorted(
        (r for g, r in news.items() if g not in with_turn), key=lambda r: r.id or 0)
    return shown


def mail(carrier: Outbox, shown: list[Outbox]) -> Outbox:
    """The one mail (an unsaved row: its id is the carrier's, for the bounce address), in
    the language of the turn mail it answers for (each section keeps its own)."""
    moves = [r for r in shown if kind(r) == "turn"]
    first = moves[0] if moves else shown[0]
    with language(_lang(first)):
        subject, intro = _subject(shown, moves), _intro(shown, moves, first)
        text = intro + "".join(_section(r, r is first) for r in shown)
        html = _html(intro, shown, first)
    headers = {k: v for k, v in (first.headers or {}).items()
               if k not in ("In-Reply-To", "References")}  # one game's thread is not all
    ids = "+".join(str(r.id) for r in shown)
    return Outbox(id=carrier.id, game_id=None, to_addr=carrier.to_addr, subject=subject[:300],
                  body_text=text, body_html=html, headers=headers,
                  dedupe_key=f"{kind(first)}:merged:{ids}"[:200])


def _lang(r: Outbox) -> str | None:
    return (r.headers or {}).get("Content-Language")


def _subject(shown: list[Outbox], moves: list[Outbox]) -> str:
    if moves:
        return ngettext("Spades: your move in game %(games)s", "Spades: your move in games "
                        "%(games)s", len(moves)) % {"games": _ids(moves)}
    return ngettext("Spades: news of game %(games)s", "Spades: news of games %(games)s",
                    len(shown)) % {"games": _ids(shown)}


def _intro(shown: list[Outbox], moves: list[Outbox], first: Outbox) -> str:
    news = len(shown) - len(moves)
    if len(moves) == 1:
        lines = [_("Your move in game %(game)s.") % {"game": first.game_id}]
    elif moves:
        lines = [ngettext("Your move in %(num)s game.", "Your move in %(num)s games.",
                          len(moves)) % {"num": len(moves)}]
    else:
        lines = [_("News of your games.")]
    if moves and news:
        lines.append(ngettext("News of %(num)s more game.", "News of %(num)s more games.",
                              news) % {"num": news})
    lines += [_("Each game below has its own reply address and links."),
              _("A reply to this mail moves in game %(game)s.") % {"game": first.game_id}]
    return "\n".join(lines) + "\n"


def _ids(rows: list[Outbox]) -> str:
    return listing([str(r.game_id) for r in rows])


def _address(r: Outbox) -> str:
    return (r.headers or {}).get("Reply-To", "")


def _title(r: Outbox) -> str:
    if kind(r) == "turn":
        return "\n".join([_("Game %(game)s: your move.") % {"game": r.game_id},
                          _("Reply to %(address)s to move in game %(game)s.")
                          % {"address": _address(r), "game": r.game_id}])
    return _("Game %(game)s: news.") % {"game": r.game_id}


def _elsewhere(body: str, r: Outbox, html: bool) -> str:
    """A section's "reply to this mail" says where to write instead: a reply to the merged
    mail reaches only the first game (its Reply-To). The section's sentences are in the
    language its mail was written in."""
    with language(_lang(r)):
        for this, there in _REPLY_TO_THIS:
            if html:  # the template wrote the sentence as HTML, its words escaped
                body = body.replace(str(Markup(_(this))),
                                    str(Markup(_(there)) % {"address": _address_html(r)}))
            else:
                body = body.replace(_(this), _(there) % {"address": _address(r)})
    return body


def _address_html(r: Outbox) -> Markup:
    """The address, breakable anywhere: one long word must not widen a phone's screen."""
    return Markup(f'<span style="{_BREAK}">{escape(_address(r))}</span>')


def _title_html(r: Outbox) -> Markup:
    if kind(r) == "turn":
        return (Markup("<strong>%s</strong><br>%s") % (
            _("Game %(game)s: your move.") % {"game": r.game_id},
            Markup(escape(_("Reply to %(address)s to move in game %(game)s."))) % {
                "address": _address_html(r), "game": r.game_id}))
    return Markup("<strong>%s</strong>") % (_("Game %(game)s: news.") % {"game": r.game_id})


def _section(r: Outbox, first: bool) -> str:
    body = r.body_text.rstrip() if first else _elsewhere(r.body_text.rstrip(), r, False)
    return f"\n{'-' * 40}\n{_title(r)}\n\n{body}\n"


def _html(intro: str, shown: list[Outbox], first: Outbox) -> str | None:
    if not all(r.body_html for r in shown):
        return None  # a text part for all, rather than some games missing from the HTML
    parts = ["<p>" + "<br>".join(escape(line) for line in intro.splitlines()) + "</p>"]
    for r in shown:
        html = r.body_html or ""  # (every one has it: checked above)
        m = _BODY.search(html)
        inner = m.group(1) if m else html
        inner = inner if r is first else _elsewhere(inner, r, True)
        parts.append(f'<hr><p style="margin: 0.5em 0">{_title_html(r)}</p>\n{inner}')
    lang = escape(_lang(first) or "en")
    return (f'<!doctype html>\n<html lang="{lang}"><head><meta name="viewport" '
            'content="width=device-width, initial-scale=1"></head>\n'
            '<body style="font-family: sans-serif; color: #111; background: #fff">\n'
            + "\n".join(parts) + "\n</body></html>")
