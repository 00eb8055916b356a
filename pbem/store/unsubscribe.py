"""One-click unsubscribe (RFC 8058) and List-* headers on a game's or a league's news.

Only news carries them (`is_news`: NEWS, the kinds by their dedupe key's first word, and
the answer to a seat's mail). A mail that answers what its reader did or asked (a sign-in
link, a confirmation, an invitation, the answer at their account address, a bounce
notice, their exported data) has none: it is not a list, and one click there would stop
all our mail when the reader only wanted that one mail not to come. A kind not in NEWS
goes without, so a new kind of mail is never a list by accident (docs/mail.md lists both).

Each news mail's `List-Unsubscribe` offers a signed https link (a POST of
`List-Unsubscribe=One-Click` does it; a GET only asks) and a mailto with the account command
that does the same. What it stops depends on the mail: news of each trick becomes a daily
digest, a mail a turn becomes one list a day, and any other mail stops all our mail until
the player writes `mail on` to their account address (its mailto goes there too, where the
outbox knows it: a mail to plain pbem@ acts on nothing)."""

from collections.abc import Sequence
from typing import Any

from sqlmodel import select

from ..config import Settings
from ..i18n import N_
from ..signing import UNSUBSCRIBE, Signer, secret_keys, signer
from .models import Outbox, Player
from .states import Store

# the kind of mail (its dedupe key's first word): the pref that stops it, and its words
# (marked: the page that shows them translates them)
KINDS = {"news": ("notify", "digest", N_("news of every trick and hand")),
         "turn": ("turns", "daily", N_("a mail for every turn"))}
ALL = ("mail", "off", N_("all mail from us"))
# a game's news, then a league's: what the reader may stop and still play
NEWS = frozenset({"turn", "news", "over", "digest", "handover", "remind", "timeout", "care",
                  "extra", "order", "ruling", "vacation",
                  "bye", "season-over", "message", "paused", "resumed", "stale", "short"})
LINK_DAYS = 365


def kind_of(dedupe_key: str) -> str:
    kind = dedupe_key.split(":", 1)[0]
    return kind if kind in KINDS else "all"


def stops(kind: str) -> tuple[str, str, str]:
    """(pref, value, what stops) for a kind of mail."""
    return KINDS.get(kind, ALL)


def is_news(row: Outbox) -> bool:
    """Does the mail carry List-* headers: a game's or a league's news (a merged mail: as
    its first), or the answer to a seat's mail (the table and its moves, often the turn
    mail itself)? Not an answer at an account or organiser address, nor at plain pbem@."""
    kind = row.dedupe_key.split(":", 1)[0]
    return kind in NEWS or (kind == "reply" and row.game_id is not None)


def headers(cfg: Settings, domain: str, to_addr: str, dedupe_key: str,
            keys: Sequence[str] | None = None, mailto: str | None = None) -> dict[str, str]:
    """The List-* headers (for a mail that `is_news`); `keys`: the signing keys, when the
    caller has them at hand; `mailto`: the player's account address (else plain pbem@)."""
    kind = kind_of(dedupe_key)
    pref, value, _ = stops(kind)
    token = signer(tuple(keys or secret_keys(cfg)), UNSUBSCRIBE).dumps({"e": to_addr, "k": kind})
    out = {"List-Id": f"Spades by email <games.{domain}>",
           "List-Unsubscribe": f"<{cfg.base_url}/u/{token}>, "
                               f"<mailto:{mailto or f'pbem@{domain}'}?subject={pref}%20{value}>"}
    if cfg.base_url.lower().startswith("https://"):  # RFC 8058: one-click is https only
        out["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return out


def read(cfg: Settings, token: str) -> dict[str, Any]:
    """The link's {e: address, k: kind}, or ValueError saying why not."""
    return Signer(secret_keys(cfg), UNSUBSCRIBE).loads(token, max_age=LINK_DAYS * 86400)


def apply(store: Store, email: str, kind: str) -> str:
    """Stop that kind of mail for the player at `email`; returns what stopped."""
    pref, value, what = stops(kind)
    with store.session() as s:
        player = s.exec(select(Player).where(Player.email == email).with_for_update()).first()
        if player is not None:
            player.prefs = dict(player.prefs or {}, **{pref: value})
            s.add(player)
            s.commit()
    return what
