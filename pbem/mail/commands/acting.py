"""What the seat's moves share (the move, say, undo, resign, orders): a line's ref, its
submit through the door with the mail's answer, and the words a move is told in."""

import re
from dataclasses import replace
from typing import Any

from ...engine import pretty
from ...engine.view import bid_words
from ...i18n import N_, _, told
from ...play import Refused, submit
from ...table import Table
from .base import Context
from .errors import Declined


def line_ref(ctx: Context) -> str:
    """The line's ref: each line of a mail applies once for each seat it reached (one mail
    may be addressed to the player's seats in several games), the mail's retry included."""
    return f"{ctx.message_id}#{ctx.my_seat.game_id}.{ctx.my_seat.seat}.{len(ctx.done)}"


def act(ctx: Context, line: str, action: dict) -> str:
    """Submit one line's action for the mail's seat; the table as it is now either way."""
    ref = line_ref(ctx)
    seen, ctx.seen = ctx.seen, None  # a read is good for one move only
    after: Answering | Deferring | None = None
    if ctx.answer is not None:  # the mail is answered once, whatever its lines (issue 32)
        after = Answering(ctx, line, action) if ctx.last else Deferring(ctx)
    try:
        result = submit(ctx.store, ctx.my_seat.game_id, ctx.my_seat.seat, action,
                        expect_seq=ctx.expect_seq, source="mail", ref=ref, seen=seen,
                        after=after)
    except Refused as e:
        if e.state is not None:
            ctx.state = e.state
        raise Declined(show_cards(e.reason)) from None
    ctx.state = result.state
    ctx.expect_seq = result.state.seq
    ctx.moves.append((action, result.duplicate))
    ctx.answered = isinstance(after, Answering) and not result.duplicate
    # a line applied before (its ref is this mail's) was our own try whose answer was never
    # written (else the mail's Inbound row would have stopped it): answered as done
    return said(line, result.events)


def said(line: str, events: list[dict]) -> str:
    if any(ev["type"] == "resign" for ev in events):
        return _("%(line)s: done, your side gave the game up") % {"line": line}
    return _("%(line)s: done") % {"line": line}


class Answering:
    """The hook (play.submit's `after`) that writes the mail's answer in the move's own
    transaction, from the table the move leaves (pbem.table.Table), as if the line were
    done (it is, if the transaction commits)."""

    def __init__(self, ctx: Context, line: str, action: dict):
        self.ctx, self.line, self.action = ctx, line, action

    def __call__(self, s: Any, t: Table) -> list[dict]:
        ctx = self.ctx
        assert ctx.answer is not None  # made only for a mail with an answer
        ctx.answer.record(s)
        return ctx.answer.rows(replace(ctx, state=t.st, expect_seq=t.st.seq,
                                       done=[*ctx.done, said(self.line, t.events)],
                                       moves=[*ctx.moves, (self.action, False)], asked=t))


class Deferring:
    """The hook of a move on a line that is not the mail's last: the answer, written after
    the mail's other lines, stands for the seat's turn mail (the move's write sends it none:
    one mail answers the whole mail), so it keeps the table the write left, whose deadline
    and orders the answer tells (pbem.mail.inbound)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def __call__(self, s: Any, t: Table) -> list[dict]:
        self.ctx.asked = t
        return []


_CODE = re.compile(r"'([2-9TJQKA][SHDC]|BJ|LJ)'|(?<![\w'])([2-9TJQKA][SHDC]|BJ|LJ)(?![\w'])")


def show_cards(text: str) -> str:
    """Cards named as the mail shows them: "'TH' is not in your hand" -> "10♥ is not..."."""
    return _CODE.sub(lambda m: pretty(m.group(1) or m.group(2)), text)


def refused(e: ValueError | Refused) -> Declined:
    """A refusal of the door or of pbem.orders, in its own words."""
    return Declined(show_cards(e.reason if isinstance(e, Refused) else told(e)))


_DID = {"say": N_("spoke at the table"), "undo": N_("took back your move"),
        "claim": N_("claimed the rest"), "misdeal": N_("called a misdeal"),
        "look": N_("looked at your cards"), "come_out": N_("came out"), "stay": N_("stayed")}


def did(action: dict) -> str:
    """What a move did, for a subject line: "bid 4", "played 10♥", "passed 3♣ 4♦ 9♥"."""
    kind = action["type"]
    if kind == "bid":  # "bid 4 little mo" (B12), "bid 5 aces" (S7)
        return _("bid %(bid)s") % {"bid": bid_words(action)}
    if kind == "play":
        return _("played %(card)s") % {"card": pretty(action["card"])}
    if kind == "pass":
        return _("passed %(cards)s") % {"cards": " ".join(pretty(c) for c in action["cards"])}
    if kind == "draw":
        return _("kept the card") if action["keep"] else _("took the next card")
    if kind == "concede":
        return _("took back your offer to resign") if action.get("off") else _("said resign")
    return _(_DID[kind]) if kind in _DID else kind.replace("_", " ")
