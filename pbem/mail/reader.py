"""Reading an inbound mail: who sent it, whether to answer at all, and its command lines.

MIME is parsed once by the standard library: headers as written (policy.compat32, cheap),
the few we read decoded here; the body is found by EmailMessage.get_body on that parse (the
full policy.default parse, whose header objects we never read, cost ~10x more on a
multipart mail) and decoded here. text/plain is preferred (unwrapped if
format=flowed), HTML is laid out as text (mail.html_text), any charset and transfer encoding
is decoded. What the player wrote is told from what they quoted by mail.quotes.
A header the parser cannot read is read from its raw text; a mail the parser cannot read
at all raises Unreadable.

The sender is the From's one address. A From that names anything else (two addresses, a
group, a display name or comment holding an address, two From headers, none) raises
ForgedSender: the mail is refused as a whole, since a reply would go where a forger chose
and an MTA's DMARC check may have judged another address than the one we would read.
Automatic mail (bounces, auto-replies, list mail) is never answered and never acted on, so
it is ignored as before whatever its From: refusing it would only make more bounces.
"""

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from email import errors, policy
from email.headerregistry import AddressHeader, HeaderRegistry
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses
from functools import cached_property
from typing import cast

from .charsets import decode, header_text
from .html_text import html_text
from .quotes import MAX_LINES, command_lines

__all__ = ["MAX_LINES", "ForgedSender", "Incoming", "Unreadable", "command_lines", "html_text",
           "read"]

# reply and forward prefixes, as clients write them in the languages of tests/lang_corpus.py too
_SUBJECT_PREFIX = re.compile(
    r"^\s*((re|fwd?|aw|sv|wg|tr|rv|r|rif|antw|odp|res|vs|ynt|ilt|απ|σχετ|השב|הועבר|رد|"
    r"balas|trả lời|tl|回复|回覆|答复|答覆|转发|轉寄|返信|転送|회신|답장|전달|отв|пересл|"
    r"відп|vb|továbbítás|válasz)\s*[:：]\s*)+", re.I)
# subjects of out-of-office and other automatic replies, in the languages we read
AUTO_SUBJECT = re.compile(
    r"^\s*(?:auto\s*:|(out of (the )?office|automatic reply|auto(matic)?[- ]?reply|autoreply|"
    r"vacation reply|away from (the )?office|abwesenheitsnotiz|automatische antwort|"
    r"réponse automatique|absent du bureau|respuesta automática|fuera de la oficina|"
    r"risposta automatica|fuori sede|fuori ufficio|automatisch antwoord|afwezig|"
    r"resposta automática|fora do escritório|automatyczna odpowiedź|poza biurem|"
    r"nieobecność|autosvar|frånvaro|自動返信|自动回复|自動回覆|자동 응답|автоответ|"
    r"автоматический ответ|автоматична відповідь|otomatik yanıt|automatická odpověď|"
    r"αυτόματη απάντηση|automatikus válasz|automaattinen vastaus|automatisk svar|"
    r"رد تلقائي|תשובה אוטומטית|स्वचालित उत्तर|trả lời tự động|balasan otomatis|"
    r"undeliverable|undelivered mail|delivery status "
    r"notification|mail delivery failed|returned mail|delivery failure)\b)", re.I)
MAX_ID = 200  # longer Message-IDs are kept as a hash, so every key fits its column
_LOOK_ALIKE = "its name or a comment holds another address"
_ENCODED_WORD = re.compile(r"=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=")
_ADDRESSES = HeaderRegistry()


class Unreadable(Exception):
    """The parser cannot read this mail at all (e.g. MIME nested thousands deep)."""


class ForgedSender(Unreadable):
    """The From does not name exactly one plain address: nobody can say who sent it, so it
    is refused (550) rather than read as anyone. An Unreadable, so that a caller that knows
    no better refuses it too."""


@dataclass
class Incoming:
    message_id: str
    sender: str  # the From address, lower case
    subject: str
    lines: list[str] = field(default_factory=list)  # the command lines, in order
    in_reply_to: list[str] = field(default_factory=list)
    ignore: str | None = None  # why this mail gets no answer (auto-reply, bounce, list...)
    # Authentication-Results as written, topmost (the last written) first: the first 20,
    # which hold our MTA's, written above all the mail brought (pbem.mail.authres)
    auth: list[str] = field(default_factory=list)


def read(raw: bytes, envelope_from: str, own_domain: str) -> Incoming:
    # policy.compat32 keeps headers as written: the default policy's header classes parse
    # every header on every read (most of the reading's cost); we decode the few we read.
    # The EmailMessage class gives get_body, which needs no header objects.
    raw = raw.replace(b"\0", b"")  # no one types a NUL, and PostgreSQL's text holds none
    try:
        msg = BytesParser(_Parsed, policy=policy.compat32).parsebytes(raw)
        inc = _read(msg, envelope_from, own_domain)
        if inc.ignore is None:
            inc.lines = command_lines(_text(msg).replace("\0", ""))  # (or an encoded one)
    except RecursionError:  # the stdlib parses MIME recursively
        raise Unreadable("its MIME structure is nested too deeply") from None
    return inc


class _Parsed(EmailMessage):
    """EmailMessage's get_body on headers as written (compat32): its one use of a header
    object, the Content-Disposition's, is made here from the raw value, as
    Message.get_content_disposition reads it."""

    def is_attachment(self):
        return self.get_content_disposition() == "attachment"

    @cached_property
    def firsts(self) -> dict:
        """Each header's first value as written, by its name in lower case: a read asks
        for sixteen headers, each a walk through them all without it."""
        return {k.lower(): v for k, v in reversed(list(self.raw_items()))}


def _text(msg) -> str:
    """A mail of one text/plain part (most replies) is its text; any other is read by
    `body_text`."""
    if msg.is_multipart() or msg.get_content_type() != "text/plain" or \
            msg.get("Content-Disposition") is not None:
        return body_text(msg)
    return _part_text(msg)


def _read(msg, envelope_from, own_domain) -> Incoming:
    sender, forged = _sender(msg)
    if len(sender) > 254:  # no address is longer (RFC 5321); nor is our column
        sender = ""
    refs = header(msg, "In-Reply-To") + " " + header(msg, "References")
    subject = header(msg, "Subject")
    inc = Incoming(message_id=message_id(header(msg, "Message-ID")), sender=sender,
                   subject=subject, in_reply_to=re.findall(r"<[^<>\s]+>", refs)[:50])
    inc.ignore = _why_ignore(msg, envelope_from, sender, own_domain)
    if forged and inc.ignore in (None, "no sender"):  # automatic mail stays ignored
        raise ForgedSender(forged)
    inc.auth = [" ".join(str(v).split()) for k, v in msg.raw_items()
                if k.lower() == "authentication-results"][:20]
    if inc.ignore is None:
        inc.subject = _SUBJECT_PREFIX.sub("", subject).strip() or subject
    return inc


def _sender(msg) -> tuple[str, str | None]:
    """The From's one address in lower case, and None; or '' and why there is none."""
    count = sum(1 for k, _ in msg.raw_items() if k.lower() == "from")
    if count != 1:
        return "", f"it has {count} From headers" if count else "it has no From"
    # the raw header's text: a display name decoded from an encoded-word may hold anything
    # ("Ann\r\nBcc: x@evil.example"), and the address itself is never encoded
    value = " ".join(raw_header(msg, "From").split())
    # the structure only: encoded-words stand for plain words (one that decodes to CR or LF
    # makes the parser raise)
    try:
        parsed = _ADDRESSES("from", _ENCODED_WORD.sub("x", value))
    except Exception:  # the parser raises many kinds
        return "", "it cannot be read"
    groups = cast(AddressHeader, parsed).groups  # the registry's "from" is an AddressHeader
    if any(g.display_name is not None for g in groups):
        return "", "it names a group"
    addresses = [a for g in groups for a in g.addresses]
    if len(addresses) > 1:
        return "", f"it names {len(addresses)} addresses"
    if _ats(value) > 1:
        return "", _LOOK_ALIKE
    if len(addresses) != 1 or not (addresses[0].username and addresses[0].domain) or any(
            isinstance(d, errors.InvalidHeaderDefect) for d in parsed.defects):
        return "", "it names no address that can be read"
    return addresses[0].addr_spec.lower(), None


def _ats(value: str) -> int:
    """The @s a From shows: a look-alike (`bob@example.org <a@evil.example>`, the same in
    quotes, a comment or an encoded-word, a full-width ＠) shows a second one once its
    encoded-words are decoded and its text normalised (NFKC)."""
    if value.isascii() and "=?" not in value:
        return value.count("@")
    return unicodedata.normalize("NFKC", _decoded_words(value)).count("@")


def _decoded_words(value: str) -> str:
    """`value` with its encoded-words decoded (as written where they will not decode), by
    the codecs of their charsets' names as clients write them (mail.charsets)."""
    return header_text(value)


def header(msg, name: str) -> str:
    """A header's text, '' if absent: its raw value, encoded-words decoded (a value that
    will not decode is kept as written)."""
    value = _decoded_words(raw_header(msg, name))
    return " ".join(value.replace("\0", "").split())  # no CR, LF or NUL gets through


def raw_header(msg, name: str) -> str:
    """The header's first value as written; 8-bit octets read as UTF-8."""
    low = name.lower()
    if isinstance(msg, _Parsed):
        value = str(msg.firsts.get(low, ""))
    else:
        value = str(next((v for k, v in msg.raw_items() if k.lower() == low), ""))
    if value.isascii():
        return value
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def message_id(value: str) -> str:
    """The Message-ID as a key: whitespace-free, and a hash when it is too long to store."""
    value = "".join(value.split())
    if len(value) > MAX_ID:
        return "sha256:" + hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()
    return value


def _why_ignore(msg, envelope_from: str, sender: str, own_domain: str) -> str | None:
    """RFC 3834: never answer automatic mail, bounces, list mail or our own mail. Not every
    auto-responder says Auto-Submitted: Exchange, Gmail, Yahoo and vacation(1) have their own
    headers, and some only a subject."""
    auto = header(msg, "Auto-Submitted").lower() or "no"
    if not auto.startswith("no"):
        return "auto-submitted"
    if envelope_from in ("", "<>"):
        return "bounce"
    if msg.get_content_type() == "multipart/report" or header(msg, "X-Failed-Recipients"):
        return "bounce"
    if header(msg, "List-Id") or header(msg, "List-Post"):
        return "list mail"
    precedence = (header(msg, "Precedence") or header(msg, "X-Precedence")).lower()
    if precedence in ("bulk", "list", "junk"):
        return "bulk mail"
    # not X-Auto-Response-Suppress: Exchange puts it on ordinary mail too (it asks others not
    # to auto-reply), so it would lose players' moves; Exchange's own out-of-office replies
    # are known by their subject
    if precedence == "auto_reply" or any(header(msg, h) for h in (
            "X-Autoreply", "X-Autorespond", "X-Autogenerated")):
        return "auto-reply"
    if AUTO_SUBJECT.match(header(msg, "Subject")):
        return "auto-reply"
    own = f"@{own_domain}".lower()
    if sender.endswith(own) or any(a.lower().endswith(own) for _, a in getaddresses(
            [header(msg, "Sender")]) if a):
        return "our own mail"
    if not sender:
        return "no sender"
    return None


def body_text(msg) -> str:
    """The mail's text: its text/plain part, else its HTML as text; '' if it has neither."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    if part.get_content_subtype() == "html":
        return html_text(_decoded(part))
    return _part_text(part)


def _decoded(part) -> str:
    """A text part's content: its transfer encoding and charset undone (as the standard
    library's get_content does), by the codec of its charset's name as clients write it
    (mail.charsets); an unknown or wrong charset keeps what decodes as UTF-8."""
    data = part.get_payload(decode=True) or b""
    return decode(data, part.get_content_charset())


def _part_text(part) -> str:
    """A text/plain part's text, unwrapped if format=flowed."""
    content = _decoded(part)
    if str(part.get_param("format", "")).lower() == "flowed":
        return unflow(content, str(part.get_param("delsp", "")).lower() == "yes")
    return content


def unflow(text: str, delsp: bool = False) -> str:
    """RFC 3676 format=flowed: a line ending in a space goes on in the next line of the same
    quote depth (Thunderbird and Apple Mail wrap long lines so, attributions too)."""
    rows: list[list] = []  # [depth, text, goes on]
    for line in text.replace("\r\n", "\n").split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        body = line[depth:]
        body = body[1:] if body.startswith(" ") else body  # space-stuffing
        soft = body.endswith(" ") and body != "-- "
        if soft and delsp:
            body = body[:-1]
        if rows and rows[-1][2] and rows[-1][0] == depth:
            rows[-1][1] += body
            rows[-1][2] = soft
        else:
            rows.append([depth, body, soft])
    return "\n".join(f"{'>' * d} {t}" if d else t for d, t, _ in rows)
