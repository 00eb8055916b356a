"""Bounces: each mail's envelope sender names its own outbox row (VERP), signed, so a bounce
tells us which mail to which address failed, and nobody can bounce a mail we did not send.

    return_path(keys, row, domain) -> "bounce+ROW-MAC@DOMAIN"
    row_for(store, keys, address, domain) -> the Outbox row, or None for anything not ours
    record(store, row, hard, status) -> (what was done, for the log; the player whose mail
                                         stopped with this bounce, or None)
    clear(store, player_id)            mail came from the address: it works again

What we know of an address's bounces sits in its player's prefs ("bounces"); three hard
bounces of three different mails, none more than 30 days after the one before, stop its
mail (`stopped`), until mail comes from it. Soft bounces are counted, never stop mail.
"""

import base64
import hashlib
import hmac
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import select

from .models import Outbox, Player
from .models import now as utcnow
from .states import Store

PREFIX = "bounce+"
HARD_TO_STOP = 3
FORGET = timedelta(days=30)  # a bounce this long after the last one starts the count anew
KEEP_ROWS = 10  # the rows already counted: a second DSN for one mail counts once


def _mac(key: str, row_id: int, to_addr: str) -> str:
    """80 bits of HMAC in lowercase base32, as seat tokens: mail systems may fold case."""
    msg = f"pbem.bounce {row_id} {to_addr.lower()}".encode()
    digest = hmac.new(key.encode(), msg, hashlib.sha256).digest()
    return base64.b32encode(digest[:10]).decode().lower()


def return_path(keys: list[str], row: Outbox, domain: str) -> str:
    """The envelope sender for `row` (36 characters at most before the @, under RFC 5321's
    64); the newest key signs."""
    assert row.id is not None  # a stored row
    return f"{PREFIX}{row.id}-{_mac(keys[-1], row.id, row.to_addr)}@{domain}"


def row_for(store: Store, keys: list[str], address: str, domain: str) -> Outbox | None:
    """The mail a bounce address names, if any of our keys signed it for that mail's
    recipient; None for a forged, garbled or foreign address."""
    local, _, dom = address.lower().rpartition("@")
    if dom != domain.lower() or not local.startswith(PREFIX):
        return None
    rid, _, mac = local[len(PREFIX):].partition("-")
    if not (rid.isascii() and rid.isdigit() and len(rid) <= 12 and len(mac) == 16) \
            or rid != str(int(rid)):  # only the very address we wrote: no "007" for "7"
        return None
    with store.reader() as s:
        row = s.get(Outbox, int(rid))
    if row is None:
        return None
    if not any(hmac.compare_digest(mac, _mac(k, int(rid), row.to_addr)) for k in keys):
        return None
    return row


def bouncing(player: Player | None) -> bool:
    """Has mail to this player's address stopped because it bounces?"""
    return bool(player is not None and _state(player).get("stopped"))


def _state(player: Player) -> dict[str, Any]:
    return dict((player.prefs or {}).get("bounces") or {})


def record(store: Store, row: Outbox, hard: bool, status: str,
           now: datetime | None = None) -> tuple[str, Player | None]:
    """Count a bounce of `row` against its recipient's address."""
    now = now or utcnow()
    with store.session() as s:
        # FOR UPDATE: two bounces at once for one address must both count (PostgreSQL; on
        # SQLite the session's BEGIN IMMEDIATE already serialises them)
        player = s.exec(select(Player).where(Player.email == row.to_addr.lower())
                        .with_for_update()).first()
        if player is None:
            return "bounce: no player has this address", None
        b = _state(player)
        if row.id in b.get("rows", []):
            return "bounce: counted before", None
        last = b.get("last")
        if last and now - datetime.fromisoformat(last) > FORGET and not b.get("stopped"):
            b = {}
        kind = "hard" if hard else "soft"
        b[kind] = b.get(kind, 0) + 1
        b.update(last=now.isoformat(), status=status,
                 rows=(b.get("rows", []) + [row.id])[-KEEP_ROWS:])
        stops = b.get("hard", 0) >= HARD_TO_STOP and not b.get("stopped")
        if stops:
            b["stopped"] = now.isoformat()
        player.prefs = dict(player.prefs or {}, bounces=b)
        s.add(player)
        s.commit()
    said = f"bounce: {kind} {status}" + (", mail stopped" if b.get("stopped") else "")
    return said, player if stops else None


def clear(store: Store, player_id: int) -> None:
    """Mail came from the address, so mail reaches it again: forget its bounces."""
    with store.session() as s:
        player = s.exec(select(Player).where(Player.id == player_id).with_for_update()).first()
        if player is None or "bounces" not in (player.prefs or {}):
            return
        player.prefs = {k: v for k, v in player.prefs.items() if k != "bounces"}
        s.add(player)
        s.commit()
