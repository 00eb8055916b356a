"""Engine speed, per preset, on one core.

    .venv/bin/python bench/engine.py [--seconds S] [--preset NAME ...] [--profile]
    .venv/bin/python bench/engine.py --instructions [--preset NAME ...]

- random: whole hands a second of CPU time (deal, bids, every play) choosing at random
  among legal(); OpenSpiel's C++ Spades the same way beside it (standard), when `pyspiel`
  imports
- instructions: CPU instructions a random hand, counted by valgrind's callgrind (two runs of
  different lengths, so that starting Python is not counted); OpenSpiel's C++ Spades driven
  from Python beside it when `pyspiel` imports (pip install -e '.[bench]')
- bytecodes: Python bytecodes and calls a random hand, by function (sys.settrace opcode
  events; a guide to where the instructions go, not a measure of them)
- robots: the same with the robot choosing from each seat's view
- replay: milliseconds (median) to replay the log of a whole robot game played to its end

Targets for standard: 5,000 random hands a second, a whole-game replay under 10 ms.
"""

import argparse
import collections
import cProfile
import pstats
import random
import shutil
import statistics
import subprocess
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
    return choose(view(st, seat), 1, rules=st.rules)


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
    """Hands a second of this process's CPU time (other work on the machine does not count)."""
    rng, st = random.Random(seed), new_game(rules, 0)

    def ten():
        nonlocal st
        st = play_hands(rules, st, rng, pick, 10)
    return per_cpu_second(ten, seconds)


def per_cpu_second(play_ten, seconds) -> float:
    """Hands a second of CPU time, `play_ten` playing ten at a time."""
    hands, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        play_ten()
        hands += 10
    return hands / (time.process_time() - start)


def openspiel_per_second(seconds, seed=1) -> float:
    """OpenSpiel's random hands a second of CPU time, from the same kind of Python loop."""
    rng = random.Random(seed)
    return per_cpu_second(lambda: openspiel_hands(rng, 10), seconds)


def play_hands(rules, st, rng, pick, count):
    """Play `count` hands on from `st`, a new game after each game over; the last state."""
    for _ in range(count):
        if st.phase == "over":
            st = new_game(rules, rng.randrange(rules.players))
        play_hand(st, rng, pick)
    return st


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


def bytecodes(name, hands=200, top=25) -> str:
    """Bytecodes and calls a random hand by function (after 5 hands to warm up)."""
    counts, calls = collections.Counter(), collections.Counter()

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        key = f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}"
        calls[key] += 1

        def local(frame, event, arg):
            if event == "opcode":
                counts[key] += 1
            return local
        return local

    rules, rng = preset(name), random.Random(1)
    st = play_hands(rules, new_game(rules, 0), rng, random_action, 5)
    sys.settrace(tracer)
    play_hands(rules, st, rng, random_action, hands)
    sys.settrace(None)
    lines = [f"{name}: {sum(counts.values()) / hands:,.0f} bytecodes, "
             f"{sum(calls.values()) / hands:,.0f} calls a random hand"]
    lines += [f"{v / hands:>9,.0f} {calls[k] / hands:>7,.1f} calls  {k}"
              for k, v in counts.most_common(top)]
    return "\n".join(lines)


# -- instructions a hand, under callgrind ---------------------------------------------------

CALLGRIND_HANDS = (20, 120)  # the difference of two runs is what the hands cost


def run_hands(driver, name, count):
    """Play `count` random hands and nothing else (the process callgrind counts)."""
    rng = random.Random(1)
    if driver == "openspiel":
        openspiel_hands(rng, count)
    else:
        rules = preset(name)
        play_hands(rules, new_game(rules, 0), rng, random_action, count)


def openspiel_hands(rng, count):
    """OpenSpiel's Spades (C++), one hand a game, random legal actions chosen in Python."""
    import pyspiel

    game = pyspiel.load_game("spades")
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, _ = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choice(actions))
            else:
                state.apply_action(rng.choice(state.legal_actions()))


def counted(driver, name, count) -> int:
    """Instructions callgrind counts for a whole `run_hands` process."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
           sys.executable, __file__, "--run", driver, str(count), "--preset", name]
    err = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    return next(int(line.split(":")[1].replace(",", "")) for line in err.splitlines()
                if "Collected :" in line)


def instructions(name, driver="pbem") -> float:
    few, many = CALLGRIND_HANDS
    return (counted(driver, name, many) - counted(driver, name, few)) / (many - few)


def has_openspiel() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def instruction_table(names) -> str:
    if not shutil.which("valgrind"):
        return "valgrind is not installed: no instruction counts"
    lines = [f"{'engine':<24}{'instructions a random hand':>28}"]
    for name in names:
        lines.append(f"{'pbem ' + name:<24}{instructions(name):>28,.0f}")
    if has_openspiel():
        count = instructions("standard", "openspiel")
        lines.append(f"{'OpenSpiel spades (C++)':<24}{count:>28,.0f}")
    else:
        lines.append("OpenSpiel: pyspiel does not import (pip install -e '.[bench]')")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    ap.add_argument("--preset", nargs="*", default=list(PRESETS), choices=list(PRESETS))
    ap.add_argument("--profile", action="store_true", help="profile standard random play")
    ap.add_argument("--instructions", action="store_true",
                    help="instructions a random hand under callgrind (slow: ~1 min a preset)")
    ap.add_argument("--bytecodes", action="store_true",
                    help="bytecodes and calls a random hand, by function")
    ap.add_argument("--run", nargs=2, metavar=("DRIVER", "HANDS"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        run_hands(args.run[0], args.preset[0], int(args.run[1]))
        return
    if args.instructions:
        print(instruction_table(args.preset))
        return
    if args.bytecodes:
        print("\n\n".join(bytecodes(name) for name in args.preset))
        return
    if args.profile:
        profile(args.seconds)
        return
    rows = []
    for name in args.preset:
        rows.append(bench(name, args.seconds))
        print(f"  {name} done", file=sys.stderr)
    print(table(rows))
    if "standard" in args.preset and has_openspiel():
        print(f"OpenSpiel spades (C++), the same random play: "
              f"{openspiel_per_second(args.seconds):,.0f} hands/s")


if __name__ == "__main__":
    main()
