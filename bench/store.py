"""Game store speed: moves through play.submit, on SQLite and PostgreSQL.

    .venv/bin/python bench/store.py [--seconds S] [--pg URL | --no-pg] [--profile]

- throughput: human moves committed a second, with 1 and with 4 writer processes (spawned,
  each its own Store, each playing its own all-human games: every move is one submit,
  chosen by the robot from the seat's view, made with expect_seq). The games are to a
  target of 1,000 by default (the most the rules allow: ~2,000 events a game), so few end
  while timed; --target 500 includes more game ends
- long game: milliseconds per submit in a game whose log is already 1,000 events long,
  warm (the Store's state cache holds the game) and cold (the first submit in a fresh
  Store: a full load and replay), beside the engine's own replay of that log

Each backend gets a fresh database: a file under /tmp, or a new PostgreSQL schema (dropped
afterwards). --profile prints cProfile of warm submits on SQLite instead.
"""

import argparse
import cProfile
import multiprocessing as mp
import os
import platform
import pstats
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scratch_db import ScratchDatabase  # noqa: E402
from pbem import play  # noqa: E402
from pbem.engine import Rules, choose, preset, replay, view  # noqa: E402
from pbem.store import games  # noqa: E402
from pbem.store.db import engine_for  # noqa: E402
from pbem.store.models import Game  # noqa: E402
from pbem.store.states import Store  # noqa: E402

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
LONG_EVENTS = 1000  # the long game's log is at least this long before timing starts
LONG_TARGET = 1000  # the most the rules allow: the long game runs ~2,000 events
COLD_RUNS = 5


# -- databases -----------------------------------------------------------------------------
def server_version(db: ScratchDatabase) -> str:
    if db.kind == "sqlite":
        return f"SQLite {sqlite3.sqlite_version}"
    from sqlalchemy import text
    with engine_for(db.url).connect() as conn:
        return "PostgreSQL " + conn.execute(text("SHOW server_version")).scalar().split()[0]


# -- playing -------------------------------------------------------------------------------
def new_game(store, rules, tag: str) -> play.Result:
    """A dealt all-human game; its players are private to `tag` (no races on Player rows)."""
    seats = [f"{tag}-{i}@bench.test" for i in range(rules.players)]
    gid = games.create_game(store, rules, seats, first_dealer=0)
    return play.start(store, gid)


def one_move(store, res: play.Result, source="cli") -> play.Result:
    """The next human move, as a player would make it: from the seat's view, at its seq."""
    st = res.state
    seat = st.to_act()[0]
    action = choose(view(st, seat), seed=st.seq, rules=st.rules)
    return play.submit(store, res.game_id, seat, action, expect_seq=st.seq, source=source)


def writer(url: str, tag: str, seconds: float, target: int, ready, go, out) -> None:
    """A writer process: its own Store, its own games, human moves for `seconds`."""
    store = Store(url)
    rules = preset("standard").with_options(target=target)
    res = new_game(store, rules, tag)
    moves = refused = played = 0
    ready.wait()
    go.wait()
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if res.state.phase == "over":
            played += 1
            res = new_game(store, rules, tag)
        try:
            res = one_move(store, res)
            moves += 1
        except play.Refused:
            refused += 1  # nobody else plays this game: abandon it, start another
            res = new_game(store, rules, tag)
    out.put({"moves": moves, "refused": refused, "games": played,
             "elapsed": time.perf_counter() - start})


def throughput(db: ScratchDatabase, writers: int, seconds: float, target: int) -> dict:
    ctx = mp.get_context("spawn")
    ready, go, out = ctx.Barrier(writers + 1), ctx.Barrier(writers + 1), ctx.Queue()
    procs = [ctx.Process(target=writer,
                         args=(db.url, f"w{writers}x{i}", seconds, target, ready, go, out))
             for i in range(writers)]
    for p in procs:
        p.start()
    # every writer has its Store and its first game; a writer that died breaks the barrier
    # (BrokenBarrierError) rather than leave this waiting for ever
    ready.wait(timeout=120)
    go.wait(timeout=60)
    rows = [out.get(timeout=seconds + 120) for _ in procs]
    for p in procs:
        p.join()
    moves = sum(r["moves"] for r in rows)
    elapsed = max(r["elapsed"] for r in rows)
    return {"backend": db.kind, "writers": writers, "moves": moves, "rate": moves / elapsed,
            "ms": 1000 * writers * elapsed / max(moves, 1),
            "refused": sum(r["refused"] for r in rows), "games": sum(r["games"] for r in rows)}


def long_game(store) -> play.Result:
    """An all-human game played through submit until its log is LONG_EVENTS events long."""
    rules = preset("standard").with_options(target=LONG_TARGET)
    res = new_game(store, rules, "long")
    while res.state.seq < LONG_EVENTS:
        res = one_move(store, res)
    return res


def pct(values, p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def latency(db: ScratchDatabase, seconds: float) -> dict:
    store = Store(db.url)
    res = long_game(store)
    with store.session() as s:  # the engine alone, replaying this log
        log = games.events(s, res.game_id)
        rules = Rules.from_dict(s.get(Game, res.game_id).rules)
    t = time.perf_counter()
    replay(rules, log, 0)
    engine_ms = 1000 * (time.perf_counter() - t)
    cold = []
    for _ in range(COLD_RUNS):
        fresh = Store(db.url)  # an empty state cache (the engine and its pool are shared)
        t = time.perf_counter()
        res = one_move(fresh, res)
        cold.append(time.perf_counter() - t)
    res = one_move(store, res)  # untimed: the first store catches up on the cold moves
    seq1, warm = res.state.seq, []
    start = time.perf_counter()
    while len(warm) < 200 or (time.perf_counter() - start < seconds and len(warm) < 1000):
        if res.state.phase == "over":
            break
        t = time.perf_counter()
        res = one_move(store, res)
        warm.append(time.perf_counter() - t)
    return {"backend": db.kind, "from": seq1, "to": res.state.seq, "n": len(warm),
            "median": 1000 * statistics.median(warm), "p99": 1000 * pct(warm, 99),
            "max": 1000 * max(warm), "cold": 1000 * statistics.median(cold),
            "events": len(log), "replay": engine_ms}


# -- output --------------------------------------------------------------------------------
def machine(versions) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"machine: nproc {os.cpu_count()}, {cpu}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}; " + ", ".join(versions))


def table_throughput(rows, seconds, target) -> str:
    head = (f"{'backend':<12}{'writers':>8}{'moves/s':>10}{'moves':>8}{'ms/move':>9}"
            f"{'games ended':>13}{'refused':>9}")
    lines = [f"Throughput: human moves committed a second through play.submit ({seconds:g} s, "
             f"standard, target {target})",
             head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['backend']:<12}{r['writers']:>8}{r['rate']:>10,.0f}{r['moves']:>8}"
                     f"{r['ms']:>9.2f}{r['games']:>13}{r['refused']:>9}")
    lines.append("(ms/move: wall time per submit seen by one writer, writers x elapsed / moves;\n"
                 " refused: submits refused, each abandoning its game)")
    return "\n".join(lines)


def table_latency(rows) -> str:
    head = (f"{'backend':<12}{'log':>6}{'cold ms':>9}{'replay ms':>11}{'warm n':>8}"
            f"{'seqs':>12}{'median ms':>11}{'p99 ms':>9}{'max ms':>9}")
    lines = [f"Long game: one submit in a game whose log is already {LONG_EVENTS}+ events long",
             head, "-" * len(head)]
    for r in rows:
        seqs = f"{r['from']}-{r['to']}"
        lines.append(f"{r['backend']:<12}{r['events']:>6}{r['cold']:>9.2f}{r['replay']:>11.2f}"
                     f"{r['n']:>8}{seqs:>12}{r['median']:>11.2f}{r['p99']:>9.2f}{r['max']:>9.2f}")
    lines.append(f"(cold: the first submit in a fresh Store (load and replay the log), median of "
                 f"{COLD_RUNS};\n replay: the engine alone replaying that log; then warm "
                 f"submits (cached state) from the seqs shown)")
    return "\n".join(lines)


def profile(seconds, count=300):
    """cProfile of warm submits in a long game on SQLite."""
    with ScratchDatabase() as db:
        store = Store(db.url)
        res = long_game(store)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(count):
            res = one_move(store, res)
        prof.disable()
        print(f"cProfile: {count} warm submits at seq {res.state.seq - count}+ on SQLite")
        stats = pstats.Stats(prof)
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(25)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    ap.add_argument("--pg", default=os.environ.get("PBEM_TEST_DATABASE_URL") or PG_URL,
                    help="a PostgreSQL URL (a fresh schema is made in it and dropped)")
    ap.add_argument("--no-pg", action="store_true", help="SQLite only")
    ap.add_argument("--target", type=int, default=LONG_TARGET,
                    help="the throughput games' target score (default: the most the rules "
                         "allow, so few games end; 500 to include more game ends)")
    ap.add_argument("--profile", action="store_true", help="profile warm submits on SQLite")
    args = ap.parse_args(argv)
    if args.profile:
        profile(args.seconds)
        return
    kinds = ["sqlite"] + ([] if args.no_pg else ["postgresql"])
    through, lat, versions = [], [], []
    for kind in kinds:
        for writers in (1, 4):
            with ScratchDatabase(args.pg if kind == "postgresql" else None) as db:
                if writers == 1:
                    versions.append(server_version(db))
                through.append(throughput(db, writers, args.seconds, args.target))
            print(f"  {kind}, {writers} writer(s) done", file=sys.stderr)
        with ScratchDatabase(args.pg if kind == "postgresql" else None) as db:
            lat.append(latency(db, args.seconds))
        print(f"  {kind}, long game done", file=sys.stderr)
    print(machine(versions))
    print()
    print(table_throughput(through, args.seconds, args.target))
    print()
    print(table_latency(lat))


if __name__ == "__main__":
    main()
