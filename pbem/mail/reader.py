"""Reading an inbound mail: who sent it, whether to answer at all, and its command lines.

MIME is parsed by the standard library (policy.default): text/plain is preferred, HTML is
turned into text, any charset and transfer encoding is decoded. Reading stops at the quoted
reply (so the legal-move list of our own turn mail, quoted back, is never taken as commands)
and at the signature.
"""

import re
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

MAX_LINES = 20  # commands read from one mail; a reply is short

_QUOTE_START = (
    re.compile(r"^>"),
    re.compile(r"^on .{0,200}wrote:?$", re.I),  # "On Mon, 2 Nov, Ann <a@b> wrote:"
    re.compile(r"^-{2,}\s*original message\s*-{2,}$", re.I),
    re.compile(r"^-{2,}\s*forwarded message\s*-{2,}$", re.I),
    re.compile(r"^_{10,}$"),  # Outlook's rule above the quoted mail
    re.compile(r"^from:\s.+", re.I),  # Outlook's quoted header block
    re.compile(r"^-- ?$"),  # the signature delimiter
    re.compile(r"^sent from my ", re.I),
)
_SUBJECT_PREFIX = re.compile(r"^\s*((re|fwd?|aw|sv)\s*:\s*)+", re.I)


@dataclass
class Incoming:
    message_id: str
    sender: str  # the From address, lower case
    subject: str
    lines: list[str] = field(default_factory=list)  # the command lines, in order
    in_reply_to: list[str] = field(default_factory=list)
    ignore: str | None = None  # why this mail gets no answer (auto-reply, bounce, list...)


def read(raw: bytes, envelope_from: str, own_domain: str) -> Incoming:
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    sender = parseaddr(str(msg.get("From", "")))[1].strip().lower()
    mid = str(msg.get("Message-ID", "")).strip()
    refs = str(msg.get("In-Reply-To", "")) + " " + str(msg.get("References", ""))
    inc = Incoming(message_id=mid, sender=sender, subject=str(msg.get("Subject", "")),
                   in_reply_to=re.findall(r"<[^>]+>", refs))
    inc.ignore = _why_ignore(msg, envelope_from, sender, own_domain)
    if inc.ignore is None:
        inc.lines = command_lines(body_text(msg))
        subject = _SUBJECT_PREFIX.sub("", inc.subject).strip()
        if subject:
            inc.subject = subject
    return inc


def _why_ignore(msg, envelope_from: str, sender: str, own_domain: str) -> str | None:
    """RFC 3834: never answer automatic mail, bounces, list mail or our own mail."""
    auto = str(msg.get("Auto-Submitted", "no")).strip().lower()
    if auto and not auto.startswith("no"):
        return "auto-submitted"
    if envelope_from in ("", "<>"):
        return "bounce"
    if msg.get("List-Id") or msg.get("List-Post"):
        return "list mail"
    if str(msg.get("Precedence", "")).strip().lower() in ("bulk", "list", "junk"):
        return "bulk mail"
    if msg.get("X-Autoreply") or msg.get("X-Autorespond"):
        return "auto-reply"
    own = f"@{own_domain}".lower()
    if sender.endswith(own) or any(a.lower().endswith(own) for _, a in getaddresses(
            [str(msg.get("Sender", ""))]) if a):
        return "our own mail"
    if not sender:
        return "no sender"
    return None


def body_text(msg) -> str:
    """The mail's text: its text/plain part, else its HTML as text; '' if it has neither."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, UnicodeError):  # an unknown or wrong charset: keep what decodes
        content = part.get_payload(decode=True).decode("utf-8", errors="replace")
    if part.get_content_subtype() == "html":
        return html_text(content)
    return content


def command_lines(text: str) -> list[str]:
    """The non-blank lines before the quoted reply or the signature."""
    out = []
    rows = text.replace("\r\n", "\n").split("\n")
    for i, line in enumerate(rows):
        line = line.strip().replace("\u00a0", " ")
        if any(p.match(line) for p in _QUOTE_START):
            break
        if i + 1 < len(rows) and _QUOTE_START[1].match(f"{line} {rows[i + 1].strip()}"):
            break  # Gmail wraps a long "On ..., Name <address> wrote:" over two lines
        if line:
            out.append(line)
        if len(out) >= MAX_LINES:
            break
    return out


class _Text(HTMLParser):
    """HTML to text lines; a quoted reply (<blockquote>) ends the reading."""

    BREAKS = {"br", "p", "div", "li", "tr", "h1", "h2", "h3", "table"}

    def __init__(self):
        super().__init__()
        self.parts, self.skip, self.done = [], 0, False

    def handle_starttag(self, tag, attrs):
        if tag == "blockquote" or (dict(attrs).get("class") or "").startswith("gmail_quote"):
            self.done = True
        if tag in ("style", "script", "head"):
            self.skip += 1
        if tag in self.BREAKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("style", "script", "head"):
            self.skip = max(0, self.skip - 1)
        if tag in self.BREAKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip and not self.done:
            self.parts.append(data)


def html_text(html: str) -> str:
    p = _Text()
    p.feed(html)
    return "".join(p.parts)
