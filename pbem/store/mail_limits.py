"""The hourly limits on the mail anyone can make us send (issue 12), counted in the
database (WebMail) so that every process sees the same counts: at most PER_CLIENT mails an
hour caused by one client and PER_ADDRESS an hour to one mailbox. The web counts a client
by its IP address (pbem.web.limits); a mailed command by its From address (`sender`),
which anyone can forge, so the mailbox's own limit is what protects it."""

import hashlib
from datetime import timedelta

from sqlalchemy import ColumnElement, delete, func
from sqlmodel import Session, col, select

from .models import WebMail
from .models import now as utcnow

PER_CLIENT = 20  # mails an hour one client may cause
PER_ADDRESS = 5  # mails an hour one mailbox gets
WINDOW = timedelta(hours=1)


def sender(address: str) -> str:
    """A mail's From as a client: a hash (the column is short, and holds no address)."""
    return "mail:" + hashlib.sha256(address.lower().encode()).hexdigest()[:32]


def over(s: Session, client: str, to: list[str]) -> bool:
    """Would mailing `to` (checked addresses) now for `client` pass a limit?"""
    since = utcnow() - WINDOW

    def sent(*where: ColumnElement[bool]) -> int:
        return s.exec(select(func.count(col(WebMail.id))).where(
            col(WebMail.created) >= since, *where)).one()
    return sent(col(WebMail.client) == client) + len(to) > PER_CLIENT or any(
        sent(col(WebMail.to_addr) == addr) + to.count(addr) > PER_ADDRESS for addr in set(to))


def count(s: Session, client: str, to: list[str]) -> None:
    """Count the mails `client` caused, in `s` (the caller commits), and forget those older
    than the window."""
    now = utcnow()
    s.exec(delete(WebMail).where(col(WebMail.created) < now - WINDOW))
    s.add_all(WebMail(client=client, to_addr=addr, created=now) for addr in to)
