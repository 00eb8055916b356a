"""Asking an address's owner before acting for it (docs/design.md: an address is trusted
only once it has clicked a link mailed to it). The request travels in the link, signed with
a purpose of its own; the same request mails at most one link a day; opening the link shows
the request and a button (mail scanners fetch links and must change nothing), and only the
button acts. League entries, new games and new leagues are asked for this way."""

import hashlib
import json
from collections.abc import Callable
from typing import Any

from sqlmodel import select

from .config import Settings, load
from .i18n import LANGUAGES, _, current
from .signing import Signer, secret_keys
from .store.models import Outbox, Player
from .store.models import now as utcnow
from .store.states import Store

LINK_DAYS = 14  # how long a mailed confirmation link works
MAX_LINK = 2000  # characters of a link's key: what every mail client keeps whole


class LinkError(ValueError):
    """The link cannot be made or does not work: the message says why."""


def ask(store: Store, to: str, purpose: str, data: dict[str, Any], path: str, subject: str,
        text: Callable[[str], str], cfg: Settings | None = None) -> bool:
    """Mail `to` the link `{base_url}{path}{signed data}`; `text(link)` is the mail's body.
    The same request (address, purpose, data) mails once a day at most; True if it mailed
    now. LinkError if the data is more than a link carries."""
    cfg = cfg or load()
    token = Signer(secret_keys(cfg), purpose).dumps(data)
    if len(token) > MAX_LINK:
        raise LinkError(_("that is more than a confirmation link can carry: use fewer or "
                          "shorter addresses and options"))
    same = hashlib.sha256(json.dumps([to, data], sort_keys=True).encode()).hexdigest()[:24]
    key = f"{purpose}:{same}:{utcnow().date().isoformat()}"  # at most 200 characters
    return bool(mail_once(store, to, subject, text(f"{cfg.base_url}{path}{token}"), key))


def reader_language(store: Store, to: str) -> str:
    """The language a link is mailed to `to` in: the language its player chose, if the
    address is a player's who did; else the asker's (the page's they filled in)."""
    with store.reader() as s:
        player = s.exec(select(Player).where(Player.email == to)).first()
    chosen = (player.prefs or {}).get("lang") if player is not None else None
    return chosen if chosen in LANGUAGES else current()


def read(token: str, purpose: str, cfg: Settings | None = None) -> dict[str, Any]:
    """The data of a link `ask` mailed for `purpose` (with `n`, the link's own id), or
    LinkError saying why not."""
    cfg = cfg or load()
    try:
        return Signer(secret_keys(cfg), purpose).loads(token, max_age=LINK_DAYS * 86400)
    except ValueError as e:
        raise LinkError(str(e)) from None


def mail_once(store: Store, to: str, subject: str, text: str, key: str) -> int:
    """Queue one mail under `key`, never twice; 1 if it was queued now."""
    with store.session() as s:
        if s.exec(select(Outbox.id).where(Outbox.dedupe_key == key)).first():
            return 0
        s.add(Outbox(to_addr=to, subject=subject, body_text=text,
                     headers={"Auto-Submitted": "auto-generated",  # in the context's words
                              "Content-Language": current()}, dedupe_key=key))
        s.commit()
    return 1
