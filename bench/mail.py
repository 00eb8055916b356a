"""Mail throughput end to end, beside the same client against a do-nothing SMTP server.

    .venv/bin/python bench/mail.py [--seconds S] [--pg URL] [--connection-per-mail]
                                   [--profile FILE] [--connections N] [--processes N]

- end to end: one client sends mails over SMTP (smtplib) to `pbem.mail.inbound.controller`
  on a free port; each mail is the next legal move of a 4-human game (to a target of
  1,000 so it rarely ends while timed), from the seat's player to the seat's Reply-To
  address. The server's 250 after DATA comes only once the move is committed and the reply
  (and the next turn mail) are written to the Outbox, so a mail is timed from MAIL FROM to
  that 250. Draining the Outbox into a Maildir is not timed. The client keeps its own copy
  of the game (from the exported log, re-read after each deal) to know the next legal move,
  and plays the cards that play themselves (a seat's only legal card, as the server does
  for every player by default) without a mail. When a game is over (a long run gets there)
  the client starts another.
- --connections N: N such clients at once, each on its own connection and playing its own
  game, as a relay delivers (Postfix's default destination concurrency is 20). Each sends
  a chunk of mails made beforehand, all N together; mails/s is the mails over the wall time
  of those chunks (with one client, nearly the sum of its mails' times).
- --processes N: the server is N receiving processes on one port (pbem.mail.workers, as
  `pbem smtp --processes N` runs them), not a thread of the bench's own process, so the
  client no longer shares the server's core. The server's CPU a mail is then the sum of the
  workers' CPU time (user + system, from /proc) over the timed mails, divided by them: all
  of it (SMTP, the event loop, the handler), where the in-process figure is the handler's
  thread only; each worker's share says how the connections spread. SQL statements are
  counted in-process only.
- ceiling: the same client sends the very same mails (the same bytes, the same connection
  pattern) to an aiosmtpd Controller whose handler only answers 250. The two run
  interleaved, a chunk of mails to each in turn, so both see the same load.

Nov 2026, a 2-core machine loaded by other jobs (load average 14-18), 15 s runs, CPU time of
the server's thread a mail (median) and SQL statements a mail: SQLite 9.7-10.7 ms, 9.2 ->
6.7 ms, 9.2 once the played-for read's statement was built once (pbem.store.played);
PostgreSQL 12.6 ms -> 9.8 ms, 8.2 statements.

Afterwards the move log must hold one move by mail for every mail sent, each mail's
Inbound row must say "done", and the server's game must be the client's copy: else the
bench fails rather than print a figure. --profile FILE writes a cProfile of the server's
work for every timed mail (the handler's thread; pstats can read it; one connection only).

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
from pbem import gc_tuning  # noqa: E402
from pbem.config import Settings  # noqa: E402
from pbem.engine import advance, apply, choose, parse_action, preset, score_pad, view  # noqa: E402
from pbem.engine.settled import by_themselves  # noqa: E402
from pbem.gamelog import replay_log  # noqa: E402
from pbem.mail.inbound import MAX_SIZE, controller  # noqa: E402
from pbem.mail.workers import Workers  # noqa: E402
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
    """The four players' side of one connection: who is to move, and the mail that makes
    the next move. When their game is over (a side reached the target, as a long run does)
    they start another, as a relay's traffic would go on to other games."""

    def __init__(self, store):
        self.store, self.n = store, 0
        self.finished: list[tuple[int, object]] = []  # (game, the client's score pad)
        self.new_game()

    def new_game(self) -> None:
        self.game_id = gid = create_game(self.store, RULES, HUMANS, first_dealer=0)
        start(self.store, gid)
        cfg = Settings(database_url="unused", mail_domain=DOMAIN)
        with self.store.session() as s:
            seats = s.exec(select(Seat, Player).join(Player)
                           .where(Seat.game_id == gid).order_by(Seat.seat)).all()
        self.who = [(p.email, reply_address(cfg, seat)) for seat, p in seats]
        self.sync()

    def sync(self) -> None:
        self.st = replay_log(export(self.store, self.game_id))

    def games(self) -> list[tuple[int, object]]:
        """Each game and where the client's copy is: the score pad of a finished game or hand
        (the server reveals its deal's salt and deals, which the client reads only with its
        next mail), else the seq."""
        ended = self.st.phase in ("deal", "over")  # the server's deal follows: not yet read
        return self.finished + [(self.game_id, score_pad(self.st) if ended else self.st.seq)]

    def chunk(self, most: int) -> list[tuple[str, str, bytes]]:
        """Up to `most` next mails, made before any is sent: the chunk ends early where the
        next mail needs the server's answer first (its deal of the next hand)."""
        mails = [self.next_mail()]
        while len(mails) < most and self.st.phase not in ("deal", "over"):
            mails.append(self.next_mail())
        return mails

    def next_mail(self) -> tuple[str, str, bytes]:
        if self.st.phase == "over":  # nobody is to move: the next mail is another game's
            self.finished.append((self.game_id, score_pad(self.st)))
            self.new_game()
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
        msg["Message-ID"] = f"<bench.{self.game_id}.{self.n}.{secrets.token_hex(6)}@example.org>"
        msg.set_content(words(action) + "\n")
        return sender, rcpt, msg.as_bytes(policy=email.policy.SMTP)

    def play(self, seat: int, action: dict) -> None:
        for ev in apply(self.st, seat, action):
            advance(self.st, ev)

    def play_forced(self) -> None:
        """The cards the server plays for the seats by itself (each player's `auto` is
        "on" by default: a seat's only legal card, the rest of a settled hand), so the next
        mail is for the seat really to move."""
        by_themselves(self.st)


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
        self.known, self.cfg = processor.known, processor.cfg  # what the Handler reads
        self.mine, self.engine = threading.local(), engine
        event.listen(engine, "before_cursor_execute", self._count)

    workers: list[float] = []  # no worker processes: the server is a thread here

    def close(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self._count)

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
    wall: tuple[float, float] = (0.0, 0.0)  # seconds all clients sent to ours, to the ceiling
    workers: list[float] = dataclasses.field(default_factory=list)  # CPU s of each worker


class Lane:
    """One connection's client: its players (its own game) and its two SMTP clients."""

    def __init__(self, store, ours: int, top: int, per_mail: bool):
        self.players = Players(store)
        self.a, self.b = Client(ours, per_mail), Client(top, per_mail)
        self.chunk: list = []

    def close(self) -> None:
        self.a.close()
        self.b.close()


def bench(store, cfg, mails: int | None = None, seconds: float = 0.0,
          per_mail: bool = False, profile: str | None = None, connections: int = 1,
          processes: int = 0) -> Run:
    """`mails` mails (or as many as `seconds` of ours allow) to our server (in this process,
    or `processes` worker processes) and the same to the ceiling, interleaved, over
    `connections` connections at once (each its own game); then the check that every one of
    ours moved."""
    assert not (profile and (connections > 1 or processes)), \
        "--profile follows one connection's thread in this process"
    top = Controller(Nothing(), hostname="127.0.0.1", port=free_port(),
                     data_size_limit=MAX_SIZE)
    if processes:
        ours = measured = Processes(cfg, processes)
    else:
        ours = _server(store, cfg)
        measured = ours.handler.processor = Measured(ours.handler.processor, store.engine,
                                                            bool(profile))
    ours.start()
    top.start()
    lanes = [Lane(store, ours.port, top.port, per_mail) for _ in range(connections)]
    wall = [0.0, 0.0]
    try:
        for lane in lanes:
            for _ in range(WARM_UP):
                mail = lane.players.next_mail()
                lane.a.send(*mail, timed=False)
                lane.b.send(*mail, timed=False)
        measured.on = True
        while _more(lanes, wall[0], mails, seconds):
            left = None if mails is None else mails - sum(len(x.a.times) for x in lanes)
            for i, lane in enumerate(lanes):  # `left` shared out exactly, if given
                most = CHUNK if left is None else min(CHUNK, left // len(lanes) +
                                                      (i < left % len(lanes)))
                lane.chunk = lane.players.chunk(most) if most else []
            wall[0] += _all_at_once(lanes, lambda lane: lane.a)
            wall[1] += _all_at_once(lanes, lambda lane: lane.b)
        measured.on = False
        for lane in lanes:
            lane.close()
    finally:
        ours.stop()
        top.stop()
    if profile:
        measured.profile.dump_stats(profile)
    check(store, [x.players for x in lanes], connections * WARM_UP +
          sum(len(x.a.times) for x in lanes))
    measured.close()
    return Run([t for x in lanes for t in x.a.times], [t for x in lanes for t in x.b.times],
               measured.cpu, measured.statements, tuple(wall), measured.workers)


class Processes:
    """Our server as worker processes (pbem.mail.workers); `workers`: the CPU seconds each
    used while `on` (no figures a mail: `cpu` and `statements` stay empty)."""

    def __init__(self, cfg, processes: int):
        # port 0: the kernel's free port, bound at once (no race with the ceiling's port)
        self.pool = Workers(dataclasses.replace(cfg, smtp_host="127.0.0.1", smtp_port=0),
                            processes)
        self.port, self.statements, self.cpu, self.workers = self.pool.port, [], [], []
        self._before: dict[int, float] = {}

    def start(self) -> None:
        self.pool.start()

    @property
    def on(self) -> bool:
        return bool(self._before)

    @on.setter
    def on(self, on: bool) -> None:
        now = {pid: _cpu_seconds(pid) for pid in self.pool.pids()}
        if on:
            self._before = now
            return
        if now.keys() != self._before.keys():
            raise SystemExit("a worker process died while timed: no figure")
        self.workers = [now[p] - self._before[p] for p in now]
        self._before = {}

    def stop(self) -> None:
        self.pool.stop()

    def close(self) -> None:
        pass


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid` so far (/proc/PID/stat, proc(5))."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _all_at_once(lanes: list[Lane], client) -> float:
    """Every lane sends its chunk through `client(lane)`, each lane in a thread of its own;
    the wall time until the last is done."""
    def send(lane):
        for mail in lane.chunk:
            client(lane).send(*mail)

    t0 = time.perf_counter()
    if len(lanes) == 1:
        send(lanes[0])
    else:
        threads = [threading.Thread(target=send, args=(x,)) for x in lanes]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return time.perf_counter() - t0


def _server(store, cfg):
    return controller(store, cfg, "127.0.0.1", free_port())


def _more(lanes: list[Lane], wall: float, mails: int | None, seconds: float) -> bool:
    if mails is not None:
        return sum(len(x.a.times) for x in lanes) < mails
    return wall < seconds


def check(store, lanes: list[Players], sent: int) -> None:
    """From the move log, not from our answers' words: one move by mail for each mail,
    each mail done, and each server's game where the client's copy is."""
    with store.session() as s:
        by_mail = s.exec(select(Move.ref).where(Move.source == "mail")).all()
        results = Counter(s.exec(select(Inbound.result)).all())
    moved = sum(1 for ref in by_mail if ref and ref.startswith("<bench."))
    games = [g for x in lanes for g in x.games()]
    behind = [(gid, _where(replay_log(export(store, gid)), mine), mine) for gid, mine in games]
    behind = [x for x in behind if x[1] != x[2]]
    if moved != sent or results != Counter(done=sent) or behind:
        raise SystemExit(f"the moves did not all apply: {sent} mails sent, {moved} moves "
                         f"by mail in the log, mails' results {dict(results)}, games whose "
                         f"server's seq is not the client's (game, server, client): {behind}")


def _where(st, mine):
    return st.seq if isinstance(mine, int) else score_pad(st)


def pct(times: list[float], q: float) -> float:
    """The q-quantile in milliseconds (nearest rank)."""
    ordered = sorted(times)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def line(name: str, times: list[float], wall: float) -> str:
    rate = len(times) / wall
    return (f"{name}: {len(times)} mails, {rate:.1f} mails/s, p50 {pct(times, 0.5):.2f} ms, "
            f"p99 {pct(times, 0.99):.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--pg", metavar="URL", help="PostgreSQL instead of a SQLite file")
    ap.add_argument("--connection-per-mail", action="store_true")
    ap.add_argument("--profile", metavar="FILE", help="cProfile of the server's work")
    ap.add_argument("--connections", type=int, default=1, metavar="N",
                    help="N clients at once, each on its own connection and game")
    ap.add_argument("--processes", type=int, default=0, metavar="N",
                    help="the server as N worker processes (default: a thread of this one)")
    args = ap.parse_args()
    gc_tuning.for_long_running()  # as the serving process (and each worker) runs
    per_mail = args.connection_per_mail
    print(f"python {platform.python_version()}, {platform.machine()}, "
          f"{'postgresql' if args.pg else 'sqlite'}, "
          f"{'a connection per mail' if per_mail else 'one connection for all mails'}, "
          f"{args.connections} client(s) at once, server "
          f"{f'in {args.processes} worker process(es)' if args.processes else 'in-process'}")
    db = ScratchDatabase(args.pg)
    var = Path(tempfile.mkdtemp(prefix="pbem-bench-var-"))
    try:
        store = Store(db.url)
        cfg = Settings(var_dir=var, database_url=db.url, mail_domain=DOMAIN)
        run = bench(store, cfg, seconds=args.seconds, per_mail=per_mail, profile=args.profile,
                    connections=args.connections, processes=args.processes)
        store.engine.dispose()
    finally:
        db.close()
        shutil.rmtree(var, ignore_errors=True)
    ours = line("end to end (SMTP in, move committed, reply queued)", run.ours, run.wall[0])
    top = line("ceiling (same client, same mails, handler does nothing)", run.ceiling,
               run.wall[1])
    print(ours + f"   target >= {TARGET_RATE}/s, p99 < {TARGET_P99:.0f} ms")
    print(top)
    e2e, ceil = len(run.ours) / run.wall[0], len(run.ceiling) / run.wall[1]
    met = e2e >= TARGET_RATE and pct(run.ours, 0.99) < TARGET_P99
    print(f"ratio end to end / ceiling: {e2e / ceil:.3f}; target {'met' if met else 'missed'}")
    load = f"load average {os.getloadavg()[0]:.2f}"
    if run.workers:
        shares = " / ".join(f"{x:.2f}" for x in run.workers)
        print(f"CPU time of the server's processes a mail: "
              f"{1000 * sum(run.workers) / len(run.ours):.2f} ms (each worker's seconds: "
              f"{shares}); {load}")
        return
    print(f"CPU time of the server's thread a mail: median {pct(run.cpu, 0.5):.2f} ms, "
          f"p99 {pct(run.cpu, 0.99):.2f} ms; SQL statements a mail: "
          f"{sum(run.statements) / len(run.statements):.1f}; {load}")


if __name__ == "__main__":
    main()
