"""One webhook POST, bounded and safe to aim anywhere an organiser types (pbem.store.webhooks
sends through it).

    post(Request(url, body, headers, timeout, loopback)) -> Answer(status, retry_after)

The host is resolved here and every address it gives must be public (SSRF: no private,
loopback, link-local or reserved address, so no one reaches the machine's own services or
its network through a league's webhook), unless `loopback` (a test setting) lets loopback
addresses through too. The connection goes to the address checked, never to a second
lookup (DNS rebinding). TLS is verified against the host's name. The whole request,
connect to last byte, ends within `timeout` (a watchdog shuts the socket), no redirect is
followed, and at most MAX_BODY bytes of the answer are read. Errors carry no URL: the URL
is a secret."""

import http.client
import ipaddress
import socket
import ssl
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as Late
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from time import time
from urllib.parse import urlsplit

from ..i18n import N_

MAX_BODY = 1024  # bytes of an answer read: we want its status, never its text
MAX_RETRY_AFTER = 6 * 3600  # seconds: a Retry-After beyond this is taken as this
RESOLVE_TIMEOUT = 5.0  # seconds a name lookup may take
_lookups = ThreadPoolExecutor(2, thread_name_prefix="webhook-dns")  # getaddrinfo has no timeout


class Unsafe(ValueError):
    """A webhook's URL or host that we will not post to; the text (marked for the
    catalogue, translated where it is shown) names no URL."""


@dataclass(frozen=True)
class Request:
    url: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = 10.0
    loopback: bool = False  # a test setting: http://127.0.0.1 and loopback addresses pass


@dataclass(frozen=True)
class Answer:
    status: int
    retry_after: float | None = None  # seconds, from a Retry-After header


@dataclass(frozen=True)
class Target:
    https: bool
    host: str
    port: int
    path: str


def target(url: str, loopback: bool = False) -> Target:
    """The URL's parts, or Unsafe: https only (http to a loopback host only with
    `loopback`), no user or password in it, a host name, printable ASCII."""
    if not url.isascii() or not url.isprintable() or " " in url:
        raise Unsafe(N_("the address must be plain printable characters, no spaces"))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise Unsafe(N_("not a web address")) from None
    host = (parts.hostname or "").rstrip(".")
    if parts.scheme not in ("https", "http") or not host:
        raise Unsafe(N_("the address must start https://"))
    if parts.scheme == "http" and not (loopback and _is_loopback_name(host)):
        raise Unsafe(N_("the address must start https://"))
    if parts.username is not None or parts.password is not None:
        raise Unsafe(N_("the address may not hold a user name or password"))
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme == "https", host,
                  port or (443 if parts.scheme == "https" else 80), path)


def _is_loopback_name(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def allowed(address: str, loopback: bool) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global or (loopback and ip.is_loopback)


def addresses(host: str, port: int, loopback: bool = False) -> list[str]:
    """The host's addresses, every one of them allowed (else Unsafe): one private address
    among public ones could be the one a connection takes."""
    try:
        found = _lookups.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM
                                ).result(RESOLVE_TIMEOUT)
    except (OSError, UnicodeError, Late):
        raise Unsafe(N_("its host name could not be found")) from None
    ips = list(dict.fromkeys(str(x[4][0]) for x in found))
    if not ips or not all(allowed(x, loopback) for x in ips):
        raise Unsafe(N_("its host is not a public address"))
    return ips


def post(req: Request) -> Answer:
    """POST `req.body` as JSON; the answer's status (and Retry-After). OSError (a timeout,
    a refused connection, TLS) or Unsafe when nothing was answered."""
    t = target(req.url, req.loopback)
    ip = addresses(t.host, t.port, req.loopback)[0]
    conn = _Connection(t, ip, req.timeout)
    watchdog = threading.Timer(req.timeout, conn.cut)  # the whole request, not each read
    watchdog.start()
    try:
        conn.request("POST", t.path, body=req.body, headers={
            "Content-Type": "application/json", "User-Agent": "pbem-webhook",
            **req.headers})
        resp = conn.getresponse()
        resp.read(MAX_BODY)  # the answer's text is never kept
        if conn.time_up.is_set():  # cut short, it may read as whole: it is not an answer
            raise TimeoutError("no whole answer in time")
        return Answer(resp.status, retry_after(resp.getheader("Retry-After")))
    except http.client.HTTPException as e:  # a broken answer: no URL in what we keep
        raise OSError(type(e).__name__) from None
    finally:
        watchdog.cancel()
        conn.close()


def retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (a number or an HTTP date), bounded; None if
    absent or unreadable."""
    if not value:
        return None
    value = value.strip()[:64]
    if value.isdigit():
        return float(min(int(value), MAX_RETRY_AFTER))
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, min(when - time(), MAX_RETRY_AFTER))


class _Connection(http.client.HTTPConnection):
    """An HTTP(S) connection to one checked address, named for the host (Host header, SNI
    and the certificate's check)."""

    def __init__(self, t: Target, ip: str, timeout: float):
        super().__init__(t.host, t.port, timeout=timeout)
        self.target, self.ip = t, ip
        self.time_up = threading.Event()

    def connect(self) -> None:
        sock = socket.create_connection((self.ip, self.port), self.timeout)
        if self.target.https:
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=self.host)
        self.sock = sock
        if self.time_up.is_set():  # the watchdog fired while connecting
            self.cut()

    def cut(self) -> None:
        """The time is up: a read or write waiting on the socket fails now."""
        self.time_up.set()
        sock = self.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
