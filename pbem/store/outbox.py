"""The outbox sender: delivers due Outbox rows, retries failures with backoff, at least once.

    drain(store, deliver=maildir_delivery(path), now=None, limit=100) -> count

A drainer claims a batch of due rows in one transaction (an UPDATE that only one drainer's
WHERE still matches) under a lease that a heartbeat renews (pbem.store.lease) and that
outlasts the longest one delivery may take (`deliver.longest`: a relay's timeout), so two
live drainers never send one row, nor does a drainer that lost the database while its mails
are at the relay and another that took its rows over. Rows are delivered several at once
(`deliver.workers`: threads, each with its own relay connection) and marked sent in commits
FLUSH_EVERY (or FLUSH_ROWS) apart, made by the drain's own thread while the workers send on
(one connection too), so a crash resends the mails in flight: the one on each connection,
and those answered since the last commit. A mail sent again has its Message-ID (the row's
own, or made from its dedupe key). Into the Maildir not even those, as that delivery is
idempotent: the file's name comes from the row's dedupe key.
"""

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from email.headerregistry import Address
from email.utils import format_datetime
from functools import partial
from pathlib import Path
from queue import Empty, SimpleQueue
from time import monotonic, perf_counter, sleep
from typing import Any

from sqlalchemy import Update, func, update
from sqlalchemy.exc import DBAPIError
from sqlmodel import col, select

from .. import logs
from ..config import Settings, load
from ..signing import secret_keys
from . import accounts, dkim_sign, merged, mime, pacing, push, unsubscribe
from .lease import BEAT, LEASE, Lease, chunks
from .maildir import MaildirDelivery, key_name
from .models import Outbox
from .models import now as utcnow
from .states import Store
from .text_html import html_of
from .wrap import wrap

log = logging.getLogger(__name__)
BATCH = 500  # rows a drain claims at once: fewer claims, syncs and commits in a burst
MAX_BATCH = 2000
MAX_WORKERS = 64  # deliveries at once, whatever `deliver.workers` says
WINDOW = 32  # mails queued for the workers beyond those in their hands: none waits for a mark
FLUSH_EVERY = 0.02  # seconds between the commits that mark rows sent
FLUSH_ROWS = 32  # and at most this many: with the in-flight, what a crash resends
# a delivery made durable in batches (the Maildir's `sync`) is idempotent: a crash redoes
# nothing it wrote, so its batches may be longer, each sync serving more mails
SYNC_EVERY, SYNC_ROWS = 0.25, 200
CLAIM_TRIES = 3
MAX_BACKOFF = timedelta(hours=1)
DAILY_CAP = 500  # mails to one address in a day (UTC): far above any real player's

Deliver = Callable[[Outbox], None]  # a function, or an object with workers, longest...
Settle = tuple[int, dict[str, Any]]  # a row's id and the values it is given
# (the row, the mail to deliver, rows merged into it, rows it settles, rows the mail shows)
Job = tuple[Outbox, Outbox, list[Outbox], list[Settle], list[Outbox]]
Result = tuple[Job, object]  # and None (delivered), an error's text, or LOST


def headers(row: Outbox, domain: str, cfg: Settings | None = None,
            keys: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """The row's headers in order: ours (List-* on news only: pbem.store.unsubscribe),
    then the row's own (each replacing ours)."""
    cfg = cfg or load()
    out = {"from": ("From", str(Address(cfg.from_name, "play", domain))),
           "to": ("To", row.to_addr), "subject": ("Subject", row.subject),
           # "+0000": the zone is known (RFC 5322)
           "date": ("Date", format_datetime(utcnow())),
           "message-id": ("Message-ID", f"<{key_name(row.dedupe_key)}@{domain}>")}
    theirs = dict(row.headers or {})
    account = theirs.pop(accounts.HEADER, None)  # the footer's address: never on the wire
    theirs.pop(mime.ATTACHMENT, None)  # the file, which `wire` attaches
    own = unsubscribe.headers(cfg, domain, row.to_addr, row.dedupe_key, keys, account
                              ) if unsubscribe.is_news(row) else {}
    for name, value in [*own.items(), *theirs.items()]:
        out.pop(name.lower(), None)  # a replaced header goes last, as the row wrote it
        out[name.lower()] = (name, value)
    return list(out.values())


def wire(row: Outbox, domain: str, linesep: str = "\r\n", cfg: Settings | None = None,
         keys: Sequence[str] | None = None) -> bytes:
    """The message as it leaves us, DKIM-signed when a key is set (pbem.store.dkim_sign);
    the text's lines are 78 columns at most, whoever wrote it; a text-only row gets an
    HTML part made from its text (as written, not wrapped: a browser wraps it). A delivery
    passes the settings it read once, and the keys it read for this mail (a mail that
    read the settings again spent most of its cost there). Every octet 7-bit, so no hop
    converts what was signed (pbem.store.mime)."""
    cfg = cfg or load()
    data = mime.write(headers(row, domain, cfg, keys), wrap(row.body_text),
                      row.body_html or html_of(row.body_text), linesep,
                      (row.headers or {}).get(mime.ATTACHMENT))
    return dkim_sign.sign(data, domain, cfg.dkim_key, cfg.dkim_selector, linesep)


def maildir_delivery(path: str | Path | None = None, domain: str | None = None,
                     cfg: Settings | None = None) -> MaildirDelivery:
    """A deliver(row) that writes the message into the Maildir at `path`, at most once
    (pbem.store.maildir); each mail signs with the keys as they are then (a stat a mail:
    a rotated key file signs the next one)."""
    cfg = cfg or load()
    return MaildirDelivery(Path(path or cfg.maildir), domain or cfg.mail_domain,
                           partial(secret_keys, cfg), partial(wire, cfg=cfg))


def backoff(attempts: int) -> timedelta:
    return doubling(attempts, timedelta(minutes=1), MAX_BACKOFF)


def doubling(attempts: int, first: timedelta, most: timedelta) -> timedelta:
    """The wait before the next try after `attempts` failed ones: `first`, doubled each
    time, at most `most` (the mail's, the pushes' and the webhooks' retries)."""
    return min(first * 2 ** max(attempts - 1, 0), most)


def drain(store: Store, deliver: Deliver | None = None, now: datetime | None = None,
          limit: int = BATCH, lease: timedelta = LEASE, daily_cap: int = DAILY_CAP) -> int:
    """Deliver up to `limit` due, unsent rows; the number of mails delivered. An address
    that had `daily_cap` mails since midnight (UTC) gets the rest the next day. A player's
    own settings (merge, quiet hours, cap: pbem.store.pacing) may hold a row until later,
    settle it without a mail, or send it with the player's other waiting turn mails.

    The batch is claimed in one transaction, under a lease (pbem.store.lease) that outlasts
    the longest delivery (`deliver.longest`, seconds) by `lease`, and
    delivered by `deliver.workers` threads at once (1 for a plain function); each row is
    marked sent as soon as it is delivered, in commits a few milliseconds apart."""
    deliver = deliver or maildir_delivery()
    now = now or utcnow()
    longest = float(getattr(deliver, "longest", 0.0))  # a relay's timeout: the lease outlasts it
    with Lease(store, now, lease, beat=min(BEAT, lease.total_seconds() / 5),
               longest=longest) as claim:
        for _ in range(CLAIM_TRIES):  # another drainer claimed these first: the next ones
            rows, today, pacer, footers = _due(
                store, now, min(max(limit, 1), MAX_BATCH), daily_cap,
                getattr(deliver, "domain", None) or load().mail_domain)
            sends, settle = _plan(rows, today, pacer, now, daily_cap)
            with claim.lock, store.engine.begin() as c:
                for row_id, values in settle:
                    c.execute(_update(row_id, now).values(**values))
                got = claim.claim_in(c, [_id(row) for row, _ in sends], now) if sends else set()
            if got or not sends:
                break
        try:
            return _deliver_all(store, deliver, claim, [x for x in sends if x[0].id in got],
                                now, footers)
        finally:
            if hasattr(deliver, "close"):
                deliver.close()  # a relay's connections: one set a drain


def any_due(store: Store, now: datetime | None = None) -> bool:
    """Is a mail due? One indexed read, never the write lock: the sender's idle look."""
    with store.reader() as s:
        return s.exec(select(Outbox.id).where(
            col(Outbox.sent_at).is_(None), col(Outbox.next_attempt) <= (now or utcnow()))
            .limit(1)).first() is not None


def _due(store: Store, now: datetime, limit: int, daily_cap: int, domain: str
         ) -> tuple[list[Outbox], Counter[str], pacing.Pacer, dict[str, accounts.Footer]]:
    """The due rows, the mails each address had today, the pacer, and each player's
    footer (their addresses)."""
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    with store.reader() as s:
        rows = list(s.exec(select(Outbox).where(
            col(Outbox.sent_at).is_(None), col(Outbox.next_attempt) <= now)
            .order_by(col(Outbox.next_attempt), col(Outbox.id)).limit(limit)).all())
        today: Counter[str] = Counter(dict(s.exec(
            select(Outbox.to_addr, func.count()).where(
                col(Outbox.to_addr).in_({r.to_addr for r in rows}),
                col(Outbox.sent_at) >= midnight, col(Outbox.last_error).is_(None))
            .group_by(col(Outbox.to_addr))).all()))
        pacer = pacing.Pacer(s, rows, now)
        footers = accounts.footers(s, pacer.players, domain)
    return rows, today, pacer, footers


def _plan(rows: list[Outbox], today: Counter[str], pacer: pacing.Pacer, now: datetime,
          daily_cap: int) -> tuple[list[tuple[Outbox, bool]], list[Settle]]:
    """([(row, merge)] to send, [(row id, values)] to settle now), decided in order: a
    row's send counts towards the caps of the rows after it."""
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    sends: list[tuple[Outbox, bool]] = []
    settle: list[Settle] = []
    merging: set[str] = set()
    for row in rows:
        if row.to_addr in merging and pacing.is_paced_row(row):
            continue  # the mail before it takes it in, else the next drain sends it
        if today[row.to_addr] >= daily_cap:  # a flood or a loop: tomorrow, never dropped
            settle.append((_id(row), dict(next_attempt=midnight + timedelta(days=1))))
            continue
        plan = pacer.decide(row)
        if isinstance(plan, pacing.Hold):  # out of the way until then: no one waits on it
            settle.append((_id(row), dict(next_attempt=plan.until)))
        elif isinstance(plan, pacing.Skip):
            settle.append((_id(row), dict(sent_at=now, last_error=pacing.SETTLED + plan.why)))
        else:
            today[row.to_addr] += 1
            pacer.sent(row)
            if plan.merge:
                merging.add(row.to_addr)
            sends.append((row, plan.merge))
    return sends, settle


def _deliver_all(store: Store, deliver: Deliver, claim: Lease,
                 sends: list[tuple[Outbox, bool]], now: datetime,
                 footers: dict[str, accounts.Footer]) -> int:
    """Deliver the claimed rows, `workers` at a time; the marks go in small commits. A
    player's mail leaves with their footer (`footers`, by address: pbem.store.accounts)."""
    workers = min(max(int(getattr(deliver, "workers", 1)), 1), MAX_WORKERS)
    threads = hasattr(deliver, "workers")  # a plain function's mails go in this thread
    sync = None
    if isinstance(deliver, MaildirDelivery):  # a batch's mails staged, made durable at once
        sync, deliver = deliver.sync, deliver.stage  # before the marks
    marks = Marks(store, claim, now, sync)
    jobs = (_footed(_job(store, claim, row, merge, now), footers) for row, merge in sends)
    if not threads:
        for job in jobs:
            t0 = monotonic()
            marks.add(_run(deliver, claim, job))
            marks.flush_due(slow=monotonic() - t0 >= marks.every)  # the next is slow too
        return marks.finish()
    # the marks commit in this thread while the workers send: one connection never waits
    # on a commit; results come back through a queue, a mail's cost whatever the window
    results: SimpleQueue[Result] = SimpleQueue()
    with ThreadPoolExecutor(workers, thread_name_prefix="outbox") as pool:
        out = 0
        for job in jobs:
            while out >= WINDOW + workers:  # a bounded window: claims stay fresh
                out -= _collect(results, marks)
            pool.submit(_send, results, deliver, claim, job)
            out += 1
        while out:
            out -= _collect(results, marks)
    return marks.finish()


def _send(results: SimpleQueue[Result], deliver: Deliver, claim: Lease, job: Job) -> None:
    result: Result = (job, "the delivery did not finish")  # whatever happens, a result comes back
    try:
        result = _run(deliver, claim, job)
    finally:
        results.put(result)


def _collect(results: SimpleQueue[Result], marks: "Marks") -> int:
    """Take the results in within FLUSH_EVERY, write the marks when due; how many came."""
    got: list[Result] = []
    try:
        got.append(results.get(timeout=FLUSH_EVERY))
        while True:
            got.append(results.get_nowait())
    except Empty:
        pass
    for result in got:
        marks.add(result)
    marks.flush_due()
    return len(got)


def _job(store: Store, claim: Lease, row: Outbox, merge: bool, now: datetime) -> Job:
    """(row, the mail to deliver, rows merged into it, rows it settles, rows the mail
    shows): with the player's
    other waiting turn and news mails if `merge`, each claimed under this lease."""
    if not merge:
        return row, row, [], [], [row]
    with claim.lock:
        taken, gone = pacing.take_waiting(store, row, now, claim.until)
        claim.held |= {_id(r) for r in taken}
    settled: list[Settle] = [(_id(r), dict(sent_at=now, last_error=pacing.SETTLED
                           + "the game moved on before it went out")) for r in gone]
    shown = merged.pick([row, *taken]) if taken else [row]
    mail = merged.mail(row, shown) if len(shown) > 1 else shown[0]
    return row, mail, taken, settled, shown


def _footed(job: Job, footers: dict[str, accounts.Footer]) -> Job:
    row, mail, taken, settled, shown = job
    return row, accounts.footed(mail, footers.get(row.to_addr)), taken, settled, shown


def _run(deliver: Deliver, claim: Lease, job: Job) -> Result:
    """Deliver one job: (job, None) when delivered, (job, error), or None when the lease
    no longer covers it (another drainer may have it by now: leave it alone)."""
    row = job[0]
    if not claim.holds(_id(row)):
        return job, LOST
    started = perf_counter()
    try:
        deliver(job[1])
    except Exception as e:
        logs.mail_out(row.id, row.game_id, row.to_addr, _answer(e),
                      logs.ms_since(started))
        return job, f"{type(e).__name__}: {e}"[:1000]
    logs.mail_out(row.id, row.game_id, row.to_addr,
                  "250" if hasattr(deliver, "host") else "stored", logs.ms_since(started))
    return job, None


def _answer(e: Exception) -> str:
    """The relay's answer code to a mail it refused (never its text: it may name the
    address), else the failure's type."""
    code = getattr(e, "smtp_code", None)
    if code is None and isinstance(getattr(e, "recipients", None), dict):
        code = next(iter(e.recipients.values()), (None,))[0]  # type: ignore[attr-defined]
    return str(code) if code is not None else type(e).__name__


LOST = object()


def _id(row: Outbox) -> int:
    assert row.id is not None  # a row read from the table
    return row.id


class Marks:
    """Rows' outcomes, written in one transaction every FLUSH_EVERY seconds (or FLUSH_ROWS
    rows): a crash resends only the mails of the last few milliseconds. A delivery with a
    `sync` (the Maildir's) has its staged mails made durable first; a mail it could not
    put in place fails there, and is retried as any failed delivery.

    While the database is away, the marks wait (tried again every lease beat, the rows
    kept in the lease), and the drain's end waits for them as long as the lease lasts: an
    outage shorter than that sends no mail twice."""

    def __init__(self, store: Store, claim: Lease, now: datetime,
                 sync: Callable[[], dict[str, str]] | None = None):
        self.store, self.claim, self.now, self.sync = store, claim, now, sync
        self.every, self.rows = (FLUSH_EVERY, FLUSH_ROWS) if sync is None else (
            SYNC_EVERY, SYNC_ROWS)
        self.results: list[Result] = []
        self.todo: list[Settle] = []
        self.ids: list[int] = []
        self.first: float | None = None
        self.sent = 0
        self.failed: dict[str, str] = {}  # the sync's failures by name, until their result
        self.pushes: list[push.Sent] = []  # turn mails sent: their pushes, in the same commit
        self.retry = float("-inf")  # no try before this (monotonic): the database is away

    def add(self, result: Result) -> None:
        job = result[0]
        self.results.append(result)
        ids = [_id(job[0]), *(_id(r) for r in job[2])]
        if result[1] is LOST:  # never started: let the lease on it run out now
            with self.claim.lock:
                self.claim.held -= set(ids)
        self.ids += ids
        if self.first is None:
            self.first = monotonic()

    def _outcome(self, job: Job, error: object) -> None:
        row, mail, taken, settled, shown = job
        self.todo += settled
        if error is LOST:
            return
        if error is None and self.failed:
            error = self.failed.pop(key_name(mail.dedupe_key), None)
        if error is not None:
            retry = self.now + backoff(row.attempts + 1)
            self.todo.append((_id(row), dict(last_error=error, next_attempt=retry)))
            # the merged rows go back to waiting, to be merged again
            self.todo += [(_id(r), dict(attempts=0, next_attempt=retry)) for r in taken]
            return
        self.sent += 1
        own = mail if any(mail is r for r in shown) else row  # its mail (the cap counts one)
        for r in [x for x in [row, *taken] if x is not own]:
            note = (f"in one mail with {own.dedupe_key}" if any(r is x for x in shown)
                    else "a newer mail of its game went instead")
            self.todo.append((_id(r), dict(sent_at=self.now, last_error=pacing.SETTLED
                                         + note[:900])))
        self.todo.append((_id(own), dict(sent_at=self.now, last_error=None)))
        turns = tuple(r.dedupe_key for r in shown if pacing.turn_of(r.dedupe_key))
        if turns:
            self.pushes.append(push.Sent(row.to_addr, row.dedupe_key, turns))

    def flush_due(self, slow: bool = False) -> None:
        if self.first is not None and monotonic() >= self.retry and (
                slow or len(self.ids) >= self.rows or monotonic() - self.first >= self.every):
            try:
                self.flush()
            except DBAPIError as e:  # kept for a try a beat later
                log.warning("outbox marks wait for the database (%s)", type(e).__name__)
                self.retry = monotonic() + self.claim.beat

    def finish(self) -> int:
        """The last marks written; while the database is away, tried again every beat
        until the lease runs out (then its error: those rows will be sent again)."""
        while True:
            try:
                return self.flush()
            except DBAPIError as e:
                if self.claim.until - self.claim.clock() <= timedelta(0):
                    raise
                log.warning("outbox marks wait for the database (%s)", type(e).__name__)
                sleep(self.claim.beat)

    def flush(self) -> int:
        """The marks so far in one commit; the database's error raised, the marks kept."""
        if self.sync is not None and self.results:
            self.failed.update(self.sync())  # the mails on disk before their rows say sent
        for job, error in self.results:
            self._outcome(job, error)
        self.results = []
        with self.claim.lock:  # no renewal between the commit and the release
            if self.todo:
                with self.store.engine.begin() as c:
                    for ids, values in _grouped(self.todo):
                        for part in chunks(ids):
                            c.execute(_update(part).values(**values))
                    push.queue(c, self.pushes, self.now)
            self.claim.held -= set(self.ids)
        self.todo, self.ids, self.first, self.pushes = [], [], None, []
        return self.sent


def _grouped(todo: list[Settle]) -> list[tuple[list[int], dict[str, Any]]]:
    """[(ids, values)]: the rows given the same values (most often: sent, no error) in one
    statement. A row's updates in order come to the same as one statement each did: each
    applies while the row is unsent (an update setting sent_at ends them)."""
    rows: dict[int, dict[str, Any]] = {}
    for row_id, values in todo:
        got = rows.setdefault(row_id, {})
        if "sent_at" not in got:
            got.update(values)
    groups: dict[tuple[tuple[str, Any], ...], tuple[dict[str, Any], list[int]]] = {}
    for row_id, values in rows.items():
        key = tuple(sorted(values.items()))
        groups.setdefault(key, (values, []))[1].append(row_id)
    return [(ids, values) for values, ids in groups.values()]


def _update(row_id: int | list[int], due: datetime | None = None) -> Update:
    """An update of the row (or rows, given a list of ids) if still unsent (and, given
    `due`, due by then)."""
    match = col(Outbox.id).in_(row_id) if isinstance(row_id, list) else col(Outbox.id) == row_id
    where = [match, col(Outbox.sent_at).is_(None)]
    if due is not None:
        where.append(col(Outbox.next_attempt) <= due)
    return update(Outbox).where(*where)
