"""One mail over an open smtplib connection, with SMTP PIPELINING (RFC 2920) when the relay
offers it: MAIL, RCPT and DATA in one write, their three answers read together, then the
message: two round trips a mail instead of smtplib's four.

    send(conn, sender, rcpt, data)   # as conn.sendmail(sender, [rcpt], data) would

It raises what smtplib's sendmail raises for the same answers (SMTPSenderRefused,
SMTPRecipientsRefused, SMTPDataError, SMTPServerDisconnected), so a refused address or a
4xx is handled as before; any 421 (the relay closing) comes as an SMTPResponseException
with the connection closed. An address that is not plain ASCII goes through smtplib. A
message with an 8-bit octet is refused (ValueError) before any command: ours are 7-bit
(pbem.store.mime), so one is a bug, and a relay or a later hop would convert its body under
the DKIM signature.
"""

import re
import smtplib

from .addresses import is_plain

_DOT = re.compile(rb"(?m)^\.")


def send(conn: smtplib.SMTP, sender: str, rcpt: str, data: bytes) -> None:
    if not data.isascii():
        raise ValueError("an 8-bit mail: we send 7-bit only (pbem.store.mime)")
    conn.ehlo_or_helo_if_needed()
    if not (conn.has_extn("pipelining") and is_plain(sender) and is_plain(rcpt)):
        conn.sendmail(sender, [rcpt], data)
        return
    params = f" SIZE={len(data)}" if conn.has_extn("size") else ""
    conn.send(f"MAIL FROM:<{sender}>{params}\r\nRCPT TO:<{rcpt}>\r\nDATA\r\n".encode())
    mail, to, go = conn.getreply(), conn.getreply(), conn.getreply()
    _closing(conn, mail, to, go)
    refused = mail[0] != 250 or to[0] not in (250, 251)
    if go[0] == 354 and refused:
        conn.send(b".\r\n")  # a relay that took DATA after a refusal: an empty end
        conn.getreply()
    if go[0] != 354 or refused:
        _reset(conn)
    if mail[0] != 250:
        raise smtplib.SMTPSenderRefused(mail[0], mail[1], sender)
    if to[0] not in (250, 251):
        raise smtplib.SMTPRecipientsRefused({rcpt: to})
    if go[0] != 354:
        raise smtplib.SMTPDataError(*go)
    body = _DOT.sub(b"..", data)
    conn.send(body + (b"" if body.endswith(b"\r\n") else b"\r\n") + b".\r\n")
    done = conn.getreply()
    _closing(conn, done)
    if done[0] != 250:
        _reset(conn)
        raise smtplib.SMTPDataError(*done)


def _reset(conn: smtplib.SMTP) -> None:
    """RSET after a refusal, as smtplib's sendmail does: a relay gone meanwhile is told by
    the next mail's command, not by this one's error."""
    try:
        conn.rset()
    except smtplib.SMTPServerDisconnected:
        pass


def _closing(conn: smtplib.SMTP, *replies: tuple[int, bytes]) -> None:
    """A 421 (service closing) in any answer: the connection is done."""
    for code, text in replies:
        if code == 421:
            conn.close()
            raise smtplib.SMTPDataError(code, text)
