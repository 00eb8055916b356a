"""The caller's copy of a move's state (pbem.play.Result.state) and the cache's own are two
states (a write's next writer changes the cache's), each what the log replays to: the
copy is the state the read foresaw when the write made just the events foreseen, a
snapshot otherwise. A snapshot shares the rows of finished hands, which never change."""

import copy
import random

import pytest

from pbem.engine import State, choose, new_game, preset, view
from pbem.gamelog import replay_log
from pbem.play import start, submit
from pbem.store.games import create_game, export
from pbem.store.models import Game
from tests.helpers import random_step

SNAPSHOTS: list[int] = []
HUMANS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]


def replayed(store, gid):
    return replay_log(export(store, gid))


def same(a, b) -> bool:
    """Equal but for legal()'s note of its last answer (State._offered: no part of the game)."""
    return {**vars(a), "_offered": None} == {**vars(b), "_offered": None}


def play_on(store, gid, moves: int, snapshots: list | None = None):
    """`moves` moves by whoever is to act, each checked against the log's replay;
    `snapshots`, if given, gets how many State.snapshot each move took."""
    for _ in range(moves):
        with store.reader() as s:
            st = store.state(s, s.get(Game, gid))
        store.keep(gid, st)
        if st.phase == "over":
            return
        seat = st.to_act()[0]
        action = choose(view(st, seat), seed=st.seq, rules=st.rules)
        taken = len(SNAPSHOTS)
        result = submit(store, gid, seat, action, expect_seq=st.seq, source="mail",
                        ref=f"m{st.seq}")
        if snapshots is not None:
            snapshots.append(len(SNAPSHOTS) - taken)
        cached = store._states[gid]
        assert result.state is not cached
        assert same(result.state, cached) and same(result.state, replayed(store, gid))
        result.state.history.append({"changed": "by the caller"})  # the caller's own copy
        result.state.hands[seat].append("XX")
        assert same(store._states[gid], replayed(store, gid))


@pytest.fixture(autouse=True)
def counted_snapshots(monkeypatch):
    snapshot = State.snapshot

    def counted(st):
        SNAPSHOTS.append(st.seq)
        return snapshot(st)

    SNAPSHOTS.clear()
    monkeypatch.setattr(State, "snapshot", counted)


def test_a_players_move_gives_a_copy_of_its_own(store):
    gid = create_game(store, preset("standard"), HUMANS, first_dealer=0)
    start(store, gid)
    taken = []
    play_on(store, gid, 60, taken)
    assert taken.count(1) > 50  # the foreseen state handed over: one copy a move


def test_with_robots_replying_too(store):
    gid = create_game(store, preset("standard"), [HUMANS[0], "robot", "robot", "robot"],
                      first_dealer=3)
    start(store, gid)
    play_on(store, gid, 15)


def test_a_snapshot_shares_finished_hands_and_neither_copy_changes_the_other():
    rng = random.Random(5)
    st = new_game(preset("standard"), first_dealer=0)
    while len(st.history) < 3:
        random_step(st, rng)
    twin = st.snapshot()
    rows = copy.deepcopy(st.history)
    assert twin.history is not st.history
    assert all(a is b for a, b in zip(twin.history, st.history, strict=True))
    for state in (twin, st):  # each played on three more hands, another way
        while len(state.history) < 6 and state.phase != "over":
            random_step(state, rng)
    assert twin.history[:3] == st.history[:3] == rows
