"""An outbox mail's bytes, written by the email package.

    mime.write([(name, value), ...], text, html=None, linesep="\\r\\n") -> bytes

Every mail we send has one shape: a few headers, a text part and perhaps an HTML part. The
email package takes 2 to 5 ms of CPU a turn mail (the hand-made writer before issue 30:
0.1 ms): at most 100 s of one core for a club's 20,000 mails a day, 0.5 % of it at a mail
a second; not worth a second MIME writer. A CR or LF in any header value is refused (no
header injection): the package itself lets one at the end of a value through, which would
end the headers there.

A mail with no HTML of its own gets one made from its text (pbem.store.text_html): every
mail has both parts. Every octet is 7-bit, always: a UTF-8 body goes quoted-printable (a
file base64), never 8bit. A relay, or any hop after it, that meets an 8-bit body may convert
it to quoted-printable itself, after we signed it, and the DKIM signature no longer holds;
RFC 6376 5.3 asks signers to convert first. A 7-bit body gives no hop a reason to.
"""

import email.policy
import json
import re
from email.message import EmailMessage

from .text_html import html_of

ATTACHMENT = "X-Pbem-Attachment"  # an Outbox row's file, in its headers: never on the wire


def attached(name: str, data: str) -> dict[str, str]:
    """The Outbox headers that carry the file `name` holding `data` (JSON text)."""
    return {ATTACHMENT: json.dumps([name, data])}


# fold only past 998 octets (RFC 5322's limit): a long link in List-Unsubscribe must stay
# one word, not become an encoded-word no client opens
POLICY = email.policy.default.clone(max_line_length=998)
# set_content encodes a body line longer than this (RFC 5322 2.1.1: 78 octets)
_BODIES = email.policy.default.clone(max_line_length=78)
# controls other than tab and line ends: 7bit and 8bit may not carry them (RFC 2045 2.7)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def write(headers: list[tuple[str, str]], text: str, html: str | None = None,
          linesep: str = "\r\n", attachment: str | None = None) -> bytes:
    """The message: `headers` in order, then MIME-Version, the text part and the HTML
    part (`html`, else made from `text`); `attachment`: a file after them, as `attached`
    wrote it (a player's own data). No 8-bit octet anywhere."""
    msg = EmailMessage(policy=_BODIES)
    for name, value in headers:
        if "\r" in value or "\n" in value:
            raise ValueError(f"a line break in the {name} header")
        msg[name] = value
    html = html or html_of(text)
    msg.set_content(_utf8(text), cte=_encoding(text))
    msg.add_alternative(_utf8(html), subtype="html", cte=_encoding(html))
    if attachment:
        name, data = json.loads(attachment)
        msg.add_attachment(data.encode(), maintype="application", subtype="json",
                           filename=name)
    return msg.as_bytes(policy=POLICY.clone(linesep=linesep))


def _utf8(text: str) -> str:
    """`text` as UTF-8 can carry it: a lone surrogate (from a mail's undecodable bytes)
    becomes "?"."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _encoding(text: str) -> str | None:
    """Quoted-printable for a body holding control characters or any non-ASCII one (never
    base64: text hidden in base64 is a spam filter's sign); else the email package's choice
    for ASCII (None: as it is when its lines are short, else a 7-bit encoding)."""
    if _CONTROL.search(text) or not text.isascii():
        return "quoted-printable"
    return None
