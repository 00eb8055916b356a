"""Open seeks (issue 34): posted by mail (`seek`) or on the home page, listed (`seeks`,
/seeks), taken (`accept N`, a button) and withdrawn (`unseek N`). The last seat deals the
game through the door (each seat is mailed); the clock seats robots after N days, or the
seek expires and its players are told. Bad input, strangers and forged senders change
nothing; two joiners for the last seat, or a join and the robots at once, make one game."""

import itertools
import threading
from datetime import timedelta

import pytest
from mail_helpers import ANN, account, running, text
from sqlalchemy import func
from sqlmodel import select

from pbem.clock import seek_tick
from pbem.engine import preset
from pbem.league.manage import OPERATOR
from pbem.organise import seeks
from pbem.organise.seasons import start_season
from pbem.store.games import player_for
from pbem.store.models import Game, Outbox, Player, Seat, Seek, SeekSeat
from pbem.store.models import now as utcnow
from pbem.store.states import Store
from tests.league_helpers import league, play_season
from tests.web_helpers import csrf, database, posted, sign_in

BOB, CY, DI, EVE = "bob@example.org", "cy@example.org", "di@example.org", "eve@example.org"
MTA = "mx.pbem.test"
_MIDS = itertools.count()


def players(store, *emails) -> list[int]:
    with store.session() as s:
        ids = [player_for(s, e).id for e in emails]
        s.commit()
    return ids


def spec(**form) -> seeks.Spec:
    return seeks.read_spec({"preset": "standard", **form})


def seated(store, seek_id) -> list[int]:
    with store.reader() as s:
        return list(s.exec(select(SeekSeat.player_id).where(SeekSeat.seek_id == seek_id)
                           .order_by(SeekSeat.id)).all())


def seek_row(store, seek_id) -> Seek:
    with store.reader() as s:
        return s.get(Seek, seek_id)


def game_seats(store, gid) -> list[Seat]:
    with store.reader() as s:
        return list(s.exec(select(Seat).where(Seat.game_id == gid).order_by(Seat.seat)).all())


def rows(store) -> dict:
    """Every row but the mails in and out: what a refused mail must leave as it was."""
    return {k: v for k, v in database(store).items() if k not in ("inbound", "outbox")}


def mailed(store, subject: str) -> list[str]:
    with store.reader() as s:
        return sorted(s.exec(select(Outbox.to_addr).where(Outbox.subject == subject)).all())


def games(store) -> int:
    with store.reader() as s:
        return s.exec(select(func.count()).select_from(Game)).one()


# -- by mail -------------------------------------------------------------------------------


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_AUTHSERV_ID", MTA)
    players(store, ANN, BOB, CY, DI)
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def ask(env, who: str, body: str, **headers) -> str:
    """Mail `body` to `who`'s account address from `who`; the answer's text."""
    mid = f"<seek-{next(_MIDS)}@example.org>"  # each mail its own: the same one is done once
    assert env.send(env.mail(account(env, who), body, frm=who, subject="seek", mid=mid,
                             **headers))[0] == 250
    [answer] = [m for m in env.replies() if m["To"] == who and "Re:" in str(m["Subject"])]
    return " ".join(text(answer).split())  # as read, not as wrapped


def test_a_seek_by_mail_is_listed_taken_and_dealt_with_a_mail_to_every_seat(env):
    said = ask(env, ANN, "seek standard clock 48h forfeit rating 1000-2000 robots after 3 days")
    assert "seek 1 is open" in said
    row = seek_row(env.store, 1)
    assert row.status == "open" and (row.rating_min, row.rating_max) == (1000, 2000)
    assert row.time_control["move_hours"] == 48 and row.time_control["on_timeout"] == "forfeit"
    assert row.robots and timedelta(days=2, hours=23) < row.due - row.created <= timedelta(days=3)

    listed = ask(env, BOB, "seeks")
    assert "1: standard, 48 hours a move" in listed and "1 of 4 seats taken (ann)" in listed
    assert "ratings 1000-2000" in listed and "robots fill the empty seats on" in listed
    assert "you have a seat; 2 seats are still empty" in ask(env, BOB, "accept 1")
    assert "you have a seat; 1 seat is still empty" in ask(env, CY, "accept 1")
    assert games(env.store) == 0
    env.replies()
    said = ask(env, DI, "accept 1")
    assert "the table is full, game 1 is dealt" in said
    row = seek_row(env.store, 1)
    assert row.status == "started" and row.game_id == 1
    seats = game_seats(env.store, 1)
    with env.store.reader() as s:
        emails = [s.get(Player, x.player_id).email for x in seats]
        game = s.get(Game, 1)
        st = env.store.state(s, game)
        turn = s.exec(select(Outbox.to_addr).where(Outbox.game_id == 1)).all()
    assert emails == [ANN, BOB, CY, DI] and not any(x.robot for x in seats)
    assert game.status == "playing" and game.time_control["move_hours"] == 48
    assert st.phase == "bid" and [emails[x] for x in st.to_act()] == turn  # as any game's
    assert mailed(env.store, "Seek 1: game 1 is dealt") == sorted([ANN, BOB, CY, DI])
    assert "seeks: none is open" in ask(env, BOB, "seeks")
    assert "seek 1 is started" in ask(env, BOB, "accept 1")


def test_refusals_by_mail_change_nothing(env):
    ask(env, ANN, "seek standard")
    ask(env, BOB, "accept 1")
    before = rows(env.store)
    for who, body, words in [
            (ANN, "seek", "write: seek PRESET"),
            (ANN, "seek nosuch", "nosuch"),
            (ANN, "seek standard clock 5h", "choose a deadline"),
            (ANN, "seek standard clock 48h clock 24h", "write: seek PRESET"),
            (ANN, "seek standard rating 1700-1400", "a rating range is two whole numbers"),
            (ANN, "seek standard rating 0-3001", "a rating range is two whole numbers"),
            (ANN, "seek standard rating x-y", "a rating range is two whole numbers"),
            (ANN, "seek standard rating 1400", "write: seek PRESET"),
            (ANN, "seek standard robots after 31 days", "robots fill the seats after 1 to 30"),
            (ANN, "seek standard robots after 0 days", "robots fill the seats after 1 to 30"),
            (ANN, "seek standard target=5", "target"),
            (ANN, "accept 1", "seek 1 is your own"),
            (BOB, "accept 1", "you have a seat in seek 1 already"),
            (CY, "accept 99", "there is no seek 99"),
            (CY, "accept x", "write: accept N"),
            (CY, "accept 99999999999999999999", "write: accept N"),
            (BOB, "unseek 1", "you have no seek 1"),
            (CY, "seeks now", "write: seeks")]:
        said = ask(env, who, body)
        assert words in said, (body, said)
        assert rows(env.store) == before, body


def test_three_open_seeks_at_most_and_a_withdrawn_one_tells_its_players(env):
    for _ in range(3):
        assert "is open" in ask(env, ANN, "seek standard")
    ask(env, BOB, "accept 2")
    assert "you have 3 open seeks already" in ask(env, ANN, "seek standard")
    assert seek_row(env.store, 4) is None
    assert "unseek 2: withdrawn" in ask(env, ANN, "unseek 2")
    assert mailed(env.store, "Seek 2 was withdrawn") == [BOB]  # not its poster
    assert "seek 2 is withdrawn" in ask(env, CY, "accept 2")
    assert "is open" in ask(env, ANN, "seek standard")  # a withdrawn one no longer counts


def test_a_stranger_a_forged_from_and_a_disowned_domain_change_nothing(env):
    before = rows(env.store)
    # a stranger at plain pbem@: nothing done, and we write only to registered players
    assert env.send(env.mail(f"pbem@{env.domain}", "seek standard", frm=EVE))[0] == 250
    # someone else's From at ann's account address: nothing done; ann is warned
    assert env.send(env.mail(account(env, ANN), "seek standard", frm=EVE))[0] == 250
    # ann's own From, but her domain disowns the mail by our MTA's word
    assert env.send(env.mail(account(env, ANN), "seek standard", frm=ANN,
                             Authentication_Results=f"{MTA}; dmarc=fail header.from="
                             "example.org"))[0] == 250
    replies = env.replies()
    assert all(m["To"] == ANN for m in replies) and EVE not in str([m["To"] for m in replies])
    with env.store.reader() as s:
        assert s.exec(select(func.count()).select_from(Seek)).one() == 0
    assert rows(env.store) == before


# -- the rating ----------------------------------------------------------------------------


def test_a_rating_range_is_checked_against_the_league_rating_or_1500(store):
    lid = league(store, players=4)
    start_season(store, lid, OPERATOR)
    play_season(store, lid)
    ids = players(store, *(f"p{i}@league.test" for i in range(4)))
    new = players(store, EVE)[0]
    with store.reader() as s:
        rated = {p: seeks.rating_of(s, p) for p in ids}
        assert seeks.rating_of(s, new) == seeks.DEFAULT_RATING == 1500
    assert len(set(rated.values())) > 1 and all(v != 1500 for v in rated.values())
    low_id = min(rated, key=rated.get)
    high_id = max(rated, key=rated.get)
    poster = players(store, ANN)[0]
    sid = seeks.post(store, poster, spec(rating_min=str(rated[high_id]),
                                         rating_max=str(rated[high_id] + 10)))
    with pytest.raises(seeks.SeekError, match=f"yours is {rated[low_id]}"):
        seeks.join(store, sid, low_id)
    with pytest.raises(seeks.SeekError, match="yours is 1500"):
        seeks.join(store, sid, new)
    assert seeks.join(store, sid, high_id).left == 2
    assert seated(store, sid) == [poster, high_id]


# -- the clock ------------------------------------------------------------------------------


def test_robots_fill_the_empty_seats_on_the_day_and_once(store):
    ann, bob = players(store, ANN, BOB)
    t0 = utcnow()
    sid = seeks.post(store, ann, spec(robot_days="3"), now=t0)
    seeks.join(store, sid, bob)
    assert seek_tick(store) == 0 and seeks.tick(store, t0 + timedelta(days=2, hours=23)) == 0
    assert seek_row(store, sid).status == "open" and games(store) == 0
    assert seeks.tick(store, t0 + timedelta(days=3)) == 1
    row = seek_row(store, sid)
    assert row.status == "started"
    seats = game_seats(store, row.game_id)
    assert [x.player_id for x in seats[:2]] == [ann, bob]
    assert [x.robot for x in seats] == [False, False, True, True]
    with store.reader() as s:
        assert s.get(Game, row.game_id).status == "playing"  # dealt
    assert seeks.tick(store, t0 + timedelta(days=4)) == 0 and games(store) == 1


def test_a_seek_without_robots_expires_and_its_players_are_told_once(store):
    ann, bob = players(store, ANN, BOB)
    t0 = utcnow()
    sid = seeks.post(store, ann, spec(), now=t0)
    seeks.join(store, sid, bob)
    assert seeks.tick(store, t0 + timedelta(days=13, hours=23)) == 0
    assert seeks.tick(store, t0 + timedelta(days=14)) == 1
    assert seeks.tick(store, t0 + timedelta(days=15)) == 0
    assert seek_row(store, sid).status == "expired" and games(store) == 0
    with store.reader() as s:
        told = s.exec(select(Outbox.to_addr, Outbox.subject)).all()
    assert sorted(told) == [(ANN, "Seek 1 expired"), (BOB, "Seek 1 expired")]
    with pytest.raises(seeks.SeekError, match="seek 1 is expired"):
        seeks.join(store, sid, players(store, CY)[0])


def test_a_game_a_crash_left_undealt_is_dealt_by_the_next_tick(store):
    ann, bob, cy, di = players(store, ANN, BOB, CY, DI)
    sid = seeks.post(store, ann, spec())
    with store.session() as s:  # the join's write, as a crash before the deal left it
        for p in (bob, cy, di):
            s.add(SeekSeat(seek_id=sid, player_id=p))
        seek = s.get(Seek, sid)
        gid = seeks._make_game(s, seek, [ann, bob, cy, di])
        s.commit()
    assert seeks.tick(store) == 1
    with store.reader() as s:
        assert s.get(Game, gid).status == "playing"
    assert seeks.tick(store) == 0


# -- races ----------------------------------------------------------------------------------


def _at_once(db_url, calls) -> list:
    """Each call (a function of a Store) in its own thread and Store, released together."""
    gate = threading.Barrier(len(calls))
    out: list = [None] * len(calls)

    def go(i):
        store = Store(db_url)
        gate.wait(timeout=60)
        try:
            out[i] = calls[i](store)
        except Exception as e:  # SeekError is the expected loss
            out[i] = e

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return out


def test_two_joiners_for_the_last_seat_make_one_game(store, db_url):
    for round_ in range(3):
        ann, bob, cy, di, eve = players(store, *(f"{x}{round_}@example.org"
                                                 for x in ("ann", "bob", "cy", "di", "eve")))
        sid = seeks.post(store, ann, spec())
        seeks.join(store, sid, bob)
        seeks.join(store, sid, cy)
        before = games(store)
        out = _at_once(db_url, [lambda st, p=p, sid=sid: seeks.join(st, sid, p) for p in (di, eve)])
        won = [x for x in out if isinstance(x, seeks.Joined)]
        lost = [x for x in out if isinstance(x, seeks.SeekError)]
        assert len(won) == 1 and len(lost) == 1, out
        assert "is started" in str(lost[0]) and won[0].game_id is not None
        assert games(store) == before + 1
        row = seek_row(store, sid)
        assert len(seated(store, sid)) == 4 and row.game_id == won[0].game_id


def test_a_join_and_the_robots_at_once_make_one_game(store, db_url):
    for round_ in range(3):
        ann, bob = players(store, f"ann{round_}@example.org", f"bob{round_}@example.org")
        t0 = utcnow()
        sid = seeks.post(store, ann, spec(robot_days="1"), now=t0)
        before = games(store)
        out = _at_once(db_url, [lambda st, sid=sid, bob=bob: seeks.join(st, sid, bob),
                                lambda st, t0=t0: seeks.tick(st, t0 + timedelta(days=1))])
        assert not any(isinstance(x, Exception) and not isinstance(x, seeks.SeekError)
                       for x in out), out
        row = seek_row(store, sid)
        assert row.status == "started" and games(store) == before + 1
        seats = game_seats(store, row.game_id)
        assert [x.player_id for x in seats if not x.robot] == seated(store, sid)
        if isinstance(out[0], seeks.Joined):  # the join came first: bob sits, robots fill 2
            assert seated(store, sid) == [ann, bob] and out[1] == 1
        else:  # the robots came first: bob was told the seek had started
            assert "is started" in str(out[0]) and seated(store, sid) == [ann]


def test_one_player_joining_twice_at_once_takes_one_seat(store, db_url):
    ann, bob = players(store, ANN, BOB)
    sid = seeks.post(store, ann, spec())
    out = _at_once(db_url, [lambda st: seeks.join(st, sid, bob)] * 3)
    assert sum(isinstance(x, seeks.Joined) for x in out) == 1, out
    assert seated(store, sid) == [ann, bob]


# -- the web --------------------------------------------------------------------------------


def test_seeks_on_the_home_page_and_at_seeks(app, store, client):
    players(store, ANN, BOB)
    assert client.get("/seeks").status_code == 302  # signed in only
    assert client.post("/seeks/new", data={"preset": "standard"}).status_code == 400  # CSRF
    sign_in(client, store, ANN)
    home = client.get("/home").text
    assert 'action="/seeks/new"' in home and 'href="/seeks"' in home
    before = database(store)
    for form, words in [({"preset": "nosuch"}, "nosuch"),
                        ({"move_hours": "5"}, "choose a deadline"),
                        ({"rating_min": "2000", "rating_max": "100"}, "a rating range"),
                        ({"rating_min": "²"}, "a rating range"),
                        ({"robot_days": "31"}, "after 1 to 30 days")]:
        r = posted(client, "/seeks/new", {"csrf": csrf(client), "preset": "standard",
                                          "move_hours": "72", "on_timeout": "robot", **form},
                   to="/home")
        assert "No seek was posted" in r.text and words in r.text, form
        assert database(store) == before
    r = posted(client, "/seeks/new", {"csrf": csrf(client), "preset": "standard",
                                      "move_hours": "24", "on_timeout": "robot",
                                      "rating_min": "1400", "rating_max": "1700",
                                      "robot_days": "2"}, to="/seeks")
    assert "Seek 1 is open." in r.text and "Withdraw seek 1" in r.text
    assert "24 hours a move" in r.text and "ratings 1400-1700" in r.text
    assert "Your rating: 1500" in r.text and "Take a seat" not in r.text

    other = app.test_client()
    sign_in(other, store, BOB)
    page = other.get("/seeks").text
    assert 'action="/seeks/1/accept"' in page and "Withdraw" not in page
    before = database(store)
    for path in ("/seeks/1/accept", "/seeks/1/cancel", "/seeks/new"):  # another site's form
        assert other.post(path, data={"csrf": "forged", "preset": "standard"}
                          ).status_code == 400
    assert database(store) == before
    r = posted(other, "/seeks/1/accept", {"csrf": csrf(other)}, to="/seeks")
    assert "You have a seat in seek 1." in r.text and "(you have a seat)" in r.text
    r = posted(other, "/seeks/1/accept", {"csrf": csrf(other)}, to="/seeks")
    assert "No seat was taken: you have a seat in seek 1 already." in r.text
    r = posted(other, "/seeks/1/cancel", {"csrf": csrf(other)}, to="/seeks")
    assert "Nothing was withdrawn: you have no seek 1." in r.text
    r = posted(client, "/seeks/1/cancel", {"csrf": csrf(client)}, to="/seeks")
    assert "Seek 1 is withdrawn." in r.text and "No seek is open now." in r.text
    assert seek_row(store, 1).status == "cancelled"
    assert client.post("/seeks/99999999999/accept", data={"csrf": csrf(client)}
                       ).status_code == 404


def test_the_last_seat_taken_on_the_page_deals_the_game(app, store, client):
    ann, bob, cy, _di = players(store, ANN, BOB, CY, DI)
    sid = seeks.post(store, ann, spec(move_hours="24"))
    seeks.join(store, sid, bob)
    seeks.join(store, sid, cy)
    sign_in(client, store, DI)
    r = posted(client, f"/seeks/{sid}/accept", {"csrf": csrf(client)}, to="/seeks")
    assert "The table is full: game 1 is dealt." in r.text
    assert "Game 1" in client.get("/home").text
    assert [x.robot for x in game_seats(store, 1)] == [False] * 4


def test_the_seek_form_reads_the_presets_players(store):
    sid = seeks.post(store, players(store, ANN)[0], spec(preset="cutthroat-3"))
    [listed] = seeks.open_seeks(store)
    assert listed.id == sid and listed.players == preset("cutthroat-3").players == 3


def test_a_player_exports_their_seeks_and_forgotten_leaves_them(store):
    from pbem.privacy.forget import forget

    ann, bob, cy = players(store, ANN, BOB, CY)
    mine = seeks.post(store, ann, spec())
    theirs = seeks.post(store, bob, spec())
    seeks.join(store, theirs, ann)
    seeks.join(store, theirs, cy)
    from pbem.privacy.export import player_data

    assert [(x["seek"], x["posted"]) for x in player_data(store, ann)["seeks"]] == [
        (mine, True), (theirs, False)]
    forget(store, ann)
    assert seek_row(store, mine).status == "cancelled"
    assert seek_row(store, theirs).status == "open" and seated(store, theirs) == [bob, cy]
    assert [x.id for x in seeks.open_seeks(store)] == [theirs]
