"""Mail throughput end to end, beside the same client against a do-nothing SMTP server.

    .venv/bin/python bench/mail.py [--seconds S] [--pg URL] [--connection-per-mail]

- end to end: one client sends mails over SMTP (smtplib) to `pbem.mail.inbound.controller`
  on a free port; each mail is the next legal move of a 4-human game (to a target of
  10,000 so it never ends while timed), from the seat's player to the seat's Reply-To
  address. The server's 250 after DATA comes only once the move is committed and the reply
  (and the next turn mail) are written to the Outbox, so a mail is counted at its 250.
  Draining the Outbox into a Maildir is not timed. The client keeps its own copy of the
  game (from the exported log, re-read after each deal) to know the next legal move.
- ceiling: the same client sends the very same mails (the same bytes, the same connection
  pattern) to an aiosmtpd Controller whose handler only answers 250.

By default every mail goes over one SMTP connection (one transaction each, as a relay
reusing its connection would); --connection-per-mail opens a connection for each mail.
The database is a SQLite file under /tmp by default, or a new schema (dropped afterwards) on
the PostgreSQL server --pg names.
"""

import argparse
import dataclasses
import email.policy
import platform
import secrets
import shutil
import smtplib
import socket
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aiosmtpd.controller import Controller  # noqa: E402
from sqlalchemy import func  # noqa: E402
from sqlmodel import select  # noqa: E402

from bench.scratch_db import ScratchDatabase  # noqa: E402
from pbem.config import Settings  # noqa: E402
from pbem.engine import advance, apply, choose, parse_action, preset, view  # noqa: E402
from pbem.gamelog import replay_log  # noqa: E402
from pbem.mail.inbound import MAX_SIZE, controller  # noqa: E402
from pbem.notify import reply_address  # noqa: E402
from pbem.play import start  # noqa: E402
from pbem.store.games import create_game, export  # noqa: E402
from pbem.store.models import Outbox, Player, Seat  # noqa: E402
from pbem.store.states import Store  # noqa: E402

DOMAIN = "pbem.localhost"
HUMANS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]
RULES = dataclasses.replace(preset("standard"), target=1000)  # the largest target allowed


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def words(action: dict) -> str:
    """The line a player writes for `action` (checked against the parser)."""
    kind = action["type"]
    if kind == "play":
        line = f"play {action['card']}"
    elif kind == "bid":
        bid = action["bid"]
        line = f"bid {'blind ' if action.get('blind') else ''}{bid}"
    else:
        line = kind.replace("_", " ")
    assert parse_action(line, RULES) == action, (line, action)
    return line


class Players:
    """The four players' side: who is to move, and the mail that makes the next move."""

    def __init__(self, store, game_id: int):
        self.store, self.game_id = store, game_id
        cfg = Settings(database_url="unused", mail_domain=DOMAIN)
        with store.session() as s:
            seats = s.exec(select(Seat, Player).join(Player)
                           .where(Seat.game_id == game_id).order_by(Seat.seat)).all()
        self.who = [(p.email, reply_address(cfg, seat)) for seat, p in seats]
        self.sync()
        self.n = 0

    def sync(self) -> None:
        self.st = replay_log(export(self.store, self.game_id))

    def next_mail(self) -> tuple[str, str, bytes]:
        if self.st.phase == "deal":
            self.sync()  # the server dealt the next hand: read the deal from the log
        seat = self.st.to_act()[0]
        action = choose(view(self.st, seat), self.n, rules=self.st.rules)
        for ev in apply(self.st, seat, action):
            advance(self.st, ev)
        sender, rcpt = self.who[seat]
        self.n += 1
        msg = EmailMessage()
        msg["From"], msg["To"] = sender, rcpt
        msg["Subject"] = f"Re: Game {self.game_id}: your turn"
        msg["Message-ID"] = f"<bench.{self.n}.{secrets.token_hex(6)}@example.org>"
        msg.set_content(words(action) + "\n")
        return sender, rcpt, msg.as_bytes(policy=email.policy.SMTP)


class Client:
    """smtplib, one transaction a mail; one connection for all or one per mail."""

    def __init__(self, port: int, per_mail: bool):
        self.port, self.per_mail, self.conn = port, per_mail, None

    def send(self, sender: str, rcpt: str, raw: bytes) -> None:
        if self.conn is None:
            self.conn = smtplib.SMTP("127.0.0.1", self.port, timeout=60)
            self.conn.ehlo()
        c = self.conn
        assert c.mail(sender)[0] == 250
        assert c.rcpt(rcpt)[0] == 250
        code, reply = c.data(raw)
        assert code == 250, reply
        if self.per_mail:
            self.close()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.quit()
            self.conn = None


class Nothing:
    async def handle_DATA(self, server, session, envelope):
        return "250 OK"


def end_to_end(db: ScratchDatabase, seconds: float, per_mail: bool):
    store = Store(db.url)
    gid = create_game(store, RULES, HUMANS, first_dealer=0)
    start(store, gid)
    players = Players(store, gid)
    cfg = Settings(var_dir=Path(tempfile.mkdtemp(prefix="pbem-bench-var-")),
                   database_url=db.url, mail_domain=DOMAIN)
    port = free_port()
    server = controller(store, cfg, "127.0.0.1", port)
    server.start()
    client, sent = Client(port, per_mail), []
    try:
        for _ in range(20):  # warm up: connections, caches
            mail = players.next_mail()
            client.send(*mail)
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            mail = players.next_mail()
            client.send(*mail)
            sent.append(mail)
        elapsed = time.perf_counter() - t0
        client.close()
    finally:
        server.stop()
        shutil.rmtree(cfg.var_dir, ignore_errors=True)
    with store.session() as s:
        refused = s.exec(select(func.count()).select_from(Outbox)
                         .where(Outbox.subject.like("%not done%"))).one()
        done = s.exec(select(func.count()).select_from(Outbox)
                      .where(Outbox.subject.like("Game %: you %"))).one()
    if refused or done != len(sent) + 20:
        raise SystemExit(f"the moves did not all apply: {done} done, {refused} refused, "
                         f"{len(sent) + 20} sent")
    store.engine.dispose()
    return len(sent), elapsed, sent


def ceiling(mails, per_mail: bool):
    port = free_port()
    server = Controller(Nothing(), hostname="127.0.0.1", port=port, data_size_limit=MAX_SIZE)
    server.start()
    client = Client(port, per_mail)
    try:
        for mail in mails[:20]:
            client.send(*mail)
        t0 = time.perf_counter()
        for mail in mails:
            client.send(*mail)
        elapsed = time.perf_counter() - t0
        client.close()
    finally:
        server.stop()
    return len(mails), elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--pg", metavar="URL", help="PostgreSQL instead of a SQLite file")
    ap.add_argument("--connection-per-mail", action="store_true")
    args = ap.parse_args()
    per_mail = args.connection_per_mail
    print(f"python {platform.python_version()}, {platform.machine()}, "
          f"{'postgresql' if args.pg else 'sqlite'}, "
          f"{'a connection per mail' if per_mail else 'one connection for all mails'}")
    db = ScratchDatabase(args.pg)
    try:
        n, t, mails = end_to_end(db, args.seconds, per_mail)
    finally:
        db.close()
    m, u = ceiling(mails, per_mail)
    e2e, top = n / t, m / u
    print(f"end to end (SMTP in, move committed, reply in the outbox): {n} mails in "
          f"{t:.2f} s = {e2e:.1f} mails/s ({1000 * t / n:.2f} ms a mail)")
    print(f"ceiling (same client, same mails, handler does nothing):    {m} mails in "
          f"{u:.2f} s = {top:.1f} mails/s ({1000 * u / m:.2f} ms a mail)")
    print(f"ratio end to end / ceiling: {e2e / top:.3f} (the ceiling is {top / e2e:.1f}x)")


if __name__ == "__main__":
    main()
