"""The outbox sender: delivers due Outbox rows, retries failures with backoff, never twice.

    drain(store, deliver=maildir_delivery(path), now=None, limit=100) -> count

A drainer claims a batch of due rows in one transaction (an UPDATE that only one drainer's
WHERE still matches) under a short lease that a heartbeat renews (pbem.store.lease), so two
live drainers never send one row, and a dead drainer's rows are due again in seconds. Rows
are delivered several at once (`deliver.workers`: threads, each with its own relay
connection) and marked sent in commits FLUSH_EVERY apart, so a crash resends at most the
mails of those last milliseconds; into the Maildir not even those, as that delivery is
idempotent: the file's name comes from the row's dedupe key.
"""

import email.policy
import hashlib
import os
import secrets
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from datetime import timedelta
from email.headerregistry import Address, HeaderRegistry
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from time import monotonic

from sqlalchemy import func, update
from sqlmodel import select

from ..config import load
from ..signing import secret_keys
from . import dkim_sign, merged, pacing, unsubscribe
from .bounces import return_path
from .lease import BEAT, LEASE, Lease
from .models import Outbox
from .models import now as utcnow
from .wrap import wrap

BATCH = 200  # rows a drain claims at once
MAX_BATCH = 2000
MAX_WORKERS = 64  # deliveries at once, whatever `deliver.workers` says
FLUSH_EVERY = 0.02  # seconds between the commits that mark rows sent
FLUSH_ROWS = 100
MAILDIR_WORKERS = 8
CLAIM_TRIES = 3
MAX_BACKOFF = timedelta(hours=1)
DAILY_CAP = 500  # mails to one address in a day (UTC): far above any real player's


class _Headers(HeaderRegistry):
    """The standard registry, but each header's class made once: the standard one makes a
    new class for every header of every message, a third of the time a mail took."""

    def __init__(self):
        super().__init__()
        self._made = {}

    def __getitem__(self, name):
        made = self._made.get(name.lower())
        if made is None:
            made = super().__getitem__(name)
            if len(self._made) < 200:  # the names we write: a few dozen
                self._made[name.lower()] = made
        return made


POLICY = email.policy.default.clone(header_factory=_Headers())


def key_name(dedupe_key: str) -> str:
    """The Maildir file name (and Message-ID local part) of the row with this key."""
    return "pbem-" + hashlib.sha256(dedupe_key.encode()).hexdigest()[:40]


def message(row: Outbox, domain: str) -> EmailMessage:
    cfg = load()
    msg = EmailMessage(policy=POLICY)
    msg["From"] = Address(cfg.from_name, "play", domain)
    msg["To"] = row.to_addr
    msg["Subject"] = row.subject
    msg["Date"] = format_datetime(utcnow())  # "+0000": the zone is known (RFC 5322)
    msg["Message-ID"] = f"<{key_name(row.dedupe_key)}@{domain}>"
    own = unsubscribe.headers(cfg, domain, row.to_addr, row.dedupe_key)
    for name, value in {**own, **(row.headers or {})}.items():
        del msg[name]
        msg[name] = value
    msg.set_content(wrap(row.body_text))  # lines of 78 columns, whoever wrote the text
    if row.body_html:
        msg.add_alternative(row.body_html, subtype="html")
    return msg


def wire(row: Outbox, domain: str, linesep: str = "\r\n") -> bytes:
    """The message as it leaves us, DKIM-signed when a key is set (pbem.store.dkim_sign)."""
    cfg = load()
    msg = message(row, domain)
    # fold headers only past 998 octets (RFC 5322's limit): a long link in List-Unsubscribe
    # must stay one word, not become an encoded-word no client opens
    data = msg.as_bytes(policy=msg.policy.clone(linesep=linesep, max_line_length=998))
    return dkim_sign.sign(data, domain, cfg.dkim_key, cfg.dkim_selector, linesep)


def maildir_delivery(path=None, domain: str | None = None):
    """A deliver(row) that writes the message into the Maildir at `path`, at most once."""
    cfg = load()
    root, domain = Path(path or cfg.maildir), domain or cfg.mail_domain
    keys = secret_keys(cfg)
    for sub in ("tmp", "new", "cur"):
        (root / sub).mkdir(parents=True, exist_ok=True)

    def deliver(row: Outbox) -> None:
        name = key_name(row.dedupe_key)
        if (root / "new" / name).exists() or any((root / "cur").glob(name + ":*")):
            return  # delivered before (a redo after a crash, or a second drainer)
        tmp = root / "tmp" / f"{name}.{os.getpid()}.{secrets.token_hex(4)}"
        with open(tmp, "wb") as f:
            if row.id is not None:  # where its bounces go, as a delivering MTA writes it
                f.write(f"Return-Path: <{return_path(keys, row, domain)}>\n".encode())
            f.write(wire(row, domain, linesep="\n"))  # a Maildir file's lines end in LF
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, root / "new" / name)  # atomic; fails if the name is taken
        except FileExistsError:
            pass
        finally:
            tmp.unlink()

    deliver.workers = MAILDIR_WORKERS  # the fsyncs of several files overlap
    return deliver


def backoff(attempts: int) -> timedelta:
    return min(timedelta(minutes=1) * 2 ** max(attempts - 1, 0), MAX_BACKOFF)


def drain(store, deliver=None, now=None, limit: int = BATCH, lease: timedelta = LEASE,
          daily_cap: int = DAILY_CAP) -> int:
    """Deliver up to `limit` due, unsent rows; the number of mails delivered. An address
    that had `daily_cap` mails since midnight (UTC) gets the rest the next day. A player's
    own settings (merge, quiet hours, cap: pbem.store.pacing) may hold a row until later,
    settle it without a mail, or send it with the player's other waiting turn mails.

    The batch is claimed in one transaction, under a short lease (pbem.store.lease), and
    delivered by `deliver.workers` threads at once (1 for a plain function); each row is
    marked sent as soon as it is delivered, in commits a few milliseconds apart."""
    deliver = deliver or maildir_delivery()
    now = now or utcnow()
    with Lease(store, now, lease, beat=min(BEAT, lease.total_seconds() / 5)) as claim:
        for _ in range(CLAIM_TRIES):  # another drainer claimed these first: the next ones
            rows, today, pacer = _due(store, now, min(max(limit, 1), MAX_BATCH), daily_cap)
            sends, settle = _plan(rows, today, pacer, now, daily_cap)
            with claim.lock, store.engine.begin() as c:
                for row_id, values in settle:
                    c.execute(_update(row_id, now).values(**values))
                got = claim.claim_in(c, [row.id for row, _ in sends], now) if sends else set()
            if got or not sends:
                break
        try:
            return _deliver_all(store, deliver, claim, [x for x in sends if x[0].id in got],
                                now)
        finally:
            if hasattr(deliver, "close"):
                deliver.close()  # a relay's connections: one set a drain


def _due(store, now, limit: int, daily_cap: int):
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    with store.reader() as s:
        rows = s.exec(select(Outbox).where(Outbox.sent_at.is_(None), Outbox.next_attempt <= now)
                      .order_by(Outbox.next_attempt, Outbox.id).limit(limit)).all()
        today = Counter(dict(s.exec(
            select(Outbox.to_addr, func.count()).where(
                Outbox.to_addr.in_({r.to_addr for r in rows}), Outbox.sent_at >= midnight,
                Outbox.last_error.is_(None))
            .group_by(Outbox.to_addr)).all()))
        pacer = pacing.Pacer(s, rows, now)
    return rows, today, pacer


def _plan(rows, today, pacer, now, daily_cap: int):
    """([(row, merge)] to send, [(row id, values)] to settle now), decided in order: a
    row's send counts towards the caps of the rows after it."""
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    sends, settle, merging = [], [], set()
    for row in rows:
        if row.to_addr in merging and pacing.is_paced_row(row):
            continue  # the mail before it takes it in, else the next drain sends it
        if today[row.to_addr] >= daily_cap:  # a flood or a loop: tomorrow, never dropped
            settle.append((row.id, dict(next_attempt=midnight + timedelta(days=1))))
            continue
        plan = pacer.decide(row)
        if isinstance(plan, pacing.Hold):  # out of the way until then: no one waits on it
            settle.append((row.id, dict(next_attempt=plan.until)))
        elif isinstance(plan, pacing.Skip):
            settle.append((row.id, dict(sent_at=now, last_error=pacing.SETTLED + plan.why)))
        else:
            today[row.to_addr] += 1
            pacer.sent(row)
            if plan.merge:
                merging.add(row.to_addr)
            sends.append((row, plan.merge))
    return sends, settle


def _deliver_all(store, deliver, claim, sends, now) -> int:
    """Deliver the claimed rows, `workers` at a time; the marks go in small commits."""
    workers = min(max(int(getattr(deliver, "workers", 1)), 1), MAX_WORKERS)
    marks = Marks(store, claim, now)
    jobs = (_job(store, claim, row, merge, now) for row, merge in sends)
    if workers == 1:
        for job in jobs:
            t0 = monotonic()
            marks.add(_run(deliver, claim, job))
            marks.flush_due(slow=monotonic() - t0 >= FLUSH_EVERY)  # the next is slow too
        return marks.flush()
    with ThreadPoolExecutor(workers, thread_name_prefix="outbox") as pool:
        out = set()
        for job in jobs:
            while len(out) >= 2 * workers:  # a bounded window: claims stay fresh
                out = _collect(out, marks)
            out.add(pool.submit(_run, deliver, claim, job))
        while out:
            out = _collect(out, marks)
    return marks.flush()


def _collect(out, marks):
    done, out = wait(out, timeout=FLUSH_EVERY, return_when=FIRST_COMPLETED)
    for f in done:
        marks.add(f.result())
    marks.flush_due()
    return out


def _job(store, claim, row, merge: bool, now):
    """(row, the mail to deliver, rows merged into it, rows it settles, rows the mail
    shows): with the player's
    other waiting turn and news mails if `merge`, each claimed under this lease."""
    if not merge:
        return row, row, [], [], [row]
    with claim.lock:
        taken, gone = pacing.take_waiting(store, row, now, claim.until)
        claim.held |= {r.id for r in taken}
    settled = [(r.id, dict(sent_at=now, last_error=pacing.SETTLED
                           + "the game moved on before it went out")) for r in gone]
    shown = merged.pick([row, *taken]) if taken else [row]
    mail = merged.mail(row, shown) if len(shown) > 1 else shown[0]
    return row, mail, taken, settled, shown


def _run(deliver, claim, job):
    """Deliver one job: (job, None) when delivered, (job, error), or None when the lease
    no longer covers it (another drainer may have it by now: leave it alone)."""
    row = job[0]
    if not claim.holds(row.id):
        return job, LOST
    try:
        deliver(job[1])
    except Exception as e:
        return job, f"{type(e).__name__}: {e}"[:1000]
    return job, None


LOST = object()


class Marks:
    """Rows' outcomes, written in one transaction every FLUSH_EVERY seconds (or FLUSH_ROWS
    rows): a crash resends only the mails of the last few milliseconds."""

    def __init__(self, store, claim, now):
        self.store, self.claim, self.now = store, claim, now
        self.todo, self.ids, self.first, self.sent = [], [], None, 0

    def add(self, result) -> None:
        job, error = result
        row, mail, taken, settled, shown = job
        self.todo += settled
        self.ids += [row.id, *(r.id for r in taken)]
        if self.first is None:
            self.first = monotonic()
        if error is LOST:
            return
        if error is not None:
            retry = self.now + backoff(row.attempts + 1)
            self.todo.append((row.id, dict(last_error=error, next_attempt=retry)))
            # the merged rows go back to waiting, to be merged again
            self.todo += [(r.id, dict(attempts=0, next_attempt=retry)) for r in taken]
            return
        self.sent += 1
        own = mail if any(mail is r for r in shown) else row  # its mail (the cap counts one)
        for r in [x for x in [row, *taken] if x is not own]:
            note = (f"in one mail with {own.dedupe_key}" if any(r is x for x in shown)
                    else "a newer mail of its game went instead")
            self.todo.append((r.id, dict(sent_at=self.now, last_error=pacing.SETTLED
                                         + note[:900])))
        self.todo.append((own.id, dict(sent_at=self.now, last_error=None)))

    def flush_due(self, slow: bool = False) -> None:
        if self.first is not None and (slow or len(self.ids) >= FLUSH_ROWS
                                       or monotonic() - self.first >= FLUSH_EVERY):
            self.flush()

    def flush(self) -> int:
        with self.claim.lock:  # no renewal between the commit and the release
            if self.todo:
                with self.store.engine.begin() as c:
                    for row_id, values in self.todo:
                        c.execute(_update(row_id).values(**values))
            self.claim.held -= set(self.ids)
        self.todo, self.ids, self.first = [], [], None
        return self.sent


def _update(row_id: int, due=None):
    """An update of the row if it is still unsent (and, given `due`, due by then)."""
    where = [Outbox.id == row_id, Outbox.sent_at.is_(None)]
    if due is not None:
        where.append(Outbox.next_attempt <= due)
    return update(Outbox).where(*where)
