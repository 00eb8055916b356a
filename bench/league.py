"""League speed: drawing rounds, a season played through the one door, and reading the
league table and ratings of a big league.

    .venv/bin/python bench/league.py [--players N] [--rounds R] [--results G] [--pg URL]

- draw: one Swiss round (a 40-round history behind it) for 256 and 1,024 entries at tables
  of 2 and 4, and whole round robins (64 pairs; 16 and 100 singles at tables of 4): pure.
- season: N single players (default 32) in a Swiss league of R rounds (default 5), rules
  standard with max_hands=1; every seat moved by the robot through play.submit. Prints the
  time the move that ends a round takes (its player waits for it; issue 15's target: < 100 ms)
  and the time until the next round is open (draw, games, deals: in a thread of its own
  after that move's commit, `play.rounds_opened` waits for it), and the moves a second over
  the season.
- reads: a league of G finished results (default 5,000; written straight into the fixture
  table, no games behind them) for 200 players: the league table, the ratings (every
  result in order), and the fixtures, each computed afresh (the cache emptied) and the
  median of 5 views (from the cache); then the season's page (GET /l/ID/s/1 through the
  Flask app): the first view, the median of 5 views (wall and CPU time), and a view after
  a result is written (which recomputes). Issue 15's target for the page: < 50 ms.
- schedules: singles round robins at tables of 4 for n = 5..24, schedule 1 (one greedy
  run) against 2 (the best of seeded starts): rounds, pairs meeting more than once, pairs
  never meeting, and the time to draw each; then schedule 2's time for 50 to 200 entries.
- --only reads skips the draws, the schedules and the season; --only schedules runs only them.

SQLite (a file under /tmp) by default; --pg URL runs on a fresh schema of that PostgreSQL
server instead (dropped afterwards).
"""

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlmodel import select  # noqa: E402

from bench.scratch_db import ScratchDatabase  # noqa: E402
from pbem import play  # noqa: E402
from pbem.engine import choose, preset, view  # noqa: E402
from pbem.league import pairing, reports  # noqa: E402
from pbem.league import results as results_  # noqa: E402
from pbem.league.manage import OPERATOR, LeagueSpec, create_league, join  # noqa: E402
from pbem.league.reports import fixtures, ratings, season_standings  # noqa: E402
from pbem.organise import seasons  # noqa: E402
from pbem.store.models import Entry, Fixture, Game, League, Season  # noqa: E402
from pbem.store.models import now as utcnow  # noqa: E402
from pbem.store.states import Store  # noqa: E402

ONE_HAND = preset("standard").with_options(max_hands=1)
DAY = date(2026, 12, 1)


def median_ms(fn, times: int = 5, clock=time.perf_counter) -> float:
    """The median of `times` runs, by `clock` (time.process_time: CPU time, which other
    processes on a busy machine do not inflate)."""
    runs = []
    for _ in range(times):
        t = clock()
        fn()
        runs.append(clock() - t)
    return statistics.median(runs) * 1000


def bench_draws() -> None:
    rng = random.Random(1)
    for n in (256, 1024):
        for k in (2, 4):
            met = Counter()
            field = list(range(n))
            for _ in range(40):  # a long history: many pairs have met
                rng.shuffle(field)
                for i in range(0, n - n % k, k):
                    met.update(frozenset((a, b)) for a in field[i:i + k]
                               for b in field[i:i + k] if a < b)
            ranked = sorted(field)
            ms = median_ms(lambda: pairing.swiss(ranked, k, met, Counter()))  # noqa: B023
            print(f"draw: a Swiss round of {n} entries at tables of {k}: {ms:.1f} ms")
    for n, k in ((64, 2), (16, 4), (100, 4)):
        ms = median_ms(lambda: pairing.round_robin(list(range(n)), k))  # noqa: B023
        rr = pairing.round_robin(list(range(n)), k)
        print(f"draw: a round robin of {n} entries at tables of {k}: {len(rr)} rounds, "
              f"{ms:.1f} ms")


def bench_schedules() -> None:
    print("schedules: n | v1 rounds, repeated pairs, unmet, ms | v2 rounds, repeated, unmet, ms")
    for n in range(5, 25):
        row = []
        for version in (1, 2):
            t = time.perf_counter()
            rr = pairing.round_robin(list(range(n)), 4, version)
            ms = (time.perf_counter() - t) * 1000
            met = pairing.meetings(rr)
            unmet = n * (n - 1) // 2 - len(met)
            repeated = sum(c > 1 for c in met.values())
            row.append(f"{len(rr):3} {repeated:4} {unmet:2} {ms:6.1f}")
        print(f"schedules: {n:3} | {row[0]} | {row[1]}")
    for n in (50, 100, 150, 200):
        t = time.perf_counter()
        rr = pairing.round_robin(list(range(n)), 4, 2)
        ms = (time.perf_counter() - t) * 1000
        print(f"schedules: v2 for {n} singles: {pairing.greedy_starts(n)} starts, "
              f"{len(rr)} rounds, {ms:.0f} ms")


def bench_season(store, players: int, n_rounds: int) -> None:
    lg = create_league(store, LeagueSpec("boss@bench.test", "Bench", ONE_HAND, DAY,
                                         DAY + timedelta(days=365), pairing="swiss",
                                         rounds=n_rounds))
    for i in range(players):
        join(store, lg.id, f"b{i}@bench.test")
    t = time.perf_counter()
    seasons.start_season(store, lg.id, OPERATOR)
    opened, last_moves = [time.perf_counter() - t], []
    moves, start = 0, time.perf_counter()
    for _ in range(n_rounds):
        games = _playing(store, lg.id)
        for gid in games[:-1]:
            moves += _play_out(store, gid, stop_before_last=False)
        moves += _play_out(store, games[-1], stop_before_last=True)
        st = _state(store, games[-1])
        seat = st.to_act()[0]
        t = time.perf_counter()  # the last move of the round: the next round opens after it
        play.submit(store, games[-1], seat, choose(view(st, seat), seed=0, rules=st.rules),
                    expect_seq=st.seq)
        last_moves.append(time.perf_counter() - t)
        if not play.rounds_opened(timeout=300):
            raise SystemExit("the next round did not open within 5 minutes")
        opened.append(time.perf_counter() - t)
        moves += 1
    took = time.perf_counter() - start
    with store.session() as s:
        status = s.exec(select(Season.status).where(Season.league_id == lg.id)).one()
    print(f"season: {players} players, {n_rounds} Swiss rounds ({status}), {moves} moves in "
          f"{took:.1f} s: {moves / took:.0f} moves/s")
    tables = players // 4
    print(f"season: the move that ends a round: median "
          f"{statistics.median(last_moves) * 1000:.0f} ms, most {max(last_moves) * 1000:.0f} ms"
          " (target < 100 ms: the next round opens after its commit)")
    print(f"season: opening a round of {tables} tables (draw, games, deals): "
          f"first {opened[0] * 1000:.0f} ms, then median "
          f"{statistics.median(opened[1:-1] or opened) * 1000:.0f} ms (from the move that "
          "ends a round to the next round open)")


def _playing(store, league_id) -> list[int]:
    with store.session() as s:
        return list(s.exec(select(Fixture.game_id).join(Season).where(
            Season.league_id == league_id, Fixture.status == "playing")).all())


def _state(store, gid):
    with store.session() as s:
        st = store.state(s, s.get(Game, gid))
    store.keep(gid, st)
    return st.snapshot()


def _play_out(store, gid, stop_before_last: bool) -> int:
    """Robot moves to the end of the game (or to its last move); returns how many."""
    moves = 0
    while True:
        st = _state(store, gid)
        if st.phase == "over":
            return moves
        seat = st.to_act()[0]
        action = choose(view(st, seat), seed=moves, rules=st.rules)
        if stop_before_last and _ends(st, seat, action):
            return moves
        play.submit(store, gid, seat, action, expect_seq=st.seq)
        moves += 1


def _ends(st, seat, action) -> bool:
    """Does this move end the game? With the cards that then play themselves (a seat's only
    legal card: every player's `auto` is "forced" by default; and the rest of a settled
    hand, pbem.engine.settled), as the door plays them."""
    from pbem.engine import advance, apply
    from pbem.engine.settled import by_themselves

    probe = st.snapshot()
    for ev in apply(probe, seat, action):
        advance(probe, ev)
    by_themselves(probe)
    return probe.phase == "over"


def bench_reads(store, results: int, players: int = 200) -> None:
    """A league with `results` finished four-player results among `players` singles, and
    a last round still playing."""
    lg = create_league(store, LeagueSpec("boss2@bench.test", "Reads", ONE_HAND, DAY, DAY))
    rng = random.Random(2)
    tables = players // 4
    with store.session() as s:
        season = s.exec(select(Season).where(Season.league_id == lg.id)).one()
        entries = [Entry(season_id=season.id, player_id=_player(s, i), name=f"r{i}")
                   for i in range(players)]
        s.add_all(entries)
        s.flush()
        ids = [e.id for e in entries]
        made = [Fixture(season_id=season.id, round=g // tables + 1, board=g % tables + 1,
                        seats=rng.sample(ids, 4), status="playing")
                for g in range(results + tables)]
        s.add_all(made)
        s.flush()
        for g, fixture in enumerate(made[:results]):  # as a game's end writes them
            results_.finish(s, fixture, _result(rng))
            fixture.finished = utcnow() - timedelta(seconds=results - g)
        season.status, season.round = "running", (results + tables - 1) // tables + 1
        season.rounds = season.round
        s.commit()
    with store.session() as s:
        season = s.exec(select(Season).where(Season.league_id == lg.id)).one()
        league = s.get(League, lg.id)
        for what, fn in (("the league table", lambda: season_standings(s, season)),
                         ("the ratings", lambda: ratings(s, league)),
                         ("the fixtures", lambda: fixtures(s, season))):
            reports.forget()
            cold = median_ms(fn, times=1)
            print(f"reads: {what} of {results} results, {players} players: computed "
                  f"{cold:.0f} ms, cached {median_ms(fn):.2f} ms")
    bench_page(store, lg.id, rng)


def _result(rng) -> dict:
    scores = [rng.randrange(-200, 600), rng.randrange(-200, 600)]
    return {"winner": int(scores[1] > scores[0]), "scores": scores,
            "bags": [rng.randrange(8), rng.randrange(8)],
            "nils": [[rng.randrange(2), 0] for _ in range(4)]}


def bench_page(store, league_id: int, rng) -> None:
    """The season's page through the app, as a browser asks for it; then the first view
    after each of five results written, a ruling on an old game, and a withdrawal whose
    games are struck (every game counted again)."""
    import os
    import tempfile

    from pbem.config import load
    from pbem.web.app import create_app

    os.environ.setdefault("PBEM_VAR_DIR", tempfile.mkdtemp(prefix="pbem-bench-var-"))
    client = create_app(load(), store, testing=True).test_client()
    url = f"/l/{league_id}/s/1"
    reports.forget()

    def get():
        assert client.get(url).status_code == 200

    cpu = time.process_time
    first, first_cpu = _clocked(get)
    warm, warm_cpu = median_ms(get), median_ms(get, clock=cpu)
    print(f"reads: the season page ({url}): first view {first:.0f} ms ({first_cpu:.0f} ms "
          f"CPU), then median {warm:.1f} ms ({warm_cpu:.1f} ms CPU)")
    after = []
    for _ in range(5):
        _write(store, league_id, lambda s, season: _finish_one(s, season, rng))
        after.append(_clocked(get))
    wall, cpu_ms = (statistics.median(x) for x in zip(*after, strict=True))
    print(f"reads: the first view after a result is written: median of 5 {wall:.1f} ms "
          f"({cpu_ms:.1f} ms CPU); target < 50 ms: {'met' if cpu_ms < 50 else 'missed'} "
          f"(CPU); load average {os.getloadavg()[0]:.1f}")
    _write(store, league_id, _rule_oldest)
    print("reads: the first view after round 1's first result changes (a ruling): "
          "{:.0f} ms ({:.1f} ms CPU)".format(*_clocked(get)))
    _write(store, league_id, _strike_one)
    print("reads: the first view after a withdrawal whose games are struck (every game "
          "counted again): {:.0f} ms ({:.1f} ms CPU)".format(*_clocked(get)))


def _write(store, league_id, change) -> None:
    with store.session() as s:
        change(s, s.exec(select(Season).where(Season.league_id == league_id)).one())
        s.commit()


def _finish_one(s, season, rng) -> None:
    fixture = s.exec(select(Fixture).where(Fixture.season_id == season.id,
                                           Fixture.status == "playing")).first()
    results_.finish(s, fixture, _result(rng))


def _rule_oldest(s, season) -> None:
    """The first game's result changes, as a ruling (on a real game) changes it."""
    fixture = s.exec(select(Fixture).where(Fixture.season_id == season.id)
                     .order_by(Fixture.id)).first()
    fixture.result = dict(fixture.result, winner=1 - fixture.result["winner"])
    results_.changed(s, season.id, fixture)


def _strike_one(s, season) -> None:
    entry = s.exec(select(Entry).where(Entry.season_id == season.id)).first()
    entry.status, entry.games = "withdrawn", "struck"
    s.add(entry)
    results_.changed(s, season.id)


def _clocked(fn) -> tuple[float, float]:
    """One run's wall and CPU time, in ms."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def _player(s, i) -> int:
    from pbem.store.games import player_for

    return player_for(s, f"r{i}@bench.test").id


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--results", type=int, default=5000)
    ap.add_argument("--pg", metavar="URL", help="PostgreSQL server (a scratch schema)")
    ap.add_argument("--only", choices=["reads", "schedules"], help="only these")
    args = ap.parse_args()
    if not args.only:
        bench_draws()
    if args.only in (None, "schedules"):
        bench_schedules()
    if args.only == "schedules":
        return
    with ScratchDatabase(args.pg) as db:
        print(f"database: {db.kind}")
        store = Store(db.url)
        if not args.only:
            bench_season(store, args.players, args.rounds)
        bench_reads(store, args.results)


if __name__ == "__main__":
    main()
