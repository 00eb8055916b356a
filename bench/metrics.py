"""What one GET /metrics scrape costs on a site a year old: every figure is a query
(pbem.metrics), so its cost grows with the tables it counts.

    .venv/bin/python bench/metrics.py [--moves N] [--mails N] [--pg URL]

Fills a scratch database with N move-log rows (default 300,000: a club of 50 playing a
year, robots' and deals' events included) over 300 games, N/3 inbound mails and 2N/3
outbox rows (all but 200 sent), and 2,000 pending deadlines (20 overdue), then times
`pbem.metrics.text` (every query and the exposition) 9 times: the first, which counts
every row of the move log and the inbound mails, and the median and slowest of the rest.
"""

import argparse
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import insert, text  # noqa: E402

from bench.scratch_db import ScratchDatabase  # noqa: E402
from pbem import metrics  # noqa: E402
from pbem.store.models import Deadline, Game, Inbound, Move, Outbox  # noqa: E402
from pbem.store.models import now as utcnow  # noqa: E402
from pbem.store.states import Store  # noqa: E402

GAMES = 300
SOURCES = ["robot"] * 6 + ["server"] * 2 + ["mail", "web", "clock", "cli"]
RESULTS = ["done"] * 8 + ["refused", "no command", "auto-reply", "bounce: hard 5.1.1"]
CHUNK = 5000


def fill(store: Store, moves: int, mails: int) -> None:
    now = utcnow()
    with store.engine.begin() as c:
        c.execute(insert(Game), [{"rules": {}, "status": "playing"} for _ in range(GAMES)])
        per = moves // GAMES
        rows = [{"game_id": g + 1, "seq": q, "type": "play", "payload": {},
                 "source": SOURCES[q % len(SOURCES)]} for g in range(GAMES)
                for q in range(1, per + 1)]
        for i in range(0, len(rows), CHUNK):
            c.execute(insert(Move), rows[i:i + CHUNK])
        for i in range(0, mails, CHUNK):
            c.execute(insert(Inbound), [{"message_id": f"m{j}",
                                         "result": RESULTS[j % len(RESULTS)]}
                                        for j in range(i, min(i + CHUNK, mails))])
        out = 2 * mails
        for i in range(0, out, CHUNK):
            c.execute(insert(Outbox), [
                {"to_addr": f"p{j % 50}@bench.test", "subject": "s", "body_text": "b",
                 "dedupe_key": f"k{j}", "headers": {},
                 "sent_at": None if j >= out - 200 else now}
                for j in range(i, min(i + CHUNK, out))])
        c.execute(insert(Deadline), [
            {"game_id": 1 + j % GAMES, "seat": j % 4, "seq": j, "kind": "timeout",
             "due": now + timedelta(seconds=-60 if j < 20 else 3600)} for j in range(2000)])
    if store.engine.dialect.name == "postgresql":  # a year-old site's statistics are known
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(text("ANALYZE"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=300_000)
    parser.add_argument("--mails", type=int, default=None)
    parser.add_argument("--pg", default=None, help="a PostgreSQL URL (else SQLite)")
    args = parser.parse_args()
    mails = args.mails if args.mails is not None else args.moves // 3
    with ScratchDatabase(args.pg) as db:
        store = Store(db.url)
        started = time.perf_counter()
        fill(store, args.moves, mails)
        print(f"{db.kind}: {args.moves} moves, {mails} mails in, {2 * mails} out "
              f"(filled in {time.perf_counter() - started:.1f} s)")
        sources = metrics.Sources(store, lambda: 0)
        times = []
        for _ in range(9):
            started = time.perf_counter()
            body, _kind = metrics.text(sources)
            times.append(time.perf_counter() - started)
        assert b"pbem_moves_total" in body
        print(f"a process's first scrape (every row counted): {times[0] * 1000:.0f} ms; "
              f"the next 8 (the rows since): median {statistics.median(times[1:]) * 1000:.0f} "
              f"ms, slowest {max(times[1:]) * 1000:.0f} ms ({len(body)} bytes)")
        store.engine.dispose()


if __name__ == "__main__":
    main()
