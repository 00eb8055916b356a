"""`pbem serve`: the web pages, the inbound mail handler, the clock and the outbox sender
in one process (for larger sites: gunicorn on wsgi.py, `pbem smtp`, `pbem clock`, and
`pbem serve --no-web`).

Outbound mail goes through the SMTP relay in PBEM_SMTP_URL (smtp://user:pass@host:587 with
STARTTLS, or smtps://...:465), else into the Maildir under ./var (the default).
"""

import logging
import threading
import time
from urllib.parse import urlparse

from . import gc_tuning
from .clock import scheduler
from .config import SettingError, Settings
from .mail.inbound import controller
from .mail.workers import Workers
from .store import webhooks
from .store.outbox import any_due, drain, maildir_delivery
from .store.push_send import send_due
from .store.relay import CONNECTIONS, Relay

log = logging.getLogger(__name__)
MAX_WAIT = 60.0  # seconds between tries while the database is away
POLL = 0.2  # seconds between the cheap looks for a due mail: a burst starts going at once


def smtp_delivery(url: str, domain: str, keys: list[str] | None = None,
                  connections: int = CONNECTIONS, cfg: Settings | None = None) -> Relay:
    """A deliver(row) that hands the message to the relay at `url` (pbem.store.relay)."""
    return Relay(url, domain, keys, connections, cfg)


def delivery(cfg: Settings):
    """No keys handed over: each mail signs with the key file as it is now (a rotated key
    takes effect without a restart, as on the mail and web paths)."""
    if cfg.smtp_url:
        return smtp_delivery(cfg.smtp_url, cfg.mail_domain, cfg=cfg)
    return maildir_delivery(cfg.maildir, cfg.mail_domain, cfg)


def send_until(stop: threading.Event, store, deliver, every: float,
               poll: float = POLL) -> None:
    """Send the outbox until `stop`: a drain whenever a cheap read (every `poll` s) finds a
    mail due, and at least every `every` seconds (at once again while a drain sends any).
    A lost database (or any other failure) never ends the loop: it is logged, and tried
    again after a longer wait, up to a minute, until it answers again."""
    wait, last, quiet = every, float("-inf"), 0.0
    while not stop.is_set():
        try:
            now = time.monotonic()
            looked = now - last < every  # else the round is due whatever a look says
            if looked and (now < quiet or not any_due(store)):
                wait = every
                stop.wait(min(poll, every))
                continue
            last = now
            sent = drain(store, deliver)
            wait = every
            if sent:
                continue  # a backlog: the next batch at once, not after `every`
            if looked:  # due, yet none went (paced, claimed elsewhere): no spin
                quiet = now + every
        except Exception:
            log.exception("the outbox could not be sent; trying again in %.0f s", wait * 2)
            wait = min(MAX_WAIT, wait * 2)
        stop.wait(min(poll, every) if wait == every else wait)


def push_until(stop: threading.Event, store, cfg: Settings, every: float = 2.0) -> None:
    """Post the due pushes until `stop`, in a thread of their own: a slow push service
    never holds a mail back (pbem.store.push_send). A failure is logged, never the end."""
    while not stop.is_set():
        try:
            if send_due(store, cfg):
                continue  # a backlog: the next batch at once
        except Exception:
            log.exception("the pushes could not be sent; trying again in %.0f s", MAX_WAIT)
            stop.wait(MAX_WAIT)
        stop.wait(every)


def post_until(stop: threading.Event, store, every: float, poll: float = 1.0) -> None:
    """Post the leagues' webhooks until `stop` (pbem.store.webhooks), beside the outbox's
    loop and as it does: a cheap look every `poll` s, a drain whenever a post is due, and a
    lost database (or any failure) logged and tried again after a longer wait. In a thread
    of its own, so a slow receiver never holds up the mail."""
    wait = every
    while not stop.is_set():
        try:
            if webhooks.any_due(store):
                webhooks.drain(store)
            wait = every
        except Exception:
            log.exception("the webhooks could not be posted; trying again in %.0f s", wait * 2)
            wait = min(MAX_WAIT, wait * 2)
        stop.wait(poll if wait == every else wait)


class PortTaken(SettingError):
    """A port we were told to listen on that we cannot have (taken, or not ours to take)."""


def listening(what: str, host: str, port: int, setting: str, start):
    """start(), or PortTaken in one line naming the address and the setting that moves it."""
    try:
        return start()
    except OSError as e:
        why = (e.strerror or str(e)).lower()
        raise PortTaken(f"cannot listen for {what} on {host}:{port}: {why} (another "
                        f"program there? {setting} moves it)") from None


def _start_mail(mail) -> None:
    """mail.start(); when it cannot bind, aiosmtpd leaves its Controller's loop open, and the
    loop's close at exit then prints a traceback after our one-line error: close it here."""
    try:
        mail.start()
    except OSError:
        loop = getattr(mail, "loop", None)  # a Controller's; pbem.mail.workers has none
        if loop is not None and not loop.is_running():
            loop.close()
        raise


def run(store, cfg: Settings, smtp: bool = True, lmtp: bool = False, web: bool = True,
        every: float = 2.0, stop: threading.Event | None = None, echo=print,
        smtp_processes: int = 1) -> None:
    """Serve until `stop` is set (or Ctrl-C): the web pages, receiving mail (here, or in
    `smtp_processes` processes of its own: pbem.mail.workers), and sending the outbox every
    `every` seconds. The clock and the outbox run here only. A port that is taken is
    PortTaken, after what had started is stopped."""
    stop = stop or threading.Event()
    ctl = site = ticker = None
    echo(f"data directory {cfg.var_dir}")
    try:
        if web:
            from .web.app import create_app
            from .web.server import make_server

            app = create_app(cfg, store)
            site = listening("the web", cfg.web_host, cfg.web_port, "PBEM_WEB_PORT",
                             lambda: make_server(cfg.web_host, cfg.web_port, app))
            threading.Thread(target=site.run, daemon=True).start()
            echo(f"web on http://{cfg.web_host}:{cfg.web_port}/ (links use {cfg.base_url})")
        if smtp:
            mail = (Workers(cfg, smtp_processes, lmtp) if smtp_processes > 1 else
                    controller(store, cfg, cfg.smtp_host, cfg.smtp_port, lmtp=lmtp))
            listening("mail", cfg.smtp_host, cfg.smtp_port, "PBEM_SMTP_PORT",
                      lambda: _start_mail(mail))
            ctl = mail  # started: stopped at the end
            many = f" in {smtp_processes} processes" if smtp_processes > 1 else ""
            echo(f"{'LMTP' if lmtp else 'SMTP'} on {cfg.smtp_host}:{cfg.smtp_port}{many}, "
                 f"mail for play+TOKEN@{cfg.mail_domain}, pbem+KEY@{cfg.mail_domain}, "
                 f"organiser+KEY@{cfg.mail_domain} and pbem@{cfg.mail_domain}")
        ticker = scheduler(store)
        ticker.start()
        echo("clock: deadlines checked every 30 s")
        gc_tuning.for_long_running()
        deliver = delivery(cfg)
        echo("outbound mail: " + (f"relay {urlparse(cfg.smtp_url).hostname}" if cfg.smtp_url
                                  else f"Maildir {cfg.maildir}"))
        threading.Thread(target=push_until, args=(stop, store, cfg, every), daemon=True,
                         name="push").start()
        threading.Thread(target=post_until, args=(stop, store, every), daemon=True,
                         name="webhooks").start()
        send_until(stop, store, deliver, every)
    except KeyboardInterrupt:
        pass
    finally:
        _stop(ctl, site, ticker)


def _stop(ctl, site, ticker) -> None:
    """Stop what started, mail first (no new work), then the web and the clock."""
    if ctl is not None:
        ctl.stop()
    if site is not None:
        site.stop()
    if ticker is not None:
        ticker.shutdown(wait=False)
