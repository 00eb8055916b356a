"""A due timeout taken in its move's write (issue 15): one statement marks its row done and
closes the game's other open rows of that move (what the move's arm cancelled in a
statement of its own), and takes nothing when another clock, a move or a pause came first."""

from datetime import timedelta

import time_machine
from sqlalchemy import event, update

from pbem import clock
from pbem.store.models import Deadline
from tests.test_clock import FAST, T0, H, mails, new_game, pending, rows, state, timeout_moves


def updates_of_deadlines(store, work) -> int:
    """How many UPDATEs of the deadline table `work()` runs."""
    seen = []

    def statement(_conn, _cursor, sql, *_):
        seen.append(sql.lstrip().upper().startswith("UPDATE DEADLINE"))

    event.listen(store.engine, "before_cursor_execute", statement)
    try:
        work()
    finally:
        event.remove(store.engine, "before_cursor_execute", statement)
    return sum(seen)


def overdue(store, gid):
    """The game's pending timeout and reminders, all due (the clock was down), read as a
    tick reads them."""
    row = next(r for r in rows(store, gid, state="pending") if r.kind == "timeout")
    return row, clock._timeouts_read(store, [row])


def test_a_timeout_taken_closes_its_moves_other_rows_in_the_same_update(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, FAST)  # a timeout and two reminders for bob's bid
        t.shift(7 * H)
        row, read = overdue(store, gid)
        reminders = [r.id for r in rows(store, gid, kind="reminder")]
        assert len(reminders) == 2
        took = updates_of_deadlines(
            store, lambda: clock._timeout_at_once(store, row, clock.utcnow(), read))
        assert took == 1  # the take: no second UPDATE by the move's arm
        [mv] = timeout_moves(store, gid)
        assert mv.ref == f"timeout:{row.id}" and mv.seq == row.seq + 1
        done = {r.id: (r.state, r.result) for r in rows(store, gid) if r.seq == row.seq}
        assert done == {row.id: ("done", "timeout: robot"),
                        **{i: ("cancelled", "") for i in reminders}}
        st = state(store, gid)
        assert {(seat, seq) for seat, seq, *_ in pending(store, gid)} == {(2, st.seq)}  # cy's
        assert clock.tick(store) == 0  # nothing left of bob's move


def test_a_timeout_another_clock_took_takes_nothing(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, FAST)
        t.shift(7 * H)
        row, read = overdue(store, gid)
        with store.engine.begin() as c:  # another clock took it, and its move is on the way
            c.execute(update(Deadline).where(Deadline.id == row.id)
                      .values(state="done", result="timeout: robot"))
        before = {r.id: r.state for r in rows(store, gid)}
        assert clock._timeout_at_once(store, row, clock.utcnow(), read) == 0
        assert {r.id: r.state for r in rows(store, gid)} == before  # its reminders too
        assert timeout_moves(store) == [] and mails(store, "timeout:") == []


def test_a_timeout_paused_after_the_ticks_read_takes_nothing(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, FAST)
        t.shift(7 * H)
        row, read = overdue(store, gid)
        with store.engine.begin() as c:  # its league paused between the read and the write
            c.execute(update(Deadline).where(Deadline.game_id == gid)
                      .values(state="paused", paused_at=clock.utcnow()))
        assert clock._timeout_at_once(store, row, clock.utcnow(), read) == 0
        assert {r.state for r in rows(store, gid)} == {"paused"}
        assert timeout_moves(store) == [] and mails(store, "timeout:") == []
        assert state(store, gid).seq == row.seq


def test_a_timeout_closes_only_its_own_game(store):
    with time_machine.travel(T0, tick=False) as t:
        mine, other = new_game(store, FAST), new_game(store, FAST)
        t.shift(7 * H)
        row, read = overdue(store, mine)
        theirs = {r.id: r.state for r in rows(store, other)}
        assert clock._timeout_at_once(store, row, clock.utcnow(), read) == 1
        assert {r.id: r.state for r in rows(store, other)} == theirs
        assert clock.tick(store, clock.utcnow() - timedelta(hours=8)) == 0
