"""Engine speed, per preset, on one core.

    .venv/bin/python bench/engine.py [--seconds S] [--preset NAME ...] [--profile]

- random: whole hands a second (deal, bids, every play) choosing at random among legal()
- robots: the same with the robot choosing from each seat's view
- replay: milliseconds (median) to replay the log of a whole robot game played to its end

Targets for standard: 5,000 random hands a second, a whole-game replay under 10 ms.
"""

import argparse
import cProfile
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.engine import (  # noqa: E402
    PRESETS,
    advance,
    apply,
    choose,
    legal,
    make_deal,
    new_game,
    preset,
    replay,
    view,
)

MAX_HANDS = 200  # a robot game that has not ended by then is cut short


def random_action(st, seat, rng):
    act = rng.choice(legal(st, seat))
    if act["type"] == "pass":
        return {"type": "pass", "cards": rng.sample(st.hands[seat], act["count"])}
    return act


def robot_action(st, seat, rng):
    return choose(view(st, seat), 1)


def play_hand(st, rng, pick, log=None):
    """Deal and play one whole hand (misdeals redeal); the events go to `log`."""
    hand = st.hand_no
    while st.hand_no == hand:
        if st.phase == "deal":
            events = [make_deal(st, rng)]
        else:
            seat = st.to_act()[0]
            events = apply(st, seat, pick(st, seat, rng))
        for ev in events:
            advance(st, ev)
        if log is not None:
            log += events


def hands_per_second(rules, pick, seconds, seed=1) -> float:
    rng = random.Random(seed)
    st, hands = new_game(rules, 0), 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if st.phase == "over":
            st = new_game(rules, rng.randrange(rules.players))
        play_hand(st, rng, pick)
        hands += 1
    return hands / (time.perf_counter() - start)


def robot_game(rules, seed=1):
    """The log of a robot game played to its end (or MAX_HANDS hands)."""
    rng = random.Random(seed)
    st, log = new_game(rules, 0), []
    while st.phase != "over" and st.hand_no < MAX_HANDS:
        play_hand(st, rng, robot_action, log)
    return st, log


def replay_ms(rules, log, seconds) -> float:
    times = []
    start = time.perf_counter()
    while len(times) < 5 or (time.perf_counter() - start < seconds and len(times) < 101):
        t = time.perf_counter()
        replay(rules, log)
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def bench(name, seconds) -> dict:
    rules = preset(name)
    st, log = robot_game(rules)
    return {
        "preset": name,
        "random": hands_per_second(rules, random_action, seconds),
        "robots": hands_per_second(rules, robot_action, seconds),
        "hands": len(st.history),
        "ended": st.phase == "over",
        "events": len(log),
        "replay": replay_ms(rules, log, seconds),
    }


def table(rows) -> str:
    head = f"{'preset':<16}{'random hands/s':>16}{'robot hands/s':>15}" \
           f"{'game: hands':>13}{'events':>8}{'replay ms':>11}{'us/event':>10}"
    lines = [head, "-" * len(head)]
    for r in rows:
        hands = f"{r['hands']}{'' if r['ended'] else '+'}"
        lines.append(
            f"{r['preset']:<16}{r['random']:>16,.0f}{r['robots']:>15,.0f}{hands:>13}"
            f"{r['events']:>8}{r['replay']:>11.2f}{1000 * r['replay'] / r['events']:>10.1f}")
    lines.append("(+: the robots had not ended the game after that many hands)")
    return "\n".join(lines)


def profile(seconds):
    """cProfile of the random-play loop under the standard preset."""
    rules = preset("standard")
    prof = cProfile.Profile()
    prof.enable()
    hands_per_second(rules, random_action, seconds)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(20)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    ap.add_argument("--preset", nargs="*", default=list(PRESETS), choices=list(PRESETS))
    ap.add_argument("--profile", action="store_true", help="profile standard random play")
    args = ap.parse_args(argv)
    if args.profile:
        profile(args.seconds)
        return
    rows = []
    for name in args.preset:
        rows.append(bench(name, args.seconds))
        print(f"  {name} done", file=sys.stderr)
    print(table(rows))


if __name__ == "__main__":
    main()
