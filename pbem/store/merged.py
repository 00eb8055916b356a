"""One mail for several waiting turn and news mails of one player (pbem.store.pacing).

Each game keeps its own section: the mail as it was written (its table, its move links, its
mailto lines to the seat's own address), headed by the game and the address that moves in
it. So a reply to any one game's address, or a click on any link, works as in that game's
own mail. The mail's Reply-To is the first turn's seat address (a plain "reply" moves in that
game; the text says so), and its Message-ID is that turn mail's own, so a reply to it still
tells which move its player saw.
"""

import re
from collections.abc import Iterable

from markupsafe import escape

from .models import Outbox
from .pacing import kind, turn_of

# the words of templates/mail/turn.* that send a reply to "this mail"
_REPLY_TO_THIS = (("Reply to this mail with one of:", "Write to {} with one of:"),
                  ("reply to this mail with its words", "write its words to {}"))
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
    """The one mail (an unsaved row: its id is the carrier's, for the bounce address)."""
    games = [r.game_id for r in shown]
    moves = [r for r in shown if kind(r) == "turn"]
    first = moves[0] if moves else shown[0]
    if moves:
        subject = "Spades: your move in games " + _list([r.game_id for r in moves])
    else:
        subject = "Spades: news of games " + _list(games)
    head = (f"Your move in {len(moves)} games" if len(moves) > 1 else
            f"Your move in game {moves[0].game_id}" if moves else "News of your games")
    intro = (f"{head}; news of {len(shown) - len(moves)} more.\n" if len(shown) > len(moves)
             else f"{head}.\n")
    intro += ("Each game below has its own reply address and links.\n"
              f"A reply to this mail moves in game {first.game_id}.\n")
    text = intro + "".join(_section(r, r is first) for r in shown)
    headers = {k: v for k, v in (first.headers or {}).items()
               if k not in ("In-Reply-To", "References")}  # one game's thread is not all
    ids = "+".join(str(r.id) for r in shown)
    return Outbox(id=carrier.id, game_id=None, to_addr=carrier.to_addr, subject=subject[:300],
                  body_text=text, body_html=_html(intro, shown, first), headers=headers,
                  dedupe_key=f"{kind(first)}:merged:{ids}"[:200])


def _list(ids: Iterable[int | None]) -> str:
    names = [str(i) for i in ids]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _address(r: Outbox) -> str:
    return (r.headers or {}).get("Reply-To", "")


def _title(r: Outbox) -> str:
    if kind(r) == "turn":
        return f"Game {r.game_id}: your move.\nReply to {_address(r)} to move in game {r.game_id}."
    return f"Game {r.game_id}: news."


def _elsewhere(body: str, r: Outbox, html: bool) -> str:
    """A section's "reply to this mail" says where to write instead: a reply to the merged
    mail reaches only the first game (its Reply-To)."""
    address = _address_html(r) if html else _address(r)
    for this, there in _REPLY_TO_THIS:
        body = body.replace(this, there.format(address))
    return body


def _address_html(r: Outbox) -> str:
    """The address, breakable anywhere: one long word must not widen a phone's screen."""
    return f'<span style="{_BREAK}">{escape(_address(r))}</span>'


def _title_html(r: Outbox) -> str:
    if kind(r) == "turn":
        return (f"<strong>Game {r.game_id}: your move.</strong><br>Reply to "
                f"{_address_html(r)} to move in game {r.game_id}.")
    return f"<strong>Game {r.game_id}: news.</strong>"


def _section(r: Outbox, first: bool) -> str:
    body = r.body_text.rstrip() if first else _elsewhere(r.body_text.rstrip(), r, False)
    return f"\n{'-' * 40}\n{_title(r)}\n\n{body}\n"


def _html(intro: str, shown: list[Outbox], first: Outbox) -> str | None:
    if not all(r.body_html for r in shown):
        return None  # a text part for all, rather than some games missing from the HTML
    parts = [f"<p>{escape(intro)}</p>"]
    for r in shown:
        html = r.body_html or ""  # (every one has it: checked above)
        m = _BODY.search(html)
        inner = m.group(1) if m else html
        inner = inner if r is first else _elsewhere(inner, r, True)
        parts.append(f'<hr><p style="margin: 0.5em 0">{_title_html(r)}</p>\n{inner}')
    return ('<!doctype html>\n<html><head><meta name="viewport" content="width=device-width, '
            'initial-scale=1"></head>\n<body style="font-family: sans-serif; color: #111; '
            'background: #fff">\n' + "\n".join(parts) + "\n</body></html>")
