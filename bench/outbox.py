"""Outbox drain speed: a burst of mails into a Maildir and into a local SMTP relay.

    .venv/bin/python bench/outbox.py [--mails N] [--backlog N] [--delay S] [--pg URL]

- maildir: N due rows (turn mails of a realistic size, to N/4 players) drained by
  `pbem.store.outbox.drain` into a Maildir until none is left: mails a second.
- relay: the same N rows drained into a local aiosmtpd relay (`pbem.serve.smtp_delivery`)
  whose handler only takes the mail: mails a second, and the connections the relay saw;
  with the default connections and with one (a drain's batch over one connection).
- ceiling: what the same relay takes over one connection from a client that does nothing
  else: the N mails' bytes made beforehand, each mail's end and the next one's MAIL, RCPT
  and DATA in one write (RFC 2920); run beside the one-connection drain, interleaved.
- lag: N rows written at once while `pbem.serve.send_until` runs as `pbem serve` runs it
  (a look every 0.2 s, a drain at least every 2 s): seconds from the burst's commit
  until the last is in the Maildir, and through the relay over one connection a drain.
- backlog: --backlog rows into a relay that answers each mail after --delay seconds
  (a slow or distant relay): the seconds the whole backlog took, and the connections.

The database is a SQLite file under /tmp by default, or a new schema (dropped afterwards)
on the PostgreSQL server --pg names. Each case gets a fresh database.
"""

import argparse
import asyncio
import os
import platform
import shutil
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aiosmtpd.controller import Controller  # noqa: E402
from sqlalchemy import func, insert  # noqa: E402
from sqlmodel import select  # noqa: E402

from bench.scratch_db import ScratchDatabase  # noqa: E402
from pbem.serve import send_until, smtp_delivery  # noqa: E402
from pbem.store.models import Outbox  # noqa: E402
from pbem.store.models import now as utcnow  # noqa: E402
from pbem.store.outbox import drain, maildir_delivery, wire  # noqa: E402
from pbem.store.states import Store  # noqa: E402

DOMAIN = "pbem.localhost"
KEYS = ["bench-secret-key-0123456789abcdef"]
TEXT = ("Game 7: your move (you are North).\n\nTrick 5: W led 9H, N ?\n\n"
        + "Your hand: AS KS 7S 2S  QH 9H 3H  JD 8D  AC 10C 6C 4C\n" * 6
        + "\nReply to this mail with one of:\n  play 2S\n  play 3H\n  play 9H\n" * 4)
HTML = "<!doctype html><html><body>" + "<p>" + TEXT.replace("\n", "<br>\n") * 2 + "</body></html>"


CPU = []  # the process's CPU seconds of each drain_all: a figure the machine's load moves less


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fill(store, n: int, tag: str) -> None:
    """n due turn mails to n/4 players, in one transaction (a burst)."""
    now = utcnow()
    rows = [dict(to_addr=f"p{i % max(n // 4, 1)}@example.org", subject=f"Game {i}: your move",
                 body_text=TEXT, body_html=HTML, dedupe_key=f"turn:{tag}:{i}:1",
                 headers={"Reply-To": f"play+{tag}{i}@{DOMAIN}", "X-Pbem-Game": str(i)},
                 attempts=0, next_attempt=now, created=now) for i in range(n)]
    with store.engine.begin() as c:
        c.execute(insert(Outbox), rows)


def unsent(store) -> int:
    with store.reader() as s:
        return s.exec(select(func.count()).select_from(Outbox)
                      .where(Outbox.sent_at.is_(None))).one()


def drain_all(store, deliver) -> float:
    t0, c0 = time.perf_counter(), time.process_time()
    while drain(store, deliver):
        pass
    took = time.perf_counter() - t0
    CPU.append(time.process_time() - c0)
    if unsent(store):
        raise SystemExit(f"{unsent(store)} rows were left unsent")
    return took


class Relay:
    """An aiosmtpd handler that takes every mail (after `delay` s) and counts connections;
    it offers PIPELINING, as the usual relays (Postfix, Exim, the mail services) do."""

    def __init__(self, delay: float = 0.0):
        self.delay, self.mails, self.peers = delay, 0, set()

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname
        return [*responses[:-1], "250-PIPELINING", responses[-1]]

    async def handle_DATA(self, server, session, envelope):
        if self.delay:
            await asyncio.sleep(self.delay)
        self.mails += 1
        self.peers.add(session.peer)
        return "250 OK"


def ceiling(port: int, mails: list[bytes]) -> tuple[float, float]:
    """(seconds, CPU seconds) for `mails` sent to the relay at `port` by a bare client."""
    t0, c0 = time.perf_counter(), time.process_time()
    with socket.create_connection(("127.0.0.1", port)) as s, s.makefile("rb") as f:
        def replies(n):
            for _ in range(n):
                while (line := f.readline())[3:4] == b"-":
                    pass
                if not line.startswith((b"2", b"3")):
                    raise SystemExit(f"the relay said {line!r}")
        replies(1)
        s.sendall(b"EHLO bench\r\n")
        replies(1)
        head = b"MAIL FROM:<play@%s>\r\nRCPT TO:<p%d@example.org>\r\nDATA\r\n"
        s.sendall(head % (DOMAIN.encode(), 0))
        replies(3)
        for i, data in enumerate(mails, 1):
            end = b"QUIT\r\n" if i == len(mails) else head % (DOMAIN.encode(), i)
            s.sendall(data.replace(b"\r\n.", b"\r\n..") + b".\r\n" + end)
            replies(1 if i == len(mails) else 4)
    return time.perf_counter() - t0, time.process_time() - c0


def ceiling_case(n: int) -> float:
    """Seconds for n mails of the bench's size through the bare client (CPU into CPU)."""
    row = Outbox(id=1, to_addr="p0@example.org", subject="Game 1: your move", body_text=TEXT,
                 body_html=HTML, dedupe_key="turn:c:1:1", headers={"X-Pbem-Game": "1"})
    data = wire(row, DOMAIN)
    relay, port = Relay(), free_port()
    server = Controller(relay, hostname="127.0.0.1", port=port)
    server.start()
    try:
        took, cpu = ceiling(port, [data] * n)
    finally:
        server.stop()
    CPU.append(cpu)
    if relay.mails != n:
        raise SystemExit(f"the relay took {relay.mails} of {n}")
    return took


def relay_delivery(url: str, connections: int | None):
    if connections is None:
        return smtp_delivery(url, DOMAIN, KEYS)
    try:
        return smtp_delivery(url, DOMAIN, KEYS, connections)
    except TypeError:  # the code before issue 15: a connection a mail, one at a time
        return smtp_delivery(url, DOMAIN, KEYS)


def with_relay(delay: float, run, connections: int | None = None):
    relay, port = Relay(delay), free_port()
    server = Controller(relay, hostname="127.0.0.1", port=port)
    server.start()
    try:
        took = run(relay_delivery(f"smtp://127.0.0.1:{port}", connections))
    finally:
        server.stop()
    return took, relay


def case(pg, n: int, tag: str, run):
    db = ScratchDatabase(pg)
    store = Store(db.url)
    try:
        fill(store, n, tag)
        return run(store)
    finally:
        store.engine.dispose()
        db.close()


def maildir_case(pg, n: int, read: int = 0) -> float:
    """`read`: mails already read in cur/, as months of a mail client leave them."""
    box = Path(tempfile.mkdtemp(prefix="pbem-bench-mail-"))
    (box / "cur").mkdir()
    for i in range(read):
        (box / "cur" / f"pbem-read{i}:2,S").touch()
    old = time.time() - 3600  # read an hour ago
    os.utime(box / "cur", (old, old))
    try:
        return case(pg, n, "m", lambda store: drain_all(store, maildir_delivery(box, DOMAIN)))
    finally:
        shutil.rmtree(box, ignore_errors=True)


def relay_case(pg, n: int, delay: float, connections: int | None = None):
    return case(pg, n, "r", lambda store: with_relay(
        delay, lambda d: drain_all(store, d), connections))


def lag_case(pg, n: int, deliver) -> float:
    """Seconds from the burst's commit until the last mail is out, under send_until."""
    db = ScratchDatabase(pg)
    store, stop = Store(db.url), threading.Event()
    sender = threading.Thread(target=send_until, args=(stop, store, deliver, 2.0), daemon=True)
    sender.start()
    try:
        time.sleep(0.5)  # the sender is idle, waiting, as in `pbem serve`
        fill(store, n, "l")
        t0 = time.perf_counter()
        while unsent(store) and time.perf_counter() - t0 < 600:
            time.sleep(0.02)
        return time.perf_counter() - t0
    finally:
        stop.set()
        sender.join(timeout=60)
        store.engine.dispose()
        db.close()


def maildir_lag(pg, n: int) -> float:
    box = Path(tempfile.mkdtemp(prefix="pbem-bench-mail-"))
    try:
        return lag_case(pg, n, maildir_delivery(box, DOMAIN))
    finally:
        shutil.rmtree(box, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mails", type=int, default=1000)
    ap.add_argument("--backlog", type=int, default=1500)
    ap.add_argument("--delay", type=float, default=0.4)
    ap.add_argument("--pg", metavar="URL", help="PostgreSQL instead of a SQLite file")
    ap.add_argument("--read", type=int, default=0, help="read mails in the Maildir's cur/")
    ap.add_argument("--skip", default="", help="cases to skip: maildir,relay,ceiling,lag,backlog")
    args = ap.parse_args()
    skip, n = set(args.skip.split(",")), args.mails
    print(f"python {platform.python_version()}, {platform.machine()}, "
          f"{'postgresql' if args.pg else 'sqlite'}; target >= 500 mails/s, lag < 2 s, "
          f"a backlog of 1,500 at 0.4 s < 60 s")
    if "maildir" not in skip:
        t = maildir_case(args.pg, n, args.read)
        print(f"maildir: {n} mails in {t:.2f} s = {n / t:.0f} mails/s "
              f"({1000 * CPU[-1] / n:.2f} ms CPU a mail, {args.read} read mails in cur/)")
    if "relay" not in skip:
        for conns in (None, 1):
            t, relay = relay_case(args.pg, n, 0.0, conns)
            print(f"relay:   {n} mails in {t:.2f} s = {n / t:.0f} mails/s over "
                  f"{len(relay.peers)} connections ({1000 * CPU[-1] / n:.2f} ms CPU a mail, "
                  f"the relay's included){'' if conns is None else ', one connection a drain'}")
            if conns == 1 and "ceiling" not in skip:
                c = ceiling_case(n)
                print(f"ceiling: {n} mails in {c:.2f} s = {n / c:.0f} mails/s over one "
                      f"connection from a bare client ({1000 * CPU[-1] / n:.2f} ms CPU a "
                      f"mail, the relay's); the drain above did {c / t:.0%} of it")
    if "lag" not in skip:
        print(f"lag:     the last of a burst of {n} in the Maildir after "
              f"{maildir_lag(args.pg, n):.2f} s (send_until as in pbem serve)")
        t, _ = with_relay(0.0, lambda d: lag_case(args.pg, n, d), 1)
        print(f"lag:     the last of a burst of {n} through the relay (one connection a "
              f"drain) after {t:.2f} s")
    if "backlog" not in skip:
        b = args.backlog
        t, relay = relay_case(args.pg, b, args.delay)
        print(f"backlog: {b} mails, relay answering in {args.delay} s: {t:.1f} s "
              f"= {b / t:.1f} mails/s over {len(relay.peers)} connections")


if __name__ == "__main__":
    main()
