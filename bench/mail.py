"""Mail throughput end to end, beside the same client against a do-nothing SMTP server.

    .venv/bin/python bench/mail.py [--seconds S] [--pg URL] [--connection-per-mail]
                                   [--profile FILE]

- end to end: one client sends mails over SMTP (smtplib) to `pbem.mail.inbound.controller`
  on a free port; each mail is the next legal move of a 4-human game (to a target of
  1,000 so it rarely ends while timed), from the seat's player to the seat's Reply-To
  address. The server's 250 after DATA comes only once the move is committed and the reply
  (and the next turn mail) are written to the Outbox, so a mail is timed from MAIL FROM to
  that 250. Draining the Outbox into a Maildir is not timed. The client keeps its own copy
  of the game (from the exported log, re-read after each deal) to know the next legal move,
  and plays the cards that play themselves (a seat's only legal card, as the server does
  for every player by default) without a mail.
- ceiling: the same client sends the very same mails (the same bytes, the same connection
  pattern) to an aiosmtpd Controller whose handler only answers 250. The two run
  interleaved, a chunk of mails to each in turn, so both see the same load.

Afterwards the move log must hold one move by mail for every mail sent, each mail's
Inbound row must say "done", and the server's game must be the client's copy: else the
bench fails rather than print a figure. --profile FILE writes a cProfile of the server's
work for every timed mail (the handler's thread; pstats can read it).

By default every mail goes over one SMTP connection (one transaction each, as a relay
reusing its connection would); --connection-per-mail opens a connection for each mail.
The database is a SQLite file under /tmp by default, or a new schema (dropped afterwards) on
the PostgreSQL server --pg names.
"""

import argparse
import cProfile
import dataclasses
import email.policy
import os
import platform
import secrets
import shutil
import smtplib
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from email.message import EmailMessage
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aiosmtpd.controller import Controller  # noqa: E402
from sqlalchemy import event  # noqa: E402
from sqlmodel import select  # noqa: E402

from bench.scratch_db import ScratchDatabase  # noqa: E402
from pbem.config import Settings  # noqa: E402
from pbem.engine import advance, apply, choose, parse_action, preset, view  # noqa: E402
from pbem.engine.auto import auto_card  # noqa: E402
from pbem.gamelog import replay_log  # noqa: E402
from pbem.mail.inbound import MAX_SIZE, controller  # noqa: E402
from pbem.notify import reply_address  # noqa: E402
from pbem.play import start  # noqa: E402
from pbem.store.games import create_game, export  # noqa: E402
from pbem.store.models import Inbound, Move, Player, Seat  # noqa: E402
from pbem.store.states import Store  # noqa: E402

DOMAIN = "pbem.localhost"
HUMANS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]
RULES = dataclasses.replace(preset("standard"), target=1000)  # the largest target allowed
WARM_UP = 20  # mails to each server before timing: connections, caches
CHUNK = 25  # mails to one server before the other's turn
TARGET_RATE, TARGET_P99 = 300, 50.0  # issue 15: mails/s, ms


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
        self.play(seat, action)
        self.play_forced()
        sender, rcpt = self.who[seat]
        self.n += 1
        msg = EmailMessage()
        msg["From"], msg["To"] = sender, rcpt
        msg["Subject"] = f"Re: Game {self.game_id}: your turn"
        msg["Message-ID"] = f"<bench.{self.n}.{secrets.token_hex(6)}@example.org>"
        msg.set_content(words(action) + "\n")
        return sender, rcpt, msg.as_bytes(policy=email.policy.SMTP)

    def play(self, seat: int, action: dict) -> None:
        for ev in apply(self.st, seat, action):
            advance(self.st, ev)

    def play_forced(self) -> None:
        """The cards the server plays for the seats by itself (each player's `auto` is
        "forced" by default), so the next mail is for the seat really to move."""
        while (card := auto_card(self.st, self.st.turn)) is not None:
            self.play(self.st.turn, {"type": "play", "card": card, "auto": "forced"})


class Client:
    """smtplib, one transaction a mail; one connection for all or one per mail."""

    def __init__(self, port: int, per_mail: bool):
        self.port, self.per_mail, self.conn = port, per_mail, None
        self.times: list[float] = []

    def send(self, sender: str, rcpt: str, raw: bytes, timed: bool = True) -> None:
        t0 = time.perf_counter()
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
        if timed:
            self.times.append(time.perf_counter() - t0)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.quit()
            self.conn = None


class Nothing:
    async def handle_DATA(self, server, session, envelope):
        return "250 OK"


class Measured:
    """Wraps the server's Processor: for each mail while `on`, the CPU time of its thread
    and the SQL statements it ran (figures the machine's load hardly moves), and a
    cProfile of it if `profile`."""

    def __init__(self, processor, engine, profile: bool):
        self.inner, self.on, self.cpu, self.statements = processor, False, [], []
        self.profile = cProfile.Profile() if profile else None
        self.known = processor.known
        self.mine = threading.local()
        event.listen(engine, "before_cursor_execute", self._count)

    def _count(self, *_args):
        if getattr(self.mine, "n", None) is not None:
            self.mine.n += 1

    def process(self, *args):
        if not self.on:
            return self.inner.process(*args)
        t0, self.mine.n = time.thread_time(), 0
        if self.profile:
            self.profile.enable()
        try:
            return self.inner.process(*args)
        finally:
            if self.profile:
                self.profile.disable()
            self.cpu.append(time.thread_time() - t0)
            self.statements.append(self.mine.n)
            self.mine.n = None


@dataclasses.dataclass
class Run:
    ours: list[float]  # seconds a mail, end to end
    ceiling: list[float]  # the same mails, to the do-nothing server
    cpu: list[float]  # CPU seconds of the server's thread for each of ours
    statements: list[int]  # SQL statements for each of ours


def bench(store, cfg, mails: int | None = None, seconds: float = 0.0,
          per_mail: bool = False, profile: str | None = None) -> Run:
    """`mails` mails (or as many as `seconds` of ours allow) to our server and the same to
    the ceiling, interleaved; then the check that every one of ours moved."""
    gid = create_game(store, RULES, HUMANS, first_dealer=0)
    start(store, gid)
    players = Players(store, gid)
    ours, top = _server(store, cfg), Controller(Nothing(), hostname="127.0.0.1",
                                                port=free_port(), data_size_limit=MAX_SIZE)
    measured = ours.handler.processor = Measured(ours.handler.processor, store.engine,
                                                        bool(profile))
    ours.start()
    top.start()
    a, b = Client(ours.port, per_mail), Client(top.port, per_mail)
    try:
        for _ in range(WARM_UP):
            mail = players.next_mail()
            a.send(*mail, timed=False)
            b.send(*mail, timed=False)
        measured.on = True
        while _more(a, mails, seconds):
            chunk = []
            for _ in range(CHUNK if mails is None else min(CHUNK, mails - len(a.times))):
                chunk.append(players.next_mail())
                a.send(*chunk[-1])
            for mail in chunk:
                b.send(*mail)
        measured.on = False
        a.close()
        b.close()
    finally:
        ours.stop()
        top.stop()
    if profile:
        measured.profile.dump_stats(profile)
    check(store, gid, players, WARM_UP + len(a.times))
    event.remove(store.engine, "before_cursor_execute", measured._count)
    return Run(a.times, b.times, measured.cpu, measured.statements)


def _server(store, cfg):
    return controller(store, cfg, "127.0.0.1", free_port())


def _more(client: Client, mails: int | None, seconds: float) -> bool:
    if mails is not None:
        return len(client.times) < mails
    return sum(client.times) < seconds


def check(store, gid: int, players: Players, sent: int) -> None:
    """From the move log, not from our answers' words: one move by mail for each mail,
    each mail done, and the server's game where the client's copy is."""
    with store.session() as s:
        by_mail = s.exec(select(Move.ref).where(Move.game_id == gid, Move.source == "mail")
                         ).all()
        results = Counter(s.exec(select(Inbound.result)).all())
    moved = sum(1 for ref in by_mail if ref and ref.startswith("<bench."))
    server = replay_log(export(store, gid))
    if moved != sent or results != Counter(done=sent) or server.seq != players.st.seq:
        raise SystemExit(f"the moves did not all apply: {sent} mails sent, {moved} moves "
                         f"by mail in the log, mails' results {dict(results)}, the server's "
                         f"game at move {server.seq}, the client's at {players.st.seq}")


def pct(times: list[float], q: float) -> float:
    """The q-quantile in milliseconds (nearest rank)."""
    ordered = sorted(times)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def line(name: str, times: list[float]) -> str:
    rate = len(times) / sum(times)
    return (f"{name}: {len(times)} mails, {rate:.1f} mails/s, p50 {pct(times, 0.5):.2f} ms, "
            f"p99 {pct(times, 0.99):.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--pg", metavar="URL", help="PostgreSQL instead of a SQLite file")
    ap.add_argument("--connection-per-mail", action="store_true")
    ap.add_argument("--profile", metavar="FILE", help="cProfile of the server's work")
    args = ap.parse_args()
    per_mail = args.connection_per_mail
    print(f"python {platform.python_version()}, {platform.machine()}, "
          f"{'postgresql' if args.pg else 'sqlite'}, "
          f"{'a connection per mail' if per_mail else 'one connection for all mails'}")
    db = ScratchDatabase(args.pg)
    var = Path(tempfile.mkdtemp(prefix="pbem-bench-var-"))
    try:
        store = Store(db.url)
        cfg = Settings(var_dir=var, database_url=db.url, mail_domain=DOMAIN)
        run = bench(store, cfg, seconds=args.seconds, per_mail=per_mail, profile=args.profile)
        store.engine.dispose()
    finally:
        db.close()
        shutil.rmtree(var, ignore_errors=True)
    ours, top = line("end to end (SMTP in, move committed, reply queued)", run.ours), \
        line("ceiling (same client, same mails, handler does nothing)", run.ceiling)
    print(ours + f"   target >= {TARGET_RATE}/s, p99 < {TARGET_P99:.0f} ms")
    print(top)
    e2e, ceil = len(run.ours) / sum(run.ours), len(run.ceiling) / sum(run.ceiling)
    met = e2e >= TARGET_RATE and pct(run.ours, 0.99) < TARGET_P99
    print(f"ratio end to end / ceiling: {e2e / ceil:.3f}; target {'met' if met else 'missed'}")
    print(f"CPU time of the server's thread a mail: median {pct(run.cpu, 0.5):.2f} ms, "
          f"p99 {pct(run.cpu, 0.99):.2f} ms; SQL statements a mail: "
          f"{sum(run.statements) / len(run.statements):.1f}; load average "
          f"{os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
