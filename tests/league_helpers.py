"""Helpers for the league tests: a league with its entries, games played out through the one
door, and a snapshot of everything a refused league action must leave as it was."""

from datetime import date, timedelta

from sqlalchemy import func
from sqlmodel import select

from pbem.engine import choose, preset, view
from pbem.league.manage import LeagueSpec, create_league, join
from pbem.play import submit
from pbem.store.models import Entry, Fixture, Game, Move, Outbox, Player, Season

ORGANISER = "boss@league.test"
TODAY = date(2026, 11, 23)
ONE_HAND = preset("standard").with_options(max_hands=1)  # short games: one hand (a tie: more)


def league(store, players: int = 8, entry: str = "single", pairing: str = "swiss",
           rules=ONE_HAND, **kw) -> int:
    """A league whose first season starts in a week, with `players` players entered (pairs:
    p0 with p1, p2 with p3 ...)."""
    spec = LeagueSpec(ORGANISER, "Test League", rules, TODAY + timedelta(days=7),
                      TODAY + timedelta(days=200), entry=entry, pairing=pairing, **kw)
    lg = create_league(store, spec)
    step = 2 if entry == "pair" else 1
    for i in range(0, players, step):
        join(store, lg.id, f"p{i}@league.test",
             partner=f"p{i + 1}@league.test" if entry == "pair" else None)
    if entry == "pair":
        from pbem.league.manage import accept_partner

        with store.session() as s:
            pending = s.exec(select(Entry.id, Player.email).join(
                Player, Player.id == Entry.partner_id).where(Entry.status == "pending")).all()
        for entry_id, email in pending:
            accept_partner(store, entry_id, email)
    return lg.id


def season(store, league_id: int, number: int = 1) -> Season:
    with store.reader() as s:  # never the write lock (test_league_rounds checks it is free)
        return s.exec(select(Season).where(Season.league_id == league_id,
                                           Season.number == number)).one()


def fixtures(store, league_id: int, number: int = 1) -> list[Fixture]:
    sid = season(store, league_id, number).id
    with store.session() as s:
        return list(s.exec(select(Fixture).where(Fixture.season_id == sid)
                           .order_by(Fixture.round, Fixture.board)).all())


def playing_games(store, league_id: int) -> list[int]:
    return [f.game_id for f in fixtures(store, league_id) if f.status == "playing"]


def state(store, gid):
    with store.reader() as s:
        st = store.state(s, s.get(Game, gid))
    store.keep(gid, st)
    return st.snapshot()


def play_out(store, gid: int, seed: int = 0, limit: int = 5000,
             until: int | None = None) -> None:
    """Every seat moves as the robot would choose, through play.submit, to the end (or
    until it is seat `until`'s turn)."""
    for _ in range(limit):
        st = state(store, gid)
        if st.phase == "over":
            if until is not None:
                raise AssertionError(f"game {gid} ended before seat {until} was to act")
            return
        seat = st.to_act()[0]
        if seat == until:
            return
        submit(store, gid, seat, choose(view(st, seat), seed=seed, rules=st.rules),
               expect_seq=st.seq, source="web")
    raise AssertionError(f"game {gid} did not end")


def play_season(store, league_id: int, number: int = 1, limit: int = 100) -> int:
    """Play every game as rounds open (the last move of a round opens the next), until
    none is left; returns how many games were played."""
    played = 0
    for _ in range(limit):
        games = [f.game_id for f in fixtures(store, league_id, number) if f.status == "playing"]
        if not games:
            return played
        for gid in games:
            play_out(store, gid, seed=gid)
            played += 1
    raise AssertionError("the season did not end")


def replay_ruled(store, rounds=None):
    """A Swiss league of four, round one's game played and ruled a replay: (league, game)."""
    from pbem.league.manage import OPERATOR
    from pbem.organise.adjudicate import adjudicate, parse
    from pbem.organise.seasons import start_season

    lid = league(store, players=4, rounds=rounds)
    start_season(store, lid, OPERATOR)
    gid = fixtures(store, lid)[0].game_id
    play_out(store, gid, seed=1)
    adjudicate(store, lid, OPERATOR, gid, parse(["replay"], "a misdeal went unseen"))
    return lid, gid


def snapshot(store) -> dict:
    """Counts of every league and game table, and the entries as they are."""
    with store.session() as s:
        counts = {m.__name__: s.exec(select(func.count()).select_from(m)).one()
                  for m in (Entry, Fixture, Game, Move, Outbox, Season)}
        counts["entries"] = sorted((e.id, e.status, e.player_id, e.partner_id)
                                   for e in s.exec(select(Entry)).all())
        counts["seasons"] = sorted((x.id, x.status, x.round) for x in s.exec(select(Season)))
    return counts


MOVES = ("bid", "play", "claim")


def rated(events, timeouts, n) -> bool:
    """Rated when each seat's first player made more than half of its moves: not those
    after a hand-over, nor those the clock's robot made on a timeout (with `on_timeout:
    robot` a timeout is one robot move; docs/leagues.md, "Which games are rated"). The
    tests that use it make no organiser's robot move (a log does not tell it apart).
    From an exported log's events and its table's `timeouts` (league.json)."""
    moves, own, handed = [0] * n, [0] * n, [False] * n
    for ev in events:
        if ev["type"] == "substitute":
            handed[ev["seat"]] = True
        elif ev["type"] in MOVES:
            moves[ev["seat"]] += 1
            own[ev["seat"]] += not handed[ev["seat"]]
    return all(2 * (own[x] - timeouts[x]) > moves[x] for x in range(n))
