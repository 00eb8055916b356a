"""Reads a player waits for by mail: `moves` (every game where it is their move) and the
daily digest's list, for one player seated in many games.

    .venv/bin/python bench/reads.py [--games N] [--pg URL]

Sets up N games (default 150; create_game + play.start, the player and three robots, the
player's bid first, so each waits on the player with a pending timeout) and 30 finished
robot games beside them, then times `digest.your_moves` (what `moves` answers and the
digest lists) in a fresh Store (an empty state cache, as after a restart) and again with
the cache warm: the median of 5 each.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlmodel import select  # noqa: E402

from bench.scratch_db import ScratchDatabase  # noqa: E402
from pbem import play  # noqa: E402
from pbem.digest import your_moves  # noqa: E402
from pbem.engine import preset  # noqa: E402
from pbem.store.games import create_game  # noqa: E402
from pbem.store.models import Player  # noqa: E402
from pbem.store.states import Store  # noqa: E402

WHO = "reader@bench.test"


def setup(store, games: int) -> int:
    rules = preset("standard")
    for _ in range(games):
        play.start(store, create_game(store, rules, [WHO, "robot", "robot", "robot"],
                                      first_dealer=3))
    for _ in range(30):  # over already: `moves` has nothing to say of them
        play.start(store, create_game(store, rules, ["robot"] * 4))
    with store.reader() as s:
        return s.exec(select(Player.id).where(Player.email == WHO)).one()


def timed(make_store, pid, games) -> tuple[float, float]:
    times = []
    for _ in range(5):
        store = make_store()
        t = time.perf_counter()
        lines = your_moves(store, pid)
        times.append(time.perf_counter() - t)
        assert len(lines) == games, f"{len(lines)} lines for {games} games"
    return statistics.median(times), min(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--pg", metavar="URL", help="PostgreSQL instead of SQLite")
    args = ap.parse_args(argv)
    with ScratchDatabase(args.pg) as db:
        pid = setup(Store(db.url), args.games)
        cold = timed(lambda: Store(db.url), pid, args.games)
        warm_store = Store(db.url)
        your_moves(warm_store, pid)
        warm = timed(lambda: warm_store, pid, args.games)
    print(f"`moves` for a player in {args.games} games on {db.kind} (target < 50 ms):")
    for name, (median, least) in (("cold cache (after a restart)", cold), ("warm cache", warm)):
        print(f"  {name:30} median {median * 1000:7.1f} ms, min {least * 1000:7.1f} ms of 5")


if __name__ == "__main__":
    main()
