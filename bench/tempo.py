"""Tempo (issue 14): how many decisions and mails a game to 500 asks of its players, and how
many calendar days it takes, with one card per mail beside cards that play themselves.

    .venv/bin/python bench/tempo.py [--games 20] [--seed 1]

Robots stand in for four humans. Each decision waits for its player to read a mail and
answer: a log-normal delay, median 4 hours (sigma 1), and nobody answers between 23:00 and
07:00 (all in one zone). The play is the same robot game for each policy (same deals, same
choices); a policy only decides which of those cards needed a person:
  one card a mail   every bid and card is a mail and a decision
  forced            a seat's only legal card plays itself (the default)
  forced + equal    and touching cards (auto equal), lowest first
Orders given ahead are not modelled here: a careful player's orders would cut more.
"""

import argparse
import math
import random
import statistics
import sys
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.engine import preset  # noqa: E402
from pbem.engine.auto import auto_card  # noqa: E402
from pbem.simulate import play_game  # noqa: E402

POLICIES = {"one card a mail": None, "forced": False, "forced + equal": True}
MEDIAN_HOURS, SIGMA, SLEEP = 4.0, 1.0, (23, 7)


def decisions(seed) -> tuple[dict[str, int], int]:
    """Per policy: the decisions a person made in one robot game to 500; and its hands."""
    counts = dict.fromkeys(POLICIES, 0)
    rules = preset("standard")
    before = {}

    def watch(st, ev):
        # after each event, `before` says whether the seat to play next had a card that
        # would play itself (then every legal card is as good: the robot's choice counts)
        kind = ev["type"]
        if kind in ("bid", "look", "play", "pass"):
            for name, equal in POLICIES.items():
                auto = kind == "play" and equal is not None and before.get(equal) is not None
                counts[name] += 0 if auto else 1
        before.clear()
        if st.phase == "play":
            for equal in (False, True):
                before[equal] = auto_card(st, st.turn, equal)

    st, _ = play_game(rules, seed, on_event=watch)
    return counts, st.hand_no


def answered(start: datetime, rng) -> datetime:
    """When a player who got a mail at `start` answers it."""
    t = start + timedelta(hours=math.exp(math.log(MEDIAN_HOURS) + SIGMA * rng.gauss(0, 1)))
    if t.hour >= SLEEP[0] or t.hour < SLEEP[1]:  # asleep: the answer comes after waking
        wake = t.replace(hour=SLEEP[1], minute=0) + timedelta(days=1 if t.hour >= SLEEP[0]
                                                                 else 0)
        t = wake + timedelta(minutes=rng.uniform(0, 90))
    return t


def days(n: int, rng) -> float:
    t0 = t = datetime(2027, 1, 4, 9)
    for _ in range(n):
        t = answered(t, rng)
    return (t - t0) / timedelta(days=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    per_hand = {name: [] for name in POLICIES}
    calendar = {name: [] for name in POLICIES}
    for g in range(args.games):
        counts, hands = decisions(f"{args.seed}:{g}")
        for name, n in counts.items():
            per_hand[name].append(n / hands)
            calendar[name].append(days(n, random.Random(f"{args.seed}:{g}:{name}")))
    base = statistics.mean(per_hand["one card a mail"])
    print(f"{args.games} robot games of standard to 500, a mail answered after a log-normal "
          f"delay (median {MEDIAN_HOURS:g} h), nobody answering {SLEEP[0]}:00-{SLEEP[1]}:00")
    print(f"{'policy':<18} {'mails/hand':>10} {'vs one a mail':>13} {'days/game':>10}")
    for name in POLICIES:
        m = statistics.mean(per_hand[name])
        print(f"{name:<18} {m:>10.1f} {m / base:>12.0%} "
              f"{statistics.median(calendar[name]):>10.0f}")


if __name__ == "__main__":
    main()
