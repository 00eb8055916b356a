"""Clock speed: rebuilding deadlines after a restart, and a tick among many pending ones.

    .venv/bin/python bench/clock.py [--games N] [--due D] [--reminders] [--history K]
                                      [--pg URL [--trips]]

Sets up N active games (default 10,000; create_game + play.start, one human and three
robots, the human's bid first, so each game waits on the human with one pending timeout),
then times, in a fresh Store (an empty state cache, as after a restart):

- rebuild, nothing lost: `deadlines.rebuild` after a restart (every game armed already: no
  replay, a few bulk queries)
- rebuild after a restore: every pending Deadline row deleted, then `deadlines.rebuild`
  derives them again (each game's state replayed from its moves, its deadlines armed)
- tick, none due: one `clock.tick` with N pending deadlines of which none is due (the
  median of 5)
- tick, D due: D of the timeouts (default 1,000) moved into the past, then one tick with
  limit D: for each, in one transaction, the robot moves for the human (play.submit), the
  row is marked done and the mails are queued; then the robots' replies (decided outside
  it, their own write with the next deadlines). Wall time, and this process's CPU time
  (SQLite works in the process; on a machine shared with other jobs it varies less), and
  per timeout the SQL statements run and the pool checkouts; neither depends on the
  machine's load. With --trips (PostgreSQL), the round trips too: the server's
  ReadyForQuery messages in libpq's trace (each ends one exchange the client waits for);
  the trace slows the client, so the times of such a run are not comparable.

--reminders arms the default reminders too (24 and 2 hours before: three rows a game).
--history K adds K finished (done or cancelled) rows a game before the rebuilds, as a
league's history leaves them (about 23 a live game at 10,000 games): the rebuild after a
restart must not read them.
SQLite (a file under /tmp) by default; --pg URL runs on a fresh schema of that PostgreSQL
server instead (dropped afterwards).

Nov 2026, 2,000 games, 300 due, SQLite, a loaded 2-core machine: CPU a timeout 10.3 ms
(load 2) and 9.6 ms (load 12) -> 8.0 ms (load 12) once the played-for read's statement was
built once (pbem.store.played); 6.0 SQL statements a timeout before and after. The robots'
replies (their search) are most of what is left.
"""

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import delete, event, func, insert, update  # noqa: E402
from sqlmodel import select  # noqa: E402

from bench.scratch_db import ScratchDatabase  # noqa: E402
from pbem import clock, deadlines, gc_tuning, play  # noqa: E402
from pbem.engine import preset  # noqa: E402
from pbem.store.games import create_game  # noqa: E402
from pbem.store.models import Deadline, Game  # noqa: E402
from pbem.store.models import now as utcnow  # noqa: E402
from pbem.store.states import Store  # noqa: E402


def setup(store, games: int, reminders: bool) -> float:
    """`games` dealt games, each waiting on its human's bid; returns the seconds taken."""
    rules = preset("standard")
    tc = {"move_hours": 72, "remind_hours": [24, 2] if reminders else []}
    t = time.perf_counter()
    for i in range(games):
        gid = create_game(store, rules, [f"b{i}@bench.test", "robot", "robot", "robot"],
                          first_dealer=3, time_control=tc)  # seat 0 bids first
        play.start(store, gid)
        if (i + 1) % 1000 == 0:
            print(f"  {i + 1} games set up, {time.perf_counter() - t:.0f} s", file=sys.stderr)
    return time.perf_counter() - t


def add_history(store, games: int, per_game: int) -> None:
    """`per_game` finished rows for each game, at a move before its first."""
    with store.session() as s:
        ids = s.exec(select(Game.id)).all()[:games]
        for i in range(0, len(ids), 1000):
            s.execute(insert(Deadline), [
                {"game_id": g, "seat": 0, "seq": -1, "kind": "reminder", "hours_before": h,
                 "due": utcnow(), "state": "done" if h % 2 else "cancelled"}
                for g in ids[i:i + 1000] for h in range(per_game)])
        s.commit()


def pending(store) -> int:
    with store.session() as s:
        return s.exec(select(func.count()).select_from(Deadline)
                      .where(Deadline.state == "pending")).one()


def run(url: str, games: int, due: int, reminders: bool, trips: bool = False,
        history: int = 0) -> list[tuple[str, str, str]]:
    rows = []
    store = Store(url)
    took = setup(store, games, reminders)
    rows.append((f"set up {games:,} games (create_game + start)", f"{took:.1f} s",
                 f"{took / games * 1000:.1f} ms a game"))
    if history:
        add_history(store, games, history)
        rows.append((f"history: {history * games:,} finished rows", "", ""))

    store = Store(url)  # a restart: nothing cached, every deadline still in the database
    t = time.perf_counter()
    armed = deadlines.rebuild(store, utcnow())
    took = time.perf_counter() - t
    assert armed == 0, f"rebuild re-armed {armed} games that were armed"
    rows.append((f"rebuild after a restart, nothing lost ({games:,} games)",
                 f"{took:.2f} s", f"{took / games * 1000:.3f} ms a game"))

    store = Store(url)  # a restore: every pending deadline lost
    with store.session() as s:
        s.exec(delete(Deadline).where(Deadline.state == "pending"))
        s.commit()
    now = utcnow()
    t = time.perf_counter()
    armed = deadlines.rebuild(store, now)
    took = time.perf_counter() - t
    assert armed == games, f"rebuild armed {armed} games, not {games}"
    rows.append((f"rebuild after a restore ({armed:,} games replayed, {pending(store):,} rows)",
                 f"{took:.2f} s", f"{took / games * 1000:.2f} ms a game"))

    n = pending(store)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        handled = clock.tick(store, now)
        times.append(time.perf_counter() - t)
        assert handled == 0
    rows.append((f"tick, none due ({n:,} pending)", f"{statistics.median(times) * 1000:.1f} ms",
                 f"min {min(times) * 1000:.1f} ms of 5"))

    with store.session() as s:  # the first `due` timeouts fall due an hour ago
        ids = s.exec(select(Deadline.id).where(Deadline.kind == "timeout",
                                               Deadline.state == "pending")
                     .order_by(Deadline.id).limit(due)).all()
        s.exec(update(Deadline).where(Deadline.id.in_(ids))
               .values(due=now - timedelta(hours=1)))
        s.commit()
    with counted(store.engine) as count, round_trips(store.engine, trips) as exchanges:
        t, cpu = time.perf_counter(), time.process_time()
        handled = clock.tick(store, now, limit=due)
        took, cpu = time.perf_counter() - t, time.process_time() - cpu
    assert handled == len(ids), f"the tick handled {handled} of {len(ids)}"
    rows.append((f"tick, {handled:,} due ({n:,} pending)", f"{took:.2f} s",
                 f"{took / max(1, handled) * 1000:.2f} ms a timeout"))
    rows.append(("  the same, CPU time of this process (busy machine: less noise)",
                 f"{cpu:.2f} s", f"{cpu / max(1, handled) * 1000:.2f} ms a timeout"))
    each = max(1, handled)
    rows.append(("  the same, SQL statements and pool checkouts",
                 f"{count['statements']:,} / {count['checkouts']:,}",
                 f"{count['statements'] / each:.1f} / {count['checkouts'] / each:.1f} a timeout"))
    if exchanges:
        rows.append(("  the same, round trips to PostgreSQL", f"{exchanges[0]:,}",
                     f"{exchanges[0] / each:.1f} a timeout"))
    return rows


@contextmanager
def counted(engine):
    """The statements the engine runs and the connections its pool hands out meanwhile."""
    count = {"statements": 0, "checkouts": 0}

    def statement(*_):
        count["statements"] += 1

    def checkout(*_):
        count["checkouts"] += 1

    event.listen(engine, "before_cursor_execute", statement)
    event.listen(engine.pool, "checkout", checkout)
    try:
        yield count
    finally:
        event.remove(engine, "before_cursor_execute", statement)
        event.remove(engine.pool, "checkout", checkout)


@contextmanager
def round_trips(engine, on: bool):
    """If `on` (PostgreSQL): [the round trips the engine's connections make meanwhile] once
    done. libpq traces each connection handed out to a file, and each exchange the client
    waits for ends with the server's ReadyForQuery."""
    out: list[int] = []
    if not on:
        yield out
        return
    traced = {}
    with tempfile.TemporaryFile("w+") as f:
        def checkout(dbapi_conn, *_):
            if id(dbapi_conn) not in traced:
                dbapi_conn.pgconn.trace(f.fileno())
                traced[id(dbapi_conn)] = dbapi_conn

        event.listen(engine.pool, "checkout", checkout)
        try:
            yield out
        finally:
            event.remove(engine.pool, "checkout", checkout)
            for dbapi_conn in traced.values():
                dbapi_conn.pgconn.untrace()
        f.seek(0)
        out.append(sum(line.split("\t")[3:4] == ["ReadyForQuery"] for line in f))


def table(title: str, rows) -> str:
    w = [max(len(r[i]) for r in rows) for i in range(3)]
    line = "+-" + "-+-".join("-" * x for x in w) + "-+"
    out = [title, line]
    out += ["| " + " | ".join(r[i].ljust(w[i]) if i == 0 else r[i].rjust(w[i])
                              for i in range(3)) + " |" for r in rows]
    return "\n".join(out + [line])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000, help="active games (10,000)")
    ap.add_argument("--due", type=int, default=1_000, help="deadlines due in the last tick")
    ap.add_argument("--reminders", action="store_true", help="arm reminders too")
    ap.add_argument("--history", type=int, default=0, metavar="K",
                    help="finished deadline rows a game (0)")
    ap.add_argument("--pg", metavar="URL", help="PostgreSQL instead of SQLite")
    ap.add_argument("--trips", action="store_true",
                    help="count the round trips to PostgreSQL (slows the run)")
    args = ap.parse_args(argv)
    gc_tuning.for_long_running()  # as `pbem clock` and `pbem serve` run the tick
    if args.trips and not args.pg:
        ap.error("--trips counts round trips to PostgreSQL: give --pg URL")
    with ScratchDatabase(args.pg) as db:
        rows = run(db.url, args.games, min(args.due, args.games), args.reminders,
                   args.trips, args.history)
        print(table(f"clock on {db.kind}: {args.games:,} active games", rows))


if __name__ == "__main__":
    main()
