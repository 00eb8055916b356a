"""Outbound mail through an SMTP relay, over connections kept open for a whole drain.

    deliver = Relay("smtp://user:pass@host:587", domain, keys)   # smtps://...:465 too
    deliver(row)        # from any of `deliver.workers` threads, each its own connection
    deliver.close()     # the drain's end: QUIT on every connection

A connection that failed (dropped, timed out) is closed, and the thread's next mail opens a
new one; the row that failed goes back with its own backoff (pbem.store.outbox), never sent
again at once: the relay may have taken it before the line dropped. Several connections let
a slow relay (0.4 s a mail) take a backlog in parallel; a fast one is kept as busy by the
same few. Where the relay offers PIPELINING, a mail's MAIL, RCPT and DATA go in one write
(pbem.store.pipelining).
"""

import smtplib
import ssl
import threading
from urllib.parse import unquote, urlparse

from ..config import load
from ..signing import secret_keys
from .bounces import return_path
from .outbox import wire
from .pipelining import send

CONNECTIONS = 16  # at once; a relay's limit per client is usually far higher
MAX_CONNECTIONS = 64
TIMEOUT = 30  # seconds a relay may take to answer one command


class Relay:
    def __init__(self, url: str, domain: str, keys: list[str] | None = None,
                 connections: int = CONNECTIONS, cfg=None):
        """`keys`: fixed signing keys; None reads them at each mail (pbem.signing's
        cached reader), so a rotated key file signs the next mail."""
        u = urlparse(url)
        if u.scheme not in ("smtp", "smtps"):
            raise ValueError(f"PBEM_SMTP_URL must start smtp:// or smtps://, not {u.scheme}://")
        self.url, self.domain, self.keys, self.cfg = u, domain, keys, cfg or load()
        self.host = u.hostname or "localhost"
        self.port = u.port or (465 if u.scheme == "smtps" else 587)
        self.workers = min(max(int(connections), 1), MAX_CONNECTIONS)
        self._local = threading.local()
        self._open: set = set()
        self._lock = threading.Lock()

    def _connect(self) -> smtplib.SMTP:
        u = self.url
        if u.scheme == "smtps":
            conn = smtplib.SMTP_SSL(self.host, self.port, context=ssl.create_default_context(),
                                    timeout=TIMEOUT)
        else:
            conn = smtplib.SMTP(self.host, self.port, timeout=TIMEOUT)
        conn.ehlo_or_helo_if_needed()  # what the relay offers is known after EHLO only
        if u.scheme == "smtp" and conn.has_extn("starttls"):
            conn.starttls(context=ssl.create_default_context())
            conn.ehlo()  # offers change under TLS (RFC 3207)
        if u.username:
            conn.login(unquote(u.username), unquote(u.password or ""))
        with self._lock:
            self._open.add(conn)
        return conn

    def _drop(self, conn) -> None:
        with self._lock:
            self._open.discard(conn)
        try:
            conn.close()
        except OSError:
            pass

    def __call__(self, row) -> None:
        """Hand `row` to the relay; the envelope sender is the row's own bounce address
        (store.bounces), so bounces say which mail failed."""
        sender = f"play@{self.domain}"  # a row never stored (a test's) has no bounce address
        keys = self.keys or secret_keys(self.cfg)
        if row.id is not None:
            sender = return_path(keys, row, self.domain)
        data = wire(row, self.domain, cfg=self.cfg, keys=keys)
        conn = getattr(self._local, "conn", None)
        if conn is None or conn not in self._open:
            conn = self._local.conn = self._connect()
        try:
            send(conn, sender, row.to_addr, data)
        except smtplib.SMTPResponseException as e:
            if e.smtp_code in (421, -1):  # the relay is closing this connection
                self._drop(conn)
            raise
        except smtplib.SMTPRecipientsRefused:
            if conn.sock is None:  # a 421 at RCPT: smtplib closed it; the next mail opens one
                self._drop(conn)
            raise  # else this row's address: the connection is fine (smtplib sent RSET)
        except Exception:
            self._drop(conn)
            raise

    def close(self) -> None:
        with self._lock:
            conns, self._open = list(self._open), set()
        for conn in conns:
            try:
                conn.quit()
            except Exception:  # already gone: nothing to tell it
                conn.close()
