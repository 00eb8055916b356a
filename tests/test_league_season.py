"""A whole season, as its players live it: sixteen players who know only their mail join a
Swiss league by mail (and confirm by the link they are sent), the league's first day comes
and the clock starts it, and robots play every turn mail they get through the real SMTP
door; one player drops out mid-game and the organiser seats a substitute. At the end the
league is exported with `pbem league export`, and the standings and ratings are computed
again here, from the exported logs alone (the engine replays each log; the table and the
Elo are this file's own), and must be what the server shows."""

import json
import random
import re
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta

from click.testing import CliRunner
from sqlmodel import select

from pbem.cli import main
from pbem.engine import Rules, score_pad
from pbem.gamelog import replay_log
from pbem.league.manage import LeagueSpec, create_league, withdraw
from pbem.organise import seasons
from pbem.organise.seasons import substitute
from pbem.store.models import Entry, Fixture, Player, Season, Seat
from tests.league_helpers import ONE_HAND, ORGANISER, rated
from tests.mail_players import DOMAIN, Table, check_secrecy, choose
from tests.web_helpers import BASE, csrf, make_app

PLAYERS = [f"p{i:02d}@league.test" for i in range(16)]
SUB = "sub@league.test"
START = date(2026, 12, 1)
ROUNDS = 3
K, FIRST = 32, 1500.0  # the documented Elo (docs/leagues.md)


def test_a_season_of_sixteen_players_by_mail(store, tmp_path, monkeypatch):
    client = make_app(store, tmp_path, monkeypatch).test_client()
    league = create_league(store, LeagueSpec(ORGANISER, "Sixteen", ONE_HAND, START,
                                             START + timedelta(days=90), pairing="swiss",
                                             rounds=ROUNDS))
    with Table(store, tmp_path) as table:
        join_by_mail(table, client, league.id)
        seasons.tick(store, datetime.combine(START, datetime.min.time(), UTC))
        handed, seat, left = play_season(table, store, league)
        over = [m for m in table.mails.values() if m.subject == "Sixteen: season 1 is over"]
        assert {m.to for m in over} == set(PLAYERS) | {ORGANISER}
        # no mail showed anyone a card they may not see (both holders of the seat handed
        # over saw its cards, each in their time)
        for gid in games_of(store, league.id):
            assert check_secrecy(table, gid, dict(enumerate(seat_players(store, gid)))) > 0
        assert check_secrecy(table, handed, {seat: left}) > 0

    out = tmp_path / "export"
    cli = CliRunner(env={"DATABASE_URL": store.url, "PBEM_VAR_DIR": str(tmp_path)})
    result = cli.invoke(main, ["league", "export", str(league.id), str(out)])
    assert result.exit_code == 0, result.output
    shown = json.loads(cli.invoke(main, ["league", "show", str(league.id), "--json"]).output)

    standings, ratings, record = recompute(out)
    assert len(record["tables"]) == 4 + 3 * (ROUNDS - 1) and shown["status"] == "over"
    assert standings == [_row(r) for r in shown["standings"]]
    assert ratings == {r["name"]: (round(r["rating"], 1), r["games"])
                       for r in shown["ratings"]["players"]}
    assert list(ratings) == [r["name"] for r in shown["ratings"]["players"]]
    # the substitute played for the entry that left: the log names both, the entry scores
    subs = [json.loads(x) for t in record["tables"] for x in (out / t["log"]).read_text()
            .splitlines() if '"substitute"' in x]
    assert [(e["out"], e["in"]) for e in subs] == [(left, SUB)]
    gone = next(r for r in standings if r[0] == left.split("@")[0])
    assert gone[1] == 1 and "sub" not in [r[0] for r in standings]
    assert sum(r[4] for r in standings) == 3 * (ROUNDS - 1)  # 15 left: three byes a round


def join_by_mail(table: Table, client, league_id: int) -> None:
    """Each player mails `join N` to pbem@ and opens the link it gets back."""
    for who in PLAYERS:
        table.send(who, f"pbem@{DOMAIN}", f"join {league_id}")
    table.fetch()
    for who in PLAYERS:
        [mail] = [m for m in table.inbox(who) if m.subject == "Confirm your entry: Sixteen"]
        path = re.search(re.escape(BASE) + r"(/j/confirm/\S+)", mail.text)[1]
        assert client.get(path).status_code == 200
        r = client.post(path, data={"csrf": csrf(client)})
        assert r.status_code == 303, r.text
    table.fetch()
    assert all(any(m.subject == "You are in: Sixteen" for m in table.inbox(who))
               for who in PLAYERS)


def play_season(table: Table, store, league) -> tuple[int, int, str]:
    """Everyone answers their turn mails until the season is over. Early in round one a
    player stops answering: the organiser seats SUB in their place and takes their entry
    out (later rounds are drawn without it: three byes a round). Returns the game, seat and
    player that were handed over."""
    rng = random.Random(16)
    players, moves, left = set(PLAYERS), 0, None
    for _ in range(5000):
        table.fetch()
        todo = [(who, m) for who in sorted(players) for m in table.turns_due(who)]
        if not todo:
            break
        moves += 1
        if moves == 20:
            who, turn = todo[0]
            left = (turn.game, seat_players(store, turn.game).index(who), who)
            drop_out(store, league, *left)
            players = (players - {who}) | {SUB}
            continue
        for who, turn in todo:
            table.reply(who, turn, choose(turn, rng))
    else:
        raise AssertionError("the season did not end")
    refused = [m for m in table.mails.values() if "not done" in m.headline]
    assert not refused, refused[0].text
    with store.session() as s:
        season = s.exec(select(Season).where(Season.league_id == league.id)).one()
    assert season.status == "over" and season.round == ROUNDS
    return left


def drop_out(store, league, game_id: int, seat: int, who: str) -> None:
    """What the organiser does on the organiser's page (its web tests cover the buttons)."""
    with store.session() as s:
        boss = s.exec(select(Player.id).where(Player.email == ORGANISER)).one()
        entry = s.exec(select(Entry.id).join(Player, Player.id == Entry.player_id)
                       .where(Player.email == who)).one()
    substitute(store, league.id, boss, game_id, seat, SUB)
    withdraw(store, league.id, boss, entry)


def games_of(store, league_id: int) -> list[int]:
    with store.session() as s:
        return list(s.exec(select(Fixture.game_id).join(Season)
                           .where(Season.league_id == league_id,
                                  Fixture.game_id.is_not(None))).all())


def seat_players(store, gid: int) -> list[str]:
    with store.session() as s:
        rows = s.exec(select(Seat, Player).join(Player).where(Seat.game_id == gid)
                      .order_by(Seat.seat)).all()
    return [p.email for _, p in rows]


# -- the independent count: from league.json and the logs alone -----------------------------


def recompute(folder):
    record = json.loads((folder / "league.json").read_text())
    season = record["seasons"][0]
    entry_of = {who: e["id"] for e in season["entries"] for who in e["players"]}
    name = {e["id"]: e["name"] for e in season["entries"]}
    rows = {e: defaultdict(int) for e in name}
    games = []
    for t in season["tables"]:
        text = (folder / t["log"]).read_text()
        header = json.loads(text.splitlines()[0])
        pad = score_pad(replay_log(text))
        assert pad["over"] and pad["winner"] is not None
        sides = Rules.from_dict(header["rules"]).sides
        entries = [entry_of[who] for who in header["seats"]]  # who sat down: the entries
        scores = [x["score"] for x in pad["sides"]]
        for i, side in enumerate(sides):
            bags = sum(h["sides"][i]["bags"] for h in pad["hands"])
            best_other = max(v for j, v in enumerate(scores) if j != i)
            for seat in side:
                r = rows[entries[seat]]
                r["played"] += 1
                r["won" if pad["winner"] == i else "lost"] += 1
                r["for"] += scores[i]
                r["against"] += best_other
                r["bags"] += bags
                for h in pad["hands"]:
                    for nil in h["sides"][i].get("nils", []):
                        if nil["seat"] == seat:
                            r["made" if nil["made"] else "failed"] += 1
        events = [json.loads(x) for x in text.splitlines()[1:]]
        if not rated(events, t["timeouts"], len(header["seats"])):
            continue  # the hand-over's game counts in the table, not in the ratings
        games.append((t["finished"], t["game"],
                      [[header["seats"][x] for x in side] for side in sides], scores,
                      pad["winner"]))
    for bye in season["byes"]:
        rows[bye["entry"]]["byes"] += 1
    table = sorted(((name[e], r["played"], r["won"], r["lost"], r["byes"],
                     r["won"] + r["byes"], r["for"], r["against"], r["bags"], r["made"],
                     r["failed"]) for e, r in rows.items()),
                   key=lambda x: (-x[5], -(x[6] - x[7]), -x[6], x[8], x[0]))
    games.sort(key=lambda g: (g[0], g[1]))
    assert [g[1] for g in games] == record["rating_order"]
    return table, elo(games), season


def _row(r: dict) -> tuple:
    return (r["name"], r["played"], r["won"], r["lost"], r["byes"], r["points"],
            r["points_for"], r["points_against"], r["bags"], r["nils_made"], r["nils_failed"])


def elo(games) -> dict[str, tuple[float, int]]:
    """Elo over the games in the order they ended: a side is the mean of its players; the
    winner beats every other side, the others rank by score (equal: a draw)."""
    rating, played = defaultdict(lambda: FIRST), defaultdict(int)
    for _, _, sides, scores, winner in games:
        mean = [sum(rating[p] for p in side) / len(side) for side in sides]
        place = [(0 if i == winner else 1, -scores[i]) for i in range(len(sides))]
        delta = []
        for i in range(len(sides)):
            total = 0.0
            for j in range(len(sides)):
                if j != i:
                    expected = 1 / (1 + 10 ** ((mean[j] - mean[i]) / 400))
                    actual = 1.0 if place[i] < place[j] else 0.5 if place[i] == place[j] else 0
                    total += actual - expected
            delta.append(K / (len(sides) - 1) * total)
        for i, side in enumerate(sides):
            for p in side:
                rating[p] += delta[i]
                played[p] += 1
    names = {p: p.split("@")[0] for p in rating}
    ordered = sorted(rating, key=lambda p: (-round(rating[p], 1), names[p]))
    return {names[p]: (round(rating[p], 1), played[p]) for p in ordered}
