"""Outbound mail through an SMTP relay, over connections kept open for a whole drain.

    deliver = Relay("smtp://user:pass@host:587", domain, keys)   # smtps://...:465 too
    deliver(row)        # from any of `deliver.workers` threads, each its own connection
    deliver.close()     # the drain's end: QUIT on every connection

A connection that failed (dropped, timed out) is closed, and the thread's next mail opens a
new one; the row that failed goes back with its own backoff (pbem.store.outbox), never sent
again at once: the relay may have taken it before the line dropped. Several connections let
a slow relay (0.4 s a mail) take a backlog in parallel; a fast one is kept as busy by the
same few. Where the relay offers PIPELINING, a mail's MAIL, RCPT and DATA go in one write
(pbem.store.pipelining). Every relay gets the same bytes: 7-bit, a UTF-8 body
quoted-printable, encoded before it is signed (pbem.store.mime), so neither the relay nor a
hop after it has a reason to convert it and break the DKIM signature.

A mail has TIMEOUT seconds from its start: a watchdog cuts (shuts down) the connection of a
mail still going then, whatever step it waits in, so no byte of it goes out later and a
relay that got no final dot drops it. Its `longest` (that, and the watchdog's step) is what
the outbox lease outlasts (pbem.store.lease): another sender never takes a row over while
this one may still be talking to the relay about it.
"""

import smtplib
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from time import monotonic
from urllib.parse import unquote, urlparse

from ..config import Settings, load
from ..signing import secret_keys
from .bounces import return_path
from .models import Outbox
from .outbox import wire
from .pipelining import send

CONNECTIONS = 16  # at once; a relay's limit per client is usually far higher
MAX_CONNECTIONS = 64
TIMEOUT = 30  # seconds a relay may take for one mail (each command, and all of them)


class Relay:
    def __init__(self, url: str, domain: str, keys: list[str] | None = None,
                 connections: int = CONNECTIONS, cfg: Settings | None = None,
                 timeout: float = TIMEOUT):
        """`keys`: fixed signing keys; None reads them at each mail (pbem.signing's
        cached reader), so a rotated key file signs the next mail."""
        u = urlparse(url)
        if u.scheme not in ("smtp", "smtps"):
            raise ValueError(f"PBEM_SMTP_URL must start smtp:// or smtps://, not {u.scheme}://")
        self.url, self.domain, self.keys, self.cfg = u, domain, keys, cfg or load()
        self.host = u.hostname or "localhost"
        self.port = u.port or (465 if u.scheme == "smtps" else 587)
        self.workers = min(max(int(connections), 1), MAX_CONNECTIONS)
        self.timeout = float(timeout)
        self._watch = Watchdog(self.timeout)
        self.longest = self.timeout + self._watch.step  # a mail's most, cut included
        self._local = threading.local()
        self._open: set[smtplib.SMTP] = set()
        self._lock = threading.Lock()

    def _connect(self, due: float) -> smtplib.SMTP:
        """A new connection, its greeting read within the socket timeout; the rest of it
        (EHLO, STARTTLS, login) under the mail's deadline `due`."""
        u = self.url
        conn: smtplib.SMTP
        if u.scheme == "smtps":
            conn = smtplib.SMTP_SSL(self.host, self.port, context=ssl.create_default_context(),
                                    timeout=self.timeout)
        else:
            conn = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        with self._lock:
            self._open.add(conn)
        try:
            with self._watch.until(conn, due):
                conn.ehlo_or_helo_if_needed()  # what the relay offers is known after EHLO
                if u.scheme == "smtp" and conn.has_extn("starttls"):
                    conn.starttls(context=ssl.create_default_context())
                    conn.ehlo()  # offers change under TLS (RFC 3207)
                if u.username:
                    conn.login(unquote(u.username), unquote(u.password or ""))
        except Exception:
            self._drop(conn)
            raise
        return conn

    def _drop(self, conn: smtplib.SMTP) -> None:
        with self._lock:
            self._open.discard(conn)
        try:
            conn.close()
        except OSError:
            pass

    def __call__(self, row: Outbox) -> None:
        """Hand `row` to the relay; the envelope sender is the row's own bounce address
        (store.bounces), so bounces say which mail failed."""
        sender = f"play@{self.domain}"  # a row never stored (a test's) has no bounce address
        keys = self.keys or secret_keys(self.cfg)
        if row.id is not None:
            sender = return_path(keys, row, self.domain)
        due = monotonic() + self.timeout
        conn = getattr(self._local, "conn", None)
        if conn is None or conn not in self._open:
            conn = self._local.conn = self._connect(due)
        data = wire(row, self.domain, cfg=self.cfg, keys=keys)
        try:
            with self._watch.until(conn, due):
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
        self._watch.stop()
        with self._lock:
            conns, self._open = list(self._open), set()
        for conn in conns:
            try:
                conn.quit()
            except Exception:  # already gone: nothing to tell it
                conn.close()


class Watchdog:
    """Cuts the connection of a mail still going at its deadline: one thread, looking every
    `step` seconds, started at a drain's first mail and stopped at its end (Relay.close)."""

    def __init__(self, limit: float):
        self.step = max(limit / 20, 0.01)
        self._due: dict = {}  # connection -> its mail's deadline (monotonic)
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    @contextmanager
    def until(self, conn: smtplib.SMTP, due: float) -> Iterator[None]:
        """`with watch.until(conn, due):` a mail's steps; past `due`, nothing is sent."""
        if monotonic() >= due:  # a slow connect used it all
            raise TimeoutError("the relay took too long to answer")
        with self._lock:
            self._due[conn] = due
            if self._thread is None:
                self._done.clear()
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="relay-watchdog")
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:
                self._due.pop(conn, None)

    def _run(self) -> None:
        while not self._done.wait(self.step):
            now = monotonic()
            with self._lock:  # held while cutting: the mail cut is the one that was late
                for conn in [c for c, due in self._due.items() if due <= now]:
                    del self._due[conn]
                    _cut(conn)

    def stop(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._done.set()
            thread.join()


def _cut(conn: smtplib.SMTP) -> None:
    """The waiting step fails at once (OSError), and nothing more can be sent."""
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
