"""The league pages through Flask's test client on a real database: starting a league by the
form, joining by link (confirmed from the mailbox), a partner's yes, the organiser's page and
each of its actions (refusals change nothing), season pages during and after play agreeing
with pbem.league.reports, the JSON, and the organiser's zip. Public pages show no address
and no card."""

import html
import io
import json
import re
import zipfile
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest
import time_machine
from sqlalchemy import func
from sqlmodel import select

from pbem.league.manage import OPERATOR, add_season, join, withdraw
from pbem.league.reports import fixtures as report_fixtures
from pbem.league.reports import ratings, season_reliability, season_standings
from pbem.organise import seasons
from pbem.store.models import Entry, Fixture, Game, League, Move, Outbox, Player, Season, Seat
from tests.league_helpers import (
    ONE_HAND,
    ORGANISER,
    TODAY,
    fixtures,
    league,
    play_out,
    play_season,
    playing_games,
    replay_ruled,
    season,
    snapshot,
    state,
)
from tests.test_web_crawl import html_cards, json_cards
from tests.web_helpers import BASE, Forms, confirmation_links, counts, csrf

ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


# -- helpers ---------------------------------------------------------------------------------


def state_of(store) -> dict:
    """Everything a refused action must leave as it was: the league tables, every seat, the
    players and the leagues."""
    snap = snapshot(store)
    with store.session() as s:
        snap["seats"] = sorted((x.game_id, x.seat, x.robot, x.player_id, x.token)
                               for x in s.exec(select(Seat)).all())
        snap["players"] = s.exec(select(func.count()).select_from(Player)).one()
        snap["leagues"] = s.exec(select(func.count()).select_from(League)).one()
    return snap


def the_league(store, lid) -> League:
    with store.session() as s:
        return s.get(League, lid)


def mails_to(store, addr) -> list[Outbox]:
    with store.session() as s:
        return list(s.exec(select(Outbox).where(Outbox.to_addr == addr)
                           .order_by(Outbox.id)).all())


def link_in(mail: Outbox, kind: str) -> str:
    """The path of the /j/<kind>/ link in a mail."""
    found = re.search(re.escape(BASE) + r"(/j/" + kind + r"/[A-Za-z0-9_.\-]+)", mail.body_text)
    assert found, mail.body_text
    return found.group(1)


def entry_by_email(store, email) -> Entry | None:
    with store.session() as s:
        return s.exec(select(Entry).join(Player, Player.id == Entry.player_id)
                      .where(Player.email == email)).first()


class Rows(HTMLParser):
    """The cells' text of every <tr class=...> of one class."""

    def __init__(self, html: str, cls: str):
        super().__init__()
        self.cls, self.rows, self._row, self._cell = cls, [], None, None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "tr" and dict(attrs).get("class") == self.cls:
            self._row = []
            self.rows.append(self._row)
        elif tag == "td" and self._row is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "td" and self._row is not None:
            self._row.append(" ".join(self._cell.split()))
            self._cell = None
        elif tag == "tr":
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def rows(html, cls) -> list[list[str]]:
    return Rows(html, cls).rows


def post(client, path, **form):
    """POST as a browser does: the page its 303 leads to (r.history holds the 303)."""
    r = client.post(path, data=dict(form, csrf=csrf(client)), follow_redirects=True)
    assert not r.history or r.history[0].status_code == 303
    return r


def public_checks(app, store, text_or_json) -> None:
    """No player's address and no card, in a public page or JSON."""
    with store.session() as s:
        emails = set(s.exec(select(Player.email)).all())
    text = text_or_json if isinstance(text_or_json, str) else json.dumps(text_or_json)
    assert not [a for a in ADDRESS.findall(text) if a.lower() in emails]
    assert not ADDRESS.findall(text)
    if isinstance(text_or_json, str):
        assert html_cards(text_or_json, app.config["PBEM_KEYS"]) == []
    else:
        assert json_cards(text_or_json) == []


# -- starting a league -----------------------------------------------------------------------


GOOD = {"organiser": "Boss@League.test", "name": "  Tuesday   Club ", "preset": "standard",
        "options": "target=300\nmax_hands=3", "entry": "pair", "pairing": "swiss",
        "rounds": "4", "max_entries": "8", "starts": "2026-12-01", "ends": "2027-03-31",
        "move_hours": "48", "on_timeout": "forfeit", "weekend_pause": "on",
        "stale_hours": "96"}


def test_create_a_league_by_the_form(store, client):
    r = client.get("/l")
    assert r.status_code == 200 and 'href="/l/new"' in r.text and "No leagues yet" in r.text
    r = client.get("/l/new")
    assert r.status_code == 200 and 'name="csrf"' in r.text and "tournament-300" in r.text
    before = state_of(store)
    assert client.post("/l/new", data=GOOD).status_code == 400  # no CSRF
    token = csrf(client)
    bad = [({"organiser": "nobody"}, "'nobody' is not a mail address"),
           ({"name": "   "}, "a league needs a name"),
           ({"preset": "nosuch"}, "unknown preset 'nosuch'"),
           ({"options": "target"}, "KEY=VALUE"),
           ({"options": "nosuch=1"}, "unknown option 'nosuch'"),
           ({"options": "target=abc"}, "whole number"),
           ({"entry": "trio"}, "entries are single or pair"),
           ({"pairing": "knockout"}, "pairing is round-robin, swiss or duplicate"),
           ({"preset": "cutthroat-4", "options": ""}, "cutthroat-4 has no partnerships of two"),
           ({"rounds": "many"}, "rounds: a whole number"),
           ({"rounds": "0"}, "a season has 1 to 100 rounds"),
           ({"max_entries": "1"}, "a table needs 2 entries: allow at least that many"),
           ({"starts": "soon"}, "first day: a date as YYYY-MM-DD"),
           ({"ends": "2026-11-30"}, "the season ends (2026-11-30) before it starts"),
           ({"move_hours": "5"}, "choose a deadline"),
           ({"on_timeout": "explode"}, "choose a deadline"),
           ({"stale_hours": "0"}, "a table is flagged after 1 hour to 90 days")]
    for change, words in bad:
        r = client.post("/l/new", data=dict(GOOD, csrf=token, **change), follow_redirects=True)
        assert r.history[0].status_code == 303, change
        assert 'class="error"' in r.text and words in html.unescape(r.text), change
        if "name" not in change:  # the form keeps what was typed
            assert 'value="  Tuesday   Club "' in r.text
    assert state_of(store) == before  # nothing created, nothing mailed

    # the form makes nothing: it mails the organiser a link to confirm the league
    r = client.post("/l/new", data=dict(GOOD, csrf=token), follow_redirects=True)
    assert r.status_code == 200 and "Check your mail" in r.text
    assert "boss@league.test" in r.text and "/o/" not in r.text
    asked = state_of(store)
    assert asked == dict(before, Outbox=1)  # the one mail, to the address given
    (ask,) = mails_to(store, "boss@league.test")
    assert ask.subject == "Confirm your new league: Tuesday Club"
    link = confirmation_links(store, "boss@league.test")[0]
    assert link.startswith("/l/new/confirm/")
    r = client.get(link)  # a mail scanner fetching the link changes nothing
    assert r.status_code == 200 and r.text.count("<button") == 1
    assert "Tuesday Club" in r.text and "fixed partnerships; Swiss" in r.text
    assert "2026-12-01 to 2027-03-31" in r.text and state_of(store) == asked
    assert client.post(link).status_code == 400 and state_of(store) == asked  # no CSRF
    body, sig = link.rsplit(".", 1)
    r = client.post(f"{body}.{sig[::-1]}", data={"csrf": token})
    assert r.status_code == 400 and "not valid" in r.text and state_of(store) == asked

    r = client.post(link, data={"csrf": token})
    assert r.status_code == 303
    with store.session() as s:
        (lg,) = s.exec(select(League)).all()
        (sn,) = s.exec(select(Season)).all()
        boss = s.get(Player, lg.organiser_id)
    assert r.headers["Location"] == f"/o/{lg.admin_token}"
    assert lg.name == "Tuesday Club" and boss.email == "boss@league.test"
    assert lg.rules["preset"] == "standard" and lg.rules["target"] == 300
    assert lg.rules["max_hands"] == 3
    assert (lg.entry, lg.pairing, lg.rounds, lg.max_entries, lg.stale_hours) == \
        ("pair", "swiss", 4, 8, 96)
    assert lg.time_control == {"move_hours": 48, "remind_hours": [24, 2],
                               "weekend_pause": True, "on_timeout": "forfeit",
                               "auto_vacation": False}  # off in a league unless asked
    assert (sn.number, sn.status, sn.starts.isoformat(), sn.ends.isoformat()) == \
        (1, "open", "2026-12-01", "2027-03-31")
    (_, mail) = mails_to(store, "boss@league.test")  # the organiser hears of the page
    assert f"{BASE}/o/{lg.admin_token}" in mail.body_text
    assert f"{BASE}/j/{lg.join_token}" in mail.body_text
    assert client.get(r.headers["Location"]).status_code == 200
    made = state_of(store)
    for again in (client.post(link, data={"csrf": token}), client.get(link)):  # once only
        assert again.status_code == 409 and "used already" in again.text
        assert lg.admin_token not in again.text
    assert state_of(store) == made and len(mails_to(store, "boss@league.test")) == 2

    r = client.get("/l")  # the list: name, rules, format, the latest season, a link
    (row,) = rows(r.text, "league")
    assert row[0] == "Tuesday Club" and row[1] == "standard"
    assert row[2] == "fixed partnerships; Swiss"
    assert row[3] == "season 1: taking entries; starts 2026-12-01"
    assert f'href="/l/{lg.id}"' in r.text
    public_checks(client.application, store, r.text)


def test_one_confirmation_makes_one_league(store):
    """The link's id is a unique ref: a second making (a replay that got past the page's
    first look) raises IntegrityError and writes nothing."""
    from sqlalchemy.exc import IntegrityError

    from pbem.league.manage import LeagueSpec, create_league

    create_league(store, LeagueSpec(ORGANISER, "Once", ONE_HAND, TODAY, TODAY), ref="abc123")
    before = state_of(store)
    with pytest.raises(IntegrityError):
        create_league(store, LeagueSpec(ORGANISER, "Twice", ONE_HAND, TODAY, TODAY),
                      ref="abc123")
    assert state_of(store) == before


# -- joining ---------------------------------------------------------------------------------


def test_join_by_link_end_to_end(app, store, client):
    lid = league(store, players=3)
    lg = the_league(store, lid)
    assert client.get("/j/nosuchtoken").status_code == 404
    before = state_of(store)
    r = client.get(f"/j/{lg.join_token}")
    assert r.status_code == 200 and "Test League" in r.text and "standard" in r.text
    assert 'name="email"' in r.text and 'name="partner"' not in r.text  # single players
    assert state_of(store) == before
    form = {"email": " New@League.TEST ", "name": "Newt"}
    assert client.post(f"/j/{lg.join_token}", data=form).status_code == 400  # no CSRF
    r = post(client, f"/j/{lg.join_token}", email="not an address", name="Newt")
    assert r.history and r.status_code == 200 and "is not a mail address" in r.text
    assert 'value="Newt"' in r.text and state_of(store) == before

    r = post(client, f"/j/{lg.join_token}", **form)
    assert r.status_code == 200 and "Check your mail" in r.text
    assert "new@league.test" in r.text  # the address the link went to, as typed back
    assert entry_by_email(store, "new@league.test") is None  # nothing entered yet
    (mail,) = mails_to(store, "new@league.test")
    link = link_in(mail, "confirm")

    seen = state_of(store)
    r = client.get(link)  # a mail scanner fetching the link changes nothing
    assert r.status_code == 200 and "Newt" in r.text and "Test League" in r.text
    assert r.text.count("<button") == 1 and state_of(store) == seen
    assert client.post(link).status_code == 400  # no CSRF
    assert state_of(store) == seen
    r = client.post(link, data={"csrf": csrf(client)}, follow_redirects=True)
    assert r.status_code == 200 and "You are in Test League" in r.text
    entry = entry_by_email(store, "new@league.test")
    assert entry.status == "active" and entry.name == "Newt"
    assert any(m.subject == "You are in: Test League" for m in mails_to(store,
                                                                       "new@league.test"))
    entered = state_of(store)
    r = client.post(link, data={"csrf": csrf(client)}, follow_redirects=True)  # again
    assert r.status_code == 409 and "entered in Test League, season 1, already" in r.text
    assert state_of(store) == entered

    r = client.get(f"/l/{lid}")  # the league page lists the entry, by name only
    names = re.findall(r"<li>([^<]+)</li>", r.text)
    assert names == ["p0", "p1", "p2", "Newt"]
    public_checks(app, store, r.text)

    # a link that was tampered with, or is too old, does not work
    body, sig = link.rsplit(".", 1)
    for bad, why in [(f"{body}.{sig[::-1]}", "not valid"), ("/j/confirm/garbage", "not valid")]:
        assert client.get(bad).status_code == 400
        r = client.post(bad, data={"csrf": csrf(client)})
        assert r.status_code == 400 and "This link does not work" in r.text and why in r.text
    later = datetime.now(UTC) + timedelta(days=15)
    with time_machine.travel(later, tick=False):
        r = client.get(link)
        assert r.status_code == 400 and "expired" in r.text
    assert state_of(store) == entered


def test_a_partner_says_yes(app, store, client):
    lid = league(store, players=0, entry="pair")
    lg = the_league(store, lid)
    r = client.get(f"/j/{lg.join_token}")
    assert 'name="partner"' in r.text and "fixed partnerships" in r.text
    before = state_of(store)
    r = post(client, f"/j/{lg.join_token}", email="ann@league.test", name="Ann")
    assert r.history and "name your partner" in r.text and state_of(store) == before
    r = post(client, f"/j/{lg.join_token}", email="ann@league.test", name="Ann",
             partner="ann@league.test")
    assert r.history and r.status_code == 200 and "your partner must be someone else" in r.text
    r = post(client, f"/j/{lg.join_token}", email="ann@league.test", name="Ann",
             partner="Bob@League.test")
    assert r.status_code == 200 and "Check your mail" in r.text
    assert mails_to(store, "bob@league.test") == []  # the partner hears only once Ann says so
    r = client.post(link_in(mails_to(store, "ann@league.test")[0], "confirm"),
                    data={"csrf": csrf(client)}, follow_redirects=True)
    assert r.status_code == 200 and "once bob@league.test says yes" in r.text
    entry = entry_by_email(store, "ann@league.test")
    assert entry.status == "pending"
    (ask,) = mails_to(store, "bob@league.test")
    link = link_in(ask, "partner")

    seen = state_of(store)
    r = client.get(link)
    assert r.status_code == 200 and html.escape(entry.name) in r.text
    assert entry.name == "Ann & bob" and "Test League" in r.text
    assert r.text.count("<button") == 1 and state_of(store) == seen
    r = client.post(link, data={"csrf": csrf(client)}, follow_redirects=True)
    assert r.status_code == 200
    assert f"You are in: {entry.name} plays in season 1" in html.unescape(r.text)
    assert entry_by_email(store, "ann@league.test").status == "active"
    done = state_of(store)
    r = client.post(link, data={"csrf": csrf(client)}, follow_redirects=True)  # nothing to do
    assert r.history and r.status_code == 200 and "no longer waiting for you" in r.text
    assert state_of(store) == done
    assert "nothing to do" in client.get(link).text
    r = client.get("/j/partner/garbage")
    assert r.status_code == 400 and "This link does not work" in r.text
    r = client.get(f"/l/{lid}")
    assert [html.unescape(x) for x in re.findall(r"<li>([^<]+)</li>", r.text)] == [entry.name]
    public_checks(app, store, r.text)


def test_joining_a_full_or_started_league_by_the_form_is_refused(store, client):
    lid = league(store, players=3, max_entries=4)
    lg = the_league(store, lid)
    r = post(client, f"/j/{lg.join_token}", email="late@league.test")
    assert r.status_code == 200
    link = link_in(mails_to(store, "late@league.test")[0], "confirm")
    join(store, lid, "first@league.test")  # the last place goes to someone else meanwhile
    before = state_of(store)
    r = post(client, f"/j/{lg.join_token}", email="sixth@league.test")
    assert r.history and r.status_code == 200 and "Test League is full: 4 entries" in r.text
    r = client.post(link, data={"csrf": csrf(client)}, follow_redirects=True)
    assert r.history and r.status_code == 200 and "Test League is full: 4 entries" in r.text
    assert state_of(store) == before and entry_by_email(store, "late@league.test") is None

    seasons.start_season(store, lid, OPERATOR)
    before = state_of(store)
    r = client.get(f"/j/{lg.join_token}")
    assert r.status_code == 200 and "Season 1 has started" in r.text
    r = post(client, f"/j/{lg.join_token}", email="later@league.test")
    assert r.history and r.status_code == 200 and "Test League is not taking entries now" in r.text
    assert state_of(store) == before


# -- the organiser ---------------------------------------------------------------------------


def refused(client, path, words, store, **form):
    before = state_of(store)
    r = post(client, path, **form)
    assert r.history and r.status_code == 200, (path, form, r.text[-500:])
    assert 'class="error"' in r.text and words in html.unescape(r.text), words
    assert state_of(store) == before
    return r


def test_the_organiser_page_and_its_actions(app, store, client):
    lid = league(store, players=5, stale_hours=1)
    lg = the_league(store, lid)
    o = f"/o/{lg.admin_token}"
    before = state_of(store)
    for path in ("/o/nosuchtoken", "/o/nosuchtoken/export.zip"):
        assert client.get(path).status_code == 404
    for action in ("start", "season", "withdraw", "substitute"):
        assert post(client, f"/o/nosuchtoken/{action}", entry="1").status_code == 404
        assert client.post(f"{o}/{action}").status_code == 400  # no CSRF
    assert state_of(store) == before

    r = client.get(o)
    assert r.status_code == 200 and r.headers["Referrer-Policy"] == "no-referrer"
    assert f"{BASE}/j/{lg.join_token}" in r.text and f'href="{o}/export.zip"' in r.text
    entries = rows(r.text, "entry")
    assert [row[2] for row in entries] == [f"p{i}@league.test" for i in range(5)]
    forms = Forms(r.text).forms
    withdraws = [dict((n, v) for n, v, _ in f["inputs"]) for f in forms
                 if f["action"] == f"{o}/withdraw"]
    assert [int(w["entry"]) for w in withdraws] == [int(row[0]) for row in entries]
    assert any(f["action"] == f"{o}/start" for f in forms)
    assert not any(f["action"] == f"{o}/season" for f in forms)  # season 1 has not started
    assert state_of(store) == before

    # refusals before the start: each says why and changes nothing
    refused(client, f"{o}/withdraw", "there is no entry 99999 in Test League", store,
            entry="99999")
    refused(client, f"{o}/withdraw", "the entry: a whole number", store, entry="p4")
    refused(client, f"{o}/season", "season 1 has not started yet", store,
            starts=TODAY.isoformat(), ends=(TODAY + timedelta(days=30)).isoformat())
    refused(client, f"{o}/substitute", "is not a game of Test League", store, game="12345",
            seat="0", who="sub@league.test")
    small = the_league(store, league(store, players=3))  # another league, too small to start
    refused(client, f"/o/{small.admin_token}/start", "needs 4 entries to start; it has 3",
            store)

    gone = entry_by_email(store, "p4@league.test")
    r = post(client, f"{o}/withdraw", entry=str(gone.id))
    assert r.status_code == 200 and "p4 is out." in r.text
    assert entry_by_email(store, "p4@league.test") is None  # before the start: gone
    assert [row[1] for row in rows(r.text, "entry")] == ["p0", "p1", "p2", "p3"]

    r = post(client, f"{o}/start")
    assert r.status_code == 200 and "Season 1 has started" in r.text
    sn = season(store, lid)
    assert sn.status == "running" and sn.round == 1 and f"{sn.rounds} rounds" in r.text
    (gid,) = playing_games(store, lid)
    refused(client, f"{o}/start", "Test League has no season waiting to start", store)
    forms = Forms(r.text).forms
    subs = [f for f in forms if f["action"] == f"{o}/substitute"]
    assert [dict((n, v) for n, v, _ in f["inputs"])["game"] for f in subs] == [str(gid)]
    assert any(f["action"] == f"{o}/season" for f in forms)  # now a next season may be added

    with store.session() as s:
        seated = s.exec(select(Seat, Player).join(Player).where(Seat.game_id == gid)
                        .order_by(Seat.seat)).all()
    emails = [p.email for _, p in seated]
    refused(client, f"{o}/substitute", f"{emails[1]} already has a seat in game {gid}", store,
            game=str(gid), seat="0", who=emails[1])
    refused(client, f"{o}/substitute", "is not a mail address", store,
            game=str(gid), seat="0", who="bob")
    refused(client, f"{o}/substitute", f"there is no seat 7 in game {gid}", store,
            game=str(gid), seat="7", who="sub@league.test")
    r = post(client, f"{o}/substitute", game=str(gid), seat="0", who="Sub@League.test")
    assert r.status_code == 200
    assert f"Game {gid}, seat 0: sub@league.test plays in place of {emails[0]}" in r.text
    with store.session() as s:
        seat0 = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 0)).one()
        assert s.get(Player, seat0.player_id).email == "sub@league.test"
    assert "sub@league.test" in r.text  # the organiser sees who sits where

    # a table that has not moved for the league's stale_hours is listed, and for whom
    with time_machine.travel(datetime.now(UTC) + timedelta(hours=3), tick=False):
        r = client.get(o)
    (stale,) = rows(r.text, "stale")
    from tests.league_helpers import state

    waiting = state(store, gid).to_act()
    with store.session() as s:
        names = [s.get(Player, s.exec(select(Seat.player_id).where(
            Seat.game_id == gid, Seat.seat == x)).one()).name for x in waiting]
    assert stale[0] == str(gid) and stale[2:4] == ["1", "1"] and int(stale[4]) >= 3
    assert stale[5] == ", ".join(names)

    # withdrawing while the season runs: the entry stays, marked; not twice
    out = entry_by_email(store, "p3@league.test")
    r = post(client, f"{o}/withdraw", entry=str(out.id))
    assert r.status_code == 200 and "p3 is out." in r.text
    assert entry_by_email(store, "p3@league.test").status == "withdrawn"
    refused(client, f"{o}/withdraw", "p3 is not playing in season 1", store,
            entry=str(out.id))
    assert "p3 (withdrawn)" in client.get(f"/l/{lid}").text

    # the next season: bad dates refused, good ones added
    refused(client, f"{o}/season", "ends (2027-01-01) before it starts (2027-02-01)", store,
            starts="2027-02-01", ends="2027-01-01")
    refused(client, f"{o}/season", "the first day: a date as YYYY-MM-DD", store,
            starts="", ends="2027-01-01")
    r = post(client, f"{o}/season", starts="2027-02-01", ends="2027-06-30")
    assert r.status_code == 200 and "Season 2 is added" in r.text
    two = season(store, lid, 2)
    assert (two.status, two.starts.isoformat()) == ("open", "2027-02-01")
    with store.session() as s:
        again = sorted(e.name for e in s.exec(select(Entry).where(Entry.season_id == two.id)))
    assert again == ["p0", "p1", "p2"]  # the withdrawn entry is not entered again


# -- season pages, the JSON, the zip ---------------------------------------------------------


def _check_season_page(app, store, client, lid, number):
    """The season's page and JSON agree with pbem.league.reports, and show no address or
    card."""
    with store.session() as s:
        lg = s.get(League, lid)
        sn = s.exec(select(Season).where(Season.league_id == lid,
                                         Season.number == number)).one()
        table = season_standings(s, sn)
        rounds_ = report_fixtures(s, sn)
        rated = ratings(s, lg)
        reliable = season_reliability(s, sn)
        status = {e.id: e.status for e in s.exec(select(Entry).where(
            Entry.season_id == sn.id))}
    r = client.get(f"/l/{lid}/s/{number}")
    assert r.status_code == 200
    shown = rows(r.text, "standing")
    assert len(shown) == len(table) and table
    for cells, row in zip(shown, table, strict=True):
        mark = f" (withdrawn): {row.note}" if status[row.entry] == "withdrawn" else ""
        assert cells == [str(x) for x in (
            row.rank or "–", row.name + mark, row.played, row.won, row.lost, row.byes,
            row.points, row.points_for, row.points_against, row.diff, row.bags,
            row.nils_made, row.nils_failed, row.forfeits)]
    assert "then points difference, then points for, then fewer bags" in r.text
    tables = [t for rnd in rounds_ for t in rnd["tables"]]
    shown = rows(r.text, "fixture")
    assert len(shown) == len(tables)
    for cells, t in zip(shown, tables, strict=True):
        unrated = " (not rated)" if t["rated"] is False else ""
        assert cells[0] == str(t["board"]) and cells[3] == f"game {t['game_id']}{unrated}"
        for side in t["sides"]:
            assert " & ".join(side["names"]) in cells[1]
            assert (" & ".join(side["names"]) + " (won)" in cells[1]) == side["won"]
        if t["status"] == "over":
            assert cells[2] == " : ".join(str(side["score"]) for side in t["sides"])
        else:
            assert cells[2] == "playing"
        assert f'href="/g/{t["game_id"]}"' in r.text
    for rnd in rounds_:
        if rnd["byes"]:
            assert f"Bye (counts as a win): {', '.join(rnd['byes'])}" in html.unescape(r.text)
    def shown_rating(x):
        return [x["name"], f"{x['rating']:.1f}", f"{x['glicko']:.1f} ± {x['rd']:.1f}",
                str(x["games"])]

    assert rows(r.text, "rating") == [shown_rating(x) for x in rated["players"]]
    assert rows(r.text, "pair-rating") == [shown_rating(x) for x in rated["pairs"]]
    public_checks(app, store, r.text)

    js = client.get(f"/api/l/{lid}/s/{number}").get_json()
    assert js["standings"] == [dict(asdict(row), status=status[row.entry]) for row in table]
    assert js["fixtures"] == json.loads(json.dumps(rounds_))
    assert [(x["name"], x["moves"], x["timeouts"]) for x in js["reliability"]] == [
        (x.name, x.moves, x.timeouts) for x in reliable]
    assert js["ratings"] == json.loads(json.dumps(rated))
    assert (js["number"], js["status"], js["round"], js["rounds"]) == \
        (sn.number, sn.status, sn.round, sn.rounds)
    public_checks(app, store, js)
    return r


def test_a_season_page_during_and_after_play(app, store, client):
    lid = league(store, players=5, rules=ONE_HAND, pairing="swiss")
    r = client.get(f"/l/{lid}")
    assert r.status_code == 200 and "taking entries" in r.text
    assert 'aria-label="League table"' not in r.text and 'name="email"' in r.text
    seasons.start_season(store, lid, OPERATOR)
    before = counts(store), state_of(store)

    r = _check_season_page(app, store, client, lid, 1)  # round one is playing
    sn = season(store, lid)
    assert f"round 1 of {sn.rounds}" in r.text and "playing" in r.text
    assert 'name="email"' not in r.text  # no join form once the season runs
    assert client.get(f"/l/{lid}").text == r.text  # the league page is its latest season
    gone = next(f.seats[0] for f in _fixtures(store, lid) if f.status == "bye")
    assert counts(store) == before[0] and state_of(store) == before[1]

    with store.session() as s:
        who = s.get(Entry, gone).player_id
    withdraw(store, lid, who, gone)  # the entry with the bye leaves
    play_season(store, lid)
    sn = season(store, lid)
    assert sn.status == "over"
    before = counts(store), state_of(store)
    r = _check_season_page(app, store, client, lid, 1)
    assert f"over after {sn.round} of {sn.rounds} rounds" in r.text
    assert r.text.count("(withdrawn)") == 1
    assert "(won)" in r.text and "playing" not in r.text

    # the JSON of the league and the list of leagues
    js = client.get(f"/api/l/{lid}").get_json()
    lg = the_league(store, lid)
    assert (js["id"], js["name"], js["entry"], js["pairing"]) == \
        (lid, "Test League", "single", "swiss")
    assert js["rules"] == lg.rules and js["seasons"] == [
        {"number": 1, "starts": sn.starts.isoformat(), "ends": sn.ends.isoformat(),
         "status": "over", "round": sn.round, "rounds": sn.rounds, "url": f"/l/{lid}/s/1"}]
    assert client.get("/api/leagues").get_json() == [
        {"id": lid, "name": "Test League", "preset": "standard", "entry": "single",
         "pairing": "swiss", "season": 1, "status": "over", "url": f"/l/{lid}"}]
    public_checks(app, store, js)
    for path in (f"/l/{lid + 1}", f"/l/{lid}/s/2", f"/api/l/{lid + 1}", f"/api/l/{lid}/s/2",
                 f"/l/{lid}/s/0"):
        assert client.get(path).status_code == 404, path
    assert counts(store) == before[0] and state_of(store) == before[1]

    # a new season: the league page shows it, the finished one stays readable
    add_season(store, lid, OPERATOR, TODAY, TODAY + timedelta(days=60))
    r = client.get(f"/l/{lid}")
    assert "Season 2" in r.text and f'href="/l/{lid}/s/1"' in r.text
    assert 'name="email"' in r.text
    _check_season_page(app, store, client, lid, 1)


def _fixtures(store, lid) -> list[Fixture]:
    from tests.league_helpers import fixtures

    return fixtures(store, lid)


def test_a_pair_league_its_partnership_ratings_and_the_zip(app, store, client):
    lid = league(store, players=6, entry="pair", pairing="round-robin")
    lg = the_league(store, lid)
    seasons.start_season(store, lid, OPERATOR)
    play_season(store, lid)
    r = _check_season_page(app, store, client, lid, 1)
    assert len(rows(r.text, "pair-rating")) == 3 and len(rows(r.text, "rating")) == 6
    assert "p0 &amp; p1" in r.text

    # the zip: only through the organiser's token
    assert client.get("/o/nosuchtoken/export.zip").status_code == 404
    assert client.get(f"/o/{lg.join_token}/export.zip").status_code == 404
    before = counts(store)
    r = client.get(f"/o/{lg.admin_token}/export.zip")
    assert r.status_code == 200 and r.mimetype == "application/zip"
    assert r.headers["Content-Disposition"] == f'attachment; filename="league-{lid}.zip"'
    z = zipfile.ZipFile(io.BytesIO(r.data))
    games = [f.game_id for f in _fixtures(store, lid) if f.game_id]
    assert sorted(z.namelist()) == sorted(["league.json"] + [f"games/game-{g:06d}.jsonl"
                                                             for g in games])
    record = json.loads(z.read("league.json"))
    assert record["format"] == "pbem-league/1" and record["league"]["organiser"] == ORGANISER
    assert [t["game"] for t in record["seasons"][0]["tables"]] == games
    for g in games:
        header = json.loads(z.read(f"games/game-{g:06d}.jsonl").splitlines()[0])
        assert header["format"] == "pbem/1" and header["rules"]["preset"] == "standard"
    assert counts(store) == before


def test_the_organiser_page_gives_a_new_organiser_address(store, client):
    """A leaked organiser address is replaced from the page (the old one then refused at
    RCPT: tests/test_mail_account_address.py); without the page's CSRF value nothing
    changes."""
    lg = the_league(store, league(store, players=2))
    o, old = f"/o/{lg.admin_token}", lg.organiser_key
    assert old in client.get(o).text
    before = state_of(store)
    assert client.post(f"{o}/address").status_code == 400 and state_of(store) == before
    r = post(client, f"{o}/address")
    new = the_league(store, lg.id).organiser_key
    assert new != old and new in r.text and old not in r.text


def test_the_organiser_page_allows_hints_and_turns_them_off(store, client):
    """Issue 33: the page's switch (League.hints), off by default; without the page's CSRF
    value, or with a wrong admin token, nothing changes."""
    lg = the_league(store, league(store, players=2))
    o = f"/o/{lg.admin_token}"
    assert not lg.hints and "Allow hints" in client.get(o).text
    assert client.post(f"{o}/hints", data={"hints": "on"}).status_code == 400
    assert client.post(f"/o/{'x' * 20}/hints",
                       data={"hints": "on", "csrf": csrf(client)}).status_code == 404
    assert not the_league(store, lg.id).hints
    assert "Hints are allowed" in post(client, f"{o}/hints", hints="on").text
    assert the_league(store, lg.id).hints and "Turn hints off" in client.get(o).text
    assert "Hints are off" in post(client, f"{o}/hints", hints="off").text
    assert not the_league(store, lg.id).hints


def test_every_league_route_is_tested_here():
    from tests.test_web import ROUTES

    here = {name for name in globals() if name.startswith("test_")}
    ours = {rule: test for rule, test in ROUTES.items()
            if re.match(r"/(l|j|o)(/|$)|/api/(leagues|l/)", rule)
            and "/b/<int:board>" not in rule  # a duplicate board: test_league_duplicate.py
            and "/webhook" not in rule}  # a league's webhooks: test_webhooks.py
    assert len(ours) == 26 and set(ours.values()) <= here


def test_docs_describe_the_league_json(store, client):
    """docs/api.md's Leagues section: an example for each endpoint, shaped like the real
    response."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    part = doc.split("\n# Leagues\n", 1)[1]
    examples = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", part, re.S)]
    listed, one, sn = examples
    lid = league(store, players=4)
    seasons.start_season(store, lid, OPERATOR)
    live = client.get("/api/leagues").get_json()
    assert set(listed[0]) == set(live[0])
    live = client.get(f"/api/l/{lid}").get_json()
    assert set(one) == set(live) and set(one["seasons"][0]) == set(live["seasons"][0])
    live = client.get(f"/api/l/{lid}/s/1").get_json()
    assert set(sn) == set(live)
    assert set(sn["standings"][0]) == set(live["standings"][0])
    assert set(sn["fixtures"][0]["tables"][0]) == set(live["fixtures"][0]["tables"][0])
    assert set(sn["ratings"]) == set(live["ratings"])


ORGANISER_ACTS = ("rule", "more", "robot", "remind", "message", "pause", "replay")


def test_the_organisers_forms_and_their_refusals(app, store, client):
    lid = league(store, players=8)
    seasons.start_season(store, lid, OPERATOR)
    first, second = [f.game_id for f in fixtures(store, lid)][:2]
    play_out(store, first)
    lg = the_league(store, lid)
    o = f"/o/{lg.admin_token}"
    other = the_league(store, league(store, players=4))
    forms = Forms(client.get(o).text).forms
    for act in ORGANISER_ACTS:
        assert any(f["action"] == f"{o}/{act}" for f in forms), act

    before = state_of(store)
    for act in ORGANISER_ACTS:
        assert client.post(f"{o}/{act}", data={"game": second}).status_code == 400  # no CSRF
        assert post(client, f"/o/nosuchtoken/{act}", game=str(second)).status_code == 404
    assert state_of(store) == before
    refused(client, f"/o/{other.admin_token}/more", "is not a game of", store,
            game=str(second), hours="5")
    refused(client, f"{o}/more", "the hours: a whole number up to 1440", store,
            game=str(second), hours="99999")
    refused(client, f"{o}/more", "the hours: a whole number", store, game=str(second),
            hours="-3")
    refused(client, f"{o}/robot", "the game: a whole number", store, game="x")
    refused(client, f"{o}/remind", "is not a game of", store, game="77777")
    refused(client, f"{o}/rule", "is not over", store, game=str(second), result="replay",
            reason="why")
    refused(client, f"{o}/rule", "give the reason", store, game=str(first), result="replay",
            reason=" ")
    refused(client, f"{o}/rule", "side 3 is not a side", store, game=str(first),
            result="win", side="3", reason="x")
    refused(client, f"{o}/message", "a message has a subject", store, subject="",
            text="hello")

    r = post(client, f"{o}/rule", game=str(first), result="adjust", points="+20, -20",
             reason="a revoke <b>missed</b>")
    assert r.status_code == 200 and "side 1 +20, side 2 -20" in html.unescape(r.text)
    assert "<b>missed</b>" not in r.text  # the reason is the organiser's words, escaped
    pad = client.get(f"/g/{first}").text
    assert "The organiser's ruling: scores adjusted by side 1 +20" in pad
    season_page = html.unescape(client.get(f"/l/{lid}").text)
    assert "a revoke <b>missed</b>" in season_page
    seq = state(store, second).seq
    assert "the robot made the move" in post(client, f"{o}/robot", game=str(second)).text
    with store.session() as s:
        assert s.exec(select(Move.source).where(Move.game_id == second,
                                                Move.seq == seq + 1)).one() == "organiser"
    assert "reminded to move" in post(client, f"{o}/remind", game=str(second)).text
    assert "24 more hours" in post(client, f"{o}/more", game=str(second), hours="24").text
    assert "Paused: season 1." in post(client, f"{o}/pause", season="1").text
    refused(client, f"{o}/pause", "no running season to pause", store, season="1")
    refused(client, f"{o}/pause", "has no season 4", store, season="4", do="resume")
    assert "Resumed: season 1." in post(client, f"{o}/pause", season="1", do="resume").text
    r = post(client, f"{o}/message", season="1", subject="Hello", text="Round 2 soon.")
    assert "went to 8 players" in r.text
    with store.session() as s:
        assert len(s.exec(select(Outbox).where(
            Outbox.dedupe_key.like(f"message:{lid}:%"))).all()) == 9


def _played_counts(store, lid) -> dict:
    with store.session() as s:
        return {r.entry: r.played for r in season_standings(s, season(store, lid))}


def _players_at(store, gid) -> list:
    with store.session() as s:
        return [x.player_id for x in s.exec(select(Seat).where(Seat.game_id == gid)
                                           .order_by(Seat.seat)).all()]


def test_a_replay_is_dealt_in_the_league_and_counts(app, store, client):
    lid, gid = replay_ruled(store)
    o = f"/o/{the_league(store, lid).admin_token}"
    page = html.unescape(client.get(f"/l/{lid}").text)
    assert "None" not in page  # the struck game shows its scores as played
    line = next(r for r in rows(page, "fixture") if f"game {gid}" in r[3])
    assert re.fullmatch(r"-?\d+ : -?\d+", line[2].split(" (ruled")[0]), line[2]
    assert "No games finished yet" not in page and "No rated game yet" in page
    assert all(n == 0 for n in _played_counts(store, lid).values())

    refused(client, f"{o}/replay", "is not ruled a replay", store,
            game=str(fixtures(store, lid)[1].game_id))
    refused(client, f"{o}/replay", "the game: a whole number", store, game="x")
    r = post(client, f"{o}/replay", game=str(gid))
    assert 'class="notice"' in r.text and f"Game {gid} is replayed as game" in r.text
    old = next(f for f in fixtures(store, lid) if f.game_id == gid)
    new = next(f for f in fixtures(store, lid) if f.game_id == old.result["replayed_by"])
    assert new.round == old.round == 1 and new.game_id != gid
    assert new.seats == old.seats and new.board == 2 and new.status == "playing"
    assert _players_at(store, new.game_id) == _players_at(store, gid)
    with store.session() as s:
        assert s.get(Game, new.game_id).status == "playing"  # dealt
    page = html.unescape(client.get(f"/l/{lid}").text)  # listed at once, playing
    assert [r[2] for r in rows(page, "fixture") if f"game {new.game_id}" in r[3]] == ["playing"]
    # once only; and the struck game takes no more rulings: its replay does
    refused(client, f"{o}/replay", "replayed already", store, game=str(gid))
    refused(client, f"{o}/rule", f"was replayed as game {new.game_id}", store,
            game=str(gid), result="win", side="1", reason="again")

    play_out(store, new.game_id, seed=2)
    assert all(n == 1 for n in _played_counts(store, lid).values())  # the replay counts, once
    page = html.unescape(client.get(f"/l/{lid}").text)
    assert f'(replayed as <a href="/g/{new.game_id}">game {new.game_id}</a>)' in page
    assert "None" not in page
