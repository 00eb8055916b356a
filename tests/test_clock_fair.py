"""The clock cannot be turned against a player (issue 12): vacation days are whole and come
from the bank, coming back early pulls the deadlines back, extra time comes only from a
player who waits, once a move for the whole table (issue 29), and the table hears of it;
reminders say the time really left and never come after their timeout; the bank fills from
a player's first game."""

from datetime import date, timedelta

import pytest
import time_machine
from sqlmodel import select

from pbem import clock, vacation
from pbem.store.models import Deadline, Outbox, Player
from tests.test_clock import FAST, HUMANS, T0, move, new_game, pending, player_id, state

H = timedelta(hours=1)


def bank_of(store, pid) -> int:
    with store.session() as s:
        return s.get(Player, pid).prefs.get("vacation_bank", vacation.BANK["start"])


def table_mails(store, gid) -> list[Outbox]:
    with store.session() as s:
        return list(s.exec(select(Outbox).where(Outbox.game_id == gid,
                                                Outbox.dedupe_key.startswith("extra:"))).all())


@pytest.mark.parametrize("days", [-30, 0, 2.5, True, "3", None])
def test_a_vacation_is_a_whole_number_of_days_from_one(store, days):
    with time_machine.travel(T0, tick=False):
        gid = new_game(store, FAST)
        bob = player_id(store, "bob@example.org")
        before = pending(store, gid)
        with pytest.raises(ValueError, match="whole number of days"):
            vacation.start_vacation(store, bob, days)
        assert pending(store, gid) == before and bank_of(store, bob) == 14


def test_coming_back_early_pulls_the_deadlines_back(store):
    """Three rounds of `vacation 14` then `vacation off` on the same day leave the deadlines
    and the bank as they were (they added 42 days before)."""
    with time_machine.travel(T0, tick=False):
        gid = new_game(store, FAST)
        bob = player_id(store, "bob@example.org")
        before = pending(store, gid)
        for _ in range(3):
            vacation.start_vacation(store, bob, 14)
            assert pending(store, gid) == {k: v + timedelta(days=14) for k, v in before.items()}
            assert vacation.end_vacation(store, bob) == 14
            assert pending(store, gid) == before and bank_of(store, bob) == 14


def test_back_a_few_days_early_the_days_spent_stay_spent(store):
    with time_machine.travel(T0, tick=False):
        gid = new_game(store, FAST)
        bob = player_id(store, "bob@example.org")
        before = pending(store, gid)
        vacation.start_vacation(store, bob, 5)
        assert vacation.end_vacation(store, bob, today=T0.date() + timedelta(days=2)) == 3
        assert pending(store, gid) == {k: v + timedelta(days=2) for k, v in before.items()}
        assert bank_of(store, bob) == 14 - 2


def test_a_vacation_taken_on_vacation_extends_it(store):
    with time_machine.travel(T0, tick=False):
        gid = new_game(store, FAST)
        bob = player_id(store, "bob@example.org")
        before = pending(store, gid)
        first = vacation.start_vacation(store, bob, 3)
        assert vacation.start_vacation(store, bob, 2) == first + timedelta(days=2)
        assert pending(store, gid) == {k: v + timedelta(days=5) for k, v in before.items()}
        assert vacation.end_vacation(store, bob) == 5 and pending(store, gid) == before


def test_the_bank_fills_from_the_players_first_game(store):
    with time_machine.travel(T0, tick=False):
        new_game(store, FAST)
    bob = player_id(store, "bob@example.org")
    april = date(2026, 4, 6)  # three months after bob's first game: 14 + 3 * 2
    with pytest.raises(ValueError, match="20 vacation days"):
        vacation.start_vacation(store, bob, 21, today=april)
    vacation.start_vacation(store, bob, 20, today=april)
    assert bank_of(store, bob) == 0


def test_extra_time_comes_from_a_player_who_waits_once_a_move(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, FAST)  # seat 1 (bob) is to bid
        before = pending(store, gid)
        with pytest.raises(ValueError, match="not the one to move"):
            vacation.extra_time(store, gid, 24, by=1)
        assert pending(store, gid) == before and table_mails(store, gid) == []

        assert vacation.extra_time(store, gid, 24, by=0) == len(before)
        assert pending(store, gid) == {k: v + 24 * H for k, v in before.items()}
        with pytest.raises(ValueError, match="already"):
            vacation.extra_time(store, gid, 24, by=0)
        assert pending(store, gid) == {k: v + 24 * H for k, v in before.items()}
        told = table_mails(store, gid)
        assert sorted(m.to_addr for m in told) == sorted(HUMANS)
        assert "ann gave bob 24 more hours for move 1" in told[0].body_text

        with pytest.raises(ValueError, match="given for this move already"):
            vacation.extra_time(store, gid, 24, by=2)  # once a move for the whole table
        t.shift(H)
        move(store, gid)  # bob bids: the next move, and ann may give time again
        assert state(store, gid).to_act() == [2]
        vacation.extra_time(store, gid, 24, by=0)
        with pytest.raises(ValueError, match="not the one to move"):
            vacation.extra_time(store, gid, 24, by=2)


def test_the_extra_time_record_never_fires_and_survives_a_rebuild(store):
    from pbem import deadlines

    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, FAST)
        vacation.extra_time(store, gid, 24, by=0)
        t.shift(3 * 24 * H)
        clock.tick(store)
        with store.session() as s:
            [extra] = s.exec(select(Deadline).where(Deadline.kind == "extra")).all()
        assert extra.state == "done" and extra.seat == 0 and extra.seq == 1
        assert deadlines.rebuild(store) == 0  # armed at its move: the record is no arming


def test_a_reminder_says_the_time_really_left(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, FAST)  # timeout at 6 h, reminders at 4 h and 5 h
        t.shift(4 * H + 40 * timedelta(minutes=1))  # the clock ticks 40 minutes late
        assert clock.tick(store) == 1
        with store.session() as s:
            [m] = s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("remind:"))).all()
        assert m.body_text.startswith(f"Game {gid}: your move is due in 1 hour\n")


def test_a_clock_that_was_down_sends_no_reminder_after_the_timeout(store):
    with time_machine.travel(T0, tick=False) as t:
        gid = new_game(store, FAST)
        t.shift(24 * H)  # down all day: both reminders and the timeout are due
        assert clock.tick(store) == 3
        with store.session() as s:
            assert s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("remind:"))
                          ).all() == []
            results = sorted(r.result for r in s.exec(select(Deadline).where(
                Deadline.game_id == gid, Deadline.seq == 1)).all())
        assert results == ["overtaken", "overtaken", "timeout: robot"]


def test_reminders_left_due_now_are_no_reminders_in_the_record(store):
    from pbem import deadlines

    with time_machine.travel(T0, tick=False) as t:
        new_game(store, FAST)
        t.shift(24 * H)
        clock.tick(store)
    bob = deadlines.record(store, player_id(store, "bob@example.org"))
    assert bob["reminders"] == 0 and bob["timeouts"] == 1


# -- the same attacks through the player's page ------------------------------------------------


def test_the_page_refuses_a_negative_vacation_and_self_given_time(store, client):
    from tests.web_helpers import csrf, tokens

    with time_machine.travel(T0, tick=False):
        gid = new_game(store, FAST)
        toks, bob = tokens(store, gid), player_id(store, "bob@example.org")
        before = pending(store, gid)
        token = csrf(client)
        for days in ("-30", "0", "2.5", "1e3", ""):
            r = client.post(f"/t/{toks[1]}/vacation", data={"csrf": token, "days": days},
                            follow_redirects=True)
            assert r.history and "No vacation" in r.text, days
        r = client.post(f"/t/{toks[1]}/extra", data={"csrf": token, "hours": "24"},
                        follow_redirects=True)
        assert r.history and "not the one to move" in r.text
        assert pending(store, gid) == before and bank_of(store, bob) == 14
        assert client.post(f"/t/{toks[3]}/extra", data={"csrf": token, "hours": "24"}
                           ).status_code == 303
        r = client.post(f"/t/{toks[3]}/extra", data={"csrf": token, "hours": "24"},
                        follow_redirects=True)
        assert r.history and "already" in r.text
        assert pending(store, gid) == {k: v + 24 * H for k, v in before.items()}
