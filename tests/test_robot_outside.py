"""Robot moves decided outside the write transaction (issue 15): the robot's search runs in
a read, the move goes through the door at the seq it was decided at, two runners move a
robot once, and a robot left unmoved by a crash after the human's commit is moved by the
clock (its `robot` deadline row)."""

import threading
from datetime import timedelta

from sqlalchemy import event
from sqlmodel import select

import pbem.play
from pbem import clock, deadlines
from pbem.engine import choose, preset, view
from pbem.gamelog import replay_log
from pbem.play import move_robots, start, submit
from pbem.store.games import create_game, export
from pbem.store.models import Deadline, Move, Outbox, Player
from pbem.store.models import now as utcnow
from pbem.store.states import Store

ONE_HUMAN = ["ann@example.org", "robot", "robot", "robot"]
HUMANS = ["bo@example.org", "cy@example.org", "di@example.org", "ed@example.org"]
WAIT = 30  # seconds a thread may take before the test calls it stuck


def dealt(store, seats=ONE_HUMAN) -> int:
    """A dealt game whose seat 1 bids first (first dealer 0)."""
    gid = create_game(store, preset("standard"), list(seats), first_dealer=0)
    start(store, gid)
    return gid


def state(store, gid):
    return replay_log(export(store, gid))


def human_move(store, gid, seat=0):
    st = state(store, gid)
    return submit(store, gid, seat, choose(view(st, seat), seed=st.seq, rules=st.rules),
                  expect_seq=st.seq)


def log(store, gid) -> list[Move]:
    with store.reader() as s:
        return list(s.exec(select(Move).where(Move.game_id == gid).order_by(Move.seq)))


def check_log(store, gid) -> list[Move]:
    moves = log(store, gid)
    assert [m.seq for m in moves] == list(range(1, len(moves) + 1))
    assert state(store, gid).seq == len(moves)  # it replays: every move legal, none twice
    return moves


def robots_wait(store, gid, robots=(1, 2, 3)) -> bool:
    return any(seat in robots for seat in state(store, gid).to_act())


def test_a_robot_searching_holds_no_write_lock(db_url, store, monkeypatch):
    gid, other = dealt(store), dealt(store, HUMANS)
    st, st2 = state(store, gid), state(store, other)
    assert st.to_act() == [0] and st2.to_act() == [1]  # robots 1-3 bid at the start
    bid = choose(view(st, 0), seed=1, rules=st.rules)
    bid2 = choose(view(st2, 1), seed=1, rules=st2.rules)
    entered, release = threading.Event(), threading.Event()
    real = pbem.play.choose

    def blocking(*args, **kw):  # the robot thinks until the test lets it
        entered.set()
        assert release.wait(WAIT)
        return real(*args, **kw)

    monkeypatch.setattr(pbem.play, "choose", blocking)
    out = {}
    mover = threading.Thread(target=lambda: out.setdefault("h", submit(
        Store(db_url), gid, 0, bid, expect_seq=st.seq)))
    mover.start()  # the last bid: robot 1 leads the first trick, decided before the write
    try:
        assert entered.wait(WAIT), "the robot never started to think"
        # the robot is searching (its reply foreseen before the bid's write): a reader
        # reads the game, nothing of the bid written yet ...
        assert log(store, gid)[-1].seq == st.seq
        # ... and another game can be written meanwhile (SQLite has one writer at a time)
        writer = threading.Thread(target=lambda: out.setdefault("w", submit(
            Store(db_url), other, 1, bid2, expect_seq=st2.seq)))
        writer.start()
        writer.join(WAIT)
        assert not writer.is_alive() and out["w"].state.seq == st2.seq + 1, \
            "a write waited on the robot's search"
    finally:
        release.set()
        mover.join(WAIT)
    assert not mover.is_alive()
    assert out["h"].state.to_act() == [0]  # the caller still gets the robots' replies
    replies = [m for m in check_log(store, gid) if m.seq > st.seq + 1]
    assert {m.actor for m in replies if m.source == "robot"} == {1, 2, 3}
    assert all(m.source == "robot" for m in replies if m.actor != 0)


def stop_after_commit(monkeypatch):
    """The process 'dies' between the human's commit and the robots' moves (which it had
    not foreseen before the write: as after a deal, made in the write)."""
    monkeypatch.setattr(pbem.play, "move_robots", lambda store, gid: None)
    monkeypatch.setattr(pbem.play, "_foresee", lambda store, gid, *a: pbem.play.Plan(0, []))


def race_runners(db_url, gid, monkeypatch) -> list:
    """Two runners (each its own Store, as two processes) move the game's robots, both
    deciding the first move before either writes; each runner's Result or exception."""
    both, decided, real = threading.Barrier(2), threading.local(), pbem.play.choose
    out = [None, None]

    def in_step(*args, **kw):
        if not getattr(decided, "once", False):
            decided.once = True
            both.wait(WAIT)
        return real(*args, **kw)

    def run(i):
        try:
            out[i] = move_robots(Store(db_url), gid)
        except Exception as e:  # any error fails the test
            out[i] = e

    with monkeypatch.context() as m:
        m.setattr(pbem.play, "choose", in_step)
        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT)
    return out


def test_two_runners_move_each_robot_once(db_url, store, monkeypatch):
    gid = dealt(store, ["ann@example.org", "robot", "bo@example.org", "robot"])
    for _ in range(4):  # each round: a human moves, two runners race for the robots after
        with monkeypatch.context() as m:
            stop_after_commit(m)
            human_move(store, gid, next(x for x in state(store, gid).to_act() if x in (0, 2)))
        if not robots_wait(store, gid, (1, 3)):
            continue
        seq = state(store, gid).seq
        out = race_runners(db_url, gid, monkeypatch)
        assert not any(isinstance(x, Exception) for x in out), out
        robot = [m for m in check_log(store, gid) if m.seq > seq and m.source == "robot"]
        assert robot and all(m.actor in (1, 3) for m in robot)
        written = [ev["seq"] for r in out if r is not None for ev in r.events
                   if ev.get("seat") in (1, 3) and ev["type"] in ("bid", "play")]
        assert sorted(written) == [m.seq for m in robot]  # each robot move written once
        assert not robots_wait(store, gid, (1, 3))


def test_the_clock_moves_a_robot_a_crash_left_unmoved(store, monkeypatch):
    gid = dealt(store)
    with store.session() as s:  # ann's card never plays itself: the robots' three, then hers
        ann = s.exec(select(Player).where(Player.email == ONE_HUMAN[0])).one()
        ann.prefs = {**(ann.prefs or {}), "auto": "off"}
        s.add(ann)
        s.commit()
    with monkeypatch.context() as m:
        stop_after_commit(m)
        human_move(store, gid)  # ann's bid; robot 1's lead is left unmade
    st = state(store, gid)
    assert st.to_act() == [1]
    pending = [r for r in rows(store, gid) if r.state == "pending"]
    assert [(r.kind, r.seat, r.seq) for r in pending] == [("robot", 1, st.seq)]
    assert clock.tick(store, utcnow()) == 0  # the runner after the commit has its grace
    assert clock.tick(store, utcnow() + timedelta(minutes=2)) == 1
    assert clock.tick(store, utcnow() + timedelta(minutes=3)) == 0  # once
    after = state(store, gid)
    assert after.to_act() == [0] and after.seq == st.seq + 3
    robot = [r for r in rows(store, gid) if r.kind == "robot" and r.seq == st.seq]
    assert [(r.state, r.result) for r in robot] == [("done", "robot moved")]
    assert all(r.state == "cancelled" for r in rows(store, gid)  # robots the runner moved
               if r.kind == "robot" and r.seq < st.seq)
    assert {(r.kind, r.seat) for r in rows(store, gid) if r.state == "pending"} \
        == {("timeout", 0), ("reminder", 0)}  # the human's turn, as the runner leaves it


def test_rebuild_after_a_restore_arms_the_waiting_robot(store, monkeypatch):
    gid = dealt(store)
    with monkeypatch.context() as m:
        stop_after_commit(m)
        human_move(store, gid)
    with store.session() as s:  # a restore: the deadlines are lost
        for r in s.exec(select(Deadline)):
            s.delete(r)
        s.commit()
    assert deadlines.rebuild(Store(store.url), utcnow()) == 1
    assert [(r.kind, r.seat) for r in rows(store, gid)] == [("robot", 1)]
    assert clock.tick(store, utcnow() + timedelta(minutes=2)) == 1
    assert state(store, gid).to_act() == [0]


def rows(store, gid) -> list[Deadline]:
    with store.reader() as s:
        return list(s.exec(select(Deadline).where(Deadline.game_id == gid)
                           .order_by(Deadline.id)))


def test_a_due_timeout_is_one_write_with_the_robots_replies(store):
    gid = create_game(store, preset("standard"), ["ann@example.org", "robot", "robot", "robot"],
                      first_dealer=3, time_control={"move_hours": 6, "remind_hours": []})
    start(store, gid)  # ann bids first, then the robots
    st = state(store, gid)
    [row] = [r for r in rows(store, gid) if r.state == "pending"]
    assert (row.kind, row.seat) == ("timeout", 0)
    commits = []

    def count(conn):
        commits.append(1)

    event.listen(store.engine, "commit", count)
    try:
        assert clock.tick(store, row.due + timedelta(minutes=1)) == 1
    finally:
        event.remove(store.engine, "commit", count)
    after = state(store, gid)
    assert after.seq > st.seq + 1 and after.to_act() == [0]  # ann's bid by the robot, replies
    assert [m.source for m in log(store, gid)][st.seq:st.seq + 4] == ["clock"] + ["robot"] * 3
    assert len(commits) == 1, f"{len(commits)} commits for one timeout"
    [done] = [r for r in rows(store, gid) if r.id == row.id]
    assert (done.state, done.result) == ("done", "timeout: robot") and done.claimed_at
    with store.reader() as s:
        keys = set(s.exec(select(Outbox.dedupe_key)))
        turn = s.exec(select(Outbox.body_text).where(
            Outbox.dedupe_key == f"turn:{gid}:0:{after.seq}")).one()
    assert f"timeout:{row.id}:0" not in keys  # ann was told, in the same write: in the one
    assert "did not move in time" in turn  # mail that asks her to move again
