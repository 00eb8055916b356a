"""The relay's pipelined path (pbem.store.pipelining, RFC 2920) against a real aiosmtpd relay
that offers PIPELINING: MAIL, RCPT and DATA arrive in one write; a refused recipient, a 4xx
and a connection dropped in the middle of a drain's batch each fail their own row only
(retried with its backoff), the rest go out once, and nothing is lost or sent twice."""

import smtplib
import ssl
import threading
import time
from collections import Counter
from datetime import timedelta

import pytest
from aiosmtpd.controller import Controller

from pbem.store import pipelining
from pbem.store.models import now as utcnow
from pbem.store.outbox import FLUSH_EVERY, drain
from pbem.store.relay import Relay
from tests.test_crash import outbox
from tests.test_outbox_lease import add_rows, with_relay
from tests.test_serve import free_port


class PipeRelay:
    """Offers PIPELINING (unless told not to); refuses the `refuse` addresses at RCPT, answers
    451 to the DATA of `soft`, and drops the connection at the DATA of `drop` (the mail not
    taken), and 421 to the RCPT of `closing`. Notes what was already waiting in the line
    when each MAIL came."""

    def __init__(self, pipelining=True, refuse=(), soft=(), drop=(), closing=()):
        self.pipelining, self.refuse, self.soft, self.drop = pipelining, refuse, soft, drop
        self.closing = closing  # answered 421 (closing) at RCPT
        self.got, self.peers, self.waiting, self.tls = Counter(), set(), [], set()

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname
        return [*responses[:-1], *(["250-PIPELINING"] if self.pipelining else []),
                responses[-1]]

    async def handle_MAIL(self, server, session, envelope, address, options):
        self.waiting.append(bytes(server._reader._buffer))  # the rest of the client's write
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, options):
        if address in self.refuse:
            return "550 5.1.1 no such user"
        if address in self.closing:
            return "421 4.3.2 shutting down"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.peers.add(session.peer)
        self.tls.add(session.ssl is not None)
        [to] = envelope.rcpt_tos
        if to in self.drop:
            server.transport.abort()  # the line drops before the relay takes the mail
            return "451 never seen"
        if to in self.soft:
            return "451 4.3.0 try again later"
        assert envelope.content.endswith(b"\r\n") and b"\r\n.\r\n" not in envelope.content
        self.got[to] += 1
        return "250 OK"


def run(store, relay, now):
    return with_relay(relay, lambda url: drain(
        store, Relay(url, "pbem.test", ["k" * 32], connections=1), now=now))


@pytest.mark.parametrize("pipelining", [True, False])
def test_mail_rcpt_and_data_go_in_one_write_when_the_relay_offers_pipelining(
        store, pipelining):
    add_rows(store, 3)
    relay = PipeRelay(pipelining=pipelining)
    assert run(store, relay, utcnow()) == 3
    assert relay.got == Counter(f"p{i}@example.org" for i in range(3))
    for i, waiting in enumerate(relay.waiting):
        assert (f"RCPT TO:<p{i}@example.org>\r\nDATA\r\n".encode() == waiting) is pipelining


def test_a_refused_address_a_4xx_and_a_dropped_line_mid_batch_lose_nothing_and_send_once(
        store):
    add_rows(store, 12)
    refused, soft, dropped = "p3@example.org", "p5@example.org", "p8@example.org"
    relay = PipeRelay(refuse={refused}, soft={soft}, drop={dropped})
    now = utcnow()
    assert run(store, relay, now) == 9
    assert relay.got == Counter(f"p{i}@example.org" for i in range(12)
                                if i not in (3, 5, 8))
    assert len(relay.peers) == 2  # the first connection, and one after the drop
    errors = {r.to_addr: r.last_error for r in outbox(store) if r.sent_at is None}
    assert errors.keys() == {refused, soft, dropped}
    assert errors[refused].startswith("SMTPRecipientsRefused") and "550" in errors[refused]
    assert errors[soft].startswith("SMTPDataError: (451")
    assert errors[dropped].startswith("SMTPServerDisconnected")
    assert all(r.next_attempt == now + timedelta(minutes=1)
               for r in outbox(store) if r.sent_at is None)  # each its own backoff

    relay.soft, relay.drop = set(), set()  # the relay is well again; the address still bad
    assert run(store, relay, now + timedelta(minutes=2)) == 2
    assert relay.got == Counter(f"p{i}@example.org" for i in range(12) if i != 3)
    assert [r.to_addr for r in outbox(store) if r.sent_at is None] == [refused]


@pytest.mark.parametrize("pipelining", [True, False])
def test_a_421_at_rcpt_fails_that_mail_only_and_the_next_goes_on_a_new_connection(
        store, pipelining):
    add_rows(store, 6)
    relay = PipeRelay(pipelining=pipelining, closing={"p2@example.org"})
    assert run(store, relay, utcnow()) == 5
    [failed] = [r for r in outbox(store) if r.sent_at is None]
    assert failed.to_addr == "p2@example.org" and "421" in failed.last_error
    assert len(relay.peers) == 2 and relay.got == Counter(
        f"p{i}@example.org" for i in range(6) if i != 2)


def self_signed(tmp_path):
    """A certificate (and key) for 127.0.0.1, and its file for SSL_CERT_FILE to trust."""
    import datetime as dt
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "relay.test")])
    start = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(start + dt.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    return tmp_path / "cert.pem", tmp_path / "key.pem"


def test_a_relay_offering_starttls_gets_the_mail_only_over_tls(store, tmp_path, monkeypatch):
    cert, key = self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the default context trusts our relay
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    add_rows(store, 3)
    relay, port = PipeRelay(), free_port()
    server = Controller(relay, hostname="127.0.0.1", port=port, tls_context=context,
                        require_starttls=True)  # MAIL in the clear: 530
    server.start()
    try:
        sent = drain(store, Relay(f"smtp://127.0.0.1:{port}", "pbem.test", ["k" * 32],
                                  connections=1))
    finally:
        server.stop()
    assert sent == 3 and relay.got == Counter(f"p{i}@example.org" for i in range(3))
    assert relay.tls == {True}


def test_one_connection_sends_on_while_the_marks_wait_for_the_database(store):
    """A delivery with one worker (a relay's one connection) never waits on a commit: while
    another writer holds the outbox, the batch's mails go on; they are marked once it ends."""
    add_rows(store, 10)
    locked, done, in_time = threading.Event(), threading.Event(), []

    def hold():
        with store.engine.begin() as c:  # SQLite: BEGIN IMMEDIATE; PostgreSQL: a table lock
            if c.dialect.name == "postgresql":
                c.exec_driver_sql("LOCK TABLE outbox IN EXCLUSIVE MODE")
            locked.set()
            # the old way (a commit before each next mail) waits here until the timeout
            in_time.append(done.wait(timeout=20))

    class OneConnection:
        workers, sent = 1, []

        def __call__(self, row):
            if not self.sent:
                threading.Thread(target=hold, daemon=True).start()
                locked.wait()
            time.sleep(FLUSH_EVERY * 1.5)  # a relay's answer: long enough for a mark to be due
            self.sent.append(row.id)
            if len(self.sent) == 10:
                done.set()

    deliver = OneConnection()
    assert drain(store, deliver) == 10
    assert in_time == [True] and len(deliver.sent) == 10
    assert all(r.sent_at is not None for r in outbox(store))


class GoneAtRset(PipeRelay):
    """Refuses as PipeRelay does, then drops the line when the client resets."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.resets = 0

    async def handle_RSET(self, server, session, envelope):
        self.resets += 1
        server.transport.abort()
        return "250 OK"


def test_a_relay_gone_at_the_reset_after_a_refusal_still_says_refused():
    """The RSET after a refusal is smtplib's public rset(); a relay that hangs up there is
    found by the next mail, and this one's refusal is what its row records."""
    relay = GoneAtRset(refuse={"bad@example.org"})

    def send_one(url):
        with smtplib.SMTP(*url.removeprefix("smtp://").split(":"), timeout=10) as conn:
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                pipelining.send(conn, "pbem@pbem.test", "bad@example.org", b"Hi\r\n")
            with pytest.raises(smtplib.SMTPServerDisconnected):
                pipelining.send(conn, "pbem@pbem.test", "ok@example.org", b"Hi\r\n")

    with_relay(relay, send_one)
    assert relay.resets == 1 and not relay.got
