"""The clock (issue 6): deadlines armed with each move, reminders and timeouts fired once by
`clock.tick` however often and by however many clocks it runs, in due order after a
restart; weekend pause, extra time, vacations and the player's record. Time moves with
time_machine (play.submit stamps deadlines with models.now()), never with sleeps."""

import multiprocessing
import os
import threading
from datetime import UTC, date, datetime, timedelta

import pytest
import time_machine
from sqlalchemy import update
from sqlmodel import select

from pbem import clock, deadlines, vacation
from pbem.engine import choose, preset, view
from pbem.gamelog import replay_log
from pbem.play import Stale, start, submit
from pbem.store.games import create_game, export
from pbem.store.models import Deadline, Game, Move, Outbox, Player, Seat
from pbem.store.states import Store

T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)  # a Monday noon
FRIDAY = datetime(2026, 1, 9, 12, tzinfo=UTC)
H = timedelta(hours=1)
PG_URL = os.environ.get("PBEM_TEST_DATABASE_URL")
HUMANS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]
FAST = {"move_hours": 6, "remind_hours": [2, 1]}


def new_game(store, tc=None, seats=HUMANS) -> int:
    """A dealt game (first dealer 0, so seat 1 bids first), armed at the travelled now."""
    gid = create_game(store, preset("standard"), list(seats), first_dealer=0, time_control=tc)
    start(store, gid)
    return gid


def state(store, gid):
    return replay_log(export(store, gid))


def move(store, gid, source="cli"):
    """Whoever is to act moves now (as a player would, in time)."""
    st = state(store, gid)
    seat = st.to_act()[0]
    action = choose(view(st, seat), seed=st.seq, rules=st.rules)
    return submit(store, gid, seat, action, expect_seq=st.seq, source=source,
                  ref=f"p:{gid}:{st.seq}")


def rows(store, gid=None, **where) -> list[Deadline]:
    with store.session() as s:
        q = select(Deadline).order_by(Deadline.due, Deadline.id)
        if gid is not None:
            q = q.where(Deadline.game_id == gid)
        for k, v in where.items():
            q = q.where(getattr(Deadline, k) == v)
        return list(s.exec(q).all())


def pending(store, gid):
    return {(r.seat, r.seq, r.kind, r.hours_before): r.due
            for r in rows(store, gid, state="pending")}


def mails(store, prefix) -> list[Outbox]:
    with store.session() as s:
        return list(s.exec(select(Outbox).where(Outbox.dedupe_key.startswith(prefix))
                           .order_by(Outbox.id)).all())


def said(row: Outbox) -> str:
    """A game's mail says what it is on its first line (its subject is the game's)."""
    return row.body_text.split("\n", 1)[0]


def timeout_moves(store, gid=None) -> list[Move]:
    with store.session() as s:
        q = select(Move).where(Move.ref.startswith("timeout:")).order_by(Move.id)
        if gid is not None:
            q = q.where(Move.game_id == gid)
        return list(s.exec(q).all())


def player_id(store, email) -> int:
    with store.session() as s:
        return s.exec(select(Player.id).where(Player.email == email)).one()


def everything(store) -> tuple:
    """A fingerprint of what the clock writes: moves, mails, deadline states."""
    with store.session() as s:
        return (len(s.exec(select(Move.id)).all()), len(s.exec(select(Outbox.id)).all()),
                sorted((r.id, r.state, r.result) for r in s.exec(select(Deadline)).all()))


# -- (1) arming ------------------------------------------------------------------------------


@pytest.mark.parametrize("tc, want", [
    (FAST, {"timeout": 6, 2: 4, 1: 5}),
    ({"move_hours": 72, "remind_hours": [24, 2]}, {"timeout": 72, 24: 48, 2: 70}),  # days
    ({"move_hours": 6, "remind_hours": [24, 2]}, {"timeout": 6, 2: 4}),  # 24 h > the move
])
def test_a_move_arms_a_timeout_and_its_reminders(store, tc, want):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, tc)
        want = dict(want)
        expect = {(1, 1, "timeout", 0): T0 + want.pop("timeout") * H}
        expect.update({(1, 1, "reminder", h): T0 + at * H for h, at in want.items()})
        assert pending(store, gid) == expect
        assert deadlines.due_for(store, gid, 1) == {1: expect[(1, 1, "timeout", 0)]}

        t.shift(H)  # bob bids in time: his rows go, cy's come, counted from now
        move(store, gid)
        assert {r.id for r in rows(store, gid, state="cancelled")} \
            == {r.id for r in rows(store, gid, seq=1)}
        now = T0 + H
        assert pending(store, gid) == {(2, 2, k, h): d - T0 + now
                                       for (_, _, k, h), d in expect.items()}


def test_robot_seats_get_no_deadlines_and_a_finished_game_none(store):
    with time_machine.travel(T0, tick=False):
        gid = new_game(store, FAST, ["robot", "bob@example.org", "robot", "robot"])
        assert {r.seat for r in rows(store, gid)} == {1}
        submit(store, gid, 1, {"type": "resign"}, source="cli")
        assert state(store, gid).phase == "over"
        assert pending(store, gid) == {}


# -- (2) reminders ---------------------------------------------------------------------------


def test_reminders_come_at_their_times_once_however_often_the_clock_ticks(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, FAST)
        t.shift(4 * H - timedelta(seconds=1))
        assert clock.tick(store) == 0 and mails(store, "remind:") == []
        t.shift(timedelta(seconds=1))
        assert clock.tick(store) == 1
        for _ in range(3):
            assert clock.tick(store) == 0
        [first] = mails(store, "remind:")
        assert first.to_addr == "bob@example.org" and "2 hours" in said(first)
        assert f"game {gid}" in first.body_text.lower()
        t.shift(H)
        assert [clock.tick(store) for _ in range(3)] == [1, 0, 0]
        got = mails(store, "remind:")
        assert [m.to_addr for m in got] == ["bob@example.org"] * 2
        assert "1 hours" in said(got[1]) or "1 hour" in said(got[1])
        assert [r.result for r in rows(store, gid, kind="reminder")] == ["reminded"] * 2
        assert timeout_moves(store) == []


# -- (3) timeouts ----------------------------------------------------------------------------


def test_on_timeout_robot_the_robot_moves_and_the_others_hear_whom_they_waited_for(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(FAST, remind_hours=[]))
        [row] = rows(store, gid)
        t.shift(6 * H)
        assert clock.tick(store) == 1
        [mv] = timeout_moves(store)
        assert (mv.game_id, mv.seq, mv.actor, mv.source, mv.type, mv.ref) \
            == (gid, 2, 1, "clock", "bid", f"timeout:{row.id}")
        st = state(store, gid)
        assert st.seq >= 2 and st.to_act() == [2]
        told = {m.to_addr: m for m in mails(store, f"timeout:{row.id}:")}
        assert set(told) == set(HUMANS) - {"cy@example.org"}  # cy's turn mail tells her
        for addr in ("ann@example.org", "di@example.org"):
            assert "bob" in said(told[addr]) and "ran out of time" in said(told[addr])
        assert "your time ran out" in said(told["bob@example.org"])
        [turn] = mails(store, f"turn:{gid}:2:")  # one mail: whom she waited for, her turn
        assert "bob did not move in time" in turn.body_text and "your turn" in said(turn)
        assert rows(store, gid, id=row.id)[0].result == "timeout: robot"
        # cy's turn now, armed from the timeout's time
        assert pending(store, gid) == {(2, st.seq, "timeout", 0): T0 + 12 * H}
        assert clock.tick(store) == 0 and len(timeout_moves(store)) == 1


def test_on_timeout_forfeit_the_side_loses_the_game(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(FAST, on_timeout="forfeit"))
        t.shift(7 * H)
        assert clock.tick(store) == 3  # two reminders, then the timeout
        [mv] = timeout_moves(store)
        assert (mv.type, mv.actor, mv.source) == ("resign", 1, "clock")
        st = state(store, gid)
        assert st.phase == "over" and st.resigned == 1
        assert st.winner == st.side_of[0] != st.side_of[1]
        with store.session() as s:
            assert s.get(Game, gid).status == "over"
        # one mail each: the result, which says whose time ran out
        assert mails(store, f"timeout:{rows(store, gid, kind='timeout')[0].id}:") == []
        over = mails(store, f"over:{gid}:")
        assert len(over) == 4 and all("forfeits" in m.body_text for m in over)
        assert pending(store, gid) == {}
        t.shift(100 * H)
        assert clock.tick(store) == 0


def test_on_timeout_wait_no_move_but_the_players_are_told(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(FAST, on_timeout="wait", remind_hours=[]))
        t.shift(6 * H)
        assert clock.tick(store) == 1
        assert timeout_moves(store) == [] and state(store, gid).seq == 1
        got = mails(store, "timeout:")
        assert len(got) == 4 and all("organiser" in m.body_text for m in got)
        assert rows(store, gid)[0].result == "timeout: wait"
        t.shift(48 * H)
        before = everything(store)
        assert clock.tick(store) == 0 and everything(store) == before
        move(store, gid)  # the game goes on when someone moves
        assert state(store, gid).seq >= 2


# -- (4) weekend pause -----------------------------------------------------------------------


def test_weekend_pause_48_hours_from_friday_noon_is_tuesday_noon(store):
    assert deadlines.add_hours(FRIDAY, 48, True) == datetime(2026, 1, 13, 12, tzinfo=UTC)
    assert deadlines.add_hours(FRIDAY, 48, False) == datetime(2026, 1, 11, 12, tzinfo=UTC)
    saturday = datetime(2026, 1, 10, 15, tzinfo=UTC)
    assert deadlines.add_hours(saturday, 5, True) == datetime(2026, 1, 12, 5, tzinfo=UTC)
    with time_machine.travel(FRIDAY, tick=False) as t:
        gid = new_game(store, {"move_hours": 48, "remind_hours": [24], "weekend_pause": True})
        tuesday = datetime(2026, 1, 13, 12, tzinfo=UTC)
        assert pending(store, gid) == {(1, 1, "timeout", 0): tuesday,
                                       (1, 1, "reminder", 24): tuesday - 24 * H}
        t.move_to(datetime(2026, 1, 11, 12, 0, 1, tzinfo=UTC))  # Sunday: no timeout
        assert clock.tick(store) == 0


# -- (5) extra time --------------------------------------------------------------------------


def test_extra_time_moves_the_pending_deadlines(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, FAST)
        other = new_game(store, FAST)
        t.shift(4 * H)
        assert clock.tick(store) == 2  # each game's first reminder
        before, theirs = pending(store, gid), pending(store, other)
        assert vacation.extra_time(store, gid, 24) == 2
        assert pending(store, gid) == {k: v + 24 * H for k, v in before.items()}
        assert pending(store, other) == theirs
        t.shift(3 * H)  # the old timeout has passed: only the other game's rows fire
        assert clock.tick(store) == 2
        assert [m.game_id for m in timeout_moves(store)] == [other]
        t.shift(24 * H)
        assert clock.tick(store) == 5  # other's next three rows, gid's reminder and timeout
        assert sorted(m.game_id for m in timeout_moves(store)) == sorted([gid, other, other])


# -- (6) vacations ---------------------------------------------------------------------------


def test_vacation_banks_days_and_stops_the_players_deadlines(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, FAST)
        other = new_game(store, FAST, ["bob@example.org"] + HUMANS[1:])  # bob in seats 0, 1
        bob = player_id(store, "bob@example.org")
        before = pending(store, gid), pending(store, other)
        with pytest.raises(ValueError, match="14"):
            vacation.start_vacation(store, bob, 15)
        assert (pending(store, gid), pending(store, other)) == before

        until = vacation.start_vacation(store, bob, 5)
        assert until == T0.date() + timedelta(days=5)
        for game, was in zip((gid, other), before, strict=True):
            assert pending(store, game) == {k: v + timedelta(days=5) for k, v in was.items()}
        with store.session() as s:
            assert s.get(Player, bob).prefs["vacation_bank"] == 9
        with pytest.raises(ValueError):
            vacation.start_vacation(store, bob, 10)
        t.shift(7 * H)
        assert clock.tick(store) == 0  # standing still

        # cy is away too: the move asked of her during it is due only after it
        cy = player_id(store, "cy@example.org")
        cy_until = vacation.start_vacation(store, cy, 3)
        move(store, gid)
        [due] = deadlines.due_for(store, gid, state(store, gid).seq).values()
        back = datetime.combine(cy_until, datetime.min.time(), UTC)
        assert back + 6 * H <= due <= back + timedelta(days=1) + 6 * H
        assert vacation.end_vacation(store, cy, today=T0.date() + timedelta(days=1)) == 2
        with store.session() as s:
            assert s.get(Player, cy).prefs["vacation_bank"] == 11 + 2


def test_the_vacation_bank_refills_by_month_up_to_a_cap():
    jan = date(2026, 1, 20)
    assert vacation.bank({}, jan) == (14, "2026-01")
    assert vacation.bank({"vacation_bank": 9, "bank_month": "2026-01"}, jan) == (9, "2026-01")
    assert vacation.bank({"vacation_bank": 9, "bank_month": "2026-01"}, date(2026, 4, 1)) \
        == (15, "2026-04")
    assert vacation.bank({"vacation_bank": 9, "bank_month": "2025-11"}, jan) == (13, "2026-01")
    assert vacation.bank({"vacation_bank": 25, "bank_month": "2025-01"}, jan) == (30, "2026-01")


def test_the_bank_refilled_pays_for_a_longer_vacation_later(store):
    with time_machine.travel(T0, tick=False):
        new_game(store, FAST)
        bob = player_id(store, "bob@example.org")
        vacation.start_vacation(store, bob, 14)
        with pytest.raises(ValueError):
            vacation.start_vacation(store, bob, 1, today=T0.date() + timedelta(days=20))
        vacation.start_vacation(store, bob, 4, today=date(2026, 3, 2))  # two months: 4 days
        with store.session() as s:
            assert s.get(Player, bob).prefs["vacation_bank"] == 0


# -- (7) the record --------------------------------------------------------------------------


def test_the_record_counts_moves_in_time_reminders_and_timeouts(store):
    with time_machine.travel(T0, tick=False) as t:
        new = new_game(store, FAST)
        bob, cy = player_id(store, "bob@example.org"), player_id(store, "cy@example.org")
        zero = {"moves_on_time": 0, "reminders": 0, "timeouts": 0}
        assert deadlines.record(store, bob) == zero
        t.shift(4 * H)
        clock.tick(store)  # bob is reminded once, then moves
        t.shift(H / 2)
        move(store, new)
        t.shift(4 * H)  # cy: reminded twice, then times out
        assert [clock.tick(store), t.shift(H), clock.tick(store), t.shift(H),
                clock.tick(store)] == [1, None, 1, None, 1]
        assert deadlines.record(store, bob) == {"moves_on_time": 1, "reminders": 1, "timeouts": 0}
        assert deadlines.record(store, cy) == {"moves_on_time": 0, "reminders": 2, "timeouts": 1}


# -- (8) restart -----------------------------------------------------------------------------


def fired_ids(store) -> list[int]:
    """Deadline ids in the order their first effect (a mail or a timeout move) was written
    (a forfeit's notices go in the result's mails: pbem.notify.with_notices)."""
    firsts = {}
    with store.session() as s:
        effects = [(m.id, m.dedupe_key) for m in s.exec(select(Outbox)).all()
                   if m.dedupe_key.startswith(("remind:", "timeout:"))]
        effects += [(m.id, f"timeout:{row}") for m in s.exec(select(Outbox)).all()
                    if m.dedupe_key.startswith("over:")
                    for row in s.exec(select(Deadline.id).where(
                        Deadline.game_id == m.game_id, Deadline.kind == "timeout",
                        Deadline.result == "timeout: forfeit"))]
    for oid, key in sorted(effects):
        firsts.setdefault(int(key.split(":")[1]), oid)
    return sorted(firsts, key=firsts.get)


def test_restart_after_a_day_down_handles_each_due_row_once_in_order(store):
    controls = [dict(FAST), {"move_hours": 3, "remind_hours": [1]},
                {"move_hours": 5, "remind_hours": [3, 1], "on_timeout": "wait"},
                {"move_hours": 10, "remind_hours": [4], "on_timeout": "forfeit"},
                {"move_hours": 30, "remind_hours": [24, 20]}]
    with time_machine.travel(T0, tick=False) as t:
        games = []
        for tc in controls:
            games.append(new_game(store, tc))
            t.shift(H / 3)
        # the server is down all day; players still move now and then (through the web)
        for hour in range(24):
            t.shift(H)
            if hour in (1, 2, 7):
                move(store, games[0])
            if hour == 1:
                move(store, games[4])
        now = T0 + 24 * H + 5 * H / 3
        assert datetime.now(UTC) == now
        due = [r for r in rows(store, state="pending") if r.due <= now]
        assert len(due) >= 10 and {r.game_id for r in due} >= set(games[:4])
        later = [r for r in rows(store, state="pending") if r.due > now]
        armed_before = {r.id for r in rows(store)}

        assert clock.tick(store) == len(due)
        # a reminder whose timeout is due too sends nothing: the timeout says it all
        acting = [r for r in due if r.kind == "timeout" or r.due + r.hours_before * H > now]
        assert len(acting) < len(due)
        assert fired_ids(store) == [r.id for r in acting]  # in due order
        for r in due:
            assert rows(store, id=r.id)[0].state == "done"
        assert all(rows(store, id=r.id)[0].state == "pending" for r in later)
        timeouts = [r for r in due if r.kind == "timeout"]
        acted = [r for r in timeouts if deadlines.time_control(game_of(store, r))["on_timeout"]
                 != "wait"]
        assert sorted(m.ref for m in timeout_moves(store)) \
            == sorted(f"timeout:{r.id}" for r in acted)
        assert len(mails(store, "remind:")) == sum(r.kind == "reminder" for r in acting)
        # the robot's moves armed the next deadlines, from now
        assert all(r.due > now for r in rows(store, state="pending")
                   if r.id not in armed_before)

        before = everything(store)
        assert clock.tick(store) == 0
        assert everything(store) == before


def game_of(store, row) -> Game:
    with store.session() as s:
        return s.get(Game, row.game_id)


def crash(store, row_id, at) -> None:
    """What a clock that died after claiming the row leaves behind."""
    with store.engine.begin() as c:
        c.execute(update(Deadline).where(Deadline.id == row_id)
                  .values(state="firing", claimed_at=at))


def test_a_clock_killed_after_claiming_is_taken_over_after_the_lease(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(FAST, remind_hours=[2]))
        [remind, timeout] = rows(store, gid)
        t.shift(6 * H)
        now = T0 + 6 * H
        crash(store, remind.id, now - H)  # long dead: taken over at once
        crash(store, timeout.id, now - timedelta(minutes=1))  # maybe alive: left alone
        assert clock.tick(store) == 1  # taken over, and moot: its timeout is due too
        assert rows(store, id=remind.id)[0].result == "overtaken"
        assert mails(store, "remind:") == [] and timeout_moves(store) == []
        assert rows(store, id=timeout.id)[0].state == "firing"
        t.shift(clock.LEASE)
        assert clock.tick(store) == 1
        assert [m.ref for m in timeout_moves(store)] == [f"timeout:{timeout.id}"]
        assert len(mails(store, f"timeout:{timeout.id}:")) == 4
        assert [r.state for r in rows(store, seq=1)] == ["done", "done"]
        before = everything(store)
        t.shift(clock.LEASE * 2)
        assert clock.tick(store) == 0 and everything(store) == before


def test_a_clock_killed_after_its_effects_redoes_none_and_finishes_the_rest(store):
    """The dead clock had mailed the reminder, and submitted the timeout's robot move but
    not yet told the players: the next clock sends no second reminder and no second move,
    but does tell the players, and the timeout counts on the record."""
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(FAST, remind_hours=[2]))
        [remind, timeout] = rows(store, gid)
        t.shift(6 * H)
        with store.session() as s:
            seats = s.exec(select(Seat).where(Seat.game_id == gid).order_by(Seat.seat)).all()
            players = {p.id: p for p in s.exec(select(Player)).all()}
        clock._mail(store, seats[1], players, f"remind:{remind.id}",
                    lambda: ("reminder", "sent\n"))
        st = state(store, gid)
        submit(store, gid, 1, choose(view(st, 1), seed=1, rules=st.rules), expect_seq=1,
               source="clock", ref=f"timeout:{timeout.id}")
        crash(store, remind.id, T0)
        crash(store, timeout.id, T0)
        assert clock.tick(store) == 2
        assert len(mails(store, "remind:")) == 1
        assert len(timeout_moves(store)) == 1
        assert len(mails(store, f"timeout:{timeout.id}:")) == 4, "the players were not told"
        assert deadlines.record(store, player_id(store, "bob@example.org"))["timeouts"] == 1


# -- (9) two clocks at once ------------------------------------------------------------------


TWO = {"move_hours": 2, "remind_hours": [1]}


def many_games(store, n) -> list[int]:
    return [new_game(store, TWO) for _ in range(n)]


def check_each_fired_once(store, games, handled) -> None:
    due = [r for r in rows(store) if r.seq == 1]
    assert len(due) == 2 * len(games)
    assert sum(handled) == len(due), f"the clocks handled {handled} of {len(due)} rows"
    assert all(r.state == "done" for r in due)
    refs = [m.ref for m in timeout_moves(store)]
    assert sorted(refs) == sorted(f"timeout:{r.id}" for r in due if r.kind == "timeout")
    assert {r.result for r in due if r.kind == "timeout"} == {"timeout: robot"}
    keys = [m.dedupe_key for m in mails(store, "remind:")]
    # a reminder one clock still holds while another fires the game's timeout is moot
    reminded = [r for r in due if r.kind == "reminder" and r.result == "reminded"]
    assert all(r.result in ("reminded", "moved on", "overtaken")
               for r in due if r.kind == "reminder")
    assert sorted(keys) == sorted(f"remind:{r.id}" for r in reminded)
    for gid in games:  # one robot move each, then the game goes on
        assert [m.seq for m in timeout_moves(store, gid)] == [2]


def test_clocks_in_threads_fire_each_deadline_once(db_url, store):
    with time_machine.travel(T0, tick=False) as t:
        games = many_games(store, 12)
        now = T0 + 3 * H
        t.move_to(now)  # the robot moves arm their deadlines from now: none due yet
        gate = threading.Barrier(4)
        handled, errors = [0] * 4, []

        def run(i):
            mine = Store(db_url)
            gate.wait(timeout=60)
            try:
                handled[i] = clock.tick(mine, now=now)
            except Exception as e:  # the test names it
                errors.append(e)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=120)
        assert not errors, errors
        check_each_fired_once(store, games, handled)


def clock_process(db_url, now, gate, results):
    try:
        store = Store(db_url)
        gate.wait(timeout=60)
        results.put(clock.tick(store, now=now))
    except Exception as e:  # the test names it, rather than waiting for a result
        results.put(repr(e))
        raise


def test_clocks_in_two_processes_fire_each_deadline_once(db_url, store):
    """The issue asks it of PostgreSQL; it holds on SQLite too (BEGIN IMMEDIATE)."""
    with time_machine.travel(T0, tick=False):
        games = many_games(store, 16)
    ctx = multiprocessing.get_context("spawn")
    gate, results = ctx.Barrier(2), ctx.Queue()
    # the children's own clock is real: the robot moves arm later deadlines, none due at T0
    procs = [ctx.Process(target=clock_process, args=(db_url, T0 + 3 * H, gate, results))
             for _ in range(2)]
    for p in procs:
        p.start()
    handled = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    assert all(isinstance(h, int) for h in handled), handled
    check_each_fired_once(store, games, handled)


# -- (10) a game that moved on ---------------------------------------------------------------


def test_a_timeout_for_a_game_that_moved_on_does_nothing(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(FAST, remind_hours=[]))
        [old] = rows(store, gid)
        t.shift(5 * H)
        move(store, gid)  # bob in time
        assert rows(store, id=old.id)[0].state == "cancelled"
        t.shift(2 * H)
        assert clock.tick(store) == 0
        # a clock that read the row before the move and fires it now: nothing happens
        with store.engine.begin() as c:
            c.execute(update(Deadline).where(Deadline.id == old.id).values(state="pending"))
        seq = state(store, gid).seq
        assert clock.tick(store) == 1
        assert rows(store, id=old.id)[0].result == "moved on"
        assert timeout_moves(store) == [] and mails(store, "timeout:") == []
        assert state(store, gid).seq == seq
        with pytest.raises(Stale):  # and play itself refuses the old seq
            submit(store, gid, 1, {"type": "bid", "bid": 3}, expect_seq=1, source="clock",
                   ref=f"timeout:{old.id}")



def test_a_player_who_moves_after_the_ticks_read_keeps_the_move(store):
    """A tick reads all its due timeouts first; a move made between that read and the
    timeout's write stands, and the timeout writes nothing (no move, no mail)."""
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(FAST, remind_hours=[]))
        t.shift(6 * H)
        [row] = rows(store, gid, state="pending")
        read = clock._timeouts_read(store, [row])
        assert read[row.id].st.seq == 1
        move(store, gid)  # bob, just before the clock's write
        seq = state(store, gid).seq
        assert clock._timeout_at_once(store, row, clock.utcnow(), read) == 0
        assert rows(store, id=row.id)[0].state == "cancelled"
        assert timeout_moves(store) == [] and mails(store, "timeout:") == []
        assert state(store, gid).seq == seq and len(pending(store, gid)) == 1


# -- (11) the scheduler ----------------------------------------------------------------------


def test_the_scheduler_runs_tick_and_never_skips_a_missed_run(store):
    sched = clock.scheduler(store, every=17)
    from apscheduler.schedulers.background import BackgroundScheduler

    assert isinstance(sched, BackgroundScheduler) and not sched.running
    jobs = sched.get_jobs()
    assert [job.func for job in jobs] == [clock.tick, clock.league_tick, clock.seek_tick,
                                          clock.review_tick]
    for job in jobs:
        assert tuple(job.args) == (store,)
        assert job.misfire_grace_time is None and job.coalesce is True
        assert job.max_instances == 1
        assert job.trigger.interval == timedelta(seconds=17)
