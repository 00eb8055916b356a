"""Clocks for correspondence (issue 14): rest days in the player's own zone (across DST), a
bank clock (spend, increment, cap; the same due times after a restart and a rebuild), and
automatic vacation (on, and forbidden in a league). Time is faked: time_machine for what
stamps `now` itself, `now=` where the code takes it."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from sqlalchemy import delete
from sqlmodel import select

from pbem import clock, deadlines, owntime, vacation
from pbem.league.manage import LeagueError, _time_control
from pbem.store import prefs
from pbem.store.models import Deadline, Game, Move, Outbox, SeatClock
from tests.test_clock import FAST, T0, move, new_game, pending, player_id, state
from tests.web_helpers import confirmed, csrf, tokens

H = timedelta(hours=1)
AUCKLAND, LA = ZoneInfo("Pacific/Auckland"), ZoneInfo("America/Los_Angeles")
BANK = {"clock": "bank", "bank_hours": 10, "increment_hours": 3, "cap_hours": 12,
        "remind_hours": [2]}


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def banks(store, gid) -> dict[int, tuple[int, datetime | None]]:
    """Each seat's bank in hours (rounded) and when its wait began."""
    with store.session() as s:
        rows = s.exec(select(SeatClock).where(SeatClock.game_id == gid)).all()
    return {r.seat: (round(r.bank_seconds / 3600, 2), r.since) for r in rows}


def timeout_of(store, gid, seat) -> datetime:
    return next(d for (s, _q, kind, _h), d in pending(store, gid).items()
                if s == seat and kind == "timeout")


# -- (1) own time: rest days in the player's zone ----------------------------------------------


def test_rest_days_count_in_the_players_zone_far_from_utc():
    """Friday 13:00 in Auckland (00:00 UTC): 24 hours with the weekend at rest run 11 hours
    to local midnight, stand still Saturday and Sunday there, and end Monday 13:00 local."""
    start = utc(2026, 1, 9)
    cal = owntime.Calendar(AUCKLAND, frozenset({5, 6}))
    assert cal.add(start, 24) == datetime(2026, 1, 12, 13, tzinfo=AUCKLAND) == utc(2026, 1, 12)
    assert owntime.Calendar(AUCKLAND).add(start, 24) == utc(2026, 1, 10)  # no rest days
    # the same days at rest in UTC: all of Friday counts there, so it ends on Saturday
    assert owntime.Calendar(ZoneInfo("UTC"), frozenset({5, 6})).add(start, 24) == utc(2026, 1, 10)
    assert cal.spent(start, utc(2026, 1, 12)) == 24 * H


def test_a_week_across_the_spring_dst_change_in_los_angeles():
    """Rest on Sundays; 8 March 2026 is a Sunday of 23 hours (clocks go forward): six days
    of 24 hours count, the short Sunday stands still, Monday's 24 hours end at local
    midnight, which is now 07:00 UTC, not 08:00."""
    cal = owntime.Calendar(LA, frozenset({6}))
    start = datetime(2026, 3, 2, tzinfo=LA)  # Monday 00:00 PST = 08:00 UTC
    due = cal.add(start, 168)
    assert due == datetime(2026, 3, 10, tzinfo=LA) == utc(2026, 3, 10, 7)
    assert cal.spent(start, due) == 168 * H
    # the reminder two own hours before: Monday 22:00 local, not on the Sunday
    assert cal.add(start, 166) == datetime(2026, 3, 9, 22, tzinfo=LA)
    # and autumn, when Sunday has 25 hours: Saturday noon + 24 h = Monday noon local
    fall = owntime.Calendar(LA, frozenset({6}))
    assert fall.add(datetime(2026, 10, 31, 12, tzinfo=LA), 24) == datetime(2026, 11, 2, 12,
                                                                              tzinfo=LA)


@pytest.mark.parametrize("zone", ["Pacific/Auckland", "America/Los_Angeles", "Asia/Kolkata",
                                  "UTC", "America/Santiago"])
def test_own_time_spent_is_what_was_added(zone):
    cal = owntime.Calendar(ZoneInfo(zone), frozenset({0, 4, 6}), weekend_pause=True)
    for day in range(0, 370, 17):  # starts through a year, both DST changes
        start = utc(2026, 1, 1, 5) + timedelta(days=day, minutes=day * 7)
        for hours in (1, 13.5, 72, 300):
            due = cal.add(start, hours)
            assert due > start and cal.spent(start, due) == timedelta(hours=hours), \
                (zone, start, hours)
            assert not cal.stands_still(due - timedelta(seconds=1))


def test_every_loop_is_bounded():
    """Three rest days and the weekend pause still leave time running; a calendar with no
    running time at all (never made from settings) fails instead of spinning."""
    cal = owntime.Calendar(AUCKLAND, frozenset({2, 3, 4}), weekend_pause=True)
    assert cal.spent(T0, cal.add(T0, 24 * 60)) == 24 * 60 * H
    with pytest.raises(RuntimeError):
        owntime.Calendar(LA, frozenset(range(7))).add(T0, 5)

    class Stored:  # settings written by hand, beyond what `rest` accepts
        prefs = {"rest": [0, 1, 2, 3, 4, 5, 6, 9, "x"], "zone": "Nowhere/Else"}

    cal = owntime.calendar(Stored())
    assert cal.rest == frozenset({0, 1, 2}) and cal.zone == ZoneInfo("UTC")


def test_a_seats_deadline_and_reminders_skip_its_players_rest_days(store):
    """Bob (to bid first) rests on weekends in Auckland: his 24 hours from Friday 13:00
    local end on Monday 13:00 local; the reminder is two of his own hours before. Cy, in
    UTC with no rest days, keeps the plain deadline."""
    with time_machine.travel(utc(2026, 1, 9), tick=False) as t:
        bob = player_id_after(store)
        prefs.update(store, bob, zone="Pacific/Auckland", rest=[5, 6])
        gid = new_game(store, {"move_hours": 24, "remind_hours": [2]})
        assert pending(store, gid) == {(1, 1, "timeout", 0): utc(2026, 1, 12),
                                       (1, 1, "reminder", 2): utc(2026, 1, 11, 22)}
        turn = mail_to(store, "bob@example.org", "turn:")
        assert "Mon 12 Jan 2026, 00:00 UTC (Mon 13:00 Pacific/Auckland)" in turn.body_text
        t.shift(2 * H)
        move(store, gid)  # bob bids; cy's deadline is plain
        assert timeout_of(store, gid, 2) == utc(2026, 1, 10, 2)


def player_id_after(store) -> int:
    """Bob's account, made before his game (the setting must exist when it is armed)."""
    from pbem.store.games import player_for

    with store.session() as s:
        pid = player_for(s, "bob@example.org").id
        s.commit()
    return pid


def mails(store, prefix) -> list[Outbox]:
    with store.session() as s:
        return list(s.exec(select(Outbox).where(Outbox.dedupe_key.startswith(prefix))
                           .order_by(Outbox.id)).all())


def mail_to(store, who, prefix) -> Outbox:
    return [m for m in mails(store, prefix) if m.to_addr == who][-1]


def test_a_reminder_for_a_resting_player_says_the_real_time_left(store):
    with time_machine.travel(utc(2026, 1, 9), tick=False) as t:
        bob = player_id_after(store)
        prefs.update(store, bob, zone="Pacific/Auckland", rest=[5, 6])
        gid = new_game(store, {"move_hours": 24, "remind_hours": [2]})
        t.move_to(utc(2026, 1, 11, 22))
        clock.tick(store)
        [m] = mails(store, "remind:")
        assert m.to_addr == "bob@example.org"
        assert m.body_text.startswith(f"Game {gid}: your move is due in 2 hours\n")
        assert "due by Mon 12 Jan 00:00 UTC" in m.body_text


# -- (2) the bank clock ------------------------------------------------------------------------


def test_the_bank_spends_waiting_time_adds_the_increment_and_stops_at_the_cap(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, BANK)
        assert pending(store, gid) == {(1, 1, "timeout", 0): T0 + 10 * H,
                                       (1, 1, "reminder", 2): T0 + 8 * H}
        t.shift(4 * H)
        move(store, gid)  # bob bids after 4 hours: 10 - 4 + 3
        assert banks(store, gid)[1] == (9, None)
        assert timeout_of(store, gid, 2) == T0 + 14 * H  # cy starts with the full 10
        for _ in range(3):  # cy, di and ann bid at once: 10 + 3, capped at 12
            move(store, gid)
        assert {s: b for s, (b, _) in banks(store, gid).items()} == {0: 12, 1: 9, 2: 12, 3: 12}
        st = state(store, gid)
        assert st.phase == "play" and st.to_act() == [1]
        assert timeout_of(store, gid, 1) == T0 + 4 * H + 9 * H  # bob leads: his 9 hours
        turn = mail_to(store, "bob@example.org", "turn:")
        assert "You have 9 h in your bank." in turn.body_text
        t.shift(H)
        move(store, gid)
        assert banks(store, gid)[1][0] == 11


def test_talk_and_an_undo_earn_no_increment(store):
    from pbem.play import submit

    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, BANK)
        t.shift(H)
        move(store, gid)  # bob bids after an hour: 10 - 1 + 3
        assert banks(store, gid)[1] == (12, None)
        t.shift(H)
        submit(store, gid, 1, {"type": "say", "text": "good luck"}, source="mail")
        submit(store, gid, 2, {"type": "say", "text": "thanks"}, source="mail")
        assert banks(store, gid)[1][0] == 12 and banks(store, gid)[2][0] == 10  # unpaid yet
        seq = state(store, gid).move_seq
        submit(store, gid, 1, {"type": "undo", "seq": seq}, source="mail")
        # taking the bid back earns nothing and takes its increment back: bob waits again
        # to the deadline he had, T0 + 10 h (tests/test_undo_fair.py); cy paid nothing
        assert banks(store, gid)[1] == (8, T0 + 2 * H) and banks(store, gid)[2] == (10, None)


def test_the_bank_runs_out_the_robot_moves_and_the_increment_follows(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(BANK, auto_vacation=False))
        t.shift(8 * H)
        assert clock.tick(store) == 1  # the reminder, two hours before the bank is empty
        assert "due in 2 hours" in mails(store, "remind:")[0].body_text
        t.shift(2 * H)
        assert clock.tick(store) == 1
        with store.session() as s:
            [m] = s.exec(select(Move).where(Move.ref.startswith("timeout:"))).all()
        assert m.actor == 1 and m.source == "clock"
        assert banks(store, gid)[1] == (3, None)  # empty, then this move's increment


def test_a_players_rest_days_and_vacation_cost_no_bank(store):
    """Bob rests on Saturdays in Los Angeles and takes a day's vacation: neither is taken
    from his bank (where they overlap, the time stands still once), and a rebuild finds the
    deadline the vacation set."""
    start = datetime(2026, 1, 9, 20, tzinfo=LA)  # Friday 20:00 local (Sat 04:00 UTC)
    with time_machine.travel(start, tick=False) as t:
        bob = player_id_after(store)
        prefs.update(store, bob, zone="America/Los_Angeles", rest=[5])
        gid = new_game(store, BANK)
        # 4 hours to local midnight, Saturday stands still, 6 more on Sunday
        assert timeout_of(store, gid, 1) == datetime(2026, 1, 11, 6, tzinfo=LA)
        vacation.start_vacation(store, bob, 1)  # to Saturday 20:00, a rest day anyway
        assert timeout_of(store, gid, 1) == datetime(2026, 1, 11, 10, tzinfo=LA)
        before = pending(store, gid)
        with store.session() as s:
            s.exec(delete(Deadline).where(Deadline.game_id == gid))
            s.commit()
        deadlines.rebuild(store)
        assert pending(store, gid) == before
        t.move_to(datetime(2026, 1, 11, 5, tzinfo=LA))
        move(store, gid)
        assert banks(store, gid)[1][0] == 10 - 5 + 3  # only Sunday's 5 hours were spent


def test_auto_plays_cost_nothing_and_earn_nothing(store):
    """A card that plays itself (the seat's only legal card) is the server's move, not the
    player's: it neither spends the wait nor adds the increment."""
    from pbem import seatclock

    row = SeatClock(game_id=1, seat=0, bank_seconds=5 * 3600, since=T0)
    tc = deadlines.check(BANK)
    seatclock._settle(row, tc, None, T0 + 3 * H, acting=False, moved=False, free=True, seq=9)
    assert (row.bank_seconds, row.since) == (5 * 3600, None)
    row.since = T0
    seatclock._settle(row, tc, None, T0 + 3 * H, acting=True, moved=True, free=False, seq=9)
    assert (row.bank_seconds, row.since, row.seq) == ((5 - 3 + 3) * 3600, T0 + 3 * H, 9)


def test_a_restart_and_a_rebuild_find_the_same_due_times(store):
    """The banks are in the database (seat_clock, written with each move): wiping every
    deadline row (a restore) and rebuilding hours later arms the same due times."""
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, BANK)
        t.shift(3 * H)
        move(store, gid)
        t.shift(2 * H)
        before = pending(store, gid)
        assert before
        with store.session() as s:
            s.exec(delete(Deadline).where(Deadline.game_id == gid))
            s.commit()
        store.forget(gid)
        t.shift(5 * H)  # the server was down five hours
        assert deadlines.rebuild(store) == 1
        assert pending(store, gid) == before
        assert deadlines.rebuild(store, now=T0 + 40 * H) == 0  # armed: nothing to redo


def test_extra_time_goes_into_the_waiting_seats_bank(store):
    """Bob rests on Saturdays in Auckland: 24 more hours go into his bank, so the deadline
    moves by 24 of his own hours (past his Saturday), and a rebuild agrees."""
    friday = datetime(2026, 1, 9, 10, tzinfo=AUCKLAND)
    with time_machine.travel(friday, tick=False):
        bob = player_id_after(store)
        prefs.update(store, bob, zone="Pacific/Auckland", rest=[5])
        gid = new_game(store, BANK)
        assert timeout_of(store, gid, 1) == datetime(2026, 1, 9, 20, tzinfo=AUCKLAND)
        vacation.extra_time(store, gid, 24, by=2)
        assert timeout_of(store, gid, 1) == datetime(2026, 1, 11, 20, tzinfo=AUCKLAND)
        assert banks(store, gid)[1] == (34, friday)
        before = pending(store, gid)
        with store.session() as s:
            s.exec(delete(Deadline).where(Deadline.game_id == gid))
            s.commit()
        deadlines.rebuild(store)
        assert pending(store, gid) == before


def test_care_gives_a_waiting_bank_seat_its_hours_as_the_bank(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(BANK, on_timeout="wait", remind_hours=[]))
        t.shift(10 * H)
        assert clock.tick(store) == 1  # the game waits for bob
        with store.session() as s:
            row = deadlines.rearm(s, s.get(Game, gid), 1, 1, 24, T0 + 11 * H)
            s.commit()
        assert row.due == T0 + 35 * H and banks(store, gid)[1] == (24, T0 + 11 * H)


def test_the_table_page_shows_the_seats_own_bank(store, client):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(BANK, bank_hours=52, cap_hours=100))
        t.shift(H)
        page = client.get(f"/t/{tokens(store, gid)[1]}").text
    assert "2 days 3 h in your bank." in page


# -- (3) automatic vacation --------------------------------------------------------------------


def test_automatic_vacation_spends_a_day_instead_of_the_timeout_until_the_bank_is_empty(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, dict(FAST, auto_vacation=True, remind_hours=[]))
        bob = player_id(store, "bob@example.org")
        prefs.update(store, bob, vacation_bank=2, bank_month=T0.strftime("%Y-%m"))
        t.shift(6 * H)
        assert clock.tick(store) == 1 and clock.tick(store) == 0
        assert not mails(store, "timeout:") and state(store, gid).seq == 1  # no robot move
        [m] = mails(store, "vacation:")
        assert m.to_addr == "bob@example.org" and "a day of your vacation" in m.body_text
        assert timeout_of(store, gid, 1) == T0 + 30 * H
        assert vacation.bank(prefs_of(store, bob), T0.date())[0] == 1
        t.shift(24 * H)
        assert clock.tick(store) == 1 and len(mails(store, "vacation:")) == 2
        t.shift(24 * H)
        clock.tick(store)  # the bank is empty: now the robot moves
        assert len(mails(store, "vacation:")) == 2 and mails(store, "timeout:")
        assert state(store, gid).seq > 1


def prefs_of(store, pid) -> dict:
    from pbem.store.models import Player

    with store.session() as s:
        return dict(s.get(Player, pid).prefs)


def test_automatic_vacation_happens_once_however_often_it_is_tried(store):
    with time_machine.travel(T0, tick=False):
        gid = new_game(store, dict(FAST, auto_vacation=True))
        bob = player_id(store, "bob@example.org")
        row = [r for r in rows_of(store, gid) if r.kind == "timeout"][0]
        now = T0 + 6 * H
        assert vacation.auto_day(store, row, now) == vacation.auto_day(store, row, now)
        assert vacation.bank(prefs_of(store, bob), T0.date())[0] == 13
        assert len(mails(store, "vacation:")) == 1


def rows_of(store, gid) -> list[Deadline]:
    with store.session() as s:
        return list(s.exec(select(Deadline).where(Deadline.game_id == gid)).all())


def test_a_league_forbids_automatic_vacation_unless_its_organiser_allows_it(store):
    assert _time_control(None)["auto_vacation"] is False
    assert _time_control({"auto_vacation": True})["auto_vacation"] is True
    with time_machine.travel(T0, tick=False) as t:
        new_game(store, dict(_time_control(dict(FAST)), remind_hours=[]))
        t.shift(6 * H)
        assert clock.tick(store) == 1
        assert not mails(store, "vacation:") and mails(store, "timeout:")


# -- (4) bad time controls ---------------------------------------------------------------------


@pytest.mark.parametrize("change, words", [
    ({"clock": "sandglass"}, "move (a fixed time a move) or bank"),
    ({"bank_hours": 0}, "the starting bank is a whole number of hours from 1"),
    ({"bank_hours": "72"}, "the starting bank"),
    ({"increment_hours": -1}, "the increment a move"),
    ({"cap_hours": 24 * 61}, "the cap of the bank"),
    ({"cap_hours": 10, "bank_hours": 20}, "below the starting bank"),
    ({"move_hours": 10 ** 9}, "the time for a move"),
    ({"remind_hours": [0]}, "reminders"),
    ({"remind_hours": list(range(1, 50))}, "reminders"),
    ({"auto_vacation": "yes"}, "auto vacation is true or false"),
])
def test_bad_time_controls_are_refused_saying_why(store, change, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        deadlines.check(dict(BANK, **change))
    with pytest.raises(LeagueError, match="a bad time control"):
        _time_control(dict(BANK, **change))


def test_the_command_line_makes_a_bank_clock_and_refuses_a_bad_one(db_url):
    from click.testing import CliRunner

    from pbem.cli import main
    from pbem.store.states import Store

    def run(*args):
        return CliRunner().invoke(main, [str(a) for a in args], env={"DATABASE_URL": db_url})

    seats = ["--seat", "ann@example.org", "--seat", "robot", "--seat", "robot", "--seat", "robot"]
    bad = run("game", "new", *seats, "--clock", "bank", "--bank-hours", 100, "--cap-hours", 50)
    assert bad.exit_code == 2 and "below the starting bank" in bad.output
    good = run("game", "new", *seats, "--clock", "bank", "--bank-hours", 48,
               "--increment-hours", 12, "--cap-hours", 96, "--no-auto-vacation")
    assert good.exit_code == 0, good.output
    with Store(db_url).session() as s:
        [game] = s.exec(select(Game)).all()
    assert game.time_control == {"move_hours": 72, "remind_hours": [24, 2],
                                 "weekend_pause": False, "on_timeout": "robot",
                                 "auto_vacation": False, "clock": "bank", "bank_hours": 48,
                                 "increment_hours": 12, "cap_hours": 96}


def test_the_new_game_form_offers_the_bank_and_refuses_bad_values(store, client):
    page = client.get("/new").text
    assert 'name="clock"' in page and 'name="bank_hours"' in page
    good = {"csrf": csrf(client), "you": "a@x.test", "preset": "standard", "seat0": "a@x.test",
            "seat1": "robot", "seat2": "robot", "seat3": "robot", "clock": "bank",
            "bank_hours": "72", "increment_hours": "24", "cap_hours": "168"}
    for change, words in (({"cap_hours": "24"}, "below the starting bank"),
                          ({"bank_hours": "-3"}, "whole number of hours"),
                          ({"clock": "hourglass"}, "choose the clock"),
                          ({"auto_vacation": "maybe"}, "choose the clock")):
        r = client.post("/new", data=dict(good, **change), follow_redirects=True)
        assert r.history and words in r.text, (change, r.text[-600:])
    with store.session() as s:
        assert s.exec(select(Game)).all() == [] and s.exec(select(Outbox)).all() == []
    assert confirmed(client, store, "/new", good, "a@x.test").status_code == 303
    with store.session() as s:
        [game] = s.exec(select(Game)).all()
    assert game.time_control == {"move_hours": 72, "remind_hours": [24, 2],
                                 "weekend_pause": False, "on_timeout": "robot",
                                 "auto_vacation": True, "clock": "bank", "bank_hours": 72,
                                 "increment_hours": 24, "cap_hours": 168}


def test_the_new_league_form_keeps_automatic_vacation_off_unless_asked(store, client):
    page = client.get("/l/new").text
    assert 'name="auto_vacation"' in page and '<option value="off" selected>' in page


def test_a_rebuild_in_batches_arms_each_game_as_its_own_move_did(store, monkeypatch):
    """`rebuild` replays games a batch at a time (here two a batch, across three batches):
    bank and fixed clocks, at different moves, with stale rows from an earlier move, each
    get exactly the rows their own moves armed; a game armed already is left alone."""
    monkeypatch.setattr(deadlines, "REBUILD_BATCH", 2)
    with time_machine.travel(T0, tick=False) as t:
        bank = dict(BANK, remind_hours=[])  # (a reminder due before the rebuild is not armed)
        gids = [new_game(store, bank if i % 2 else FAST) for i in range(5)]
        moved = {}  # when each game last moved
        for i, gid in enumerate(gids):
            for _ in range(i):
                t.shift(H)
                move(store, gid)
            moved[gid] = datetime.now(UTC)
        before = {gid: pending(store, gid) for gid in gids}
        assert all(before.values())
        with store.session() as s:  # a restore: the last move's rows lost, an old one back
            s.exec(delete(Deadline).where(Deadline.game_id.in_(gids[1:])))
            s.add(Deadline(game_id=gids[2], seat=1, seq=1, kind="timeout", due=T0))
            s.commit()
        for gid in gids:
            store.forget(gid)
        t.shift(5 * H)
        assert deadlines.rebuild(store) == 4
        # a bank's deadline stays where it was; a fixed time a move counts from the rebuild
        now = datetime.now(UTC)
        later = {gid: {k: due - moved[gid] + now if i % 2 == 0 and i else due
                       for k, due in before[gid].items()} for i, gid in enumerate(gids)}
        assert {gid: pending(store, gid) for gid in gids} == later
        assert deadlines.rebuild(store) == 0
