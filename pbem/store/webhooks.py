"""League webhooks' queue and sender (issue 35; docs/leagues.md, "Webhooks").

    queue(s, league_id, news)          # in the news's own transaction: a row a webhook
    drain(store, now=None) -> posted   # `pbem serve`'s sender thread, and `pbem outbox`

A piece of news is a dict (the plain JSON body, docs/design.md: "Webhook posts"), queued as
one `webhook_post` row for each of the league's webhooks in the same transaction as the news
itself (its mails, its result), so it is posted if and only if the news was written. A
drainer claims one row at a time (an UPDATE only one drainer's WHERE still matches, setting
its next try past the longest a post may take: a drainer that dies mid-post leaves the row
due again then), posts it, and marks it. A 2xx is done; a 429 waits its Retry-After; a 5xx,
a timeout or no answer waits longer each time (backoff) and gives up after MAX_ATTEMPTS; any
other answer (a 4xx: the webhook is gone or wrong) gives up after MAX_REFUSED, and the
webhook's row says so for the organiser's page. Each post carries its row's `key` as a
delivery id (header, and `id` in the plain body), so a receiver can drop the one repeat a
crash between the post and its mark can make."""

import json
import logging
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from time import perf_counter, sleep
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlmodel import Session, col, select

from .. import logs
from ..config import Settings, load
from .models import Webhook, WebhookPost
from .models import now as utcnow
from .outbox import doubling
from .states import Store
from .webhook_http import Answer, Request, Unsafe, post

log = logging.getLogger(__name__)
KINDS = ("discord", "slack", "matrix", "json")
BATCH = 50  # posts a drain makes at most
MAX_ATTEMPTS = 20  # a failing receiver: about a day of tries, then the post is given up
MAX_REFUSED = 3  # a 4xx (not 429): tried this often, then given up
MAX_BACKOFF = timedelta(hours=1)
SPARE = timedelta(seconds=30)  # a claim outlasts the longest post by this much
MAX_TEXT = 1900  # characters of the text a post carries (Discord takes 2000)
HEADER = "X-Pbem-Delivery"

Send = Callable[[Request], Answer]


def queue(s: Session, league_id: int, news: dict[str, Any]) -> int:
    """One post of `news` (which has its `id`: the news's own key) for each of the league's
    webhooks, in the caller's transaction; the number queued. The same news twice (a redo)
    queues nothing more."""
    hooks = [x for x in s.exec(select(Webhook.id).where(Webhook.league_id == league_id)).all()
             if x is not None]
    keys = [f"{news['id']}:{hook}" for hook in hooks]
    if not keys:
        return 0
    there = set(s.exec(select(WebhookPost.key).where(col(WebhookPost.key).in_(keys))).all())
    news = dict(news, text=str(news.get("text", ""))[:MAX_TEXT])
    rows = [WebhookPost(webhook_id=hook, key=key, news=dict(news, id=key))
            for hook, key in zip(hooks, keys, strict=True) if key not in there]
    s.add_all(rows)
    return len(rows)


def body(kind: str, news: dict[str, Any]) -> dict[str, Any]:
    """What a post of `news` sends to a webhook of `kind`: Discord's {"content"}, Slack's
    and Matrix's (a hookshot generic webhook) {"text"}, else the news itself."""
    text = str(news.get("text", ""))[:MAX_TEXT]
    if kind == "discord":
        return {"content": text, "allowed_mentions": {"parse": []}}  # no @everyone
    if kind in ("slack", "matrix"):
        return {"text": text}
    return news


def any_due(store: Store, now: datetime | None = None) -> bool:
    with store.reader() as s:
        return s.exec(select(WebhookPost.id).where(
            WebhookPost.state == "queued", col(WebhookPost.next_attempt) <= (now or utcnow()))
            .limit(1)).first() is not None


def drain(store: Store, now: datetime | None = None, limit: int = BATCH,
          send: Send = post, cfg: Settings | None = None) -> int:
    """Post up to `limit` due rows, oldest first; the number posted (2xx). A webhook that
    failed is tried no more this drain: its other posts wait for the next."""
    cfg = cfg or load()
    now = now or utcnow()
    with store.reader() as s:
        due = s.exec(select(WebhookPost, Webhook).join(
            Webhook, col(Webhook.id) == WebhookPost.webhook_id).where(
            WebhookPost.state == "queued", col(WebhookPost.next_attempt) <= now)
            .order_by(col(WebhookPost.next_attempt), col(WebhookPost.id))
            .limit(max(1, min(limit, BATCH)))).all()
    failing: set[int] = set()
    posted = 0
    for row, hook in due:
        if hook.id in failing:
            continue
        until = _claim(store, row, now, cfg)
        if until is None:
            continue  # another drainer has it
        ok = _post(store, row, hook, until, now, send, cfg)
        posted += ok
        if not ok:
            failing.add(_id(hook))
    return posted


def _claim(store: Store, row: WebhookPost, now: datetime, cfg: Settings) -> datetime | None:
    """The row is ours until the returned time (a value only we write), or None."""
    until = now + timedelta(seconds=cfg.webhook_timeout) + SPARE + timedelta(
        microseconds=1 + secrets.randbelow(10**6))
    with store.engine.begin() as c:
        got = c.execute(update(WebhookPost).where(
            col(WebhookPost.id) == row.id, col(WebhookPost.state) == "queued",
            col(WebhookPost.next_attempt) <= now).values(
            next_attempt=until, attempts=col(WebhookPost.attempts) + 1)).rowcount
    return until if got == 1 else None


def _post(store: Store, row: WebhookPost, hook: Webhook, until: datetime, now: datetime,
          send: Send, cfg: Settings) -> bool:
    started = perf_counter()
    data = json.dumps(body(hook.kind, row.news), ensure_ascii=False).encode()
    req = Request(hook.url, data, {HEADER: row.key, "Idempotency-Key": row.key},
                  float(cfg.webhook_timeout), cfg.webhook_loopback)
    try:
        got = send(req)
        answer: Answer | None = got
        error = None if 200 <= got.status < 300 else f"HTTP {got.status}"
    except (OSError, Unsafe) as e:  # no answer: never the URL, only what kind of failure
        answer, error = None, _failure(e)
    said, ms = error or f"HTTP {answer.status if answer else '-'}", logs.ms_since(started)
    logs.event("webhook.out", f"webhook post {row.id} ({hook.kind}, hook {hook.id}): {said} "
               f"({ms} ms)", row=row.id, hook=hook.id, kind=hook.kind, answer=said, ms=ms)
    _mark(store, row, hook, until, _outcome(row, answer, error, now))
    return error is None


def _failure(e: Exception) -> str:
    if isinstance(e, Unsafe):
        return f"refused: {e}"[:200]
    return "no answer in time" if isinstance(e, TimeoutError) else f"no answer ({type(e).__name__})"


def _outcome(row: WebhookPost, answer: Answer | None, error: str | None,
             now: datetime) -> dict[str, Any]:
    """The row's new values: sent, failed (given up), or queued for its next try."""
    if error is None:
        return dict(state="sent", sent_at=now, last_error=None)
    tries = row.attempts + 1
    status = answer.status if answer else 0
    transient = answer is None or status == 429 or status >= 500
    if tries >= (MAX_ATTEMPTS if transient else MAX_REFUSED):
        return dict(state="failed", last_error=error)
    wait = backoff(tries)
    if answer is not None and answer.retry_after is not None and status in (429, 503):
        wait = timedelta(seconds=answer.retry_after)
    return dict(last_error=error, next_attempt=now + wait)


def backoff(tries: int) -> timedelta:
    return doubling(tries, timedelta(seconds=30), MAX_BACKOFF)


def _mark(store: Store, row: WebhookPost, hook: Webhook, until: datetime,
          values: dict[str, Any]) -> None:
    """Write the outcome while the claim is ours; while the database is away, try again
    until the claim runs out (then the row is posted again: its delivery id says so)."""
    while True:
        try:
            with store.engine.begin() as c:
                c.execute(update(WebhookPost).where(
                    col(WebhookPost.id) == row.id, col(WebhookPost.next_attempt) == until)
                    .values(**values))
                if values.get("last_error"):
                    c.execute(update(Webhook).where(col(Webhook.id) == hook.id).values(
                        last_error=values["last_error"], last_error_at=utcnow(),
                        failed=col(Webhook.failed) + int(values.get("state") == "failed")))
            return
        except (OperationalError, InterfaceError) as e:  # away; a bug raises at once
            if utcnow() >= until - SPARE / 2:
                raise
            log.warning("webhook marks wait for the database (%s)", type(e).__name__)
            sleep(1.0)


def _id(hook: Webhook) -> int:
    assert hook.id is not None  # read from the table
    return hook.id
