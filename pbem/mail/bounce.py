"""What a mail to a bounce address says: a hard failure, a soft one, or nothing we count.

A delivery status notification (RFC 3464: multipart/report; report-type=delivery-status) is
read by the Action and Status of each recipient: failed with 5.x.x is hard, failed with
4.x.x soft; delayed, delivered, relayed or expanded is no failure. A plain bounce, as older
MTAs send them, counts as hard when it comes from MAILER-DAEMON or postmaster and its text
has a 5xx reply code. Anything else that reaches a bounce address, an out-of-office reply
above all (RFC 3834 sends those to the envelope sender), is not a bounce.
"""

import re
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from email.utils import collapse_rfc2231_value, parseaddr

from .reader import Unreadable, body_text, raw_header

STATUS = re.compile(r"^\s*([245])\.\d{1,3}\.\d{1,3}\b")
FIELD = re.compile(r"^(action|status)\s*:\s*(.*)$", re.I | re.M)
# a reply code as MTAs quote it: "550 5.1.1 ...", "550-Mailbox unknown" (a reply of many
# lines), "host said: 554 ..."; or an enhanced status code alone ("5.1.1"). Not any number
# that starts with 5 ("500 messages")
REPLY_5XX = re.compile(r"(?<![\w.])(5[0-5]\d(?=-|\s+[45]\.\d{1,3}\.\d)"
                       r"|5\.\d{1,3}\.\d{1,3}(?![\w.]))|said:\s*(5[0-5]\d)\b", re.I)
DAEMONS = {"mailer-daemon", "postmaster", "mail-daemon"}


@dataclass
class Verdict:
    hard: bool | None  # None: not a failure we count
    status: str  # "5.1.1", "550"; or why it is not counted


def classify(raw: bytes) -> Verdict:
    try:
        msg = BytesParser(policy=policy.default).parsebytes(raw)
        if msg.get_content_type() == "multipart/report":
            # a str, or RFC 2231's (charset, language, value)
            kind = collapse_rfc2231_value(msg.get_param("report-type") or "")
            if kind.lower() != "delivery-status":
                return Verdict(None, "a report, not of delivery")  # a read receipt, say
            return _dsn(msg)
        sender = parseaddr(" ".join(raw_header(msg, "From").split()))[1].lower()
        if sender.partition("@")[0] not in DAEMONS:
            return Verdict(None, "not a bounce")  # an out-of-office reply, say
        found = REPLY_5XX.search(body_text(msg))
        if found is None:
            return Verdict(None, "no failure code")
        return Verdict(True, found.group(1) or found.group(2))
    except RecursionError:
        raise Unreadable("its MIME structure is nested too deeply") from None


def _dsn(msg) -> Verdict:
    """The worst failure among the report's recipients."""
    part = next((p for p in msg.iter_parts()
                 if p.get_content_type() == "message/delivery-status"), None)
    if part is None:
        return Verdict(None, "a report without a delivery status")
    payload = part.get_payload()
    text = "\n\n".join(b.as_string() for b in payload) if isinstance(payload, list) \
        else str(payload)
    worst = Verdict(None, "no failed recipient")
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n")):
        fields = {k.lower(): v.strip() for k, v in FIELD.findall(block)}
        code = STATUS.match(fields.get("status", ""))
        action = fields.get("action", "failed").lower()
        if not code or action != "failed" or code.group(1) == "2":
            continue
        status = code.group(0).strip()
        if code.group(1) == "5":
            return Verdict(True, status)
        worst = Verdict(False, status)
    return worst
