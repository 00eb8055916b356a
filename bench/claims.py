"""Claim checks: how long the exact search takes, over a corpus of positions.

    .venv/bin/python bench/claims.py [--games G] [--preset NAME ...] [--repo PATH]

The corpus: robot games of each preset (the first hand of G deals), a claim tried by every
seat at the start of every trick, plus the known hard positions. Each check is timed in CPU
time with the engine's answer cache bypassed (a claim's first check, the one a player
waits for). Also the replay of a log whose claim was accepted at the first trick, the
cache cleared before each replay. `--repo` measures another checkout (the code before).
Targets (issue 15): < 50 ms for any claim answered; that replay < 5 ms.
"""

import argparse
import importlib
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RANKS = "AKQJT98765432"


def load(repo):
    sys.path.insert(0, str(repo))
    eng = importlib.import_module("pbem.engine")
    return eng, importlib.import_module("pbem.engine.claims")


def check(claims, st, seat):
    """-> (True/False/None for too early, CPU seconds), the answer cache bypassed."""
    t = time.process_time()
    if hasattr(claims, "LIVE_BUDGET"):
        got = claims._search(st, seat, claims.LIVE_BUDGET)
    else:  # the code before: one budget, an exception when it runs out
        try:
            got = claims._search(st, seat)
        except claims._TooDeep:
            got = None
    return got, time.process_time() - t


def deal_hands(eng, st, rng, hands=None):
    ev = eng.make_deal(st, rng) if hands is None else \
        {"seq": st.seq + 1, "type": "deal", "dealer": st.dealer, "hands": hands}
    eng.advance(st, ev)
    return ev


def to_play(eng, st, rng):
    """Bids (and passes, draws) by the robots until the play starts."""
    while st.phase not in ("play", "over"):
        if st.phase == "deal":
            deal_hands(eng, st, rng)
            continue
        seat = st.to_act()[0]
        for ev in eng.apply(st, seat, eng.choose(eng.view(st, seat), 1, rules=st.rules)):
            eng.advance(st, ev)


def corpus(eng, name, games, seed=1):
    """Positions at the start of every trick of robot-played hands of preset `name`."""
    rules, rng = eng.preset(name), random.Random(seed)
    for g in range(games):
        st = eng.new_game(rules, g % rules.players)
        to_play(eng, st, rng)
        hand = st.hand_no
        while st.phase == "play" and st.hand_no == hand:
            if not st.trick:
                yield st
            seat = st.turn
            for ev in eng.apply(st, seat, eng.choose(eng.view(st, seat), 1, rules=st.rules)):
                eng.advance(st, ev)


def by_suit(spec):
    return [[r + part[0] for part in spec[s].split() for r in part[1:]] for s in range(4)]


def hard_positions(eng):
    """Known hard claims (tests/test_claims.py, tests/test_no_stall.py)."""
    std = eng.preset("standard")
    others = [r + s for s in "HDC" for r in RANKS if r + s != "AH"] + ["2S"]
    twelve = [[r + "S" for r in RANKS[:12]] + ["AH"]] + [others[i::3] for i in range(3)]
    rest = [r + s for s in "HDC" for r in RANKS]
    thirteen = [[r + "S" for r in RANKS]] + [rest[i::3] for i in range(3)]
    four = [["AS", "KS", "QS", "JS"] + [r + "H" for r in "AKQJT9876"],
            [r + "S" for r in "T98765432"] + ["5H", "4H", "3H", "2H"],
            [r + "D" for r in RANKS], [r + "C" for r in RANKS]]
    out = []
    for label, hands, seat in (("12 top spades + AH, seat 0", twelve, 0),
                               ("12 top spades + AH, partner", twelve, 2),
                               ("all 13 spades, seat 0", thirteen, 0),
                               ("4 top spades + 9 hearts", four, 0)):
        st = eng.new_game(std, 3)
        events = [deal_hands(eng, st, None, hands)]
        for s, b in ((0, 4), (1, 3), (2, 3), (3, 3)):
            events += eng.apply(st, s, {"type": "bid", "bid": b})
            eng.advance(st, events[-1])
        out.append((label, st, seat, events))
    return out


def replay_ms(eng, claims, rounds=30):
    """Median ms to replay deal, bids and a first-trick claim (12 top spades and the AH)
    with no kept answer."""
    _, st, seat, events = hard_positions(eng)[0]
    events = events + [{"seq": st.seq + 1, "type": "claim", "seat": seat}]
    times = []
    for _ in range(rounds):
        claims._known.clear()
        t = time.process_time()
        try:
            eng.replay(st.rules, events, st.first_dealer)
        except eng.IllegalAction:
            return None
        times.append(time.process_time() - t)
    return 1000 * statistics.median(times), len(events)


def summary(label, rows):
    ms = sorted(1000 * t for _, t in rows)
    answered = [1000 * t for v, t in rows if v is not None]
    early = sum(v is None for v, _ in rows)
    held = sum(v is True for v, _ in rows)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    return (f"{label:<32}{len(rows):>7}{held:>6}{early:>7}{statistics.median(ms):>9.2f}"
            f"{p99:>9.2f}{max(ms):>10.1f}{max(answered, default=0):>12.1f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20, help="robot hands a preset")
    ap.add_argument("--preset", nargs="*", default=None)
    ap.add_argument("--repo", type=Path, default=REPO, help="checkout to measure")
    args = ap.parse_args(argv)
    eng, claims = load(args.repo)
    print(f"code: {args.repo}")
    head = (f"{'positions':<32}{'claims':>7}{'hold':>6}{'early':>7}{'med ms':>9}{'p99 ms':>9}"
            f"{'worst ms':>10}{'worst ans.':>12}")
    print(head + "\n" + "-" * len(head))
    every = []
    for name in args.preset or list(eng.PRESETS):
        rows = [check(claims, st, seat) for st in corpus(eng, name, args.games)
                for seat in range(st.n)]
        every += rows
        print(summary(name, rows), flush=True)
    print(summary("all presets", every))
    for label, st, seat, _ in hard_positions(eng):
        print(summary(label, [check(claims, st, seat)]))
    got = replay_ms(eng, claims)
    if got:
        print(f"replay of a log claimed at trick 1 ({got[1]} events): {got[0]:.2f} ms")
    else:
        print("replay of a log claimed at trick 1: the claim is refused (not provable)")
    print("(early: refused as not provable yet within the node budget; CPU time, one core;"
          " 'worst ans.': the slowest claim answered True or False)")


if __name__ == "__main__":
    main()
