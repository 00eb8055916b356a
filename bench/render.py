"""CPU a mail's rendering costs: the turn mails, news, game-over mails and answers of
tests/test_mail_bytes.py's seeded random games (standard, dummy-3, six-handed), timed
around pbem.notify.mails and the answer's render only (not the engine's moves between).

    .venv/bin/python bench/render.py [--rounds R]

Links and Message-IDs are the test's fixed ones (signing is not rendering). Process time,
so other processes' load moves it less than wall time; the best and every round shown.
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tests.test_mail_bytes as corpus  # noqa: E402
from pbem import compose, notify  # noqa: E402

GAMES = ("standard", "dummy-3", "six-handed")
spent = [0.0]


def timed(f):
    def run(*args, **kw):
        t = time.process_time()
        try:
            return f(*args, **kw)
        finally:
            spent[0] += time.process_time() - t
    return run


def fixed():
    """The test's fixed links and Message-IDs, and the clocks around the renders."""
    def link_maker(cfg, g, s, q):
        return lambda a: f"{cfg.base_url}/m/{g}.{s}.{q}.{json.dumps(a, sort_keys=True)}"

    notify.link_maker = link_maker
    compose.turn_message_id = lambda g, s, q, d: f"<turn.{g}.{s}.{q}@{d}>"
    corpus.answer = timed(corpus.answer)
    notify.mails = timed(notify.mails)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    fixed()
    rounds = []
    for _ in range(args.rounds):
        spent[0] = 0.0
        n = sum(1 for name in GAMES for _ in corpus.corpus(name, 3))
        rounds.append(spent[0] / n * 1e6)
    print(f"{n} mails, {min(rounds):.0f} us CPU a mail rendered (best of {args.rounds}; "
          f"all {[round(r) for r in rounds]})")


if __name__ == "__main__":
    main()
