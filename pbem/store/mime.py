"""An outbox mail's bytes, written by the email package.

    mime.write([(name, value), ...], text, html=None, linesep="\\r\\n") -> bytes

Every mail we send has one shape: a few headers, a text part and perhaps an HTML part. The
email package takes 2 to 5 ms of CPU a turn mail (the hand-made writer before issue 30:
0.1 ms): at most 100 s of one core for a club's 20,000 mails a day, 0.5 % of it at a mail
a second; not worth a second MIME writer. A CR or LF in any header value is refused (no
header injection): the package itself lets one at the end of a value through, which would
end the headers there.
"""

import email.policy
import re
from email.message import EmailMessage

# fold only past 998 octets (RFC 5322's limit): a long link in List-Unsubscribe must stay
# one word, not become an encoded-word no client opens
POLICY = email.policy.default.clone(max_line_length=998)
# set_content encodes a body line longer than this (RFC 5322 2.1.1: 78 octets)
_BODIES = email.policy.default.clone(max_line_length=78)
# controls other than tab and line ends: 7bit and 8bit may not carry them (RFC 2045 2.7)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def write(headers: list[tuple[str, str]], text: str, html: str | None = None,
          linesep: str = "\r\n") -> bytes:
    """The message: `headers` in order, then MIME-Version and the text (and HTML) part."""
    msg = EmailMessage(policy=_BODIES)
    for name, value in headers:
        if "\r" in value or "\n" in value:
            raise ValueError(f"a line break in the {name} header")
        msg[name] = value
    msg.set_content(_utf8(text), cte=_encoding(text))
    if html:
        msg.add_alternative(_utf8(html), subtype="html", cte=_encoding(html))
    return msg.as_bytes(policy=POLICY.clone(linesep=linesep))


def _utf8(text: str) -> str:
    """`text` as UTF-8 can carry it: a lone surrogate (from a mail's undecodable bytes)
    becomes "?"."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _encoding(text: str) -> str | None:
    """Quoted-printable for a body holding control characters; else the email package's
    choice (None: as it is when its lines are short, else the shorter encoding)."""
    return "quoted-printable" if _CONTROL.search(text) else None
