"""Double-dummy par: how long the solver takes on whole 13-trick deals.

    .venv/bin/python bench/par.py [--deals D] [--preset NAME] [--cap N] [--seed S]

Each deal is random (--tricks K: K cards a hand, spades broken); the par of the first
side is solved from the first lead with a fresh solver (no table of bounds carried over),
in CPU time, and the nodes it visited. Prints
p50/p99 ms and nodes, and how many deals went over the cap (pbem.engine.par.CAP).
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.engine import preset  # noqa: E402
from pbem.engine.par import CAP, Solver  # noqa: E402
from pbem.engine.tricks import table_for  # noqa: E402


def deal(rules, rng, size):
    deck = list(table_for(rules).deck)
    rng.shuffle(deck)
    return [deck[i * size:(i + 1) * size] for i in range(rules.players)]


def one(rules, hands, cap) -> tuple[int | None, float, int]:
    solver = Solver(rules, table_for(rules), rules.sides[0], cap)
    t = time.process_time()
    done = rules.hand_size - len(hands[0])
    got = solver.value(hands, [], 1, done > 0, done)
    return got, time.process_time() - t, solver.nodes


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--preset", default="standard")
    ap.add_argument("--cap", type=int, default=CAP)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tricks", type=int, default=0, help="cards a hand (default: all)")
    a = ap.parse_args(argv)
    rules = preset(a.preset)
    rng = random.Random(a.seed)
    size = min(a.tricks or rules.hand_size, rules.hand_size)
    ms, nodes, over = [], [], 0
    for _ in range(max(1, min(a.deals, 10_000))):
        got, secs, n = one(rules, deal(rules, rng, size), a.cap)
        over += got is None
        ms.append(secs * 1000)
        nodes.append(n)
    print(f"{a.preset}: {len(ms)} deals of {size} tricks, cap {a.cap} nodes, {over} over the cap")
    print(f"  CPU ms  p50 {pct(ms, .5):.0f}  p99 {pct(ms, .99):.0f}  "
          f"mean {statistics.mean(ms):.0f}")
    print(f"  nodes   p50 {pct(nodes, .5)}  p99 {pct(nodes, .99)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
