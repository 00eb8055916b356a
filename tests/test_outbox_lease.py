"""The outbox's batch claims (pbem.store.lease) and relay connections (pbem.store.relay):
two live drainers never send one row, a killed drainer's rows go out seconds later, a
delivered row is marked sent at once, and a relay gets one connection a drain per worker,
a new one when the relay hangs up. Real processes, real SIGKILL, a real aiosmtpd relay."""

import asyncio
import signal
from collections import Counter
from datetime import timedelta

from aiosmtpd.controller import Controller
from sqlmodel import select

from pbem.store.lease import LEASE
from pbem.store.models import Outbox
from pbem.store.models import now as utcnow
from pbem.store.outbox import drain, maildir_delivery
from pbem.store.relay import Relay
from tests.test_crash import expected_ids, maildir_ids, outbox, spawn
from tests.test_serve import free_port

DRAINER = """
import sys, time
from datetime import timedelta
from pbem.store.states import Store
from pbem.store.outbox import drain, maildir_delivery
store, to_maildir = Store(sys.argv[1]), maildir_delivery(sys.argv[2], domain="pbem.test")
lease = timedelta(seconds=float(sys.argv[4]))
def deliver(row):
    to_maildir(row)
    print("sent", row.id, flush=True)
    time.sleep(float(sys.argv[3]))  # a slow relay
print("ready", flush=True)
sys.stdin.readline()  # go
while drain(store, deliver, limit=int(sys.argv[5]), lease=lease):
    pass
"""


def add_rows(store, n: int) -> None:
    with store.session() as s:
        for i in range(n):
            s.add(Outbox(to_addr=f"p{i}@example.org", subject=f"Game {i}: your move",
                         body_text="Your move.\n", dedupe_key=f"turn:{i}:0:1"))
        s.commit()


def go(*procs) -> None:
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()


def sent_ids(out: str) -> list[int]:
    return [int(line.split()[1]) for line in out.splitlines() if line.startswith("sent ")]


def test_two_live_drainers_slower_than_their_lease_never_send_one_row_twice(
        store, db_url, tmp_path):
    # each batch takes 3 s to deliver, three times the 1 s lease: only the heartbeat
    # keeps the other drainer off it
    add_rows(store, 60)
    mail = tmp_path / "mail"
    a = spawn("-c", DRAINER, db_url, str(mail), "0.1", "1", "30")
    b = spawn("-c", DRAINER, db_url, str(mail), "0.1", "1", "30")
    go(a, b)
    outs = [p.communicate(timeout=120)[0] for p in (a, b)]
    assert a.returncode == 0 and b.returncode == 0
    ids = sent_ids(outs[0]) + sent_ids(outs[1])
    assert sent_ids(outs[0]) and sent_ids(outs[1]), "one drainer did all: no race was tested"
    assert [i for i, n in Counter(ids).items() if n > 1] == [], "a row was delivered twice"
    assert sorted(ids) == [r.id for r in outbox(store)]
    assert all(r.sent_at is not None and r.attempts == 1 for r in outbox(store))


def test_a_killed_drainers_rows_go_out_a_lease_later_and_its_delivered_ones_are_marked(
        store, db_url, tmp_path):
    add_rows(store, 40)
    mail = tmp_path / "mail"
    a = spawn("-c", DRAINER, db_url, str(mail), "0.2", str(LEASE.total_seconds()), "40")
    go(a)
    first = [int(a.stdout.readline().split()[1]) for _ in range(4)]
    a.send_signal(signal.SIGKILL)  # mid-batch: four (or five) delivered, the rest claimed
    out, _ = a.communicate()
    delivered = first + sent_ids(out)
    rows = {r.id: r for r in outbox(store)}
    # marked sent as soon as delivered (at most the last one, in its commit's 20 ms, not)
    assert sum(rows[i].sent_at is None for i in delivered) <= 1
    waiting = [r for r in rows.values() if r.sent_at is None]
    assert len(waiting) >= 30 and all(r.attempts == 1 for r in waiting)
    killed = utcnow()
    deliver = maildir_delivery(mail, domain="pbem.test")
    assert drain(store, deliver, now=killed) == 0  # still under the dead drainer's lease
    later = killed + LEASE + timedelta(seconds=2)  # seconds, not minutes
    assert drain(store, deliver, now=later) == len(waiting)
    assert all(r.sent_at is not None for r in outbox(store))
    assert maildir_ids(mail) == expected_ids(store)


class Relay421:
    """Takes mails (each after `delay` s); the `hangup`th is answered 421 (closing); counts
    connections and the most sessions at once."""

    def __init__(self, hangup: int = 0, delay: float = 0.0):
        self.hangup, self.delay, self.n, self.got = hangup, delay, 0, []
        self.peers, self.busy, self.most = set(), 0, 0

    async def handle_DATA(self, server, session, envelope):
        self.n += 1
        self.peers.add(session.peer)
        if self.n == self.hangup:
            return "421 closing the connection"
        self.busy += 1
        self.most = max(self.most, self.busy)
        await asyncio.sleep(self.delay)
        self.busy -= 1
        self.got.append(envelope.rcpt_tos[0])
        return "250 OK"


def with_relay(handler, run):
    port = free_port()
    server = Controller(handler, hostname="127.0.0.1", port=port)
    server.start()
    try:
        return run(f"smtp://127.0.0.1:{port}")
    finally:
        server.stop()


def test_a_drain_uses_one_relay_connection_and_opens_another_after_a_hangup(store):
    add_rows(store, 30)
    relay = Relay421(hangup=5)
    now = utcnow()
    sent = with_relay(relay, lambda url: drain(
        store, Relay(url, "pbem.test", ["k" * 32], connections=1), now=now))
    assert sent == 29 and len(relay.got) == 29
    assert len(relay.peers) == 2  # the first connection, and one after the 421
    [failed] = [r for r in outbox(store) if r.sent_at is None]
    assert failed.last_error.startswith("SMTPDataError: (421")
    assert failed.next_attempt == now + timedelta(minutes=1)  # its own backoff, as before
    with store.reader() as s:
        assert s.exec(select(Outbox).where(Outbox.last_error.is_not(None))).all() == [failed]


def test_a_slow_relay_gets_several_connections_at_once(store):
    add_rows(store, 24)
    relay = Relay421(delay=0.2)
    sent = with_relay(relay, lambda url: drain(store, Relay(url, "pbem.test", ["k" * 32],
                                                            connections=8)))
    assert sent == 24 and sorted(relay.got) == sorted(f"p{i}@example.org" for i in range(24))
    assert 1 < relay.most <= 8 and len(relay.peers) <= 8
