"""The sampling robot against the fast one: a duplicate match (issue 15).

    .venv/bin/python bench/robot.py [--hands N] [--preset NAME] [--seed S] [--jobs J]

Each deal is played twice from a fresh game, the sampler sitting on one side and then on the
other with the same cards, so the luck of the deal cancels. A deal's result is the sampler's
side's hand score less the fast side's, averaged over its two plays; the bench prints the mean
of that over all deals with its 95 % confidence interval, and milliseconds a move for
each robot (CPU time). The default (2,000 deals, 4,000 hands, standard) took 26 minutes
with --jobs 2 on this 2-core machine under load (about 0.8 s of CPU a deal); --hands 200
gives a first answer in a few minutes.
"""

import argparse
import math
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.engine import advance, apply, choose, make_deal, new_game, preset, view  # noqa: E402


def play_hand(rules, deal_seed, dealer, sampler_side, timing, robot="sampler"):
    """One hand from a fresh game; returns each side's points (bag penalty taken off) and
    its bags."""
    import random

    smart = rules.with_options(robot=robot)
    fast = rules.with_options(robot="fast")
    st = new_game(fast, dealer)
    rng = random.Random(deal_seed)
    while st.hand_no == 0 and st.phase != "over":
        if st.phase == "deal":
            advance(st, make_deal(st, rng))
            continue
        seat = st.to_act()[0]
        mine = st.side_of[seat] == sampler_side
        v = view(st, seat)
        t0 = time.process_time()
        act = choose(v, seed=deal_seed, rules=smart if mine else fast)
        timing[act["type"] == "bid", mine].append(time.process_time() - t0)
        for ev in apply(st, seat, act):
            advance(st, ev)
    sides = st.history[0]["sides"]
    return [s["points"] - s["bag_penalty"] for s in sides], [s["bags"] for s in sides]


def duplicate(args):
    """The sampler's margin on one deal (hand points; with bags costed), and the move times
    of both robots. A fourth item names another robot to play against the fast one."""
    name, seed, i, *robot = args
    rules = preset(name)
    timing = {(b, m): [] for b in (False, True) for m in (False, True)}
    margins, bagged = [], []
    n_sides = len(rules.sides)
    bag_cost = rules.bag_penalty / rules.bag_limit if rules.bag_limit else 0
    for side in range(n_sides):
        pts, bags = play_hand(rules, f"{seed}:{i}", i % rules.players, side, timing, *robot)
        net = [p - b * bag_cost for p, b in zip(pts, bags, strict=True)]
        for out, xs in ((margins, pts), (bagged, net)):
            out.append(xs[side] - (sum(xs) - xs[side]) / (n_sides - 1))
    return statistics.fmean(margins), statistics.fmean(bagged), timing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2000, help="deals, each played twice")
    ap.add_argument("--preset", default="standard")
    ap.add_argument("--seed", default="bench")
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args(argv)
    if not 1 <= a.hands <= 100_000 or not 1 <= a.jobs <= 16:
        ap.error("--hands runs from 1 to 100000, --jobs from 1 to 16")
    work = [(a.preset, a.seed, i) for i in range(a.hands)]
    start = time.perf_counter()
    if a.jobs == 1:
        results = list(map(duplicate, work))
    else:
        with Pool(a.jobs) as pool:
            results = pool.map(duplicate, work, chunksize=20)
    report(a, results, time.perf_counter() - start)


def interval(xs):
    """The mean and the half width of its 95 % confidence interval."""
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return statistics.fmean(xs), half


def ms(times, what):
    times = sorted(times)
    return (f"{what} mean {1000 * statistics.fmean(times):.1f}, "
            f"p99 {1000 * times[int(0.99 * (len(times) - 1))]:.1f}, max {1000 * times[-1]:.1f}")


def report(a, results, wall):
    margins = [m for m, _, _ in results]
    times = {k: [t for _, _, tm in results for t in tm[k]] for k in results[0][2]}
    mean, half = interval(margins)
    net, net_half = interval([b for _, b, _ in results])
    wins = sum(m > 0 for m in margins)
    losses = sum(m < 0 for m in margins)
    even = len(margins) - wins - losses
    print(f"duplicate match, preset {a.preset}, seed {a.seed!r}: {len(margins)} deals, "
          f"{len(margins) * len(preset(a.preset).sides)} hands")
    print(f"sampler's margin a hand: {mean:+.2f} points, 95 % CI [{mean - half:+.2f}, "
          f"{mean + half:+.2f}]; deals won {wins}, lost {losses}, even {even}")
    print(f"with each bag at its long-run cost (bag_penalty / bag_limit): {net:+.2f}, "
          f"95 % CI [{net - net_half:+.2f}, {net + net_half:+.2f}]")
    bids = "; " + ms(times[True, True], "bid") if times[True, True] else ""
    print("ms per move (CPU): " + ms(times[False, True], "sampler's card play") + bids)
    fast = times[False, False] + times[True, False]
    print(f"                   fast robot mean {1000 * statistics.fmean(fast):.2f}")
    print(f"wall time {wall:.0f} s with {a.jobs} job(s)")


if __name__ == "__main__":
    main()
