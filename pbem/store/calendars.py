"""A player's calendar feed address (issue 35): /cal/TOKEN.ics, TOKEN 256 random bits.
Only its SHA-256 is stored (CalendarFeed.token_hash), so the address is shown once, when
made, and this table does not hold it (the mail that sent it, kept in the outbox as every
mail is, does). A request's token is hashed and the hash looked up, so the time a wrong
token takes tells nothing of the tokens that exist: the lookup compares a digest the asker
cannot steer, not their characters. One feed a player; a new one replaces it and the old
address answers 404, as does a removed one."""

import hashlib
import secrets
from datetime import datetime

from sqlmodel import Session, col, delete, select

from .models import CalendarFeed, now
from .states import Store

TOKEN_BYTES = 32  # 43 URL-safe characters
MAX_TOKEN = 100  # a longer "token" is no one's, and is not even hashed


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def renew(store: Store, player_id: int) -> str:
    """A new feed address's token for the player; any older one stops working."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    with store.session() as s:
        row = s.exec(select(CalendarFeed).where(CalendarFeed.player_id == player_id)).first()
        row = row or CalendarFeed(player_id=player_id, token_hash="")
        row.token_hash, row.created = digest(token), now()
        s.add(row)
        s.commit()
    return token


def remove(store: Store, player_id: int) -> bool:
    """No feed for the player any more; was there one?"""
    with store.session() as s:
        gone = forget(s, player_id)
        s.commit()
    return gone


def forget(s: Session, player_id: int) -> bool:
    """The player's feed removed, in the caller's transaction (pbem.privacy.forget)."""
    had = since(s, player_id) is not None
    s.exec(delete(CalendarFeed).where(col(CalendarFeed.player_id) == player_id))
    return had


def since(s: Session, player_id: int) -> datetime | None:
    """When the player's current feed address was made; None: they have none."""
    return s.exec(select(CalendarFeed.created)
                  .where(CalendarFeed.player_id == player_id)).first()


def owner(store: Store, token: str) -> int | None:
    """The player whose feed `token` opens, or None. Every token that could be one is
    hashed and looked up alike."""
    if len(token) > MAX_TOKEN:
        return None
    rows = store.quick_rows(select(CalendarFeed.player_id)
                            .where(CalendarFeed.token_hash == digest(token)))
    return rows[0][0] if rows else None
