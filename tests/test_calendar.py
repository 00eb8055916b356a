"""A player's calendar feed (issue 35): one event a pending deadline of their own, read by
two iCalendar parsers; its secret address made and revoked from the home page and by mail;
a wrong, short, revoked or forgotten address answers 404; nothing private in it."""

import hashlib
import re
from datetime import timedelta
from email.utils import make_msgid

import icalendar
import pytest
import vobject
from mail_helpers import ANN, account, running, text
from mail_helpers import game as mail_game
from sqlmodel import select
from web_helpers import BASE, csrf, database, drive, game_state, humans_game, sign_in, tokens

from pbem.calendar_feed import pending
from pbem.config import load
from pbem.engine import Rules, preset
from pbem.privacy.export import player_data
from pbem.privacy.forget import forget
from pbem.store import calendars
from pbem.store.masking import mask
from pbem.store.models import CalendarFeed, Deadline, Player
from pbem.vacation import start_vacation
from pbem.web.app import create_app

FEED = re.compile(re.escape(BASE) + r"(/cal/[A-Za-z0-9_\-]+\.ics)")


def _pid(store, email="p0@x.test") -> int:
    with store.reader() as s:
        return s.exec(select(Player.id).where(Player.email == email)).one()


def _timeout(store, gid, seat) -> Deadline:
    with store.reader() as s:
        return s.exec(select(Deadline).where(Deadline.game_id == gid, Deadline.seat == seat,
                                             Deadline.kind == "timeout",
                                             Deadline.state == "pending")).one()


def _games(store) -> dict[str, int]:
    """p0 to act in `mine` (public) and `private`; seat 1 to act in `theirs`; `over`."""
    rules = preset("standard")
    over = humans_game(store, Rules.from_dict({"preset": "standard", "max_hands": "1"}))
    drive(store, over, lambda st: False)
    return {"mine": humans_game(store, rules, first_dealer=3),
            "theirs": humans_game(store, rules, first_dealer=0),
            "private": humans_game(store, rules, public=False, first_dealer=3),
            "over": over}


def _events(body: bytes) -> dict[int, dict]:
    """game -> its event, as icalendar reads it, checked against vobject's reading."""
    cal = icalendar.Calendar.from_ical(body)
    events = {}
    for ev in cal.walk("VEVENT"):
        gid = int(re.match(r"pbem-(\d+)-", str(ev["uid"])).group(1))
        events[gid] = {"uid": str(ev["uid"]), "start": ev.decoded("dtstart"),
                       "summary": str(ev["summary"]), "url": str(ev["url"]),
                       "description": str(ev["description"])}
    other = vobject.readOne(body.decode())
    seen = {str(v.uid.value): v.dtstart.value for v in other.contents.get("vevent", [])}
    assert seen == {e["uid"]: e["start"] for e in events.values()}  # the same in both
    return events


def test_the_feed_holds_the_players_own_pending_deadlines_only(store, client):
    g = _games(store)
    token = calendars.renew(store, _pid(store))
    r = client.get(f"/cal/{token}.ics")
    assert r.status_code == 200 and r.mimetype == "text/calendar"
    assert r.headers["Cache-Control"] == "no-store"  # a keyed address: never kept on the way
    events = _events(r.data)
    assert set(events) == {g["mine"], g["private"]}  # not another seat's turn, nor over
    for name in ("mine", "private"):
        ev, row = events[g[name]], _timeout(store, g[name], 0)
        assert ev["start"] == row.due.replace(microsecond=0)  # (iCalendar keeps seconds)
        assert ev["start"].utcoffset().total_seconds() == 0
        assert ev["start"].tzinfo is not None and "bid" in ev["summary"]
        assert "p1, p2, p3" in ev["description"]  # names as the table shows them
    assert events[g["mine"]]["url"] == f"{BASE}/g/{g['mine']}"
    assert events[g["private"]]["url"] == f"{BASE}/home"  # a private game's pad is no one's

    body = r.data.decode()
    for gid in g.values():  # no key of any seat, no address, no card of any hand
        assert not any(t in body for t in tokens(store, gid))
        st = game_state(store, gid)
        for hand in st.hands:
            assert not any(re.search(rf"\b{re.escape(c)}\b", body) for c in hand), hand
    assert "@x.test" not in body

    st = drive(store, g["mine"], lambda st: 0 not in st.to_act())  # p0 bids: no deadline
    events = _events(client.get(f"/cal/{token}.ics").data)
    assert set(events) == {g["private"]}
    assert st.phase == "bid"


def test_each_player_sees_their_own_turns_and_the_feed_is_bounded(store, client):
    g = _games(store)
    pid = _pid(store)
    assert [d.game_id for d in pending(store, pid, limit=1)] == [
        min((g["mine"], g["private"]), key=lambda x: (_timeout(store, x, 0).due, x))]
    theirs = calendars.renew(store, _pid(store, "p1@x.test"))
    events = _events(client.get(f"/cal/{theirs}.ics").data)
    assert set(events) == {g["theirs"]}  # p1's turn there; p0's games are not p1's


def test_wrong_short_or_revoked_addresses_answer_404(store, client):
    humans_game(store, preset("standard"), first_dealer=3)
    pid = _pid(store)
    first = calendars.renew(store, pid)
    assert client.get(f"/cal/{first}.ics").status_code == 200
    near = first[:-1] + ("A" if first[-1] != "A" else "B")
    for bad in (near, first[:-1], first + "x", "a", first[:8], "x" * 512, first.upper(),
                f"{first}.ics", "-" * 43):
        r = client.get(f"/cal/{bad}.ics")
        assert r.status_code == 404 and "BEGIN:VCALENDAR" not in r.text, bad
    assert client.get(f"/cal/{first}").status_code == 404
    assert client.get("/cal/%00.ics").status_code == 404

    with store.reader() as s:  # only the hash is kept: a copy of the table opens nothing
        (row,) = s.exec(select(CalendarFeed)).all()
    assert row.token_hash == hashlib.sha256(first.encode()).hexdigest()
    assert first not in str(database(store))

    second = calendars.renew(store, pid)  # a new address: the old one is no one's
    assert client.get(f"/cal/{first}.ics").status_code == 404
    assert client.get(f"/cal/{second}.ics").status_code == 200
    assert calendars.remove(store, pid) and not calendars.remove(store, pid)
    assert client.get(f"/cal/{second}.ics").status_code == 404
    assert mask(f"GET /cal/{second}.ics") == "GET /cal/..."  # the logs never write it


def test_the_home_page_makes_shows_once_and_turns_off_the_feed(store, client):
    gid = humans_game(store, preset("standard"), first_dealer=3)
    assert client.post("/home/calendar", data={"csrf": csrf(client), "do": "new"}
                       ).headers["Location"] == "/signin"  # not signed in
    sign_in(client, store, "p0@x.test")
    home = client.get("/home").text
    assert 'action="/home/calendar"' in home and "Give me a calendar address" in home
    before = database(store)
    assert client.post("/home/calendar", data={"do": "new"}).status_code == 400  # no CSRF
    assert client.post("/home/calendar", data={"csrf": csrf(client), "do": "x"}
                       ).status_code == 400
    assert database(store) == before

    r = client.post("/home/calendar", data={"csrf": csrf(client), "do": "new"})
    assert r.status_code == 303 and r.headers["Location"] == "/home/calendar"
    assert "/cal/" not in r.headers["Location"]
    page = client.get("/home/calendar")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    path = FEED.search(page.text).group(1)
    assert set(_events(client.get(path).data)) == {gid}
    assert client.get("/home/calendar").headers["Location"] == "/home"  # shown once only
    assert "Give me a new calendar address" in client.get("/home").text

    client.post("/home/calendar", data={"csrf": csrf(client), "do": "new"})
    newer = FEED.search(client.get("/home/calendar").text).group(1)
    assert client.get(path).status_code == 404 and client.get(newer).status_code == 200
    r = client.post("/home/calendar", data={"csrf": csrf(client), "do": "off"},
                    follow_redirects=True)
    assert "Your calendar feed is off" in r.text and "Give me a calendar address" in r.text
    assert client.get(newer).status_code == 404


def test_export_names_the_feed_and_forget_removes_it(store, client):
    humans_game(store, preset("standard"), first_dealer=3)
    pid = _pid(store)
    assert player_data(store, pid)["calendar_feed"] is None
    token = calendars.renew(store, pid)
    got = player_data(store, pid)["calendar_feed"]
    assert set(got) == {"created"} and token not in str(player_data(store, pid))
    forget(store, pid)
    assert client.get(f"/cal/{token}.ics").status_code == 404
    with store.reader() as s:
        assert s.exec(select(CalendarFeed)).all() == []


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_BASE_URL", BASE)
    with running(store, monkeypatch, tmp_path) as e:
        e.gid = mail_game(store, first_dealer=3)  # ann, seat 0, bids first
        e.replies()
        e.web = create_app(load(), store, testing=True).test_client()
        yield e


def _ask(env, line: str, frm: str = ANN) -> str:
    assert env.send(env.mail(account(env), line, frm=frm, mid=make_msgid()))[0] == 250
    replies = env.replies()
    return "\n".join(text(m) for m in replies if m["To"] == ANN)


def test_calendar_by_mail_makes_keeps_renews_and_revokes(env):
    body = _ask(env, "calendar")
    path = FEED.search(body).group(1)
    assert set(_events(env.web.get(path).data)) == {env.gid}
    again = _ask(env, "calendar")  # asked again: it says so, and changes nothing
    assert "calendar new" in again and not FEED.search(again)
    assert env.web.get(path).status_code == 200
    newer = FEED.search(_ask(env, "calendar new")).group(1)
    assert env.web.get(path).status_code == 404 and env.web.get(newer).status_code == 200
    assert "feed is off" in _ask(env, "calendar revoke")
    assert env.web.get(newer).status_code == 404
    assert "write: calendar" in _ask(env, "calendar please")


def test_calendar_from_a_forged_sender_makes_nothing(env):
    before = len(database(env.store)["calendar_feed"])
    assert env.send(env.mail(account(env), "calendar", frm="mallory@evil.test"))[0] == 250
    replies = env.replies()
    assert not any(FEED.search(text(m)) for m in replies)
    assert len(database(env.store)["calendar_feed"]) == before == 0


def test_the_calendar_page_in_a_browser(tmp_path):
    """A person makes the address in Chromium: the page fits a phone, passes axe-core, and
    the address it shows opens the feed."""
    from pbem.store.states import Store
    from tests.browser_helpers import axe_or_skip, launch, serve
    from tests.test_browser_look import faults, open_at
    from tests.test_browser_look import sign_in as browser_sign_in

    with launch() as chromium, serve(tmp_path) as (url, _app):
        axe = axe_or_skip()
        store = Store(f"sqlite:///{tmp_path / 'pbem.db'}")
        gid = humans_game(store, preset("standard"), first_dealer=3)
        page = open_at(chromium, 390, browser_sign_in(chromium, url, store))
        page.goto(url + "/home")
        with page.expect_navigation():
            page.get_by_role("button", name="Give me a calendar address").click()
        assert page.url == url + "/home/calendar"
        assert not faults(page, axe, 390)
        shown = page.get_by_label("Your calendar address").input_value()
        feed = page.request.get(url + shown.split("127.0.0.1", 1)[1])
        assert feed.status == 200 and set(_events(feed.body())) == {gid}
        page.goto(url + "/home")
        assert not faults(page, axe, 390)  # the home page with its feed's two buttons
        page.context.close()


def test_a_vacation_moves_the_event_and_keeps_its_uid(store, client):
    gid = humans_game(store, preset("standard"), first_dealer=3)
    pid = _pid(store)
    token = calendars.renew(store, pid)
    before = _events(client.get(f"/cal/{token}.ics").data)[gid]
    start_vacation(store, pid, 2)
    after = _events(client.get(f"/cal/{token}.ics").data)[gid]
    row = _timeout(store, gid, 0)
    assert after["uid"] == before["uid"] and after["start"] == row.due.replace(microsecond=0)
    assert after["start"] - before["start"] >= timedelta(days=1)
