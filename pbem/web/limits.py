"""How much mail the web sends for anyone (issue 12). Every request that makes the site
mail someone (a new game's or league's confirmation link, the invitations and the organiser's
mail once confirmed, a join's link and its welcome, a sign-in link) is checked first and
counted after: at most PER_CLIENT mails an hour caused by one client address and PER_ADDRESS
mails an hour to one mailbox (pbem.store.mail_limits, which a mailed `join` obeys too). A
sign-in request counts even for an address that gets no mail, so the limit says nothing of
who plays here. Past either, the answer is 429 and nothing is done.

The counts live in the database (pbem.store.models.WebMail), not in a process's memory:
several gunicorn workers, or a restart, see the same counts. Two requests at the same
moment may both pass the check (a mail or two over, never a flood). The client is
request.remote_addr: behind a proxy, set werkzeug's ProxyFix so that it is the visitor's
address; an IPv6 client counts by its /64, which one host may hold whole."""

import ipaddress

from flask import request
from werkzeug.exceptions import TooManyRequests

from ..store import mail_limits
from ..store.mail_limits import PER_ADDRESS, PER_CLIENT, WINDOW
from . import data

__all__ = ["PER_ADDRESS", "PER_CLIENT", "TOO_MANY", "WINDOW", "check", "client", "record"]
TOO_MANY = ("This site has sent as much mail as it may for now, from here or to that address:"
            " try again in an hour. Nothing was sent or changed.")  # says neither which


def client() -> str:
    try:
        ip = ipaddress.ip_address(request.remote_addr or "")
    except ValueError:
        return "unknown"
    if ip.version == 6 and ip.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(getattr(ip, "ipv4_mapped", None) or ip)


def check(to: list[str]) -> None:
    """Refuse with 429 if mailing `to` (checked addresses) now would pass a limit."""
    with data.store().reader() as s:
        over = mail_limits.over(s, client(), to)
    if over:
        raise TooManyRequests(TOO_MANY, retry_after=int(WINDOW.total_seconds()))


def record(to: list[str]) -> None:
    """Count the mails a request caused (and forget those older than the window)."""
    with data.store().session() as s:
        mail_limits.count(s, client(), to)
        s.commit()
