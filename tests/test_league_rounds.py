"""The move that ends a league round: it is committed first, its caller gets its answer at
once, and the next round opens after it in a thread of its own, outside the move's write;
with the clock's tick racing that thread the round opens exactly once; and a draw made in
a read is written only if the entries it was drawn from are unchanged."""

import threading
import time

import pytest
from sqlmodel import select

from pbem import play
from pbem.league import rounds
from pbem.league.manage import OPERATOR
from pbem.organise import seasons
from pbem.store.models import Entry, Fixture, Game, Season
from tests.league_helpers import fixtures, league, play_out, playing_games, season, state
from tests.test_no_stall import write_lock_free

WAIT = 30  # seconds a test waits for a thread before it fails


@pytest.fixture
def background(monkeypatch):
    """The door as it runs on a site: the next round opens in a thread of its own."""
    monkeypatch.setattr(play, "ROUNDS_IN_BACKGROUND", True)
    yield
    assert play.rounds_opened(WAIT)  # no thread outlives its test's database


def one_game_left(store) -> tuple[int, int]:
    """A league of two tables in round one, one played out: (the league, the other game)."""
    lid = league(store, players=8, rounds=2)
    seasons.start_season(store, lid, OPERATOR)
    first, last = playing_games(store, lid)
    play_out(store, first)
    return lid, last


def round_two(store, lid) -> list[Fixture]:
    return [f for f in fixtures(store, lid) if f.round == 2]


def test_the_last_move_returns_first_and_the_round_opens_after_its_commit(store, background,
                                                                          monkeypatch):
    lid, last = one_game_left(store)
    real, release, seen = rounds.open_next, threading.Event(), {}

    def held_open_next(store_, season_id, today=None):
        with store.reader() as s:  # what another connection sees: the move is committed
            seen["status"] = s.get(Game, last).status
        seen["thread"] = threading.current_thread()
        seen["write_lock_free"] = _write_lock_free(store)
        assert release.wait(WAIT)
        return real(store_, season_id, today)

    monkeypatch.setattr(rounds, "open_next", held_open_next)
    play_out(store, last)  # returns while the round's opener waits
    assert state(store, last).phase == "over" and season(store, lid).round == 1
    assert round_two(store, lid) == []
    release.set()
    assert play.rounds_opened(WAIT)
    assert seen["status"] == "over" and seen["thread"] is not threading.main_thread()
    assert seen["write_lock_free"]
    assert season(store, lid).round == 2 and len(round_two(store, lid)) == 2
    with store.reader() as s:  # and dealt
        assert {s.get(Game, f.game_id).status for f in round_two(store, lid)} == {"playing"}


def _write_lock_free(store) -> bool:
    """Can another writer write now? (Nobody holds the move's transaction open.)

    On SQLite another short writer (the door's look for robots after the commit) may hold
    the lock for an instant, so it asks again for up to 5 s: a move's write held open
    around this thread would hold it all that time, since the thread itself waits."""
    if store.engine.dialect.name == "sqlite":
        deadline = time.monotonic() + 5
        while not write_lock_free(store.engine.url.database):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True
    with store.session() as s:  # PostgreSQL: the move's write holds no season row
        s.exec(select(Season).with_for_update(nowait=True)).all()
        s.rollback()
    return True


def test_the_move_thread_and_the_clock_race_to_open_the_round_it_opens_once(store, background,
                                                                            monkeypatch):
    lid, last = one_game_left(store)
    real, gate = rounds.open_next, threading.Barrier(2, timeout=WAIT)

    def together(store_, season_id, today=None):  # both runners draw, then both write
        gate.wait()
        return real(store_, season_id, today)

    monkeypatch.setattr(rounds, "open_next", together)  # the move's thread
    monkeypatch.setattr(seasons, "open_next", together)  # the clock's
    with store.reader() as s:
        games_before = len(s.exec(select(Game.id)).all())
    play_out(store, last)  # its thread waits at the gate for the clock
    seasons.tick(store)
    assert play.rounds_opened(WAIT)
    assert season(store, lid).round == 2
    assert sorted(f.board for f in round_two(store, lid)) == [1, 2]
    with store.reader() as s:
        assert len(s.exec(select(Game.id)).all()) == games_before + 2
    monkeypatch.undo()
    assert seasons.tick(store) == 0  # nothing left to open or deal


def test_a_draw_whose_entries_changed_before_its_write_is_drawn_again(store, monkeypatch):
    lid = league(store, players=9, rounds=2)
    seasons.start_season(store, lid, OPERATOR)
    for gid in playing_games(store, lid)[:-1]:
        play_out(store, gid)
    sid = season(store, lid).id
    with store.reader() as s:
        entries = s.exec(select(Entry).where(Entry.season_id == sid).order_by(Entry.id)).all()
    bye = next(f.seats[0] for f in fixtures(store, lid) if f.status == "bye")
    leaver = next(e.id for e in entries if e.id != bye)
    real, draws = rounds._next_draw, []

    def draw_then_withdraw(s, season_, today):
        got = real(s, season_, today)
        draws.append(got)
        if len(draws) == 1:  # an entry withdraws between the read and the write
            with store.session() as w:
                entry = w.get(Entry, leaver)
                entry.status = "withdrawn"
                w.add(entry)
                w.commit()
        return got

    monkeypatch.setattr(rounds, "_next_draw", draw_then_withdraw)
    play_out(store, playing_games(store, lid)[0])  # the last game of round one
    assert len(draws) == 2 and any(leaver in t for t in draws[0].tables)
    drawn = [x for f in round_two(store, lid) for x in f.seats]
    assert leaver not in drawn and season(store, lid).round == 2
    assert len(drawn) == 8 and {f.status for f in round_two(store, lid)} == {"playing"}
