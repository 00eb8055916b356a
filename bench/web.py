"""Web speed under gunicorn: a long game's score pad, a move POST, and a do-nothing app.

    .venv/bin/python bench/web.py [--seconds S] [--rounds R] [--workers W] [--threads T]
                                  [--clients C] [--pg postgresql+psycopg://USER@HOST/DB]
                                  [--waitress] [--in-process N]

With --waitress the app is `pbem serve --no-smtp` instead (waitress, one process, its own
threads) and the ceiling `waitress-serve --threads 8` (--workers and --threads unused).

The app runs as README/wsgi.py say, `gunicorn -w W -b 127.0.0.1:PORT wsgi:app` (sync workers;
--threads T > 1 uses gthread workers, which keep connections alive), in a subprocess whose
PBEM_VAR_DIR is a fresh directory under /tmp, on a database prepared first (bench/scratch_db.py:
a SQLite file, or with --pg a fresh schema of that PostgreSQL database, dropped at the end):

- score pad: GET /g/ID of a game four robots played to 500 points (`create_game` + `start`,
  which plays it to the end); the page has the whole pad and its SVG chart
- move POST: POST /t/TOKEN/move, as the table page's buttons send it (csrf field, session
  cookie, seq). Each client plays its own all-human game (target 10,000, so none ends)
  for all four seats, choosing each move with the robot from its own copy of the game (read
  from the log again after each deal or refusal; the cards that play themselves are played
  in the copy as the server plays them). The server answers 303 to the table either way
  (Post/Redirect/Get); a POST is counted when the session cookie it sets carries no error
  for the table (pbem.web.flow)
- ceiling: GET / of bench/ceiling_app.py, a WSGI app that only answers "ok", under the same
  gunicorn settings

Each is loaded for S seconds (after a short warm-up) by C client processes, each with one
http.client connection (reopened when a sync worker closes it: the same client code and
connection pattern for the pad and the ceiling). Latency is per request, as the client sees
it; requests/s counts requests answered in the S seconds. The clients run on the same
machine as the server, so on a small one they take CPU from it, and other work on the
machine moves both figures: the pad and the ceiling run R rounds interleaved (pad, ceiling,
pad, ...), each round's ratio printed with the load average, and the median round's taken.
Beside each, the server's CPU a request: user + system time of its processes (gunicorn's
master and workers, or `pbem serve`, whose clock and outbox threads count too), from /proc,
over the whole load, warm-up included. Under `pbem serve` (--waitress) it is printed in two
parts too, from each thread's own times (/proc/PID/task): "web", the threads that live
through the load (waitress's loop and request threads; the clock's ticker, idle here), and
"outbox", the rest: the main thread, which runs the outbox sender, and the delivery threads
each of its drains starts and ends (their time stays in the process's total). A move's mails
are sent there, after its answer: some 3 ms of the move's 9 (on 2 cores, Nov 2026).

--in-process N: instead, N move POSTs (after 100 untimed) made one after another through
Flask's test client in this process (the app as wsgi.py builds it, on the same prepared
database; no HTTP, no other client), each measured by its thread's CPU time and the SQL
statements it ran: figures the machine's load moves less, for the door's own cost.
On a 2-core machine loaded by other jobs (load average 10-15, Nov 2026), CPU time median
a move and SQL statements a move, 1,000 moves:
  SQLite      15.1 ms, 12.1  the settled search in a read before every card or bid
               8.3 ms, 10.3  judged in the write's own state (pbem.play `_judging`), the
                             lines of play first (pbem.engine.settled), the played-for
                             statement built once (pbem.store.played)
  PostgreSQL  17.9 ms, 10.1  before
              11.1 ms,  8.3  after
"""

import argparse
import base64
import dataclasses
import hashlib
import http.client
import json
import multiprocessing as mp
import os
import platform
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from scratch_db import ScratchDatabase  # noqa: E402
from sqlmodel import func, select  # noqa: E402

from pbem.engine import advance, apply, choose, preset, score_pad, view  # noqa: E402
from pbem.engine.settled import by_themselves  # noqa: E402
from pbem.gamelog import replay_log  # noqa: E402
from pbem.play import start  # noqa: E402
from pbem.store.games import create_game, export  # noqa: E402
from pbem.store.models import Game, Move, Seat  # noqa: E402
from pbem.store.states import Store  # noqa: E402

HUMANS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]
LIVE = dataclasses.replace(preset("standard"), target=1000)  # the largest target allowed
WARM = 1.0  # seconds of unrecorded requests before each timed run


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- the server ----------------------------------------------------------------------------
def gunicorn(app: str, port: int, env: dict, workers: int, threads: int, log: Path):
    cmd = [sys.executable, "-m", "gunicorn", "-w", str(workers), "-b", f"127.0.0.1:{port}",
           "--chdir", str(ROOT), "--pythonpath", str(ROOT / "bench"), "--log-level", "warning"]
    if threads > 1:
        cmd += ["-k", "gthread", "--threads", str(threads)]
    proc = subprocess.Popen(cmd + [app], env=env, stdout=log.open("w"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    return answering(proc, f"gunicorn {app}", port, log)


def waitress(app: str, port: int, env: dict, log: Path):
    """`pbem serve`'s waitress for the app (wsgi:app), waitress's own runner for another."""
    if app == "wsgi:app":
        cmd = [sys.executable, "-m", "pbem.cli", "serve", "--no-smtp"]
        env = dict(env, PBEM_WEB_PORT=str(port))
    else:
        cmd = [sys.executable, "-m", "waitress", f"--listen=127.0.0.1:{port}", "--threads=8",
               app]
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT / "bench", stdout=log.open("w"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    return answering(proc, app, port, log)


def answering(proc, app: str, port: int, log: Path):
    """`proc` once it answers GET / on `port` (else it is killed and the bench stops)."""
    end = time.monotonic() + 30
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit(f"{app} exited: {log.read_text()[-2000:]}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/")
            if c.getresponse().status == 200:
                c.close()
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"{app} did not answer on port {port}")


def stop(proc) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)  # its own session: the master and its workers
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# -- the data ------------------------------------------------------------------------------
def prepare(url: str, clients: int) -> dict:
    store = Store(url)
    t0 = time.perf_counter()
    long_id = create_game(store, preset("standard"), ["robot"] * 4, first_dealer=0)
    start(store, long_id)  # robots play every move: the game is over when this returns
    made = time.perf_counter() - t0
    with store.session() as s:
        game = s.get(Game, long_id)
        st = store.state(s, game)
        events = s.exec(select(func.count()).select_from(Move)
                        .where(Move.game_id == long_id)).one()
    pad = score_pad(st)
    assert pad["over"], "the robots' game did not end"
    live = []
    for _ in range(clients):
        gid = create_game(store, LIVE, HUMANS, first_dealer=0)
        start(store, gid)
        with store.session() as s:
            tokens = [x.token for x in s.exec(select(Seat).where(Seat.game_id == gid)
                                              .order_by(Seat.seat)).all()]
        live.append((gid, tokens))
    store.engine.dispose()
    return {"long_id": long_id, "hands": len(pad["hands"]), "events": events,
            "scores": [x["score"] for x in pad["sides"]], "made": made, "live": live}


# -- the clients ---------------------------------------------------------------------------
class Conn:
    def __init__(self, port: int):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(self, method, path, body=None, headers=None) -> tuple[int, bytes, object]:
        for attempt in (0, 1):
            try:
                self.c.request(method, path, body=body, headers=headers or {})
                r = self.c.getresponse()
                data = r.read()
                if r.will_close:
                    self.c.close()  # a sync worker closes: the next request reconnects
                return r.status, data, r
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.c.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")


class Mover:
    """One client's all-human game: its own copy of the state, the next move as a form."""

    def __init__(self, url: str, game_id: int, tokens: list[str], conn: Conn):
        self.store, self.game_id, self.tokens, self.n = Store(url), game_id, tokens, 0
        status, html, r = conn.request("GET", "/")  # its demo form sets the csrf cookie
        assert status == 200, status
        self.cookie = r.getheader("Set-Cookie").split(";")[0]
        self.csrf = re.search(rb'name="csrf" value="([^"]+)"', html).group(1).decode()
        self.sync()

    def sync(self) -> None:
        self.st = replay_log(export(self.store, self.game_id))

    def next(self) -> tuple[str, bytes, dict]:
        if self.st.phase == "deal":
            self.sync()  # the server dealt the next hand: read the deal from the log
        seat = self.st.to_act()[0]
        action = choose(view(self.st, seat), self.n, rules=self.st.rules)
        self.n += 1
        form = [("csrf", self.csrf), ("seq", str(self.st.seq))]
        form += [(k, "1" if v is True else "0" if v is False else str(v))
                 for k, v in action.items()]
        return (f"/t/{self.tokens[seat]}/move", urllib.parse.urlencode(form).encode(),
                {"seat": seat, "action": action})

    def done(self, move: dict) -> None:
        """The move in the copy, then the cards that play themselves (as pbem.play does)."""
        seat, action = move["seat"], move["action"]
        for ev in apply(self.st, seat, action):
            advance(self.st, ev)
        by_themselves(self.st)


def played(status: int, r, path: str) -> bool:
    """Was the move applied? The 303's session cookie carries the table's notice or error
    (pbem.web.flow files it under a hash of the table's path; the cookie is signed, not
    encrypted: its payload is URL-safe base64 JSON, zlib-compressed after a leading '.')."""
    cookie = r.getheader("Set-Cookie") or ""
    if status != 303 or not cookie.startswith("session="):
        return False
    value = cookie.split(";")[0].split("=", 1)[1]
    payload = value.lstrip(".").split(".")[0]
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    session = json.loads(zlib.decompress(raw) if value.startswith(".") else raw)
    table = path.rsplit("/", 1)[0]
    entry = session.get("flow", {}).get(hashlib.sha256(table.encode()).hexdigest()[:16])
    return entry is not None and "error" not in entry and "notice" in entry


def client(kind: str, port: int, seconds: float, target: str, url: str, live, ready,
           out) -> None:
    """One client process: set up (imports, session, its game), wait for all, warm up, time."""
    conn = Conn(port)
    mover = Mover(url, live[0], live[1], conn) if kind == "move" else None
    ready.wait()
    t_start = time.time() + WARM
    lat, errors, size, warm = [], 0, 0, 0
    while True:
        now = time.time()
        if now >= t_start + seconds:
            break
        if mover:
            path, body, move = mover.next()
            headers = {"Cookie": mover.cookie,
                       "Content-Type": "application/x-www-form-urlencoded"}
            t0 = time.perf_counter()
            status, data, _r = conn.request("POST", path, body, headers)
        else:
            t0 = time.perf_counter()
            status, data, _ = conn.request("GET", target)
        dt = time.perf_counter() - t0
        ok = played(status, _r, path) if mover else status == 200
        if mover:
            if not ok:  # out of step with the server: read the game again
                mover.sync()
            else:
                mover.done(move)
        if now >= t_start:
            if ok:
                lat.append(dt)
                size = len(data)
            else:
                errors += 1
        else:
            warm += 1
    out.put({"lat": lat, "errors": errors, "size": size, "warm": warm})


def server_cpu(pid: int) -> float:
    """CPU seconds (user + system) of the server process `pid` and its children so far
    (gunicorn's workers), from /proc."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if stat.parent.name == str(pid) or fields[1] == str(pid):  # fields[1]: its parent
            total += int(fields[11]) + int(fields[12])
    return total / tick


def thread_cpu(pid: int) -> dict[int, float]:
    """CPU seconds of each live thread of process `pid` (not its children), by thread id."""
    tick, out = os.sysconf("SC_CLK_TCK"), {}
    for stat in Path(f"/proc/{pid}/task").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        out[int(stat.parent.name)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def web_part(pid: int, before: dict[int, float], after: dict[int, float]) -> float:
    """The CPU of `pid`'s threads alive at both samples but its main one (the outbox's):
    waitress's threads, which answer the requests (see the docstring)."""
    return sum(after[t] - before[t] for t in before.keys() & after.keys() if t != pid)


def load(kind: str, port: int, seconds: float, clients: int, target: str = "",
         url: str = "", live=(), pid: int | None = None) -> dict:
    """`clients` clients on `port` for `seconds`; with the server's `pid`, its CPU a request
    over the whole load (the warm-up's requests are few beside the timed ones)."""
    ctx = mp.get_context("spawn")
    ready, out = ctx.Barrier(clients), ctx.Queue()
    procs = [ctx.Process(target=client, args=(kind, port, seconds, target, url,
                                              live[i] if live else None, ready, out))
             for i in range(clients)]
    for p in procs:
        p.start()
    cpu = server_cpu(pid) if pid else 0.0
    threads = thread_cpu(pid) if pid else {}
    results = [out.get(timeout=seconds + 120) for _ in procs]
    cpu = server_cpu(pid) - cpu if pid else 0.0
    web = web_part(pid, threads, thread_cpu(pid)) if pid else 0.0
    for p in procs:
        p.join()
    lat = sorted(x for r in results for x in r["lat"])
    if not lat:
        raise SystemExit(f"{kind}: no request succeeded")
    requests = len(lat) + sum(r["warm"] + r["errors"] for r in results)
    return {"n": len(lat), "rps": len(lat) / seconds, "median": statistics.median(lat),
            "p99": lat[min(len(lat) - 1, int(0.99 * len(lat)))],
            "errors": sum(r["errors"] for r in results),
            "size": max(r["size"] for r in results), "cpu": cpu / requests,
            "web": web / requests}


def web_moves(url: str, games: list[int]) -> int:
    store = Store(url)
    with store.session() as s:
        n = s.exec(select(func.count()).select_from(Move).where(
            Move.game_id.in_(games), Move.source == "web", Move.actor.is_not(None),
            Move.type.in_(["bid", "play"]))).one()
    store.engine.dispose()
    return n


def load_average() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def paired(port: int, top: int, target: str, args) -> tuple[dict, dict, list[float]]:
    """The pad and the ceiling, `args.rounds` rounds interleaved; the median round's of each."""
    pads, ceils, ratios = [], [], []
    for i in range(args.rounds):
        pads.append(load("pad", port, args.seconds, args.clients, target, pid=args.app_pid))
        ceils.append(load("ceiling", top, args.seconds, args.clients, "/", pid=args.top_pid))
        ratios.append(pads[-1]["rps"] / ceils[-1]["rps"])
        print(f"round {i + 1}: score pad {pads[-1]['rps']:7.1f} req/s (p99 "
              f"{1000 * pads[-1]['p99']:.1f} ms), ceiling {ceils[-1]['rps']:7.1f} req/s "
              f"(p99 {1000 * ceils[-1]['p99']:.1f} ms): {ratios[-1]:.3f}; {load_average()}",
              flush=True)
    return median_run(pads), median_run(ceils), ratios


def median_run(runs: list[dict]) -> dict:
    return sorted(runs, key=lambda r: r["rps"])[len(runs) // 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rounds", type=int, default=3, help="pad/ceiling rounds, interleaved")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--pg", metavar="URL", help="PostgreSQL (a fresh schema) instead of SQLite")
    ap.add_argument("--only", choices=["pad", "move"], help="one of the two (and the ceiling)")
    ap.add_argument("--keep", action="store_true", help="keep the /tmp directory")
    ap.add_argument("--waitress", action="store_true", help="`pbem serve`'s waitress instead")
    ap.add_argument("--in-process", type=int, default=0, metavar="N",
                    help="N move POSTs in this process: CPU and SQL statements a move")
    args = ap.parse_args()
    if not 0 <= args.in_process <= 100_000:
        ap.error("--in-process: 0 to 100000")
    if args.in_process:
        in_process(args)
        return
    db = ScratchDatabase(args.pg)
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
          f"{server_kind(args)}, {args.clients} client processes, {args.seconds:g} s each, "
          f"{db.kind}; {load_average()}")
    var = Path(tempfile.mkdtemp(prefix="pbem-bench-web-"))
    url = db.url
    procs = []
    try:
        data = prepare(url, args.clients)
        port, top = free_port(), free_port()
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env.update(PBEM_VAR_DIR=str(var), PBEM_SECRET_KEY=secrets.token_urlsafe(32),
                   PBEM_BASE_URL=f"http://127.0.0.1:{port}", DATABASE_URL=url)
        for app, at, log in (("wsgi:app", port, "app.log"), ("ceiling_app:app", top,
                                                              "ceiling.log")):
            procs.append(waitress(app, at, env, var / log) if args.waitress else
                         gunicorn(app, at, env, args.workers, args.threads, var / log))
        args.app_pid, args.top_pid = procs[0].pid, procs[1].pid
        print(f"long game {data['long_id']}: four robots to 500 in {data['made']:.1f} s, "
              f"{data['hands']} hands, {data['events']} events, final "
              f"{'-'.join(map(str, data['scores']))}")
        if args.only != "move":
            pad, ceil, ratios = paired(port, top, f"/g/{data['long_id']}", args)
        if args.only != "pad":
            move, applied = moves(port, url, data["live"], args)

    finally:
        for p in procs:
            stop(p)
        if not args.keep:
            shutil.rmtree(var, ignore_errors=True)
        db.close()
    if args.only != "move":
        row("score pad GET /g/ID (500-point game)", pad, args, args.waitress)
        row("ceiling GET / (do-nothing app)", ceil, args)
        print(f"score pad / ceiling, each round: {', '.join(f'{x:.3f}' for x in ratios)}; "
              f"median {statistics.median(ratios):.3f} (target >= 0.5); pad p99 "
              f"{1000 * pad['p99']:.1f} ms (target < 50)")
    if args.only != "pad":
        row("move POST /t/TOKEN/move", move, args, args.waitress)
        print(f"moves the database holds from the web while timed (and warming up): {applied}")
        print(f"move POST p99 {1000 * move['p99']:.1f} ms at {args.clients} clients "
              f"(target < 100); server CPU {1000 * move['cpu']:.2f} ms a move (target <= 6)"
              + (f": web {1000 * move['web']:.2f}, outbox "
                 f"{1000 * (move['cpu'] - move['web']):.2f}" if args.waitress else ""))


class TestConn:
    """Flask's test client behind `Conn.request`'s signature, for `Mover` in this process."""

    def __init__(self, app):
        self.client = app.test_client(use_cookies=False)

    def request(self, method, path, body=None, headers=None) -> tuple[int, bytes, object]:
        r = self.client.open(path, method=method, data=body, headers=headers or {})
        return r.status_code, r.data, Answer(r)


class Answer:
    def __init__(self, r):
        self.r = r

    def getheader(self, name: str) -> str | None:
        return self.r.headers.get(name)


def in_process(args) -> None:
    """--in-process: the move POSTs one by one in this process, each one's thread CPU time
    and SQL statements (see the docstring)."""
    from sqlalchemy import event

    from pbem.config import load as settings
    from pbem.web.app import create_app

    db = ScratchDatabase(args.pg)
    var = Path(tempfile.mkdtemp(prefix="pbem-bench-web-"))
    try:
        data = prepare(db.url, 1 + args.in_process // 400)  # a game lasts 500 moves or more
        os.environ.update(PBEM_VAR_DIR=str(var), PBEM_SECRET_KEY=secrets.token_urlsafe(32),
                          PBEM_BASE_URL="http://127.0.0.1:8000", DATABASE_URL=db.url)
        store = Store(db.url)
        counted = [0]
        event.listen(store.engine, "before_cursor_execute",
                     lambda *_: counted.__setitem__(0, counted[0] + 1))
        conn = TestConn(create_app(settings(), store=store))
        games = iter(data["live"])
        mover = Mover(db.url, *next(games), conn)
        cpu, statements, refused = [], [], 0
        for i in range(100 + args.in_process):
            if mover.st.phase == "over":
                mover = Mover(db.url, *next(games), conn)
            path, body, move = mover.next()
            headers = {"Cookie": mover.cookie,
                       "Content-Type": "application/x-www-form-urlencoded"}
            counted[0], t0 = 0, time.thread_time()
            status, _data, r = conn.request("POST", path, body, headers)
            took, n = time.thread_time() - t0, counted[0]
            if not played(status, r, path):
                refused += 1
                mover.sync()
                continue
            mover.done(move)
            if i >= 100:
                cpu.append(took)
                statements.append(n)
        store.engine.dispose()
    finally:
        shutil.rmtree(var, ignore_errors=True)
        db.close()
    print(f"in process, {db.kind}, python {platform.python_version()}; {load_average()}")
    print(f"move POST: {len(cpu)} moves ({refused} refused, not counted): CPU a move median "
          f"{1000 * statistics.median(cpu):.2f} ms, mean {1000 * statistics.mean(cpu):.2f} ms, "
          f"p99 {1000 * sorted(cpu)[int(0.99 * (len(cpu) - 1))]:.2f} ms (target <= 6); SQL "
          f"statements a move {statistics.mean(statements):.1f}")


def server_kind(args) -> str:
    if args.waitress:
        return "pbem serve's waitress (the ceiling: waitress-serve --threads 8)"
    import gunicorn as g

    kind = f"gthread x{args.threads}" if args.threads > 1 else "sync"
    return f"gunicorn {g.__version__} -w {args.workers} ({kind})"


def row(name: str, r: dict, args, split: bool = False) -> None:
    """One load's figures; `split`: the server is `pbem serve`, its CPU in two parts too."""
    print(f"{name:38} {r['n']:6} ok in {args.seconds:g} s = {r['rps']:7.1f} req/s, "
          f"median {1000 * r['median']:6.2f} ms, p99 {1000 * r['p99']:6.2f} ms, "
          f"{r['size']:6} bytes, {r['errors']} not ok, server CPU {1000 * r['cpu']:.2f} ms a "
          "request" + (f" (web {1000 * r['web']:.2f}, outbox {1000 * (r['cpu'] - r['web']):.2f})"
                       if split else ""))


def moves(port: int, url: str, live: list, args) -> tuple[dict, int]:
    """The move POSTs, and how many moves the web wrote meanwhile (by the log)."""
    before = web_moves(url, [g for g, _ in live])
    move = load("move", port, args.seconds, args.clients, url=url, live=live, pid=args.app_pid)
    applied = web_moves(url, [g for g, _ in live]) - before
    print(f"after the move POSTs: {load_average()}")
    return move, applied


if __name__ == "__main__":
    main()
