"""Posting the pushes pbem.store.push queued: each to its browser's push service, encrypted
for it (RFC 8291, aes128gcm) and signed with the site's VAPID key (RFC 8292), by pywebpush.

    send_due(store, cfg, now=None, limit=BATCH) -> pushes delivered

A push says which game waits and what it asks ("Game 12: your bid", "your card"), and links
to the seat's table: never a card (the payload is encrypted, but we write it as if anyone
could read it). A push whose turns have all passed (the game moved on) is settled unsent;
in the player's quiet hours it waits for their end. The service's 404 or 410 drops the
subscription; any other failure is tried again with backoff, up to MAX_ATTEMPTS. Pushes
run in a thread of their own (pbem.serve): a slow push service never holds a mail back.
"""

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

import requests
from pywebpush import WebPushException, webpush
from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from ..config import Settings, load
from ..i18n import _, language, listing
from . import prefs
from .models import Player, PushMessage, PushSubscription, Seat
from .models import now as utcnow
from .outbox import doubling
from .pacing import game_seqs, quiet_end, stale_turn, turn_of
from .push import drop
from .states import Store

log = logging.getLogger(__name__)
BATCH = 50  # pushes a round claims
LEASE = timedelta(minutes=2)  # a claimed push is another round's again after this
TIMEOUT = 10.0  # seconds a push service has to answer
TTL = 24 * 3600  # seconds a push service keeps a push for a phone that is off
MAX_ATTEMPTS = 8  # then it is given up (the mail went anyway)
MAX_BACKOFF = timedelta(hours=1)
GONE = (404, 410)  # the subscription expired or was revoked (RFC 8030 §7.3)
SETTLED = "settled: "
KEEP = timedelta(days=30)  # a settled push's row, then pruned (its mail's resend is long over)


@dataclass
class Job:
    msg: PushMessage
    sub: PushSubscription
    player: Player


def backoff(attempts: int) -> timedelta:
    return doubling(attempts, timedelta(seconds=30), MAX_BACKOFF)


def send_due(store: Store, cfg: Settings | None = None, now: datetime | None = None,
             limit: int = BATCH) -> int:
    """Post the due pushes (up to `limit`); how many the push services took."""
    cfg = cfg or load()
    now = now or utcnow()
    done = 0
    jobs = _claim(store, now, limit)
    for job in jobs:
        done += _one(store, cfg, job, now)
    if jobs:  # rows come only with pushes: pruning with them bounds the table
        with store.engine.begin() as c:
            c.execute(delete(PushMessage).where(col(PushMessage.sent_at) < now - KEEP))
    return done


def _claim(store: Store, now: datetime, limit: int) -> list[Job]:
    """The due pushes, each taken by a compare-and-set on its next_attempt (two senders
    never post one push twice within the lease)."""
    with store.reader() as s:
        rows = s.exec(select(PushMessage, PushSubscription, Player)
                      .join(PushSubscription,
                            col(PushSubscription.id) == PushMessage.subscription_id)
                      .join(Player, col(Player.id) == PushSubscription.player_id)
                      .where(col(PushMessage.sent_at).is_(None),
                             col(PushMessage.next_attempt) <= now)
                      .order_by(col(PushMessage.next_attempt), col(PushMessage.id))
                      .limit(min(max(limit, 1), BATCH * 10))).all()
    jobs = []
    for msg, sub, player in rows:
        with store.engine.begin() as c:
            if c.execute(update(PushMessage).where(
                    col(PushMessage.id) == msg.id, col(PushMessage.sent_at).is_(None),
                    col(PushMessage.next_attempt) == msg.next_attempt).values(
                    next_attempt=now + LEASE)).rowcount == 1:
                jobs.append(Job(msg, sub, player))
    return jobs


def _one(store: Store, cfg: Settings, job: Job, now: datetime) -> int:
    end = quiet_end(job.player, now)
    if end is not None:  # as the mail would wait (a retry may fall in them)
        _mark(store, job.msg, next_attempt=end)
        return 0
    payload = _payload(store, cfg, job)
    if payload is None:
        _mark(store, job.msg, sent_at=now, last_error=SETTLED + "the game moved on")
        return 0
    error, status = _post(cfg, job.sub, payload)
    if error is None:
        _mark(store, job.msg, sent_at=now, last_error=None, attempts=job.msg.attempts + 1)
        return 1
    log.info("push %s for player %s: %s", job.msg.id, job.player.id, error[:80])
    if status in GONE:
        drop(store, job.sub.id or 0)
        return 0
    attempts = job.msg.attempts + 1
    if attempts >= MAX_ATTEMPTS:
        _mark(store, job.msg, sent_at=now, attempts=attempts,
              last_error=(SETTLED + "gave up: " + error)[:200])
    else:
        _mark(store, job.msg, attempts=attempts, next_attempt=now + backoff(attempts),
              last_error=error[:200])
    with store.engine.begin() as c:
        c.execute(update(PushSubscription).where(col(PushSubscription.id) == job.sub.id)
                  .values(last_error=error[:200]))
    return 0


def _mark(store: Store, msg: PushMessage, **values: object) -> None:
    with store.engine.begin() as c:
        c.execute(update(PushMessage).where(col(PushMessage.id) == msg.id,
                                            col(PushMessage.sent_at).is_(None)).values(**values))


def _post(cfg: Settings, sub: PushSubscription, payload: dict) -> tuple[str | None, int | None]:
    """(None, status) when the push service took it, else (why, its status if it answered).
    No redirect is followed: the endpoint we checked is the only host we post to."""
    session = requests.Session()
    session.max_redirects = 0
    try:
        response = webpush({"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh,
                                                               "auth": sub.auth}},
                           json.dumps(payload), vapid_private_key=str(cfg.vapid_key),
                           vapid_claims={"sub": cfg.vapid_sub}, timeout=TIMEOUT, ttl=TTL,
                           requests_session=session)
    except WebPushException as e:
        status = e.response.status_code if e.response is not None else None
        return f"the push service answered {status}", status
    except Exception as e:  # a network error, a missing key: tried again, never raised
        return f"{type(e).__name__}", None
    finally:
        session.close()
    return None, getattr(response, "status_code", None)


def _payload(store: Store, cfg: Settings, job: Job) -> dict | None:
    """What the notification says, in the player's language: the games still waiting on
    the turns of its mail and what each asks; None when none still waits."""
    turns = [t for t in (turn_of(k) for k in job.msg.turns) if t is not None]
    with store.reader() as s:
        seqs = game_seqs(s, {g for g, _, _ in turns})
        tokens = _tokens(s, turns, job.player.id or 0)
        live = [t for t in turns if not stale_turn(t, seqs) and (t[0], t[1]) in tokens]
        if not live:
            return None
        asks = _asks(store, s, live)
    with language(prefs.language(job.player)):
        if len(live) == 1:
            (game, seat, _seq), = live
            return {"title": cfg.from_name, "tag": f"pbem-game-{game}",
                    "body": _("Game %(game)s: %(what)s") % {"game": game, "what": asks[game]},
                    "url": f"{cfg.base_url}/t/{tokens[(game, seat)]}"}
        games = sorted({g for g, _, _ in live})
        return {"title": cfg.from_name, "tag": "pbem-games",
                "body": _("Games %(games)s: your turn") % {
                    "games": listing([str(g) for g in games])},
                "url": f"{cfg.base_url}/home"}


def _tokens(s: Session, turns: list[tuple[int, int, int]], player_id: int
            ) -> dict[tuple[int, int], str]:
    """The table links of the turns' seats the player still holds (a seat handed over is
    another's: its link never goes to the one who left)."""
    rows = s.exec(select(Seat.game_id, Seat.seat, Seat.token).where(
        col(Seat.game_id).in_({g for g, _, _ in turns}),
        col(Seat.player_id) == player_id)).all()
    return {(g, seat): token for g, seat, token in rows}


def _asks(store: Store, s: Session, turns: list[tuple[int, int, int]]) -> dict[int, str]:
    """What each game asks its seat, in a word or two: never which cards."""
    out = {}
    states = store.states(s, [g for g, _, _ in turns])
    for g, st in states.items():
        try:
            out[g] = asked(st.phase)
        finally:
            store.keep(g, st)
    return out


def asked(phase: str) -> str:
    return {"bid": _("your bid"), "play": _("your card"), "pass": _("your cards to pass"),
            "draw": _("your draw")}.get(phase, _("your turn"))

