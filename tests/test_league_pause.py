"""Pausing a league (issue 16): under faked time, no deadline fires and no round opens while
it is paused; on resume every deadline has the time it had left, a bank clock its bank;
the players are mailed both times. Refused, nothing changed: not the organiser, nothing
running, a season paused twice or resumed unpaused."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from sqlmodel import select

from pbem import clock
from pbem.league.manage import OPERATOR, LeagueError
from pbem.league.pause import pause, resume
from pbem.organise.care import more_hours
from pbem.organise.seasons import start_season
from pbem.store.models import Deadline, Outbox, Player, SeatClock
from tests.league_helpers import fixtures, league, play_out, snapshot, state

T0 = datetime(2026, 12, 1, 12, tzinfo=UTC)
BANK = {"clock": "bank", "bank_hours": 48, "increment_hours": 0, "cap_hours": 96,
        "on_timeout": "robot"}


def _due(store, gid, states=("pending",)):
    with store.session() as s:
        return {(d.seat, d.kind, d.hours_before): d.due.replace(tzinfo=UTC)
                for d in s.exec(select(Deadline).where(Deadline.game_id == gid,
                                                       Deadline.state.in_(states))).all()}


def _mails(store, kind):
    with store.session() as s:
        return s.exec(select(Outbox).where(Outbox.dedupe_key.like(f"{kind}:%"))).all()


@pytest.mark.parametrize("tc", [{"move_hours": 24, "on_timeout": "robot"}, BANK])
def test_a_pause_stops_the_deadlines_and_resume_gives_the_time_left(store, tc):
    with time_machine.travel(T0, tick=False):
        lid = league(store, players=8, time_control=tc)
        start_season(store, lid, OPERATOR)
    gid = fixtures(store, lid)[0].game_id
    before = _due(store, gid)
    timeout = next(v for k, v in before.items() if k[1] == "timeout")
    with time_machine.travel(T0 + timedelta(hours=5), tick=False):
        assert pause(store, lid, OPERATOR) == [1]
    assert _due(store, gid) == {} and _due(store, gid, ("paused",)) == before
    paused = _mails(store, "paused")
    assert len(paused) == 8 and "is paused from 2026-12-01 17:00 UTC" in paused[0].body_text
    with time_machine.travel(timeout + timedelta(days=3), tick=False):
        assert clock.tick(store) == 0  # long past due: nothing fires while paused
        seq = state(store, gid).seq
    resumed_at = timeout + timedelta(days=3, hours=1)
    with time_machine.travel(resumed_at, tick=False):
        assert resume(store, lid, OPERATOR) == [1]
    after = _due(store, gid)
    stood = resumed_at - (T0 + timedelta(hours=5))
    assert after == {k: v + stood for k, v in before.items()}
    assert state(store, gid).seq == seq
    told = _mails(store, "resumed")
    assert len(told) == 8 and "paused since 2026-12-01 17:00 UTC" in told[0].body_text
    if tc is BANK:
        with store.session() as s:
            banks = {c.seat: c.bank_seconds for c in s.exec(select(SeatClock).where(
                SeatClock.game_id == gid, SeatClock.since.is_not(None))).all()}
        assert set(banks.values()) == {(48 - 5) * 3600}  # the 5 hours before the pause


def test_no_round_opens_while_paused_and_moves_wait_with_their_full_time(store):
    with time_machine.travel(T0, tick=False):
        lid = league(store, players=4, time_control={"move_hours": 24})
        start_season(store, lid, OPERATOR)
        gid = fixtures(store, lid)[0].game_id
        pause(store, lid, OPERATOR)
        with pytest.raises(AssertionError, match="did not end"):
            play_out(store, gid, limit=3)  # moves during the pause arm paused deadlines
    assert _due(store, gid) == {}
    assert all(due == T0 + timedelta(hours=24) for (_, kind, _), due in
               _due(store, gid, ("paused",)).items() if kind == "timeout")
    with time_machine.travel(T0 + timedelta(hours=2), tick=False):
        play_out(store, gid)
    assert [f.round for f in fixtures(store, lid)] == [1]  # round 2 waits for the resume
    with time_machine.travel(T0 + timedelta(hours=3), tick=False):
        resume(store, lid, OPERATOR)
        from pbem.organise.seasons import tick
        tick(store)
    assert {f.round for f in fixtures(store, lid)} == {1, 2}


def test_pause_refusals_change_nothing(store):
    lid = league(store, players=4)
    with store.session() as s:
        player = s.exec(select(Player.id).where(Player.email == "p0@league.test")).one()
    before = snapshot(store)
    for call in (lambda: pause(store, lid, OPERATOR),  # not started: nothing runs
                 lambda: resume(store, lid, OPERATOR)):
        with pytest.raises(LeagueError, match="has no running season"):
            call()
    start_season(store, lid, OPERATOR)
    before = snapshot(store)
    for call, why in [(lambda: pause(store, lid, player), "only the organiser"),
                      (lambda: pause(store, lid, OPERATOR, 7), "has no season 7"),
                      (lambda: resume(store, lid, OPERATOR), "no running season paused"),
                      (lambda: pause(store, 999, OPERATOR), "there is no league")]:
        with pytest.raises(LeagueError, match=why):
            call()
    assert snapshot(store) == before
    pause(store, lid, OPERATOR, 1)
    before = snapshot(store)
    with pytest.raises(LeagueError, match="is paused"):
        more_hours(store, lid, OPERATOR, fixtures(store, lid)[0].game_id, 5)
    with pytest.raises(LeagueError, match="no running season to pause"):
        pause(store, lid, OPERATOR)
    with pytest.raises(LeagueError, match="only the organiser"):
        resume(store, lid, player)
    assert snapshot(store) == before
    resume(store, lid, OPERATOR)
    for _ in range(2):
        pause(store, lid, OPERATOR)
        resume(store, lid, OPERATOR)
    before = snapshot(store)
    with pytest.raises(LeagueError, match="paused 3 times in the last day"):
        pause(store, lid, OPERATOR)
    assert snapshot(store) == before
