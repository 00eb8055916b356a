"""The restart's rebuild (issue 30) reads the deadlines still to fire, not the history: a
game in play leaves done and cancelled rows behind with every move, and a restart must not
grow with them. Behaviour stays that of tests/test_clock*.py."""

from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import time_machine
from sqlalchemy import event, func
from sqlmodel import select

from pbem import clock, deadlines
from pbem.store.models import Deadline, Game
from pbem.store.states import Store
from tests.test_clock import FAST, move, new_game, rows

T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)  # a Monday noon
H = timedelta(hours=1)


def with_history(store) -> int:
    """A game in play with done reminders and cancelled rows of earlier moves."""
    gid = new_game(store, FAST)
    for _ in range(3):
        with time_machine.travel(datetime.now(UTC) + 5 * H, tick=False):
            assert clock.tick(store) >= 1  # its reminders fire: done rows
        move(store, gid)  # the rows of the move before are cancelled
    return gid


@contextmanager
def statements(store):
    """The SQL run on `store`'s engine (its sessions and readers) meanwhile."""
    seen: list[str] = []

    def note(conn, cursor, statement, params, context, executemany):
        seen.append(statement)

    event.listen(store.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(store.engine, "before_cursor_execute", note)


def test_the_rebuilds_read_admits_only_rows_still_to_fire(store):
    """Every row the rebuild's read of deadlines admits (its WHERE, with the row's own
    columns selected) is open, though the game has more finished rows than open ones."""
    with time_machine.travel(T0, tick=False):
        gid = with_history(store)
        new_game(store, FAST)
    with store.session() as s:
        finished = s.exec(select(func.count()).select_from(Deadline).where(
            Deadline.game_id == gid, Deadline.state.in_(("done", "cancelled")))).one()
        read = s.exec(deadlines.armed_moves(Game.status == "playing")
                      .with_only_columns(Deadline.id, Deadline.state)).all()
        open_ids = s.exec(select(Deadline.id).where(Deadline.state.in_(deadlines.OPEN))).all()
    assert finished >= 6  # the history is there to be read, and outnumbers the open rows
    assert {state for _, state in read} == {"pending"}
    assert sorted(i for i, _ in read) == sorted(open_ids)


def test_a_rebuild_after_a_restart_reads_deadlines_once_through_that_read(store):
    """With every game armed, the rebuild's only statement on the deadline table is that
    read: no other one sees the history."""
    with time_machine.travel(T0, tick=False):
        with_history(store)
        new_game(store, FAST)
    store = Store(store.url)  # a restart: nothing cached
    want = str(deadlines.armed_moves(Game.status == "playing").compile(
        dialect=store.engine.dialect, compile_kwargs={"render_postcompile": True}))
    with statements(store) as seen:
        assert deadlines.rebuild(store) == 0
    on_deadlines = [x for x in seen if "deadline" in x.lower()]
    assert on_deadlines == [want]


def test_a_game_that_waits_after_its_timeout_is_not_armed_again(store):
    """A `wait` timeout fired leaves no open row at the game's move: the rebuild still finds
    the game armed there (its row at that move), arms nothing and writes nothing."""
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(FAST, on_timeout="wait", remind_hours=[]))
        t.shift(6 * H)
        assert clock.tick(store) == 1
        before = [(r.id, r.state, r.due) for r in rows(store, gid)]
        assert [s for _, s, _ in before] == ["done"]
        assert deadlines.rebuild(Store(store.url)) == 0
        assert [(r.id, r.state, r.due) for r in rows(store, gid)] == before


def test_a_restore_still_arms_each_game_once(store):
    """Open rows lost (a restore): the games are armed again from their history as before,
    once, and the next rebuild finds them armed."""
    with time_machine.travel(T0, tick=False):
        gids = [with_history(store), new_game(store, FAST)]
        want = {g: sorted((r.seat, r.seq, r.kind, r.hours_before)
                          for r in rows(store, g, state="pending")) for g in gids}
        with store.session() as s:
            for r in s.exec(select(Deadline).where(Deadline.state == "pending")):
                s.delete(r)
            s.commit()
        assert deadlines.rebuild(Store(store.url)) == 2
        assert deadlines.rebuild(Store(store.url)) == 0
        got = {g: sorted((r.seat, r.seq, r.kind, r.hours_before)
                         for r in rows(store, g, state="pending")) for g in gids}
    assert got == want
