"""What the seat's moves share (the move, say, undo, resign, orders): a line's ref, its
submit through the door with the mail's answer, and the words a move is told in."""

import re
from dataclasses import replace
from typing import Any

from ...engine import pretty
from ...engine.view import bid_words
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
    after = Answering(ctx, line, action) if ctx.answer is not None and ctx.last else None
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
    ctx.answered = after is not None and not result.duplicate
    # a line applied before (its ref is this mail's) was our own try whose answer was never
    # written (else the mail's Inbound row would have stopped it): answered as done
    return said(line, result.events)


def said(line: str, events: list[dict]) -> str:
    if any(ev["type"] == "resign" for ev in events):
        return f"{line}: done, your side gave the game up"
    return f"{line}: done"


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


_CODE = re.compile(r"'([2-9TJQKA][SHDC]|BJ|LJ)'|(?<![\w'])([2-9TJQKA][SHDC]|BJ|LJ)(?![\w'])")


def show_cards(text: str) -> str:
    """Cards named as the mail shows them: "'TH' is not in your hand" -> "10♥ is not..."."""
    return _CODE.sub(lambda m: pretty(m.group(1) or m.group(2)), text)


def refused(e: ValueError | Refused) -> Declined:
    """A refusal of the door or of pbem.orders, in its own words."""
    return Declined(show_cards(e.reason if isinstance(e, Refused) else str(e)))


_DID = {"say": "spoke at the table", "undo": "took back your move",
        "claim": "claimed the rest", "misdeal": "called a misdeal", "look": "looked at your cards",
        "come_out": "came out", "stay": "stayed"}


def did(action: dict) -> str:
    """What a move did, for a subject line: "bid 4", "played 10♥", "passed 3♣ 4♦ 9♥"."""
    kind = action["type"]
    if kind == "bid":
        return f"bid {bid_words(action)}"  # "bid 4 little mo" (B12), "bid 5 aces" (S7)
    if kind == "play":
        return f"played {pretty(action['card'])}"
    if kind == "pass":
        return "passed " + " ".join(pretty(c) for c in action["cards"])
    if kind == "draw":
        return "kept the card" if action["keep"] else "took the next card"
    if kind == "concede":
        return "took back your offer to resign" if action.get("off") else "said resign"
    return _DID.get(kind, kind.replace("_", " "))
