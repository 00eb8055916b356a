"""A league's year (issue 16, "Proof"), under faked time: two Swiss seasons, of 16 entries
and then the 15 left, with timeouts under a timeout-forfeit option, a substitute and a
withdrawal whose games stand, a pause and a resume, rulings (a win given, an adjustment
taken back, a replay) and a withdrawal whose games are struck. Then `pbem league export`,
and the standings (with forfeits), the Elo and the Glicko-2 ratings are computed again here
from the export alone, by this file's own small implementations (not pbem's), and must be
what `pbem league show --json` shows.

The export's logs carry every move, hand-over and ruling; the clock's timeouts are not log
events (a move the clock's robot made is a move like any other in a log), so league.json
gives each finished table's `timeouts` per seat. PBEM_YEAR_ROUNDS (default 3) sets the
rounds of each season; every game is one hand (league_helpers.ONE_HAND)."""

import json
import math
import os
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from click.testing import CliRunner

from pbem import clock
from pbem.cli import main
from pbem.engine import Rules, score_pad
from pbem.gamelog import replay_log
from pbem.league.manage import OPERATOR, add_season, withdraw
from pbem.league.pause import pause, resume
from pbem.organise.adjudicate import adjudicate, parse
from pbem.organise.seasons import start_season, substitute
from pbem.store.models import Entry
from tests.league_helpers import fixtures, league, play_out, rated, state

ROUNDS = int(os.environ.get("PBEM_YEAR_ROUNDS", "3"))
T0 = datetime(2026, 11, 24, 12, tzinfo=UTC)
SUB = "sub@league.test"
FORFEIT = 2  # the league's --timeout-forfeit
TIME = {"move_hours": 24, "on_timeout": "robot"}
STEP = timedelta(minutes=7)  # between games, so every game ends at a time of its own


@pytest.mark.slow
def test_a_year_of_a_league_is_recomputed_from_its_export(store, tmp_path):
    with time_machine.travel(T0, tick=False) as tm:
        lid = league(store, players=16, rounds=ROUNDS, time_control=TIME,
                     timeout_forfeit=FORFEIT)
        timed_out, handed = first_season(store, lid, tm)
        second_season(store, lid, tm)

    out = tmp_path / "export"
    cli = CliRunner(env={"DATABASE_URL": store.url, "PBEM_VAR_DIR": str(tmp_path)})
    result = cli.invoke(main, ["league", "export", str(lid), str(out)])
    assert result.exit_code == 0, result.output
    record = json.loads((out / "league.json").read_text())
    assert record["league"]["timeout_forfeit"] == FORFEIT
    assert [len(s["entries"]) for s in record["seasons"]] == [16, 15]

    shown = {}
    for number in (1, 2):
        r = cli.invoke(main, ["league", "show", str(lid), "--season", str(number), "--json"])
        assert r.exit_code == 0, r.output
        shown[number] = json.loads(r.output)
        assert shown[number]["status"] == "over"
    games = []
    for number, season in enumerate(record["seasons"], start=1):
        table, played = recompute_season(out, record, season)
        assert table == [_row(r) for r in shown[number]["standings"]], number
        games += played
    # the forfeit, the hand-over and the withdrawals are in the table as the test made them
    first = {r["name"]: r for r in shown[1]["standings"]}
    assert sum(r["forfeits"] for r in first.values()) >= 1
    assert first[handed]["note"] == "games stand" and first[handed]["played"] == 1
    assert [r["note"] for r in shown[2]["standings"]][-1] == "games struck"
    assert timed_out in {r["name"] for r in first.values() if r["forfeits"]}

    rated = sorted((g for g in games if g["rated"]), key=lambda g: (g["finished"], g["game"]))
    assert [g["game"] for g in rated] == record["rating_order"]
    assert 0 < len(rated) < len(games)  # the substitute's game is not rated, nor the replay
    names = {who: e["name"] for s in record["seasons"] for e in s["entries"]
             for who in e["players"]}
    server = {r["name"]: r for r in shown[2]["ratings"]["players"]}
    elo, glicko = elo_of(rated), glicko_of(rated)
    assert set(server) == {names[p] for p in elo}
    for who, rating in elo.items():
        row = server[names[who]]
        assert row["rating"] == pytest.approx(rating, abs=0.051), who
        assert row["glicko"] == pytest.approx(glicko[who][0], abs=0.051), who
        assert row["rd"] == pytest.approx(glicko[who][1], abs=0.051), who
        assert row["games"] == sum(who in p for g in rated for p in g["sides"])


# -- the year, as the organiser and the players live it ---------------------------------------


def first_season(store, lid, tm) -> tuple[str, str]:
    """Round one: a seat times out twice (its side forfeits), another seat is handed to a
    substitute before it moved and its entry withdrawn (games stand), and two rulings are
    made (a win given to the losers; an adjustment, then taken back). Round two is paused
    for three days. Returns the names of the entry that timed out and of the one handed."""
    start_season(store, lid, OPERATOR)
    late, handed, *rest = playing(store, lid)
    substitute(store, lid, OPERATOR, handed, 1, SUB)
    gone = fixture(store, lid, handed).seats[1]
    withdraw(store, lid, OPERATOR, gone, "stand")
    for gid in [handed, *rest]:
        finish(store, gid, tm)
    time_out_twice(store, late, seat=0, tm=tm)
    given, adjusted = rest[:2]
    win = 1 - state(store, given).winner  # the losers (0 based; the organiser counts from 1)
    adjudicate(store, lid, OPERATOR, given, parse(["win", str(win + 1)], "a revoke seen late"))
    res = adjudicate(store, lid, OPERATOR, adjusted, parse(["adjust", "+30", "-30"], "a slip"))
    adjudicate(store, lid, OPERATOR, adjusted,
                parse(["undo", str(res.events[0]["seq"])], "the wrong game"))
    finish(store, late, tm)  # the round's last game: round two opens
    assert fixture(store, lid, late).result["timeouts"][0] == 2
    second = playing(store, lid)
    tm.shift(timedelta(hours=1))
    assert pause(store, lid, OPERATOR) == [1]
    tm.shift(timedelta(days=3))
    assert clock.tick(store) == 0  # every deadline is long past due, and none fires
    assert resume(store, lid, OPERATOR) == [1]
    for gid in second:
        finish(store, gid, tm)
    play_rounds(store, lid, 1, tm)
    return entry_name(store, lid, late, 0), entry_name(store, lid, handed, 1)


def second_season(store, lid, tm) -> None:
    """The entries still in are entered again (15); after round one, one of them leaves and
    the organiser strikes its games; a game of round two is to be replayed."""
    today = datetime.now(UTC).date()
    add_season(store, lid, OPERATOR, today + timedelta(days=10), today + timedelta(days=200))
    tm.shift(timedelta(days=1))
    start_season(store, lid, OPERATOR)
    one = playing(store, lid, 2)
    for gid in one:
        finish(store, gid, tm)
    struck = fixture(store, lid, one[0], 2).seats[2]
    withdraw(store, lid, OPERATOR, struck, "struck")
    two = playing(store, lid, 2)
    for gid in two:
        finish(store, gid, tm)
    adjudicate(store, lid, OPERATOR, two[-1], parse(["replay"], "a misdeal found after"))
    play_rounds(store, lid, 2, tm)


def playing(store, lid, number=1) -> list[int]:
    return [f.game_id for f in fixtures(store, lid, number) if f.status == "playing"]


def fixture(store, lid, gid, number=1):
    return next(f for f in fixtures(store, lid, number) if f.game_id == gid)


def entry_name(store, lid, gid, seat) -> str:
    with store.session() as s:
        return s.get(Entry, fixture(store, lid, gid).seats[seat]).name


def finish(store, gid, tm) -> None:
    tm.shift(STEP)
    play_out(store, gid, seed=gid)


def play_rounds(store, lid, number, tm) -> None:
    for _ in range(ROUNDS + 1):
        games = playing(store, lid, number)
        if not games:
            return
        for gid in games:
            finish(store, gid, tm)
    raise AssertionError("the season did not end")


def time_out_twice(store, gid, seat, tm) -> None:
    """`seat` lets its deadline pass twice: the clock's robot moves for it each time."""
    for _ in range(2):
        play_out(store, gid, seed=gid, until=seat)  # the others move
        seq = state(store, gid).seq
        tm.shift(timedelta(hours=TIME["move_hours"], minutes=1))
        assert clock.tick(store) >= 1
        assert state(store, gid).seq > seq


# -- the independent count: league.json and the logs alone -----------------------------------



def recompute_season(folder, record, season) -> tuple[list[tuple], list[dict]]:
    """The season's table as docs/leagues.md defines it, and its games for the ratings."""
    forfeit_after = record["league"]["timeout_forfeit"]
    players = {e["id"]: e["players"] for e in season["entries"]}
    name = {e["id"]: e["name"] for e in season["entries"]}
    struck = {e["id"] for e in season["entries"] if e["games"] == "struck"}
    note = {e["id"]: f"games {e['games']}" for e in season["entries"] if e["games"]}
    rows = {e: defaultdict(int) for e in name}
    games = []
    for t in season["tables"]:
        events = [json.loads(x) for x in (folder / t["log"]).read_text().splitlines()[1:]]
        header = json.loads((folder / t["log"]).read_text().splitlines()[0])
        pad = score_pad(replay_log((folder / t["log"]).read_text()))
        sides = Rules.from_dict(header["rules"]).sides
        scores = [x["score"] for x in pad["sides"]]
        ruling = ruling_in_force(events)
        winner = pad["winner"]
        if ruling and ruling["result"] == "replay":
            continue
        if ruling and ruling["result"] == "win":
            winner = ruling["side"]
        if ruling and ruling["result"] == "loss":  # the best other side by score
            winner = max((i for i in range(len(sides)) if i != ruling["side"]),
                         key=lambda i: (scores[i], -i))
        if ruling and ruling["result"] == "adjust":
            scores = [a + b for a, b in zip(scores, ruling["points"], strict=True)]
        timeouts = t["timeouts"]
        lost = set() if ruling else {i for i, side in enumerate(sides)
                                     if sum(timeouts[x] for x in side) >= forfeit_after}
        if winner in lost:
            left = [i for i in range(len(sides)) if i not in lost]
            winner = max(left, key=lambda i: (scores[i], -i)) if left else None
        games.append({"game": t["game"], "finished": t["finished"], "scores": scores,
                      "winner": winner if ruling else pad["winner"],  # forfeits: table only
                      "sides": [sorted({p for x in side for p in players[t["seats"][x]]})
                                for side in sides],
                      "rated": rated(events, timeouts, len(header["seats"]))})
        if struck & set(t["seats"]):
            continue
        for i, side in enumerate(sides):
            bags = sum(h["sides"][i]["bags"] for h in pad["hands"])
            for entry in dict.fromkeys(t["seats"][x] for x in side):
                r = rows[entry]
                r["played"] += 1
                r["won" if winner == i else "lost"] += 1
                r["forfeits"] += i in lost
                r["for"] += scores[i]
                r["against"] += max(v for j, v in enumerate(scores) if j != i)
                r["bags"] += bags
                for h in pad["hands"]:
                    for nil in h["sides"][i].get("nils", []):
                        if t["seats"][nil["seat"]] == entry:
                            r["made" if nil["made"] else "failed"] += 1
    for bye in season["byes"]:
        if bye["entry"] not in struck:
            rows[bye["entry"]]["byes"] += 1
    table = [(name[e], r["played"], r["won"], r["lost"], r["byes"], r["won"] + r["byes"],
              r["for"], r["against"], r["bags"], r["made"], r["failed"], r["forfeits"],
              note.get(e, "")) for e, r in rows.items()]
    key = lambda x: (-x[5], -(x[6] - x[7]), -x[6], x[8])  # noqa: E731
    ranked, rank = [], 0
    for i, x in enumerate(sorted((x for x in table if x[0] not in
                                  {name[e] for e in struck}), key=lambda x: (*key(x), x[0]))):
        rank = rank if ranked and key(ranked[-1][1:]) == key(x) else i + 1
        ranked.append((rank, *x))
    return ranked + sorted((0, *x) for x in table if x[0] in {name[e] for e in struck}), games


def ruling_in_force(events) -> dict | None:
    """The latest `adjudicate` event not taken back by a later one."""
    standing = []
    for ev in events:
        if ev["type"] == "adjudicate":
            if ev["result"] == "undo":
                standing = [x for x in standing if x["seq"] != ev["undo"]]
            else:
                standing.append(ev)
    return standing[-1] if standing else None


def _row(r: dict) -> tuple:
    return (r["rank"], r["name"], r["played"], r["won"], r["lost"], r["byes"], r["points"],
            r["points_for"], r["points_against"], r["bags"], r["nils_made"], r["nils_failed"],
            r["forfeits"], r["note"])


def order(g) -> list[tuple]:
    """Each side's place: the winner first, the others by score (equal: a draw)."""
    return [(0 if i == g["winner"] else 1, -s) for i, s in enumerate(g["scores"])]


def result(a, b) -> float:
    return 1.0 if a < b else 0.5 if a == b else 0.0


def elo_of(games) -> dict[str, float]:
    """Elo, K 32, from 1500: a side is its players' mean; each side against every other."""
    rating = defaultdict(lambda: 1500.0)
    for g in games:
        mean = [sum(rating[p] for p in side) / len(side) for side in g["sides"]]
        place, m = order(g), len(g["sides"])
        change = [32 / (m - 1) * sum(result(place[i], place[j])
                                     - 1 / (1 + 10 ** ((mean[j] - mean[i]) / 400))
                                     for j in range(m) if j != i) for i in range(m)]
        for side, d in zip(g["sides"], change, strict=True):
            for p in side:
                rating[p] += d
    return dict(rating)


Q = 173.7178  # Glicko-2's scale


def glicko_of(games) -> dict[str, tuple[float, float]]:
    """Glicko-2 (Glickman's example paper), each game one rating period for its players;
    a side as one opponent: mean rating, root mean square deviation."""
    me = defaultdict(lambda: (0.0, 350 / Q, 0.06))  # mu, phi, sigma
    for g in games:
        opp = [(sum(me[p][0] for p in side) / len(side),
                math.sqrt(sum(me[p][1] ** 2 for p in side) / len(side))) for side in g["sides"]]
        place, new = order(g), {}
        for i, side in enumerate(g["sides"]):
            against = [(*opp[j], result(place[i], place[j]))
                       for j in range(len(opp)) if j != i]
            for p in side:
                new[p] = period(*me[p], against)
        me.update(new)
    return {p: (1500 + Q * mu, Q * phi) for p, (mu, phi, _) in me.items()}


def period(mu, phi, sigma, against):
    g = [1 / math.sqrt(1 + 3 * f * f / math.pi ** 2) for _, f, _ in against]
    e = [1 / (1 + math.exp(-gj * (mu - mj))) for gj, (mj, _, _) in zip(g, against, strict=True)]
    v = 1 / sum(gj * gj * ej * (1 - ej) for gj, ej in zip(g, e, strict=True))
    gain = sum(gj * (s - ej) for gj, ej, (_, _, s) in zip(g, e, against, strict=True))
    sigma = volatility(phi, sigma, v, v * gain)
    phi = 1 / math.sqrt(1 / (phi * phi + sigma * sigma) + 1 / v)
    return mu + phi * phi * gain, phi, sigma


def volatility(phi, sigma, v, delta, tau=0.5):
    """Step 5 by bisection (the paper uses the Illinois method; both find the same root)."""
    a = math.log(sigma * sigma)

    def f(x):
        d = phi * phi + v + math.exp(x)
        return math.exp(x) * (delta * delta - d) / (2 * d * d) - (x - a) / tau ** 2

    lo, hi = a - 20, a + 20  # f falls from positive to negative across its one root
    assert f(lo) > 0 > f(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return math.exp(lo / 2)


def test_recompute_reads_rulings_and_hand_overs_as_documented():
    # the test's own readers, on a small made-up log: an adjustment taken back leaves the
    # win in force; a seat handed over after one of its three moves is not its player's
    events = [{"seq": 1, "type": "adjudicate", "result": "win", "side": 1, "reason": "a"},
              {"seq": 2, "type": "adjudicate", "result": "adjust", "points": [5, -5],
               "reason": "b"},
              {"seq": 3, "type": "adjudicate", "result": "undo", "undo": 2, "reason": "c"}]
    assert ruling_in_force(events)["seq"] == 1
    moves = [{"type": "bid", "seat": 0}, {"type": "substitute", "seat": 0},
             {"type": "play", "seat": 0}, {"type": "play", "seat": 0}]
    assert not rated(moves, [0], 1) and rated(moves[:1], [0], 1)
    assert not rated(moves[:1], [1], 1)  # its one move was the clock's robot's
