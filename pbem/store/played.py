"""What the server played for a seat since the last mail the seat surely got, read from the
log: a mail names every such card (pbem.notify.played_for), though the writes that made
them mailed the seat nothing, or their mails were merged or settled unsent (pbem.store.
pacing).

    since_told(s, game_id, seat, email, before) -> [(event, source), ...]
"""

from sqlalchemy import bindparam, func, or_
from sqlmodel import Session, col, select

from .models import Move, Outbox

OWN = ("mail", "web", "cli")  # the seat's own moves: what it knows of, it did
FOR_IT = ("auto", "clock", "organiser")  # an order, a lone card, a timeout, the carer's link
KINDS = ("play", "bid", "pass", "draw")
LOOKBACK = 120  # events: two hands' at most, so a read is bounded however long the game


def since_told(s: Session, game_id: int, seat: int, email: str, before: int
               ) -> list[tuple[dict, str]]:
    """The seat's moves made for it before move `before` (the write's first), after its own
    last move and the last turn or news mail to it that went out."""
    rows = s.connection().execute(_FOR_IT, {"g": game_id, "seat": seat, "before": before,
                                            "lo": before - LOOKBACK}).all()
    if not rows:
        return []
    told = _told(s, game_id, seat, email)
    return [(dict(payload), source) for seq, payload, source in rows if seq > told]


# Built once, with bound values (building the statement each time cost a mail's write more
# CPU than running it: 4 of some 8 ms a call under cProfile, bench/mail.py, Nov 2026). The
# seat's own last move is looked for within the same window: an older one stops nothing
# the window holds, and the bound keeps the lookup to the window's index range (game, seq)
# rather than the game's whole log.
_WINDOW = (Move.game_id == bindparam("g"), Move.actor == bindparam("seat"),
           Move.seq > bindparam("lo"))
_OWN = select(func.max(Move.seq)).where(*_WINDOW, col(Move.source).in_(OWN)).scalar_subquery()
_FOR_IT = select(Move.seq, Move.payload, Move.source).where(
    *_WINDOW, col(Move.source).in_(FOR_IT), col(Move.type).in_(KINDS),
    Move.seq < bindparam("before"), Move.seq > func.coalesce(_OWN, 0)).order_by(col(Move.seq))


def _told(s: Session, game_id: int, seat: int, email: str) -> int:
    """The move the newest turn or news mail to the seat that went out was written at (its
    key ends with it); a row settled without a mail of its own does not count."""
    key = s.exec(select(Outbox.dedupe_key).where(
        Outbox.game_id == game_id, Outbox.to_addr == email,
        col(Outbox.sent_at).is_not(None), col(Outbox.last_error).is_(None),
        or_(col(Outbox.dedupe_key).startswith(f"turn:{game_id}:{seat}:"),
            col(Outbox.dedupe_key).startswith(f"news:{game_id}:{seat}:")))
        .order_by(col(Outbox.id).desc()).limit(1)).first()
    tail = key.rsplit(":", 1)[-1] if key else ""
    return int(tail) if tail.isascii() and tail.isdigit() else 0
