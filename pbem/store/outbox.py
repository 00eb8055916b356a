"""The outbox sender: delivers due Outbox rows, retries failures with backoff, never twice.

    drain(store, deliver=maildir_delivery(path), now=None, limit=100) -> count

A drainer claims a row before delivering it (an UPDATE that only one drainer's WHERE still
matches), so two drainers do not send one row at once. A crash between delivery and marking
the row sent leaves the claim to expire; the redo then delivers nothing new, because the
Maildir delivery is idempotent: the file's name comes from the row's dedupe key.
"""

import hashlib
import os
import secrets
from collections import Counter
from datetime import timedelta
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

from sqlalchemy import func, update
from sqlmodel import select

from ..config import load
from ..signing import secret_keys
from . import dkim_sign, merged, pacing, unsubscribe
from .bounces import return_path
from .models import Outbox
from .models import now as utcnow
from .wrap import wrap

LEASE = timedelta(minutes=10)  # a claimed row is retried after this if its drainer died
MAX_BACKOFF = timedelta(hours=1)
DAILY_CAP = 500  # mails to one address in a day (UTC): far above any real player's


def key_name(dedupe_key: str) -> str:
    """The Maildir file name (and Message-ID local part) of the row with this key."""
    return "pbem-" + hashlib.sha256(dedupe_key.encode()).hexdigest()[:40]


def message(row: Outbox, domain: str) -> EmailMessage:
    cfg = load()
    msg = EmailMessage()
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

    return deliver


def backoff(attempts: int) -> timedelta:
    return min(timedelta(minutes=1) * 2 ** max(attempts - 1, 0), MAX_BACKOFF)


def drain(store, deliver=None, now=None, limit: int = 100, lease: timedelta = LEASE,
          daily_cap: int = DAILY_CAP) -> int:
    """Deliver up to `limit` due, unsent rows; the number of mails delivered. An address
    that had `daily_cap` mails since midnight (UTC) gets the rest the next day. A player's
    own settings (merge, quiet hours, cap: pbem.store.pacing) may hold a row until later,
    settle it without a mail, or send it with the player's other waiting turn mails."""
    deliver = deliver or maildir_delivery()
    now = now or utcnow()
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
    sent = 0
    for row in rows:
        if today[row.to_addr] >= daily_cap:  # a flood or a loop: tomorrow, never dropped
            _set(store, row.id, now, next_attempt=midnight + timedelta(days=1))
            continue
        plan = pacer.decide(row)
        if isinstance(plan, pacing.Hold):  # out of the way until then: no one waits on it
            _set(store, row.id, now, next_attempt=plan.until)
            continue
        if isinstance(plan, pacing.Skip):
            _set(store, row.id, now, sent_at=now, last_error=pacing.SETTLED + plan.why)
            continue
        if not _set(store, row.id, now, attempts=Outbox.attempts + 1, next_attempt=now + lease):
            continue  # another drainer claimed it, or sent it, first
        today[row.to_addr] += 1
        if _send(store, deliver, row, plan.merge, now, lease):
            pacer.sent(row)
            sent += 1
    return sent


def _send(store, deliver, row, merge: bool, now, lease) -> bool:
    """Deliver a claimed row, with the player's other waiting mails if `merge`."""
    taken, gone = pacing.take_waiting(store, row, now, lease) if merge else ([], [])
    for r in gone:
        _set(store, r.id, None, sent_at=now, last_error=pacing.SETTLED
             + "the game moved on before it went out")
    shown = merged.pick([row, *taken]) if taken else [row]
    mail = merged.mail(row, shown) if len(shown) > 1 else shown[0]
    try:
        deliver(mail)
    except Exception as e:
        _set(store, row.id, None, last_error=f"{type(e).__name__}: {e}"[:1000],
             next_attempt=now + backoff(row.attempts + 1))
        for r in taken:  # back to waiting, to be merged again
            _set(store, r.id, None, attempts=0, next_attempt=now + backoff(row.attempts + 1))
        return False
    own = mail if any(mail is r for r in shown) else row  # its mail (the cap counts one)
    for r in [x for x in [row, *taken] if x is not own]:
        note = (f"in one mail with {own.dedupe_key}" if any(r is x for x in shown)
                else "a newer mail of its game went instead")
        _set(store, r.id, None, sent_at=now, last_error=pacing.SETTLED + note[:900])
    _set(store, own.id, None, sent_at=now, last_error=None)
    return True


def _set(store, row_id: int, due, **values) -> bool:
    """Update the row if it is still unsent (and, given `due`, due by then)."""
    where = [Outbox.id == row_id, Outbox.sent_at.is_(None)]
    if due is not None:
        where.append(Outbox.next_attempt <= due)
    with store.engine.begin() as c:
        return c.execute(update(Outbox).where(*where).values(**values)).rowcount == 1
