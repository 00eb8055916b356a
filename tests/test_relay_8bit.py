"""A UTF-8 mail through real aiosmtpd relays keeps its DKIM signature (issue 32, RFC 6376
5.3): every mail goes 7-bit, its text quoted-printable and a file base64, whether the relay
offers 8BITMIME or not, and never with BODY=8BITMIME. A relay that converts 8-bit bodies to
quoted-printable and hands the mail on, as an MTA does for a next hop without 8BITMIME, finds
nothing to convert: the signature verifies at the next hop, after a relay that offers
8BITMIME as after one that does not. The same conversion of an 8-bit body, signed so, breaks
the signature: the check can fail."""

import quopri
import re
import smtplib
from email import message_from_bytes
from email.generator import BytesGenerator
from email.message import EmailMessage
from email.policy import compat32
from io import BytesIO

import dkim
import pytest
from aiosmtpd.controller import Controller

from pbem.config import load
from pbem.store import dkim_sign, mime
from pbem.store.models import Outbox
from pbem.store.outbox import drain, headers
from pbem.store.relay import Relay
from tests.test_outbox_lease import with_relay
from tests.test_serve import free_port

DOMAIN = "pbem.test"
TEXT = "Game 3: you played 10♥.\nGrüße from the table: Q♠ K♦ A♣, “fair” play.\n"
HTML = "<html><body><p>Game 3: you played <b>10♥</b>. Grüße.</p></body></html>"


class Relay8:
    """Offers 8BITMIME or not; keeps each mail's MAIL options and bytes. `onward`: the port
    of a next hop without 8BITMIME, to which an 8-bit body goes converted to
    quoted-printable (what Postfix and Sendmail do), everything else unchanged."""

    def __init__(self, offers: bool, onward: int | None = None):
        self.offers, self.onward = offers, onward
        self.options: list[list[str]] = []
        self.got: list[bytes] = []

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname
        lines = [r[4:] for r in responses if self.offers or "8BITMIME" not in r]
        return [f"250-{x}" for x in lines[:-1]] + [f"250 {lines[-1]}"]

    async def handle_MAIL(self, server, session, envelope, address, options):
        if "BODY=8BITMIME" in options and not self.offers:
            return "555 5.5.4 BODY=8BITMIME not offered"
        self.options.append([x for x in options if not x.startswith("SIZE=")])
        envelope.mail_from = address
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.got.append(envelope.content)
        if self.onward is not None:
            with smtplib.SMTP("127.0.0.1", self.onward) as hop:
                hop.sendmail(envelope.mail_from, envelope.rcpt_tos, downgraded(envelope.content))
        return "250 OK"


def downgraded(raw: bytes) -> bytes:
    """`raw` as an MTA hands it to a hop without 8BITMIME: every part whose body has 8-bit
    octets re-encoded quoted-printable, its Content-Transfer-Encoding header changed."""
    if raw.isascii():
        return raw
    msg = message_from_bytes(raw, policy=compat32)
    for part in msg.walk():
        if not part.is_multipart() and not part.get_payload().isascii():
            data = part.get_payload(decode=True).replace(b"\r\n", b"\n")
            part.replace_header("Content-Transfer-Encoding", "quoted-printable")
            part.set_payload(quopri.encodestring(data).decode("ascii"))
    out = BytesIO()
    BytesGenerator(out, mangle_from_=False, maxheaderlen=0,
                   policy=compat32.clone(linesep="\r\n")).flatten(msg)
    return out.getvalue()


@pytest.fixture
def signed(tmp_path, monkeypatch):
    """A DKIM key the mails are signed with; the DNS lookup that finds its record."""
    record = dkim_sign.keygen(tmp_path / "dkim.key", "pbem", DOMAIN)
    monkeypatch.setenv("PBEM_DKIM_KEY", str(tmp_path / "dkim.key"))
    monkeypatch.setenv("PBEM_DKIM_SELECTOR", "pbem")
    txt = "".join(re.findall(r'"([^"]*)"', record)).encode()

    def dns(name, timeout=5):
        assert name == f"pbem._domainkey.{DOMAIN}.".encode()
        return txt
    return dns


def add_mails(store) -> None:
    with store.session() as s:
        s.add(Outbox(to_addr="ann@example.org", subject="Spades game 3", body_text=TEXT,
                     body_html=HTML, dedupe_key="turn:3:0:1"))
        s.add(Outbox(to_addr="bob@example.org", subject="Your sign-in link",
                     body_text="Grüße: https://pbem.test/s/x\n", dedupe_key="signin:x"))
        s.add(Outbox(to_addr="cy@example.org", subject="Your data", body_text="Grüße.\n",
                     headers=mime.attached("pbem.json", '{"name": "Zoë ♥"}'),
                     dedupe_key="export:cy"))
        s.commit()


MAILS = 3


def send_through(store, handler) -> None:
    assert with_relay(handler, lambda url: drain(store, Relay(url, DOMAIN, ["k" * 32]))) == MAILS


def parts(raw: bytes) -> list:
    return [p for p in message_from_bytes(raw).walk() if not p.is_multipart()]


@pytest.mark.parametrize("offers", [True, False])
def test_a_utf8_mail_goes_7bit_and_keeps_its_signature_whether_the_relay_offers_8bitmime(
        store, signed, offers):
    add_mails(store)
    relay = Relay8(offers)
    send_through(store, relay)
    assert len(relay.got) == MAILS
    for raw, options in zip(relay.got, relay.options, strict=True):
        assert dkim.verify(raw, dnsfunc=signed)
        assert raw.isascii() and options == [], options  # 7-bit, and no BODY=8BITMIME
        texts = [p.get_payload(decode=True).decode() for p in parts(raw)
                 if p.get_content_maintype() == "text"]
        assert "Grüße" in texts[0] and "Grüße" in texts[1]  # both parts, as written
        ctes = {p.get_content_type(): p["Content-Transfer-Encoding"] for p in parts(raw)}
        assert ctes["text/plain"] == ctes["text/html"] == "quoted-printable", ctes
        assert ctes.get("application/json", "base64") == "base64", ctes
    [export] = [raw for raw in relay.got if b"application/json" in raw]
    [data] = [p for p in parts(export) if p.get_content_type() == "application/json"]
    assert data.get_payload(decode=True).decode() == '{"name": "Zoë ♥"}'


@pytest.mark.parametrize("offers", [True, False])
def test_a_relay_that_converts_8bit_bodies_and_hands_on_leaves_the_signature_whole(
        store, signed, offers):
    """The first relay offers 8BITMIME (it has no reason to convert what it takes) or not;
    it hands every mail on to a hop without 8BITMIME, converting any 8-bit part as Postfix
    and Sendmail do (`downgraded`)."""
    add_mails(store)
    hop = Relay8(offers=False)
    port = free_port()
    sink = Controller(hop, hostname="127.0.0.1", port=port)
    sink.start()
    try:
        send_through(store, Relay8(offers=offers, onward=port))
    finally:
        sink.stop()
    assert len(hop.got) == MAILS
    for raw in hop.got:
        assert raw.isascii() and dkim.verify(raw, dnsfunc=signed)


def test_the_same_conversion_breaks_the_signature_of_an_8bit_body(store, signed, tmp_path):
    """The check above can fail: the turn mail as it went to a relay with 8BITMIME before
    (its parts 8bit, signed so) does not verify once a hop converted it."""
    add_mails(store)
    with store.session() as s:
        row = s.get(Outbox, 1)
        msg = EmailMessage()
        for name, value in headers(row, DOMAIN, keys=["k" * 32]):
            msg[name] = value
        msg.set_content(TEXT, cte="8bit")
        msg.add_alternative(HTML, subtype="html", cte="8bit")
    data = msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))
    cfg = load()
    before = dkim_sign.sign(data, DOMAIN, cfg.dkim_key, cfg.dkim_selector)
    assert not before.isascii() and dkim.verify(before, dnsfunc=signed)
    after = downgraded(before)
    assert b"quoted-printable" in after and not dkim.verify(after, dnsfunc=signed)


@pytest.mark.parametrize("offers", [True, False])
def test_an_8bit_mail_is_never_handed_to_a_relay(signed, offers):
    from pbem.store import pipelining

    port = free_port()
    relay = Relay8(offers=offers)
    server = Controller(relay, hostname="127.0.0.1", port=port)
    server.start()
    try:
        with smtplib.SMTP("127.0.0.1", port) as conn:
            with pytest.raises(ValueError, match="7-bit only"):
                pipelining.send(conn, "play@pbem.test", "ann@example.org",
                                "Subject: x\r\n\r\nGrüße\r\n".encode())
            pipelining.send(conn, "play@pbem.test", "ann@example.org", b"Subject: x\r\n\r\nhi\r\n")
    finally:
        server.stop()
    assert relay.got == [b"Subject: x\r\n\r\nhi\r\n"] and relay.options == [[]]
