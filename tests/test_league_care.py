"""The organiser's care of tables and players (issue 16): more hours, one robot move, a
reminder, a message to every player; by the services, the command line and mail. Each is
refused, with nothing written, for someone not the organiser, a bad number, or a game not
of the league."""

import email
import email.policy
from datetime import timedelta

import pytest
from sqlmodel import select

from pbem.league.manage import OPERATOR, LeagueError, LeagueSpec, create_league
from pbem.organise import care
from pbem.organise.seasons import start_season
from pbem.store.models import Deadline, Move, Outbox, Player
from pbem.store.outbox import wire
from tests.league_helpers import ONE_HAND, TODAY, fixtures, league, play_out, snapshot, state


@pytest.fixture
def running(store):
    """A Swiss league of eight, round one dealt: (league id, a game still playing)."""
    lid = league(store, players=8)
    start_season(store, lid, OPERATOR)
    return lid, fixtures(store, lid)[0].game_id


def _player_id(store, email):
    with store.session() as s:
        return s.exec(select(Player.id).where(Player.email == email)).one()


def _timeouts(store, gid):
    with store.session() as s:
        return {(d.seat, d.seq): d.due for d in s.exec(select(Deadline).where(
            Deadline.game_id == gid, Deadline.kind == "timeout",
            Deadline.state == "pending")).all()}


def test_more_hours_moves_the_tables_deadline(store, running):
    lid, gid = running
    before = _timeouts(store, gid)
    assert before
    seats = care.more_hours(store, lid, OPERATOR, gid, 30)
    after = _timeouts(store, gid)
    assert seats == state(store, gid).to_act()
    assert {k: v - before[k] for k, v in after.items()} == \
        dict.fromkeys(before, timedelta(hours=30))


def test_more_hours_gives_a_fired_wait_timeout_a_deadline_again(store, running):
    lid, gid = running
    with store.session() as s:  # as the clock leaves it when a `wait` timeout fires
        for d in s.exec(select(Deadline).where(Deadline.game_id == gid)).all():
            d.state = "done"
            s.add(d)
        s.commit()
    assert _timeouts(store, gid) == {}
    care.more_hours(store, lid, OPERATOR, gid, 12)
    st = state(store, gid)
    assert {seat for seat, _ in _timeouts(store, gid)} == set(st.to_act())


def test_the_robot_makes_one_move_through_the_door(store, running):
    lid, gid = running
    st = state(store, gid)
    seat = st.to_act()[0]
    result = care.robot_move(store, lid, OPERATOR, gid)
    with store.session() as s:
        made = s.exec(select(Move).where(Move.game_id == gid, Move.seq == st.seq + 1)).one()
    assert made.actor == seat and made.source == "organiser"
    assert result.state.seq > st.seq


def test_a_reminder_goes_to_the_players_to_act_once_a_move(store, running):
    lid, gid = running
    st = state(store, gid)
    assert care.remind(store, lid, OPERATOR, gid) == len(st.to_act())
    with store.session() as s:
        rows = s.exec(select(Outbox).where(Outbox.dedupe_key.like(f"remind:{gid}:%"))).all()
    assert len(rows) == len(st.to_act()) and all("/t/" in r.body_text for r in rows)
    before = snapshot(store)
    with pytest.raises(LeagueError, match="reminded of this move already"):
        care.remind(store, lid, OPERATOR, gid)
    assert snapshot(store) == before


def test_a_message_reaches_every_player_with_unsubscribe_headers_at_most_3_a_day(store,
                                                                                 running):
    lid, _ = running
    with store.session() as s:  # one player asked for no mail: the message skips them
        p = s.exec(select(Player).where(Player.email == "p3@league.test")).one()
        p.prefs = {"mail": "off"}
        s.add(p)
        s.commit()
    assert care.message(store, lid, OPERATOR, "Holiday", "No deadlines over Christmas.") == 7
    with store.session() as s:
        rows = s.exec(select(Outbox).where(Outbox.dedupe_key.like(f"message:{lid}:%"))).all()
    assert sorted(r.to_addr for r in rows) == sorted(
        [f"p{i}@league.test" for i in range(8) if i != 3] + ["boss@league.test"])
    mail = email.message_from_bytes(wire(rows[0], "league.test"), policy=email.policy.default)
    assert "Christmas" in mail.get_body(("plain",)).get_content() and mail["List-Unsubscribe"]
    care.message(store, lid, OPERATOR, "Two", "again")
    care.message(store, lid, OPERATOR, "Three", "again", season_number=1)
    before = snapshot(store)
    with pytest.raises(LeagueError, match="at most 3 a day"):
        care.message(store, lid, OPERATOR, "Four", "too many")
    assert snapshot(store) == before


def _attacks(store, lid, gid):
    """(what, call) pairs that must each be refused with nothing written."""
    player = _player_id(store, "p0@league.test")
    spec = LeagueSpec("other@league.test", "Other", ONE_HAND, TODAY, TODAY)
    other = create_league(store, spec).id
    return [
        ("a player", lambda: care.more_hours(store, lid, player, gid, 5)),
        ("a player", lambda: care.robot_move(store, lid, player, gid)),
        ("a player", lambda: care.remind(store, lid, player, gid)),
        ("a player", lambda: care.message(store, lid, player, "x", "y")),
        ("no one", lambda: care.remind(store, lid, None, gid)),
        ("another league", lambda: care.more_hours(store, other, OPERATOR, gid, 5)),
        ("no such game", lambda: care.robot_move(store, lid, OPERATOR, 10**6)),
        ("0 hours", lambda: care.more_hours(store, lid, OPERATOR, gid, 0)),
        ("too many hours", lambda: care.more_hours(store, lid, OPERATOR, gid, 10**6)),
        ("hours not whole", lambda: care.more_hours(store, lid, OPERATOR, gid, "5")),
        ("a seat not to act", lambda: care.robot_move(store, lid, OPERATOR, gid, 99)),
        ("no season 9", lambda: care.message(store, lid, OPERATOR, "x", "y", 9)),
        ("an empty message", lambda: care.message(store, lid, OPERATOR, "x", "  ")),
        ("a long subject", lambda: care.message(store, lid, OPERATOR, "x" * 101, "y")),
    ]


def test_every_attack_is_refused_and_changes_nothing(store, running):
    lid, gid = running
    attacks = _attacks(store, lid, gid)
    before = snapshot(store)
    deadlines = _timeouts(store, gid)
    for what, call in attacks:
        with pytest.raises(LeagueError):
            call()
            pytest.fail(what)
    assert snapshot(store) == before and _timeouts(store, gid) == deadlines


def test_a_finished_game_has_no_table_to_care_for(store, running):
    lid, gid = running
    play_out(store, gid)
    before = snapshot(store)
    for call in (care.more_hours, care.robot_move, care.remind):
        with pytest.raises(LeagueError, match="not playing"):
            call(store, lid, OPERATOR, gid, *([5] if call is care.more_hours else []))
    assert snapshot(store) == before
