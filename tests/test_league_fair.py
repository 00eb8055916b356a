"""Fair standings and ratings (issue 16): timeout forfeits, a withdrawn entry's games struck
or standing, reliability, Glicko-2, the rule for games a robot or substitute played, and the
cached standings that a written result must refresh. Expected numbers are worked by hand in
the comments beside them."""

from datetime import timedelta

import pytest
from sqlmodel import select

from pbem import clock
from pbem.engine import choose, view
from pbem.league import reports, results
from pbem.league.glicko import Glicko, glicko2, update
from pbem.league.manage import OPERATOR, LeagueError, withdraw
from pbem.league.reports import fixtures as fixture_table
from pbem.league.reports import ratings, season_reliability, season_standings
from pbem.league.standings import STAND, STRUCK, GameResult, elo, reliability, standings
from pbem.organise import seasons
from pbem.play import submit
from pbem.store.models import Entry, Fixture, League, Season
from pbem.store.models import now as utcnow
from tests.league_helpers import (
    fixtures,
    league,
    play_out,
    play_season,
    season,
    snapshot,
    state,
)

PARTNERS = ((0, 2), (1, 3))


def pair_game(game_id, a, b, score_a, score_b, timeouts=(0, 0, 0, 0), own=(), rated=True):
    """Fixed partnerships: `a` in seats 0 and 2, `b` in seats 1 and 3; the higher score wins."""
    return GameResult(game_id=game_id, seats=(a, b, a, b), sides=PARTNERS,
                      scores=(score_a, score_b), bags=(0, 0), nils=((0, 0),) * 4,
                      winner=0 if score_a > score_b else 1, timeouts=timeouts, own=own,
                      rated=rated)


def row(table, entry):
    return next(r for r in table if r.entry == entry)


def one_game_played(store) -> tuple[int, int]:
    """A league of four pairs whose first game is over; returns it and an entry of that game."""
    lid = league(store, players=8, entry="pair", pairing="round-robin")
    seasons.start_season(store, lid, OPERATOR)
    game = fixtures(store, lid)[0]
    play_out(store, game.game_id)
    return lid, game.seats[0]


def table_of(store, lid):
    sn = season(store, lid)
    with store.reader() as s:
        return season_standings(s, sn)


# -- Glicko-2 ----------------------------------------------------------------------------------


def test_glicko2_matches_glickmans_worked_example():
    # Glickman's example: 1500, RD 200, volatility 0.06, tau 0.5, against 1400/30 (won),
    # 1550/100 (lost), 1700/300 (lost): 1464.06, RD 151.52, volatility 0.05999. The paper
    # rounds each step; computed exactly the rating is 1464.05.
    after = update(Glicko(1500, 200, 0.06), [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)])
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.vol == pytest.approx(0.05999, abs=1e-5)
    assert after.games == 1


def test_glicko2_a_first_game_between_newcomers():
    # Both 1500, RD 350: phi = 350 / 173.7178 = 2.01476, g = 1 / sqrt(1 + 3 phi^2 / pi^2)
    # = 0.66907, E = 0.5, v = 1 / (g^2 / 4) = 8.9355, phi* = sqrt(phi^2 + 0.06^2) = 2.01565,
    # phi' = 1 / sqrt(1 / phi*^2 + 1 / v) = 1.67121, mu' = phi'^2 * g * 0.5 = 0.93434:
    # the winner 1500 + 173.7178 * 0.93434 = 1662.31, RD 173.7178 * 1.67121 = 290.32.
    rated = glicko2([([["ann"], ["bob"]], [500, 300], 0)])
    assert rated["ann"].rating == pytest.approx(1662.31, abs=0.01)
    assert rated["bob"].rating == pytest.approx(1337.69, abs=0.01)
    assert rated["ann"].rd == rated["bob"].rd == pytest.approx(290.32, abs=0.01)
    # a partnership of two newcomers is the same opponent as one newcomer: mean 1500,
    # root mean square RD 350; each partner gets the whole update
    pairs = glicko2([([["ann", "cy"], ["bob", "dee"]], [500, 300], 0)])
    assert pairs["cy"].rating == pytest.approx(1662.31, abs=0.01)
    assert pairs["dee"].rating == pytest.approx(1337.69, abs=0.01)


def test_glicko2_a_draw_between_equals_changes_no_rating_but_narrows_the_deviation():
    rated = glicko2([([["ann"], ["bob"], ["cy"]], [200, 300, 300], 0)])
    # bob and cy tie for second: against each other 1/2, against ann 0
    assert rated["bob"].rating == pytest.approx(rated["cy"].rating)
    assert rated["bob"].rating < 1500 < rated["ann"].rating
    assert all(r.rd < 350 for r in rated.values())


# -- the league table: forfeits, withdrawals, reliability ---------------------------------------


def test_a_side_that_times_out_too_often_forfeits_the_game():
    entries = {1: "Ants", 2: "Bees"}
    # Ants win 500-300 on the cards, but their seats 0 and 2 ran out of time once each
    game = pair_game(1, 1, 2, 500, 300, timeouts=(1, 0, 1, 0))
    plain = standings(entries, [game])
    assert (row(plain, 1).won, row(plain, 2).won) == (1, 0)
    two = standings(entries, [game], forfeit_after=2)
    # two timeouts reach the limit: Ants lose by forfeit, Bees win; scores stay as played
    assert (row(two, 1).won, row(two, 1).lost, row(two, 1).forfeits) == (0, 1, 1)
    assert (row(two, 2).won, row(two, 2).points, row(two, 2).forfeits) == (1, 1, 0)
    assert (row(two, 1).points_for, row(two, 1).diff) == (500, 200)
    assert [r.name for r in two] == ["Bees", "Ants"]
    three = standings(entries, [game], forfeit_after=3)
    assert row(three, 1).won == 1 and row(three, 1).forfeits == 0


def test_when_both_sides_forfeit_nobody_wins():
    entries = {1: "Ants", 2: "Bees"}
    game = pair_game(1, 1, 2, 500, 300, timeouts=(2, 1, 0, 1))
    table = standings(entries, [game], forfeit_after=2)
    assert [(r.won, r.lost, r.forfeits, r.points) for r in table] == [(0, 1, 1, 0)] * 2


def test_a_withdrawn_entrys_games_stand_or_are_struck_for_everyone():
    entries = {1: "Ants", 2: "Bees", 3: "Cats"}
    results = [pair_game(1, 1, 2, 500, 300),  # Ants beat Bees
               pair_game(2, 2, 3, 200, 450),  # Cats beat Bees
               pair_game(3, 3, 1, 100, 400)]  # Ants beat Cats
    kept = standings(entries, results, byes={1: 1}, withdrawn={1: STAND})
    assert [(r.rank, r.name, r.points) for r in kept] == [
        (1, "Ants", 3), (2, "Cats", 1), (3, "Bees", 0)]
    assert row(kept, 1).note == "games stand"
    struck = standings(entries, results, byes={1: 1}, withdrawn={1: STRUCK})
    # only game 2 is left: Cats 1-0, for 450 against 200; Ants listed last, unranked, empty
    assert [(r.rank, r.name, r.played, r.points) for r in struck] == [
        (1, "Cats", 1, 1), (2, "Bees", 1, 0), (0, "Ants", 0, 0)]
    assert (row(struck, 3).points_for, row(struck, 3).points_against) == (450, 200)
    assert row(struck, 1).note == "games struck"


def test_reliability_sums_each_entrys_seats():
    entries = {1: "Ants", 2: "Bees"}
    results = [pair_game(1, 1, 2, 500, 300, timeouts=(1, 0, 2, 0), own=(10, 13, 9, 13)),
               pair_game(2, 2, 1, 300, 500, timeouts=(0, 0, 0, 1), own=(13, 12, 13, 12))]
    by = {x.entry: x for x in reliability(entries, results)}
    # Ants: seats 0, 2 of game 1 (10 + 9 moves, 1 + 2 timeouts), seats 1, 3 of game 2
    # (12 + 12, 0 + 1): 43 moves, 4 timeouts, 43 / 47 on time
    assert (by[1].moves, by[1].timeouts, by[1].on_time) == (43, 4, pytest.approx(43 / 47))
    assert (by[2].moves, by[2].timeouts, by[2].on_time) == (52, 0, 1.0)


# -- in the database ---------------------------------------------------------------------------


def test_a_written_result_refreshes_the_cached_standings_and_ratings(store):
    lid = league(store, players=8, entry="pair", pairing="round-robin")
    seasons.start_season(store, lid, OPERATOR)
    first, second = (f.game_id for f in fixtures(store, lid)[:2])
    sn = season(store, lid)
    with store.session() as s:
        lg = s.get(League, lid)
        assert sum(r.played for r in season_standings(s, sn)) == 0
        assert ratings(s, lg)["players"] == []
        assert all(t["status"] == "playing" for t in fixture_table(s, sn)[0]["tables"])
    play_out(store, first)
    sn = season(store, lid)
    with store.session() as s:
        lg = s.get(League, lid)
        assert sum(r.played for r in season_standings(s, sn)) == 2
        assert len(ratings(s, lg)["players"]) == 4
        assert [t["status"] for t in fixture_table(s, sn)[0]["tables"]] == ["over", "playing"]
    play_out(store, second)
    assert sum(r.played for r in table_of(store, lid)) == 4


def test_struck_withdrawal_is_the_organisers_choice_and_shows_at_once(store):
    lid, gone = one_game_played(store)
    with store.session() as s:
        player = s.get(Entry, gone).player_id
    assert row(table_of(store, lid), gone).played == 1
    before = snapshot(store)
    with pytest.raises(LeagueError):  # a player may leave, but not strike their games
        withdraw(store, lid, player, gone, "struck")
    with pytest.raises(LeagueError):
        withdraw(store, lid, OPERATOR, gone, "erased")
    assert snapshot(store) == before
    withdraw(store, lid, OPERATOR, gone, "struck")
    table = table_of(store, lid)
    assert (table[-1].entry, table[-1].rank, table[-1].played) == (gone, 0, 0)
    assert sum(r.played for r in table) == 0  # the opponents' game is struck too


def test_a_game_a_robot_played_most_of_is_not_rated(store):
    lid = league(store, players=8, entry="pair", pairing="round-robin")
    seasons.start_season(store, lid, OPERATOR)
    robbed, fair = (f.game_id for f in fixtures(store, lid)[:2])
    seasons.substitute(store, lid, OPERATOR, robbed, 0, "robot")  # before seat 0 moved
    play_out(store, robbed)
    play_out(store, fair)
    done = {f.game_id: f for f in fixtures(store, lid)}
    assert done[robbed].result["rated"] is False and done[robbed].result["own"][0] == 0
    assert done[fair].result["rated"] is True
    sn = season(store, lid)
    with store.session() as s:
        rated = ratings(s, s.get(League, lid))["players"]
        rows = fixture_table(s, sn)[0]["tables"]
    assert len(rated) == 4 and all(x["games"] == 1 for x in rated)  # the fair game only
    assert [t["rated"] for t in rows] == [False, True]
    # the standings still count it (a result is a result); only the ratings skip it
    assert sum(r.played for r in table_of(store, lid)) == 4


def test_a_game_a_human_substitute_played_most_of_is_not_rated(store):
    # the hand-over is the server's event (no actor): its seat is in the event itself
    lid = league(store, players=8, entry="pair", pairing="round-robin")
    seasons.start_season(store, lid, OPERATOR)
    handed = fixtures(store, lid)[0].game_id
    seasons.substitute(store, lid, OPERATOR, handed, 0, "sub@league.test")  # before it moved
    play_out(store, handed)  # the substitute moves from the web, as the player would have
    done = next(f for f in fixtures(store, lid) if f.game_id == handed)
    assert done.result["own"][0] == 0 < done.result["moves"][0]
    assert done.result["rated"] is False
    with store.session() as s:
        assert ratings(s, s.get(League, lid))["players"] == []


def test_timeouts_are_counted_and_forfeit_the_game(store):
    lid = league(store, players=8, entry="pair", pairing="round-robin", timeout_forfeit=3,
                 time_control={"move_hours": 1, "on_timeout": "robot"})
    seasons.start_season(store, lid, OPERATOR)
    f = fixtures(store, lid)[0]
    for _ in range(500):  # seats 0 and 2 move; 1 and 3 let the clock move for them
        st = state(store, f.game_id)
        if st.phase == "over":
            break
        seat = st.to_act()[0]
        if seat in (0, 2):
            submit(store, f.game_id, seat, choose(view(st, seat), seed=1, rules=st.rules),
                   expect_seq=st.seq, source="web")
        else:
            clock.tick(store, utcnow() + timedelta(hours=2))
    f = next(x for x in fixtures(store, lid) if x.game_id == f.game_id)
    timeouts = f.result["timeouts"]
    assert timeouts[0] == timeouts[2] == 0 and timeouts[1] + timeouts[3] >= 3
    assert f.result["rated"] is False
    loser, winner = f.seats[1], f.seats[0]
    sn = season(store, lid)
    with store.session() as s:
        table = season_standings(s, sn)
        rel = {x.entry: x for x in season_reliability(s, sn)}
    assert row(table, loser).forfeits == 1 and row(table, loser).won == 0
    assert row(table, winner).won == 1
    assert rel[loser].timeouts == timeouts[1] + timeouts[3] and rel[winner].timeouts == 0


def test_the_league_page_shows_forfeits_reliability_and_both_ratings(store, client):
    lid = league(store, players=4, entry="single", pairing="round-robin")
    seasons.start_season(store, lid, OPERATOR)
    play_season(store, lid)
    with store.session() as s:
        number = s.exec(select(Season.number).where(Season.league_id == lid)).one()
    page = client.get(f"/l/{lid}/s/{number}").get_data(as_text=True)
    assert 'aria-label="Reliability"' in page and "Glicko-2" in page and "Forfeits" in page
    assert page.count('class="reliability"') == 4


def test_the_organiser_strikes_a_withdrawn_entrys_games_from_the_web(store, client):
    from tests.test_web_leagues import post, refused, rows

    lid, gone = one_game_played(store)
    with store.session() as s:
        lg = s.get(League, lid)
        name = s.get(Entry, gone).name
    o = f"/o/{lg.admin_token}"
    refused(client, f"{o}/withdraw", "games stand or are struck", store, entry=str(gone),
            games="erased")
    r = post(client, f"{o}/withdraw", entry=str(gone), games="struck")
    assert r.status_code == 200 and "Its games are struck" in r.text
    page = client.get(f"/l/{lid}/s/1").get_data(as_text=True)
    table = rows(page, "standing")
    assert table[-1][:3] == ["–", f"{name} (withdrawn): games struck", "0"]
    assert all(cells[2] == "0" for cells in table)  # nobody's game against it counts


def test_ratings_resume_from_earlier_ratings_as_if_computed_at_once():
    first = [([["ann"], ["bob"]], [500, 300], 0), ([["bob", "cy"], ["ann", "dee"]], [1, 2], 1)]
    then = [([["cy"], ["ann"], ["bob"]], [300, 300, 100], 2)]
    assert elo(then, before=elo(first)) == elo(first + then)
    assert glicko2(then, before=glicko2(first)) == glicko2(first + then)


def test_ratings_fold_in_new_games_and_start_again_when_an_old_result_changes(store):
    lid = league(store, players=8, entry="pair", pairing="round-robin")
    seasons.start_season(store, lid, OPERATOR)
    first, second = fixtures(store, lid)[:2]

    def rated():
        with store.reader() as s:
            return ratings(s, s.get(League, lid))

    def afresh():
        reports.forget()
        return rated()

    play_out(store, first.game_id)
    rated()  # the fold now holds the first game
    play_out(store, second.game_id)
    assert rated() == afresh() and all(x["games"] == 1 for x in rated()["players"])
    old = rated()
    with store.session() as s:  # an earlier result changes (as a ruling would), and says so
        f = s.get(Fixture, first.id)
        f.result = dict(f.result, winner=1 - f.result["winner"])
        results.changed(s, f.season_id, f)
        s.commit()
    changed = rated()
    assert changed != old and changed == afresh()  # the fold did not keep the old result
