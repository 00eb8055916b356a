"""A writer for tests/test_crash.py, killed with SIGKILL at random points.

    python tests/crash_writer.py URL REF_PREFIX

Plays every unfinished game in the database through play.submit (a robot picks each move),
round and round, starting a new game when all are over. After each committed submission it
prints "GAME SEQ" for every event that submission wrote, and flushes: a printed seq was
committed. Prints "ready" once its first move is committed.
"""

import sys

from sqlmodel import select

from pbem.engine import choose, preset, view
from pbem.gamelog import replay_log
from pbem.play import start, submit
from pbem.store.games import create_game, export
from pbem.store.models import Game
from pbem.store.states import Store

SEATS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]


def main(url: str, prefix: str) -> None:
    store = Store(url)
    states = {}
    n = 0
    while True:
        with store.session() as s:
            gids = s.exec(select(Game.id).where(Game.status != "over").order_by(Game.id)).all()
        if not gids:
            gids = [create_game(store, preset("standard"), SEATS, first_dealer=0)]
        for gid in gids:
            st = states.get(gid) or replay_log(export(store, gid))
            if st.seq == 0:
                result = start(store, gid)
            else:
                seat = st.to_act()[0]
                action = choose(view(st, seat), seed=n, rules=st.rules)
                result = submit(store, gid, seat, action, expect_seq=st.seq, source="cli",
                                ref=f"{prefix}-{n}")
            if n == 0:
                print("ready", flush=True)  # warmed up: connected, first move committed
            n += 1
            assert not result.duplicate
            print("\n".join(f"{gid} {ev['seq']}" for ev in result.events), flush=True)
            states[gid] = result.state


if __name__ == "__main__":
    main(*sys.argv[1:])
