"""Scale: a site with many games stays as fast as a small one.

    .venv/bin/python bench/scale.py [--games 1000 10000] [--players 1000] [--pg URL]
                                    [--no-indexes]

For each size, a scratch database (bench/scratch_db.py: a SQLite file, or a fresh schema of
the PostgreSQL server at --pg / PBEM_TEST_DATABASE_URL) is filled in bulk with that many
games among 1,000 players: half finished, half in play (each waiting on a human seat, with
its pending reminder and timeout), their logs copied from a few template games played
through the door (deals with their commitments and salts, robots' choices), so every
state replays. Beside them, two leagues of 200 players: one with five rounds finished and
round six in play (50 tables), one whose round five just ended (its next round not open
yet). One player ("me") sits in 60 games (30 finished) at every size, so the figures
compare like with like. Then it times (median of 5, a fresh state cache where it says
cold) what a player or the clock waits for, each beside a target:

- /home for "me" (the Flask app, signed in), cold and warm
- `moves` (digest.your_moves) and `games` (the mail command) for "me"
- the league page of the 200-player league (/l/ID)
- the clock's tick (no deadline due), the leagues' tick, and deadlines.rebuild (every
  playing game's deadlines already armed: what a restart pays)
- one move through play.submit (a live game, cold and warm)
- opening the next round of 50 tables (rounds.open_next; then dealing them): once

--no-indexes takes the database back to migration 0007, to show the figures before 0008's
indexes; --explain prints the plan of every timed statement that reads a whole table.
Each figure is the wall time and, beside it, this process's CPU time (on SQLite all the
work is in this process, so a machine busy with other work disturbs it least).
"""

import argparse
import os
import random
import secrets
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import event, insert, text  # noqa: E402
from sqlalchemy.engine import Engine  # noqa: E402
from sqlmodel import func, select  # noqa: E402

from bench.scratch_db import ScratchDatabase  # noqa: E402
from pbem import clock, deadlines, digest, play  # noqa: E402
from pbem.config import load  # noqa: E402
from pbem.engine import choose, preset, view  # noqa: E402
from pbem.league.results import result_of  # noqa: E402
from pbem.mail.commands.base import Context  # noqa: E402
from pbem.mail.commands.games import Games  # noqa: E402
from pbem.organise import seasons  # noqa: E402
from pbem.store.games import create_game  # noqa: E402
from pbem.store.models import (  # noqa: E402
    Deadline,
    DealSecret,
    Entry,
    Fixture,
    Game,
    League,
    Move,
    Player,
    Season,
    Seat,
)
from pbem.store.models import now as utcnow  # noqa: E402
from pbem.store.states import Store  # noqa: E402
from pbem.web.app import create_app  # noqa: E402

RULES = preset("standard").with_options(max_hands=2)  # short finished logs: a bench to fill
TEMPLATES = 6  # finished and live template games each
LEAGUE_SIZE = 200
LEAGUE_GAMES = 2 * 6 * LEAGUE_SIZE // 4  # the two leagues' games: the plan's first
MY_GAMES, MY_FINISHED = 60, 30
CHUNK = 2000
# (what, target in ms): the targets are this bench's, for a page or a move to feel instant
TARGETS = {"home": 300, "home_warm": 100, "moves": 50, "games": 50, "league": 500,
           "tick": 50, "league_tick": 500, "rebuild": 1000, "submit": 150,
           "submit_warm": 50, "open_round": 3000}



def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--players", type=int, default=1000)
    ap.add_argument("--pg", metavar="URL", default=os.environ.get("PBEM_TEST_DATABASE_URL"))
    ap.add_argument("--sqlite", action="store_true", help="SQLite even if PBEM_TEST_... is set")
    ap.add_argument("--no-indexes", action="store_true", help="drop migration 0008's indexes")
    ap.add_argument("--explain", action="store_true",
                    help="print the plans of the timed queries that scan a whole table")
    args = ap.parse_args(argv)
    results = {}
    for n in args.games:
        with ScratchDatabase(None if args.sqlite else args.pg) as db:
            t = time.perf_counter()
            site = fill(Store(db.url), n, args.players)
            filled = time.perf_counter() - t
            if args.no_indexes:
                drop_indexes(db.url)
            print(f"{db.kind}: {n} games, {args.players} players filled in {filled:.0f} s",
                  flush=True)
            seen = watch() if args.explain else None
            results[n] = measure(db.url, site)
            if seen is not None:
                explain(db.url, seen)
            kind = db.kind
    report(kind, results, args.no_indexes)


# -- filling ---------------------------------------------------------------------------------


def fill(store, games: int, players: int) -> SimpleNamespace:
    """The database of one size; returns what the timings need (ids)."""
    finished, live = templates(store)
    with store.session() as s:
        s.execute(insert(Player), [{"email": f"p{i}@scale.test", "name": f"p{i}",
                                    "prefs": {}, "created": utcnow()}
                                   for i in range(players)])
        s.commit()
        pids = list(s.exec(select(Player.id).where(Player.email.like("p%@scale.test"))
                           .order_by(Player.id)).all())
        me = pids[-1]
        next_id = s.exec(select(func.max(Game.id))).one() + 1
    rng = random.Random(games)
    plan = []  # (game id, template, the players at its seats, status)
    others = pids[:-1]
    my_games = set(rng.sample(range(LEAGUE_GAMES, games), MY_GAMES))
    mine_finished = set(sorted(my_games)[:MY_FINISHED])
    for i in range(games):
        seats = rng.sample(others, 4)
        over = i % 2 == 0 if i not in my_games else i in mine_finished
        if i in my_games:
            seats[rng.randrange(4)] = me
        plan.append((next_id + i, rng.choice(finished if over else live), seats))
    league_games, fixtures = leagues(store, plan, pids)
    write_games(store, plan)
    with store.session() as s:
        s.execute(insert(Fixture), fixtures)
        s.commit()
    if store.engine.dialect.name == "postgresql":  # as autovacuum would, after a bulk fill
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(text("ANALYZE"))
    return SimpleNamespace(me=me, league=league_games["live"], ended=league_games["ended"],
                           live=[gid for gid, tpl, _ in plan[LEAGUE_GAMES:] if not tpl.over])


def templates(store):
    """A few games played through the door (humans' moves chosen by the robot): finished
    ones, and live ones stopped at a human seat's turn. Their logs are copied in bulk."""
    def played(stop: int | None):
        gid = create_game(store, RULES, [f"t{i}.{secrets.token_hex(3)}@scale.test"
                                         for i in range(4)], first_dealer=0)
        play.start(store, gid)
        moves = 0
        while True:
            with store.reader() as s:
                st = store.state(s, s.get(Game, gid))
            if st.phase == "over" or (stop is not None and moves >= stop):
                break
            seat = st.to_act()[0]
            play.submit(store, gid, seat, choose(view(st, seat), seed=moves, rules=st.rules),
                        expect_seq=st.seq)
            moves += 1
        return template(store, gid, st)

    rng = random.Random(7)
    return ([played(None) for _ in range(TEMPLATES)],
            [played(rng.randrange(5, 60)) for _ in range(TEMPLATES)])


def template(store, gid, st) -> SimpleNamespace:
    with store.reader() as s:
        moves = [dict(seq=m.seq, type=m.type, payload=m.payload, actor=m.actor,
                      source=m.source) for m in s.exec(select(Move).where(Move.game_id == gid)
                                                       .order_by(Move.seq))]
        salts = [dict(deal_seq=x.deal_seq, salt=x.salt) for x in s.exec(
            select(DealSecret).where(DealSecret.game_id == gid))]
    over = st.phase == "over"
    return SimpleNamespace(moves=moves, salts=salts, over=over, to_act=st.to_act(),
                           move_seq=st.move_seq, result=result_of(st) if over else None,
                           created=utcnow())


def write_games(store, plan) -> None:
    now = utcnow()
    rows = {"game": [], "seat": [], "move": [], "salt": [], "deadline": []}
    with store.session() as s:
        for gid, tpl, seats in plan:
            rows["game"].append(dict(id=gid, rules=RULES.to_dict(), time_control={},
                                     status="over" if tpl.over else "playing", public=True,
                                     first_dealer=0, created=now))
            rows["seat"] += [dict(game_id=gid, seat=i, player_id=p, robot=False, accepted=True,
                                  token=secrets.token_hex(10)) for i, p in enumerate(seats)]
            rows["move"] += [dict(m, game_id=gid, ref=None, created=now) for m in tpl.moves]
            rows["salt"] += [dict(x, game_id=gid) for x in tpl.salts]
            rows["deadline"] += [  # a site's history: each human move's timeout, passed
                dict(game_id=gid, seat=m["actor"], seq=m["seq"] - 1, kind="timeout",
                     hours_before=0, due=now - timedelta(days=30, minutes=m["seq"]),
                     state="cancelled", claimed_at=None, result="")
                for m in tpl.moves if m["source"] == "cli"]
            if not tpl.over:
                for seat in tpl.to_act:
                    rows["deadline"] += [
                        dict(game_id=gid, seat=seat, seq=tpl.move_seq, kind=kind,
                             hours_before=h, due=now + timedelta(hours=72 - h),
                             state="pending", claimed_at=None, result="")
                        for kind, h in (("reminder", 24), ("timeout", 0))]
            if len(rows["move"]) > 20 * CHUNK:
                _flush(s, rows)
        _flush(s, rows)
        if s.get_bind().dialect.name == "postgresql":  # ids given: the sequence moves on too
            s.execute(text("SELECT setval(pg_get_serial_sequence('game', 'id'), "
                           "(SELECT max(id) FROM game))"))
        s.commit()


def _flush(s, rows) -> None:
    for table, name in ((Game, "game"), (Seat, "seat"), (Move, "move"), (DealSecret, "salt"),
                        (Deadline, "deadline")):
        for i in range(0, len(rows[name]), CHUNK):
            s.execute(insert(table), rows[name][i:i + CHUNK])
        rows[name].clear()


def leagues(store, plan, pids) -> dict:
    """Two 200-player Swiss leagues over the plan's first games: "live" in round six (five
    finished), "ended" with its round five just over. Their games' seats are the entries'
    players, and their status follows the fixture. Returns the leagues' (league, season)
    ids and the fixture rows, to write once their games exist."""
    out, fixtures = {}, []
    today = utcnow().date()
    finished = [tpl for _, tpl, _ in plan if tpl.over][:1] or [plan[0][1]]
    live = [tpl for _, tpl, _ in plan if not tpl.over][:1] or [plan[0][1]]
    with store.session() as s:
        boss = pids[0]
        for k, (name, players, played, playing) in enumerate(
                (("live", pids[:LEAGUE_SIZE], 5, True),
                 ("ended", pids[LEAGUE_SIZE:2 * LEAGUE_SIZE], 5, False))):
            lg = League(name=f"Scale {name}", rules=RULES.to_dict(), pairing="swiss",
                        rounds=10, organiser_id=boss, admin_token=secrets.token_hex(10),
                        join_token=secrets.token_hex(10), seed=f"scale{k}")
            s.add(lg)
            s.flush()
            sn = Season(league_id=lg.id, number=1, starts=today - timedelta(days=60),
                        ends=today + timedelta(days=300), status="running",
                        round=played + playing, rounds=10)
            s.add(sn)
            s.flush()
            entries = [Entry(season_id=sn.id, player_id=p, name=f"e{p}") for p in players]
            s.add_all(entries)
            s.flush()
            base = k * (played + 1) * LEAGUE_SIZE // 4
            rng = random.Random(k)
            for r in range(1, played + playing + 1):
                order = list(entries)
                rng.shuffle(order)
                for board in range(1, LEAGUE_SIZE // 4 + 1):
                    i = base + (r - 1) * LEAGUE_SIZE // 4 + board - 1
                    table = order[(board - 1) * 4:board * 4]
                    over = r <= played
                    tpl = rng.choice(finished if over else live)
                    gid = plan[i][0]
                    plan[i] = (gid, tpl, [e.player_id for e in table])
                    fixtures.append(dict(season_id=sn.id, round=r, board=board,
                                         seats=[e.id for e in table], game_id=gid,
                                         status="over" if over else "playing",
                                         result=tpl.result or {},
                                         finished=utcnow() if over else None))
            out[name] = (lg.id, sn.id)
        s.commit()
    return out, fixtures

# -- timing ----------------------------------------------------------------------------------


def drop_indexes(url: str) -> None:
    """The schema as it was before migration 0008 (its indexes)."""
    from alembic import command

    from pbem.store.db import alembic_config

    command.downgrade(alembic_config(url), "0007")


def watch() -> dict:
    """Every distinct statement run from now on (its text -> its first parameters)."""
    seen: dict = {}

    @event.listens_for(Engine, "before_cursor_execute")
    def _seen(conn, cursor, statement, params, context, executemany):
        if not executemany and statement.lstrip().upper().startswith(("SELECT", "UPDATE")):
            seen.setdefault(statement, params)

    return seen


def explain(url: str, seen: dict) -> None:
    """The plan of each statement seen that reads a whole table or index (SQLite's SCAN,
    PostgreSQL's Seq Scan), so a missing index shows."""
    from pbem.store.db import engine_for

    engine = engine_for(url)
    sqlite = engine.dialect.name == "sqlite"
    print(f"\nstatements that scan a table ({len(seen)} distinct statements timed):")
    with engine.connect() as c:
        for statement, params in list(seen.items()):
            sql = ("EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN ") + statement
            plan = [" ".join(str(x) for x in row[-1:]) for row in c.exec_driver_sql(sql, params)]
            scans = [x for x in plan if (x.startswith("SCAN ") and "CONSTANT ROW" not in x)
                     or "Seq Scan" in x]
            if scans:
                print("  " + " ".join(statement.split())[:300])
                print("".join(f"      {x}\n" for x in plan), end="")


def median_ms(fn, times: int = 5, fresh=None) -> tuple[float, float]:
    """The median wall time and the median CPU time of this process (on SQLite, all the
    work: the figure a busy machine disturbs least), in ms."""
    runs, cpu = [], []
    for _ in range(times):
        arg = fresh() if fresh else None
        t, c = time.perf_counter(), time.process_time()
        fn(arg)
        runs.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(runs) * 1000, statistics.median(cpu) * 1000


def measure(url: str, site) -> dict:
    store = Store(url)
    out = {}
    me = site.me

    def client(st):
        c = create_app(load(), st, testing=True).test_client()
        with c.session_transaction() as sess:
            sess["player"], sess["epoch"] = me, 0
        return c

    def home(c):
        r = c.get("/home")
        assert r.status_code == 200, r.status_code

    out["home"] = median_ms(home, fresh=lambda: client(Store(url)))
    warm = client(store)
    home(warm)
    out["home_warm"] = median_ms(lambda _: home(warm))
    out["moves"] = median_ms(lambda _: digest.your_moves(store, me))
    with store.reader() as s:
        player = s.get(Player, me)
    ctx = Context(store=store, player=player)  # the mail command's own context
    out["games"] = median_ms(lambda _: Games().process(ctx, ""))
    lg, _ = site.league

    def league(_):
        r = warm.get(f"/l/{lg}")
        assert r.status_code == 200 and "Scale live" in r.text, r.status_code

    out["league"] = median_ms(league)
    _, season = site.ended  # before the leagues' tick, which would open it
    opened = []
    out["open_round"] = median_ms(lambda _: opened.extend(seasons.advance(store, season)), 1)
    assert len(opened) == LEAGUE_SIZE // 4, f"{len(opened)} tables opened"
    out["tick"] = median_ms(lambda _: clock.tick(store))
    out["league_tick"] = median_ms(lambda _: clock.league_tick(store))
    out["rebuild"] = median_ms(lambda _: deadlines.rebuild(store))
    games = iter(site.live)
    out["submit"] = median_ms(lambda st: one_move(st, next(games)), fresh=lambda: Store(url))
    out["submit_warm"] = median_ms(lambda _: one_move(store, next(games)))
    return out


def one_move(store, gid) -> None:
    with store.reader() as s:
        st = store.state(s, s.get(Game, gid))
    store.keep(gid, st)
    seat = st.to_act()[0]
    play.submit(store, gid, seat, choose(view(st, seat), seed=1, rules=st.rules),
                expect_seq=st.seq, source="web")


def report(kind, results, no_indexes) -> None:
    sizes = sorted(results)
    print(f"\n{kind}{' before migration 0008' if no_indexes else ''}: ms, median of 5 "
          "(open_round: once), wall time (this process's CPU time)")
    print(f"  {'what':14}" + "".join(f"{n:>17} games" for n in sizes) + f"{'target':>10}")
    for key, target in TARGETS.items():
        row = "".join(f"{results[n][key][0]:>12.1f} ({results[n][key][1]:>7.1f})"
                      for n in sizes)
        print(f"  {key:14}{row}{'< ' + str(target):>10}")


if __name__ == "__main__":
    main()
