"""Races through the one door: many threads and several processes submit conflicting and
independent moves at once. Exactly one of each conflicting set is applied, none is lost,
every log has no gap and no duplicate, and the same ref applies once."""

import multiprocessing
import os
import random
import threading
from collections import Counter

import pytest
from sqlmodel import select

from pbem import play
from pbem.deadlines import CLOSED
from pbem.engine import choose, legal, preset, view
from pbem.gamelog import replay_log
from pbem.play import Refused, Stale, start, submit
from pbem.store.games import create_game, export
from pbem.store.models import Move
from pbem.store.states import Store

PG = os.environ.get("PBEM_TEST_DATABASE_URL")

SEATS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]


def new_game(store) -> int:
    gid = create_game(store, preset("standard"), SEATS, first_dealer=0)
    start(store, gid)
    return gid


def rows(store, gid) -> list[Move]:
    with store.session() as s:
        return list(s.exec(select(Move).where(Move.game_id == gid).order_by(Move.seq)).all())


def check_log(store, gid) -> list[Move]:
    """The game's log is 1..n, with no gap and no duplicate, and replays to its end."""
    log = rows(store, gid)
    assert [m.seq for m in log] == list(range(1, len(log) + 1)), f"game {gid}: gap or double"
    assert replay_log(export(store, gid)).seq == len(log)
    return log


def race(db_url, gid, seat, actions, expect_seq, tag) -> list:
    """Each action in its own thread (and Store, as separate web workers would have), all
    released at once; each thread's outcome: a Result or the exception."""
    gate = threading.Barrier(len(actions))
    out = [None] * len(actions)

    def go(i):
        store = Store(db_url)
        gate.wait(timeout=60)
        try:
            out[i] = submit(store, gid, seat, actions[i], expect_seq=expect_seq, source="cli",
                            ref=f"{tag}-{i}")
        except Exception as e:  # Stale is the expected loss; anything else fails the test
            out[i] = e

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(actions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_threads_racing_for_one_seq_apply_exactly_one_move(db_url, store):
    gid = new_game(store)
    for rnd in range(6):  # bids, then the first cards
        st = replay_log(export(store, gid))
        seat = st.to_act()[0]
        options = legal(st, seat)
        actions = [options[i % len(options)] for i in range(8)]  # different where possible
        out = race(db_url, gid, seat, actions, st.seq, f"r{rnd}")
        won = [i for i, x in enumerate(out) if not isinstance(x, Exception)]
        assert len(won) == 1, out
        assert all(isinstance(x, Stale) for x in out if isinstance(x, Exception)), out
        log = check_log(store, gid)
        mine = [m for m in log if m.source == "cli" and m.ref.startswith(f"r{rnd}-")]
        assert [m.ref for m in mine] == [f"r{rnd}-{won[0]}"]
        assert mine[0].seq == st.seq + 1 and mine[0].actor == seat
        assert {k: v for k, v in mine[0].payload.items() if k not in ("seq", "seat")} \
            == actions[won[0]]


def test_threads_playing_their_own_games_lose_nothing(db_url):
    games = [new_game(Store(db_url)) for _ in range(4)]
    errors, applied = [], Counter()

    def play(gid, n_moves=25):
        store = Store(db_url)
        st = replay_log(export(store, gid))
        try:
            for i in range(n_moves):
                seat = st.to_act()[0]
                result = submit(store, gid, seat, choose(view(st, seat), seed=i),
                                expect_seq=st.seq, source="cli", ref=f"g{gid}-{i}")
                applied[gid] += not result.duplicate
                st = result.state
        except Exception as e:  # the test fails below, naming it
            errors.append(e)

    threads = [threading.Thread(target=play, args=(gid,)) for gid in games]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for gid in games:
        log = check_log(Store(db_url), gid)
        assert applied[gid] == 25 == sum(m.source == "cli" for m in log)


def worker(db_url, games, wid, gate, results):
    try:
        results.put(hammer(db_url, games, wid, gate))
    except Exception as e:  # the test names it, rather than waiting for a result
        results.put((wid, f"worker {wid} failed: {e!r}", 0, 0))
        raise


def hammer(db_url, games, wid, gate, attempts=40):
    """One process: submits moves for whoever is to act in random games, with the seq it
    saw; on Stale or Refused it takes the table as it is now and tries again. Sometimes it
    sends a move it had applied again, with the same ref: that must apply nothing."""
    rng = random.Random(wid)
    store = Store(db_url)
    states = {gid: replay_log(export(store, gid)) for gid in games}
    applied, stale, not_duplicate = [], 0, 0
    gate.wait(timeout=60)
    for i in range(attempts):
        gid = rng.choice(games)
        st = states[gid]
        if st.phase == "over":
            continue
        seat = rng.choice(st.to_act())
        action, ref = rng.choice(legal(st, seat)), f"w{wid}-{i}"
        try:
            result = submit(store, gid, seat, action, expect_seq=st.seq, source="cli", ref=ref)
        except Refused as e:
            stale += 1
            states[gid] = e.state or replay_log(export(store, gid))
            continue
        assert not result.duplicate
        applied.append(ref)
        if rng.random() < 0.3:
            again = submit(store, gid, seat, action, expect_seq=st.seq, source="cli", ref=ref)
            not_duplicate += not again.duplicate
            result = again
        states[gid] = result.state
    return wid, applied, stale, not_duplicate


def test_processes_hammering_the_same_games_lose_and_double_nothing(db_url, store):
    games = [new_game(store) for _ in range(2)]
    ctx = multiprocessing.get_context("spawn")
    n = 3
    gate, results = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=worker, args=(db_url, games, w, gate, results))
             for w in range(n)]
    for p in procs:
        p.start()
    outs = [results.get(timeout=120) for _ in procs]
    assert all(isinstance(o[1], list) for o in outs), outs
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    cli = [m for gid in games for m in check_log(store, gid) if m.source == "cli"]
    refs = Counter(m.ref for m in cli)
    assert all(k == 1 for k in refs.values()), "a ref applied twice"
    for wid, applied, _stale, not_duplicate in outs:
        assert not_duplicate == 0, f"worker {wid}: a move sent again applied again"
        assert sorted(applied) == sorted(r for r in refs if r.startswith(f"w{wid}-")), \
            f"worker {wid}: what it was told was applied is not what the log holds"
    assert sum(len(o[1]) for o in outs) == len(cli)
    assert sum(o[2] for o in outs) > 0, "no conflict happened: the test raced nothing"


# PostgreSQL only (SQLite's writers queue at BEGIN IMMEDIATE: they never race in a write)
@pytest.mark.skipif(not PG, reason="needs PostgreSQL: set PBEM_TEST_DATABASE_URL")
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_race_at_the_moves_insert_is_retried_as_one(db_url, store, monkeypatch):
    """On PostgreSQL two writers that both read the game before either writes (a timeout's,
    whose `also` took the game's deadline rows) race at the move log's unique (game, seq):
    the loser's INSERT waits for the winner's COMMIT and fails there. The door sees the
    race: the loser reads again and is refused as stale, and nothing is doubled."""
    gid = new_game(store)
    st = replay_log(export(store, gid))
    seat = st.to_act()[0]
    gate, waited, found = threading.Barrier(2), set(), []
    race_of = play._race
    monkeypatch.setattr(play, "_race", lambda e: found.append(e.statement) or race_of(e))

    def also(s):  # both writers have read the game before either writes its move
        s.info[CLOSED] = gid  # as the clock's `_take`: no deadline statement after the move
        if threading.get_ident() not in waited:  # the first try only; a retry reads afresh
            waited.add(threading.get_ident())
            gate.wait(timeout=30)
        return []

    out = [None, None]

    def go(i):
        try:
            out[i] = submit(Store(db_url), gid, seat, legal(st, seat)[i], expect_seq=st.seq,
                            source="clock", ref=f"commit-{i}", also=also)
        except Exception as e:  # Stale is the expected loss; anything else fails the test
            out[i] = e

    threads = [threading.Thread(target=go, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(type(x).__name__ for x in out) == ["Result", "Stale"], out
    # one race, found at the move's own INSERT
    assert len(found) == 1 and (found[0] or "").startswith("INSERT INTO move "), found
    log = check_log(store, gid)
    assert [m.seq for m in log if m.ref and m.ref.startswith("commit-")] == [st.seq + 1]
