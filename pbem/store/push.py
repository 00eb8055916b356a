"""Web push (issue 35): the browsers' subscriptions of a player, the site's VAPID key, and
the pushes a turn mail owes them. Mail stays first: a push is queued only when the outbox
marks a turn mail sent (pbem.store.outbox.Marks), in the same commit, so push follows the
player's quiet hours, cap and merge window exactly as the mail does (pbem.store.pacing); a
turn mail settled unsent (the game moved on, the player stopped it) pushes nothing.
pbem.store.push_send posts them.

    subscribe(store, player_id, Subscription(endpoint, p256dh, auth), cfg)  # or PushRefused
    unsubscribe(store, player_id, endpoint=None) -> count   # None: every one of the player's

A subscription is bounded: an https endpoint at one of the push services the site allows
(PBEM_PUSH_HOSTS; http://127.0.0.1 only with PBEM_PUSH_LOOPBACK, for tests), at most
MAX_ENDPOINT characters, a browser key that is a point on P-256 and a 16-byte auth secret;
at most MAX_SUBSCRIPTIONS a player (a new one replaces the oldest)."""

import base64
import binascii
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import Connection, delete, insert
from sqlmodel import Session, col, select

from ..config import Settings
from ..i18n import _
from .models import Player, PushMessage, PushSubscription
from .states import Store

MAX_SUBSCRIPTIONS = 5  # a player's browsers: a phone, a tablet, a few computers
MAX_ENDPOINT = 600  # characters: the services' endpoints are 150-300
POINT_BYTES = 65  # an uncompressed P-256 point (RFC 8291 §3.1)
AUTH_BYTES = 16  # the auth secret (RFC 8291 §3.2)


class PushRefused(ValueError):
    """A subscription we do not take: the message says why, in the player's words."""


@dataclass(frozen=True)
class Subscription:
    endpoint: str
    p256dh: str
    auth: str


# -- the site's key ------------------------------------------------------------------------


def keygen(path: Path) -> bool:
    """Make the site's VAPID key (P-256, PEM, private to its owner) unless it exists; True
    if it made one. A new key strands every browser subscribed with the old one."""
    if path.exists():
        return False
    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    return True


_public: dict[Path, tuple[float, str]] = {}  # path -> (mtime, key): read once a change


def public_key(path: Path) -> str:
    """The key a page hands the browser (applicationServerKey: the point, base64url), or
    '' when the site has none (no push offered)."""
    try:
        stamp = path.stat().st_mtime
    except OSError:
        return ""
    got = _public.get(path)
    if got is None or got[0] != stamp:
        key = serialization.load_pem_private_key(path.read_bytes(), None)
        assert isinstance(key, ec.EllipticCurvePrivateKey)  # keygen's
        point = key.public_key().public_bytes(serialization.Encoding.X962,
                                              serialization.PublicFormat.UncompressedPoint)
        got = _public[path] = (stamp, b64(point))
    return got[1]


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unb64(text: str, size: int) -> bytes | None:
    """`text` as base64url of exactly `size` bytes, else None."""
    if len(text) > 2 * size or not text.isascii():
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == size else None


# -- checks --------------------------------------------------------------------------------


def check(sub: Subscription, cfg: Settings) -> None:
    """PushRefused unless `sub` is one a browser gives for a push service we allow."""
    if not sub.endpoint or len(sub.endpoint) > MAX_ENDPOINT or not (
            sub.endpoint.isascii() and sub.endpoint.isprintable()) or " " in sub.endpoint:
        raise PushRefused(_("That is not a push address a browser gives."))
    if not allowed(sub.endpoint, cfg):
        raise PushRefused(_("That push service is not one this site sends to."))
    point = unb64(sub.p256dh, POINT_BYTES)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point or b"")
    except ValueError:
        raise PushRefused(_("That browser key is not one push can encrypt to.")) from None
    if unb64(sub.auth, AUTH_BYTES) is None:
        raise PushRefused(_("That browser key is not one push can encrypt to."))


def allowed(endpoint: str, cfg: Settings) -> bool:
    """An https endpoint on the default port at a host of PBEM_PUSH_HOSTS (or a loopback
    one over http, for tests): never a user, an address or a port of the caller's choice,
    so a subscription cannot point our posts at another host."""
    try:
        u = urlsplit(endpoint)
        port = u.port
    except ValueError:
        return False
    host = (u.hostname or "").lower()
    if u.username is not None or u.password is not None:
        return False
    if cfg.push_loopback and u.scheme == "http" and host == "127.0.0.1":
        return True
    return u.scheme == "https" and port in (None, 443) and any(
        host == h or host.endswith("." + h) for h in cfg.push_hosts)


# -- subscriptions -------------------------------------------------------------------------


def subscribe(store: Store, player_id: int, sub: Subscription, cfg: Settings) -> None:
    """Keep the browser's subscription for the player (checked first: PushRefused); the
    same endpoint again takes the new keys (and the player signed in now); past
    MAX_SUBSCRIPTIONS the oldest goes."""
    check(sub, cfg)
    with store.session() as s:
        row = s.exec(select(PushSubscription).where(
            PushSubscription.endpoint == sub.endpoint)).first()
        if row is not None and row.player_id != player_id:
            _drop(s, [_id(row)])  # another player's browser before: theirs no more
            row = None
        if row is None:
            row = PushSubscription(player_id=player_id, endpoint=sub.endpoint,
                                   p256dh=sub.p256dh, auth=sub.auth)
        row.p256dh, row.auth, row.last_error = sub.p256dh, sub.auth, None
        s.add(row)
        s.flush()
        ids = list(s.exec(select(PushSubscription.id).where(
            PushSubscription.player_id == player_id)
            .order_by(col(PushSubscription.created).desc(), col(PushSubscription.id).desc())))
        _drop(s, [i for i in ids[MAX_SUBSCRIPTIONS:] if i is not None])
        s.commit()


def unsubscribe(store: Store, player_id: int, endpoint: str | None = None) -> int:
    """Drop the player's subscription at `endpoint` (None: all of theirs); how many."""
    with store.session() as s:
        where = [col(PushSubscription.player_id) == player_id]
        if endpoint is not None:
            where.append(col(PushSubscription.endpoint) == endpoint[:MAX_ENDPOINT])
        ids = [i for i in s.exec(select(PushSubscription.id).where(*where)) if i is not None]
        _drop(s, ids)
        s.commit()
    return len(ids)


def count(store: Store, player_id: int) -> int:
    with store.reader() as s:
        return len(s.exec(select(PushSubscription.id).where(
            PushSubscription.player_id == player_id)).all())


def of_player(s: Session, player_id: int) -> list[dict]:
    """The player's subscriptions for their export: the push service's address, when, and
    the last failure (not the browser's keys: its secret, of no use to read)."""
    return [{"endpoint": r.endpoint, "created": r.created.isoformat(),
             "last_error": r.last_error} for r in s.exec(
        select(PushSubscription).where(PushSubscription.player_id == player_id)
        .order_by(col(PushSubscription.id)))]


def forget(s: Session, player_id: int) -> None:
    """A forgotten player's subscriptions and their pushes, gone (in the caller's commit)."""
    _drop(s, [i for i in s.exec(select(PushSubscription.id).where(
        PushSubscription.player_id == player_id)) if i is not None])


def drop(store: Store, subscription_id: int) -> None:
    """A subscription the push service says is gone (404, 410), with its pushes."""
    with store.session() as s:
        _drop(s, [subscription_id])
        s.commit()


def _drop(s: Session, ids: list[int]) -> None:
    if ids:
        s.exec(delete(PushMessage).where(col(PushMessage.subscription_id).in_(ids)))
        s.exec(delete(PushSubscription).where(col(PushSubscription.id).in_(ids)))


def _id(row: PushSubscription) -> int:
    assert row.id is not None  # a stored row
    return row.id


# -- what the outbox owes ------------------------------------------------------------------


@dataclass(frozen=True)
class Sent:
    """A turn mail that went out: to whom, its outbox key, the turn keys it showed."""
    to_addr: str
    mail: str
    turns: tuple[str, ...]


def queue(c: Connection, sent: list[Sent], now: datetime) -> int:
    """In the outbox's commit that marks the mails sent: a push for each subscription of
    each mail's player (none twice: a mail sent again after a crash owes nothing more).
    One read when no one of them subscribed; how many were queued."""
    if not sent:
        return 0
    subs = c.execute(select(PushSubscription.id, Player.email)
                     .join(Player, col(Player.id) == PushSubscription.player_id)
                     .where(col(Player.email).in_({x.to_addr for x in sent}))).all()
    if not subs:
        return 0
    have = set(c.execute(select(PushMessage.subscription_id, PushMessage.mail).where(
        col(PushMessage.subscription_id).in_([i for i, _ in subs]),
        col(PushMessage.mail).in_([x.mail for x in sent]))).all())
    rows = [dict(subscription_id=i, mail=x.mail, turns=list(x.turns), attempts=0,
                 next_attempt=now, created=now)
            for x in sent for i, email in subs
            if email == x.to_addr and (i, x.mail) not in have]
    if rows:
        c.execute(insert(PushMessage), rows)
    return len(rows)
