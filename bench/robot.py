"""The robot levels against each other, and a ceiling to measure against (issues 15, 33).

    .venv/bin/python bench/robot.py [--hands N] [--match A-B ...] [--preset NAME] [--seed S]
                                    [--jobs J]

A match pits two robots: easy, medium, hard, or the cheater (below). Each deal is played
twice from a fresh game, the first robot on one side and then on the other with the same
cards, so the luck of the deal cancels; a deal's result is the first robot's side's hand
score (bag penalty taken off) less the other's, averaged over its two plays. The bench prints
each match's mean with its 95 % confidence interval, the share of the cheater's edge over
easy that hard reaches, each robot's nil bids (made good) and the opponents' nils it set,
and the CPU milliseconds a decision per robot (p50, p99).

The cheater is the ceiling, here and never in a game: it sees every hand, and runs the hard
robot's search on the one true deal instead of sampled ones (one playout per candidate bid
or card with every seat's cards in sight: not a full double-dummy search, which would not fit
the time).

The full run (the issue's ask, 2,000 deals per match):
    .venv/bin/python bench/robot.py --hands 2000 --jobs 2
"""

import argparse
import math
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.engine import advance, apply, choose, make_deal, new_game, preset, view  # noqa: E402, I001
from pbem.engine import hard  # noqa: E402
from pbem.engine.robot import fast_bid, sure_tricks  # noqa: E402

ROBOTS = ("easy", "medium", "hard", "cheater")
MATCHES = ("hard-medium", "medium-easy", "cheater-easy", "hard-easy")


def decide(st, seat, robot, seed) -> dict:
    """`robot`'s action for `seat`; the cheater reads the state's hands (the bench only)."""
    v = view(st, seat)
    if robot != "cheater":
        return choose(v, seed=seed, rules=st.rules, level=robot)
    kinds = {a["type"] for a in v["legal"]}
    if "play" in kinds:
        return {"type": "play", "card": hard.card_on_deal(v, st.rules, st.hands)}
    if "bid" in kinds and "look" not in kinds:
        guess = choose(v, seed=seed, rules=st.rules, level="easy")
        return hard.best_bid(v, st.rules, random.Random(seed), guess, fast_bid, deals=st.hands,
                             sure=sure_tricks(v, st.rules))
    return choose(v, seed=seed, rules=st.rules, level="hard")


def play_hand(rules, deal_seed, dealer, robots, tally):
    """One hand from a fresh game, `robots[i]` playing side i; each side's points (bag
    penalty taken off) and bags. `tally` gathers times and nil counts per robot."""
    st = new_game(rules, dealer)
    rng = random.Random(deal_seed)
    while st.hand_no == 0 and st.phase != "over":
        if st.phase == "deal":
            advance(st, make_deal(st, rng))
            continue
        seat = st.to_act()[0]
        robot = robots[st.side_of[seat]]
        t0 = time.process_time()
        act = decide(st, seat, robot, deal_seed)
        tally[robot]["ms"].append(1000 * (time.process_time() - t0))
        for ev in apply(st, seat, act):
            advance(st, ev)
    row = st.history[0]
    _count_nils(row, robots, tally)
    sides = row["sides"]
    return [s["points"] - s["bag_penalty"] for s in sides], [s["bags"] for s in sides]


def _count_nils(row, robots, tally):
    for i, res in enumerate(row["sides"]):
        for nil in res.get("nils", []):
            mine = tally[robots[i]]
            mine["nils"] += 1
            mine["nils_made"] += nil["made"]
            for j, other in enumerate(robots):
                if j != i:
                    tally[other]["foe_nils"] += 1
                    tally[other]["foe_nils_set"] += not nil["made"]


def _tally():
    return {r: {"ms": [], "nils": 0, "nils_made": 0, "foe_nils": 0, "foe_nils_set": 0}
            for r in ROBOTS}


def duplicate(args):
    """One deal of one match, played with the sides swapped: (match, margin, margin with
    bags costed, tally)."""
    match, name, seed, i = args
    rules = preset(name)
    first, second = match.split("-")
    tally = _tally()
    margins, bagged = [], []
    n_sides = len(rules.sides)
    bag_cost = rules.bag_penalty / rules.bag_limit if rules.bag_limit else 0
    for side in range(n_sides):
        robots = [first if j == side else second for j in range(n_sides)]
        pts, bags = play_hand(rules, f"{seed}:{i}", i % rules.players, robots, tally)
        net = [p - b * bag_cost for p, b in zip(pts, bags, strict=True)]
        for out, xs in ((margins, pts), (bagged, net)):
            out.append(xs[side] - (sum(xs) - xs[side]) / (n_sides - 1))
    return match, statistics.fmean(margins), statistics.fmean(bagged), tally


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2000, help="deals a match, each played twice")
    ap.add_argument("--match", action="append", help="A-B of easy, medium, hard, cheater "
                    f"(repeat; default {', '.join(MATCHES)})")
    ap.add_argument("--preset", default="standard")
    ap.add_argument("--seed", default="bench")
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args(argv)
    if not 1 <= a.hands <= 100_000 or not 1 <= a.jobs <= 16:
        ap.error("--hands runs from 1 to 100000, --jobs from 1 to 16")
    matches = a.match or list(MATCHES)
    for m in matches:
        if len(m.split("-")) != 2 or not set(m.split("-")) <= set(ROBOTS):
            ap.error(f"--match {m!r}: two of {', '.join(ROBOTS)} joined by -")
    work = [(m, a.preset, a.seed, i) for i in range(a.hands) for m in matches]
    start = time.perf_counter()
    if a.jobs == 1:
        results = [_progress(r, k, len(work)) for k, r in enumerate(map(duplicate, work))]
    else:
        with Pool(a.jobs) as pool:
            results = [_progress(r, k, len(work))
                       for k, r in enumerate(pool.imap(duplicate, work, chunksize=2))]
    report(a, matches, results, time.perf_counter() - start)


def _progress(result, k, total):
    if (k + 1) % 50 == 0:
        print(f"{k + 1} of {total} played", file=sys.stderr, flush=True)
    return result


def interval(xs):
    """The mean and the half width of its 95 % confidence interval."""
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return statistics.fmean(xs), half


def _share(part, whole) -> str:
    return f"{100 * part / whole:.0f} %" if whole > 0 else "n/a (the cheater gained nothing)"


def report(a, matches, results, wall):
    print(f"duplicate matches, preset {a.preset}, seed {a.seed!r}: {a.hands} deals a match, "
          f"each played with the sides swapped")
    means: dict[str, tuple[float, float]] = {}
    for m in matches:
        got = [r for r in results if r[0] == m]
        mean, half = interval([r[1] for r in got])
        net, net_half = interval([r[2] for r in got])
        means[m] = mean, net
        print(f"{m:>13}: {mean:+6.2f} points a hand, 95 % CI [{mean - half:+.2f}, "
              f"{mean + half:+.2f}]; bags costed {net:+.2f} [{net - net_half:+.2f}, "
              f"{net + net_half:+.2f}]")
    if "cheater-easy" in means and "hard-easy" in means:
        (hard_pts, hard_net), (top_pts, top_net) = means["hard-easy"], means["cheater-easy"]
        print(f"hard's edge over easy as a share of the cheater's: {_share(hard_pts, top_pts)} "
              f"in points, {_share(hard_net, top_net)} with bags costed")
    total = _tally()
    for *_, tally in results:
        for robot, t in tally.items():
            for k, v in t.items():
                total[robot][k] += v
    for robot, t in total.items():
        if not t["ms"]:
            continue
        ms = sorted(t["ms"])
        print(f"{robot:>8}: nil bids {t['nils']}, made good {t['nils_made']}; opponents' "
              f"nils {t['foe_nils']}, set {t['foe_nils_set']}; ms a decision (CPU) p50 "
              f"{ms[len(ms) // 2]:.1f}, p99 {ms[int(0.99 * (len(ms) - 1))]:.1f}, "
              f"max {ms[-1]:.1f} ({len(ms)} decisions)")
    print(f"wall time {wall:.0f} s with {a.jobs} job(s)")


if __name__ == "__main__":
    main()
