"""Leagues through their service functions: seasons that start, pair, seat, play, record
and end by themselves; the organiser's actions; and bad input that is refused with a clear
reason and changes nothing. SQLite, and PostgreSQL when it is configured."""

import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from itertools import combinations

import pytest
import time_machine
from sqlmodel import select

from pbem.engine import preset
from pbem.league import rounds
from pbem.league.manage import (
    OPERATOR,
    LeagueError,
    LeagueSpec,
    add_season,
    create_league,
    join,
    withdraw,
)
from pbem.league.pairing import round_robin
from pbem.league.reports import ratings, season_standings
from pbem.organise import seasons
from pbem.organise.seasons import substitute
from pbem.store.models import Entry, League, Outbox, Player, Season, Seat
from tests.league_helpers import (
    ONE_HAND,
    ORGANISER,
    TODAY,
    fixtures,
    league,
    play_out,
    play_season,
    playing_games,
    season,
    snapshot,
    state,
)


def organiser_id(store) -> int:
    with store.session() as s:
        return s.exec(select(Player.id).where(Player.email == ORGANISER)).one()


def player_id(store, email) -> int:
    with store.session() as s:
        return s.exec(select(Player.id).where(Player.email == email)).one()


def seat_emails(store, gid) -> list[str]:
    with store.session() as s:
        rows = s.exec(select(Seat, Player).join(Player, isouter=True)
                      .where(Seat.game_id == gid).order_by(Seat.seat)).all()
    return ["robot" if seat.robot else p.email for seat, p in rows]


def test_a_swiss_season_of_single_players_plays_itself_to_the_end(store):
    lid = league(store, players=8)
    seasons.start_season(store, lid, organiser_id(store))
    first = fixtures(store, lid)
    assert [f.round for f in first] == [1, 1] and all(f.status == "playing" for f in first)
    for f in first:  # every seat a different entrant; the game dealt and waiting for a bid
        assert len(set(f.seats)) == 4 and state(store, f.game_id).phase == "bid"
    seated = [x for f in first for x in f.seats]
    assert sorted(seated) == sorted(set(seated)) and len(seated) == 8

    played = play_season(store, lid)
    sn = season(store, lid)
    assert sn.status == "over" and sn.round == sn.rounds == 3 and played == 6
    done = fixtures(store, lid)
    assert {f.status for f in done} == {"over"} and len(done) == 6
    with store.session() as s:
        table = season_standings(s, sn)
        rated = ratings(s, s.get(League, lid))
    assert sum(r.won for r in table) == 6 * 2 and sum(r.played for r in table) == 6 * 4
    assert [r.rank for r in table][0] == 1 and len(table) == 8
    assert len(rated["players"]) == 8 and rated["pairs"] == []
    assert sum(p["rating"] for p in rated["players"]) == pytest.approx(8 * 1500, abs=0.5)
    # every entrant heard that the season is over
    with store.session() as s:
        over = s.exec(select(Outbox.to_addr).where(Outbox.subject.like("%season 1 is over"))
                      ).all()
    assert len(set(over)) == 9  # eight players and the organiser


def test_a_round_robin_of_fixed_partnerships_meets_every_pair_once(store):
    lid = league(store, players=8, entry="pair", pairing="round-robin")
    seasons.start_season(store, lid, OPERATOR)
    first = fixtures(store, lid)
    for f in first:  # partners sit opposite: seats 0 and 2, 1 and 3
        assert f.seats[0] == f.seats[2] and f.seats[1] == f.seats[3] != f.seats[0]
        emails = seat_emails(store, f.game_id)
        with store.session() as s:
            e = s.get(Entry, f.seats[0])
            mates = {s.get(Player, e.player_id).email, s.get(Player, e.partner_id).email}
        assert {emails[0], emails[2]} == mates
    play_season(store, lid)
    done = fixtures(store, lid)
    assert season(store, lid).rounds == 3 and len(done) == 3 * 2
    met = Counter(frozenset(set(f.seats)) for f in done)
    entries = {x for f in done for x in f.seats}
    assert len(entries) == 4 and set(met) == {frozenset(p) for p in combinations(entries, 2)}
    assert set(met.values()) == {1}
    with store.session() as s:
        rated = ratings(s, s.get(League, lid))
    assert len(rated["pairs"]) == 4 and len(rated["players"]) == 8


def test_an_odd_round_robin_of_partnerships_meets_every_pair_once_with_a_bye_each(store):
    lid = league(store, players=10, entry="pair", pairing="round-robin")  # five pairs
    seasons.start_season(store, lid, OPERATOR)
    play_season(store, lid)
    done = fixtures(store, lid)
    games = [f for f in done if f.status != "bye"]
    met = Counter(frozenset(set(f.seats)) for f in games)
    entries = {x for f in done for x in f.seats}
    assert season(store, lid).rounds == 5 and len(games) == 5 * 2
    assert set(met) == {frozenset(p) for p in combinations(entries, 2)}
    assert set(met.values()) == {1}
    byes = Counter(f.seats[0] for f in done if f.status == "bye")
    assert set(byes) == entries and set(byes.values()) == {1}
    assert {f.round for f in done if f.status == "bye"} == {1, 2, 3, 4, 5}


def test_an_odd_field_gets_byes_that_count_as_wins(store):
    lid = league(store, players=5, rules=ONE_HAND, pairing="swiss")  # tables of four
    seasons.start_season(store, lid, OPERATOR)
    play_season(store, lid)
    done = fixtures(store, lid)
    byes = Counter(f.seats[0] for f in done if f.status == "bye")
    assert sum(byes.values()) == season(store, lid).rounds and max(byes.values()) == 1
    with store.session() as s:
        table = {r.entry: r for r in season_standings(s, season(store, lid))}
    for entry, n in byes.items():
        assert table[entry].byes == n and table[entry].points == table[entry].won + n


def test_the_season_starts_on_its_day_and_needs_enough_entries(store):
    lid = league(store, players=3)  # a table needs four
    day = datetime.combine(TODAY + timedelta(days=7), datetime.min.time(), UTC)
    assert seasons.tick(store, day - timedelta(hours=1)) == 0
    assert season(store, lid).status == "open"
    seasons.tick(store, day)
    seasons.tick(store, day + timedelta(hours=1))  # the organiser hears once a day
    with store.session() as s:
        notes = s.exec(select(Outbox).where(Outbox.to_addr == ORGANISER,
                                            Outbox.subject.like("%could not start"))).all()
    assert len(notes) == 1 and "needs 4 entries to start; it has 3" in notes[0].body_text
    assert season(store, lid).status == "open"

    join(store, lid, "late@league.test")
    assert seasons.tick(store, day + timedelta(days=1)) >= 1
    assert season(store, lid).status == "running" and len(playing_games(store, lid)) == 1


def test_the_clock_repairs_a_round_that_did_not_open(store, monkeypatch):
    lid = league(store, players=4, rounds=2)
    seasons.start_season(store, lid, OPERATOR)
    gid = playing_games(store, lid)[0]

    def crash(store_, season_id, today=None):  # the process dies before the next round
        raise RuntimeError("killed")

    monkeypatch.setattr(rounds, "open_next", crash)
    play_out(store, gid)  # the move stands, though the next round did not open
    assert state(store, gid).phase == "over" and season(store, lid).round == 1
    monkeypatch.undo()
    assert seasons.tick(store) == 1 and season(store, lid).round == 2
    assert seasons.tick(store) == 0  # and only once


def test_a_withdrawn_entry_is_played_by_a_robot_in_a_round_robin(store):
    lid = league(store, players=8, entry="pair", pairing="round-robin")
    seasons.start_season(store, lid, OPERATOR)
    gone = fixtures(store, lid)[0].seats[0]
    with store.session() as s:
        who = s.get(Entry, gone).player_id
    withdraw(store, lid, who, gone)  # a player may take their own entry out
    play_season(store, lid)
    later = [f for f in fixtures(store, lid) if f.round > 1 and gone in f.seats]
    assert later, "the withdrawn entry still has its fixtures"
    for f in later:
        emails = seat_emails(store, f.game_id)
        assert [emails[i] for i, e in enumerate(f.seats) if e == gone] == ["robot", "robot"]


def test_a_stale_table_is_flagged_to_the_organiser_once(store):
    lid = league(store, players=4, stale_hours=48)
    seasons.start_season(store, lid, OPERATOR)
    gid = playing_games(store, lid)[0]
    now = datetime.now(UTC)
    assert seasons.tick(store, now + timedelta(hours=47)) == 0
    assert seasons.tick(store, now + timedelta(hours=49)) == 1
    assert seasons.tick(store, now + timedelta(hours=50)) == 0
    with store.session() as s:
        note = s.exec(select(Outbox).where(Outbox.subject.like(
            f"%Game {gid} has not moved%"))).one()
    assert note.to_addr == ORGANISER and "/o/" in note.body_text
    waiting = state(store, gid).to_act()[0]
    assert seat_emails(store, gid)[waiting].split("@")[0] in note.body_text


def test_a_new_season_takes_the_entries_and_ratings_carry_on(store):
    lid = league(store, players=4)
    seasons.start_season(store, lid, OPERATOR)
    play_season(store, lid)
    with store.session() as s:
        after_one = ratings(s, s.get(League, lid))["players"]
    two = add_season(store, lid, organiser_id(store), TODAY, TODAY + timedelta(days=90))
    assert two.number == 2
    with store.session() as s:
        names = sorted(e.name for e in s.exec(select(Entry).where(Entry.season_id == two.id)))
    assert names == ["p0", "p1", "p2", "p3"]
    seasons.start_season(store, lid, OPERATOR)
    play_season(store, lid, number=2)
    with store.session() as s:
        after_two = ratings(s, s.get(League, lid))["players"]
    assert {p["games"] for p in after_one} == {season(store, lid, 1).rounds}
    assert {p["games"] for p in after_two} == {season(store, lid, 1).rounds
                                                + season(store, lid, 2).rounds}


# -- bad input: a clear answer, and nothing changed --------------------------------------------


def refused(store, fn, *args, match: str, **kw) -> None:
    before = snapshot(store)
    with pytest.raises(LeagueError, match=match):
        fn(store, *args, **kw)
    assert snapshot(store) == before


def test_joining_a_full_closed_or_wrong_league_is_refused(store):
    lid = league(store, players=4, max_entries=5)
    join(store, lid, "fifth@league.test")
    refused(store, join, lid, "sixth@league.test", match="Test League is full: 5 entries")
    refused(store, join, lid, "p2@league.test", match="p2@league.test is entered in Test "
            "League already")
    refused(store, join, lid, "P2@League.TEST ", match="entered in Test League already")
    refused(store, join, lid, "not an address", match="is not a mail address")
    refused(store, join, lid, "x@league.test", partner="y@league.test",
            match="for single players")
    refused(store, join, 999, "x@league.test", match="there is no league 999")
    seasons.start_season(store, lid, OPERATOR)
    refused(store, join, lid, "late@league.test", match="not taking entries now")

    pairs = league(store, players=0, entry="pair")
    refused(store, join, pairs, "a@league.test", match="name your partner")
    refused(store, join, pairs, "a@league.test", partner="a@league.test",
            match="your partner must be someone else")
    join(store, pairs, "a@league.test", partner="b@league.test")
    refused(store, join, pairs, "c@league.test", partner="b@league.test",
            match="b@league.test is entered in Test League already")


def test_an_organiser_action_by_someone_else_is_refused(store):
    lid = league(store, players=4)
    stranger = player_id(store, "p1@league.test")
    refused(store, seasons.start_season, lid, stranger, match="only the organiser of Test League")
    refused(store, add_season, lid, stranger, TODAY, TODAY, match="only the organiser")
    with store.session() as s:
        other = s.exec(select(Entry).join(Player, Player.id == Entry.player_id)
                       .where(Player.email == "p2@league.test")).one().id
    refused(store, withdraw, lid, stranger, other, match="only the organiser")
    seasons.start_season(store, lid, organiser_id(store))
    gid = playing_games(store, lid)[0]
    refused(store, substitute, lid, stranger, gid, 0, "sub@league.test",
            match="only the organiser")
    refused(store, add_season, lid, organiser_id(store), TODAY, TODAY - timedelta(days=1),
            match="ends .* before it starts")


def test_a_substitute_already_seated_is_refused(store):
    lid = league(store, players=4)
    boss = organiser_id(store)
    seasons.start_season(store, lid, boss)
    gid = playing_games(store, lid)[0]
    emails = seat_emails(store, gid)
    refused(store, substitute, lid, boss, gid, 0, emails[1],
            match=f"{emails[1]} already has a seat in game {gid}")
    refused(store, substitute, lid, boss, gid + 100, 0, "sub@league.test",
            match=f"game {gid + 100} is not a game of Test League")
    other = league(store, players=0)
    refused(store, substitute, other, boss, gid, 0, "sub@league.test",
            match="is not a game of Test League")

    result = substitute(store, lid, boss, gid, 0, "sub@league.test")
    assert result.events[0]["type"] == "substitute"
    refused(store, substitute, lid, boss, gid, 2, "sub@league.test",
            match="sub@league.test already has a seat")
    # the substitute plays for the entry: the result is the entry's
    play_out(store, gid)
    f = fixtures(store, lid)[0]
    assert f.status == "over" and f.result["winner"] is not None


def test_a_league_with_bad_settings_is_refused(store):
    args = (ORGANISER, "X", ONE_HAND, TODAY, TODAY)
    cases = [
        ({"entry": "trio"}, "entries are single or pair"),
        ({"pairing": "knockout"}, "pairing is round-robin, swiss or duplicate"),
        ({"max_entries": 3}, "a table needs 4 entries"),
        ({"rounds": 0}, "1 to 100 rounds"),
        ({"time_control": {"on_timeout": "cry"}}, "a bad time control"),
        ({"timeout_forfeit": 0}, "forfeits after 1 to 1000 timeouts"),
    ]
    for kw, reason in cases:
        refused(store, create_league, LeagueSpec(*args, **kw), match=reason)
    refused(store, create_league, LeagueSpec(ORGANISER, "X", preset("cutthroat-4"), TODAY, TODAY,
                                             entry="pair"),
            match="cutthroat-4 has no partnerships of two")
    refused(store, create_league, LeagueSpec(ORGANISER, " ", ONE_HAND, TODAY, TODAY),
            match="needs a name")
    refused(store, create_league, LeagueSpec(ORGANISER, "X", ONE_HAND, TODAY,
                                             TODAY - timedelta(days=1)),
            match="before it starts")


def test_a_time_machine_season_no_round_opens_after_the_end_day(store):
    lid = league(store, players=4, rounds=3)
    end = season(store, lid).ends
    with time_machine.travel(datetime.combine(end, datetime.min.time(), UTC), tick=False):
        seasons.start_season(store, lid, OPERATOR)
        play_out(store, playing_games(store, lid)[0])
        assert season(store, lid).round == 2  # still the last day: round two opens
    with time_machine.travel(datetime.combine(end + timedelta(days=1), datetime.min.time(),
                                              UTC), tick=False):
        play_out(store, playing_games(store, lid)[0])
        sn = season(store, lid)
        assert sn.status == "over" and sn.round == 2 < sn.rounds


# -- races: the database decides -----------------------------------------------------------


def race(fn, *args_list):
    """Run fn(*args) for each args at once in threads; the results or exceptions."""
    import threading

    out, gate = [None] * len(args_list), threading.Barrier(len(args_list))

    def run(i, args):
        gate.wait()
        try:
            out[i] = fn(*args)
        except Exception as e:  # noqa: BLE001 - the caller inspects what each got
            out[i] = e

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(args_list)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_two_joins_for_the_last_place_one_wins(store):
    lid = league(store, players=3, max_entries=4)
    got = race(join, (store, lid, "x@league.test"), (store, lid, "y@league.test"))
    assert sorted(type(g).__name__ for g in got) == ["Entry", "LeagueError"]
    assert "is full" in str(next(g for g in got if isinstance(g, LeagueError)))
    with store.session() as s:
        assert len(s.exec(select(Entry)).all()) == 4


def test_two_processes_opening_the_next_round_open_it_once(store, monkeypatch):
    lid = league(store, players=4, rounds=3)
    seasons.start_season(store, lid, OPERATOR)
    monkeypatch.setattr(rounds, "open_next", lambda *a, **k: [])  # the last move opens nothing
    play_out(store, playing_games(store, lid)[0])
    monkeypatch.undo()
    sid = season(store, lid).id
    got = race(seasons.advance, (store, sid), (store, sid), (store, sid))
    assert sorted(len(g) for g in got) == [0, 0, 1]
    assert [f.round for f in fixtures(store, lid)] == [1, 2] and season(store, lid).round == 2


def _round_one_tables(store, lid) -> set[frozenset]:
    return {frozenset(f.seats) for f in fixtures(store, lid) if f.round == 1 and f.game_id}


@pytest.mark.parametrize("schedule, n_rounds", [(1, 6), (2, 5)])
def test_a_season_keeps_the_round_robin_schedule_it_has(store, schedule, n_rounds):
    """Nine singles at tables of four: schedule 1 (seasons from before it had a version)
    takes 6 rounds, schedule 2 (new seasons) 5; the draw follows the season's own."""
    lid = league(store, players=9, pairing="round-robin")
    with store.session() as s:
        sn = s.get(Season, season(store, lid).id)
        assert sn.schedule == 2  # what a new season takes
        sn.schedule = schedule
        s.add(sn)
        s.commit()
        seed = s.get(League, lid).seed
    seasons.start_season(store, lid, OPERATOR)
    assert season(store, lid).rounds == n_rounds
    with store.reader() as s:
        order = sorted(s.exec(select(Entry.id).where(Entry.season_id == sn.id)).all())
    random.Random(f"{seed}:1").shuffle(order)
    first = round_robin(order, 4, schedule)[0]
    assert _round_one_tables(store, lid) == {frozenset(t) for t in first.tables}
