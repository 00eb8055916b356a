"""An outbox mail's bytes, written directly (issue 15).

    mime.write([(name, value), ...], text, html=None, linesep="\\r\\n") -> bytes

Every mail we send has one shape: a few headers, a text part and perhaps an HTML part.
The email package parsed each header into a tree and serialised the whole message again,
about 2 ms a mail, most of the outbox's time; here a plain header (printable ASCII, a
simple address) is written as it is, and each body encoded once. A header that is not
plain (non-ASCII, an unusual address, anything that could read as an encoded word) is
still folded by the email package, so the rare hard case is no less right, and a CR or LF
in any value is refused there (no header injection).
"""

import base64
import binascii
import email.policy
import re
import secrets
from email.headerregistry import BaseHeader, HeaderRegistry

MAX_LINE = 78  # body lines longer than this (in octets) are encoded (RFC 5322 2.1.1)
ADDRESS_HEADERS = {"from", "to", "cc", "reply-to", "sender"}
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_ADDR = rf"{_ATOM}(?:\.{_ATOM})*@{_ATOM}(?:\.{_ATOM})*"
_PLAIN_ADDRESS = re.compile(rf"(?:{_ADDR}|{_ATOM}(?: {_ATOM})* <{_ADDR}>)\Z")
_PLAIN = re.compile(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*\Z")
_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")  # tab and line ends are text


class _Headers(HeaderRegistry):
    """The standard registry, but each header's class made once: the standard one makes a
    new class for every header of every message."""

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[str, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        made = self._made.get(name.lower())
        if made is None:
            made = super().__getitem__(name)
            if len(self._made) < 200:  # the names we write: a few dozen
                self._made[name.lower()] = made
        return made


# fold only past 998 octets (RFC 5322's limit): a long link in List-Unsubscribe must stay
# one word, not become an encoded-word no client opens
POLICY = email.policy.default.clone(header_factory=_Headers(), linesep="\n",
                                    max_line_length=998)


def header(name: str, value: str) -> str:
    """One header line (folded lines for a long one), ending in "\\n"."""
    plain = (_PLAIN_ADDRESS if name.lower() in ADDRESS_HEADERS else _PLAIN).match(value)
    if plain and "=?" not in value and len(name) + len(value) + 2 <= 998:
        return f"{name}: {value}\n"
    return POLICY.header_store_parse(name, value)[1].fold(policy=POLICY)


def body(text: str) -> tuple[str, bytes]:
    """(Content-Transfer-Encoding, the encoded body with "\\n" line ends): as it is when
    every line is short and has no control character, else the shorter of
    quoted-printable and base64."""
    lines = text.encode("utf-8", "replace").splitlines()
    data = b"\n".join(lines) + b"\n"
    if max(map(len, lines), default=0) <= MAX_LINE and not _CONTROL.search(data):
        return ("7bit" if data.isascii() else "8bit"), data
    qp = binascii.b2a_qp(data, istext=True)
    b64 = base64.encodebytes(data)  # "\n" line ends inside too, as the email package's
    return ("quoted-printable", qp) if len(qp) <= len(b64) else ("base64", b64)


def _part(subtype: str, text: str) -> tuple[bytes, bytes]:
    cte, data = body(text)
    return (f'Content-Type: text/{subtype}; charset="utf-8"\n'
            f"Content-Transfer-Encoding: {cte}\n").encode(), data


def write(headers: list[tuple[str, str]], text: str, html: str | None = None,
          linesep: str = "\r\n") -> bytes:
    """The message: `headers` in order, then MIME-Version and the text (and HTML) part."""
    head = "".join(header(n, v) for n, v in headers) + "MIME-Version: 1.0\n"
    parts = [_part("plain", text)] + ([_part("html", html)] if html else [])
    if len(parts) == 1:
        out = head.encode() + parts[0][0] + b"\n" + parts[0][1]
    else:
        boundary = _boundary([data for _, data in parts])
        out = (head + f'Content-Type: multipart/alternative; boundary="{boundary}"\n'
               ).encode() + b"".join(b"\n--%s\n%s\n%s" % (boundary.encode(), h, data)
                                     for h, data in parts) + b"\n--%s--\n" % boundary.encode()
    return out if linesep == "\n" else out.replace(b"\n", linesep.encode())


def _boundary(bodies: list[bytes]) -> str:
    """A random boundary ("=_" never occurs in quoted-printable or base64) in no body."""
    while True:
        b = "=_" + secrets.token_hex(16)
        if not any(b.encode() in data for data in bodies):
            return b
