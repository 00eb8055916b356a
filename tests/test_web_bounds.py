"""Issue 12, "Open to the internet": each attack found against `pbem serve`, sent again. A
refused request gets a clear page (the form again, or the site's own error page) and leaves
the database and the Maildir as they were; ids past what a column holds are 404, never a
500; pages carry strict headers, and those whose address is a key are neither cached nor
sent on as a Referer."""

import html
import re
import urllib.request
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from sqlmodel import select

from pbem.engine import preset
from pbem.league.manage import OPERATOR
from pbem.organise import seasons
from pbem.store.models import Game, League, Seat
from tests.league_helpers import league, playing_games
from tests.web_helpers import (
    BASE,
    confirmation_links,
    confirmed,
    counts,
    csrf,
    database,
    from_,
    humans_game,
    make_app,
    sent_mail,
    tokens,
)

# the policy, with the one script the site serves itself (issue 14: a table page
# follows its game) and the requests it makes to the site
CSP = ("default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; "
       "img-src 'self' data:; form-action 'self'; frame-ancestors 'none'")
MAX_ID = 2**31 - 1  # PostgreSQL's integer
PHISH = "your account is suspended. log in at http://evil.example/login @x.test"


def answers(site: str) -> bool:
    """Does the server at `site` serve its home page yet?"""
    try:
        return urllib.request.urlopen(site + "/", timeout=5).status == 200
    except OSError:
        return False


def new_game(client, **change) -> dict:
    """A good /new form (the creator in seat 0), with `change`."""
    form = {"csrf": csrf(client), "you": "a@x.test", "preset": "standard", "public": "on",
            "seat0": "a@x.test", "seat1": "robot", "seat2": "b@x.test", "seat3": "robot"}
    return dict(form, **change)


def refused_form(client, store, tmp_path, path, form, words):
    """POST `form`: a 303 back to the form, shown again with why, and nothing stored or
    mailed."""
    mail = len(sent_mail(store, tmp_path))  # what earlier steps queued has gone out
    before = database(store)
    r = client.post(path, data=form)
    assert r.status_code == 303, (form, r.text[-600:])
    r = client.get(r.headers["Location"])
    assert 'class="error"' in r.text and "<form" in r.text
    assert words in html.unescape(r.text), (words, r.text[-600:])
    assert database(store) == before
    assert len(sent_mail(store, tmp_path)) == mail
    return r


# -- spam and phishing from our address ------------------------------------------------------


def test_new_game_mails_only_checked_addresses(store, client, tmp_path):
    six = {f"seat{i}": f"p{i}@x.test" for i in range(6)}
    refused_form(client, store, tmp_path, "/new",
                 new_game(client, preset="six-handed", you=PHISH, **six),
                 "your own email address")
    bad_seats = {"b@x.test\r\nBcc: victim@x.test": "control character",  # left open for ever
                 "b" * 300 + "@x.test": "over 254 characters",  # a 500 on PostgreSQL
                 "Bob <b@x.test>": "a space", "b@x.test c@x.test": "a space",
                 "b@[127.0.0.1]": "brackets", '"b"@x.test': "quotes"}
    for seat, why in bad_seats.items():
        r = refused_form(client, store, tmp_path, "/new", new_game(client, seat2=seat), why)
        assert "seat 2" in html.unescape(r.text)
        assert 'value="a@x.test"' in r.text  # the form keeps what was typed
    # the good form goes through: the creator confirms, then the invitation goes to the
    # address as checked
    assert sent_mail(store, tmp_path) == []
    r = confirmed(client, store, "/new", new_game(client, seat2="  Bee@X.Test "), "a@x.test")
    assert r.status_code == 303
    assert [m["To"] for m in sent_mail(store, tmp_path)] == ["a@x.test", "bee@x.test"]


def test_the_creator_takes_a_seat_so_robots_never_play_a_game_in_a_request(store, client,
                                                                           tmp_path):
    robots = {f"seat{i}": "robot" for i in range(4)}
    for options in ("target=30000", ""):  # the attack, and a game of robots at all
        refused_form(client, store, tmp_path, "/new", new_game(client, options=options,
                                                               **robots),
                     "runs from 50 to 1000" if options else "take a seat yourself")
    refused_form(client, store, tmp_path, "/new", new_game(client, seat0="robot"),
                 "take a seat yourself")
    # every invitee says no: robots take their seats, the creator's stays, the game waits
    r = confirmed(client, store, "/new", new_game(client, seat0="a@x.test", seat1="b@x.test",
                                                  seat2="c@x.test", seat3="d@x.test"),
                  "a@x.test")
    gid = int(r.headers["Location"].split("/")[2])
    for tok in tokens(store, gid)[1:]:
        assert client.post(f"/i/{tok}", data={"csrf": csrf(client),
                                              "answer": "no"}).status_code == 303
    with store.session() as s:
        assert s.get(Game, gid).status == "playing"
        assert [x.robot for x in s.exec(select(Seat).where(Seat.game_id == gid)
                                        .order_by(Seat.seat))] == [False, True, True, True]
    assert counts(store, gid)[0] < 60  # at most a deal and the robots' bids before seat 0's


@pytest.mark.parametrize("options, words", [
    ("target=30000", "runs from 50 to 1000"), ("target=10", "runs from 50 to 1000"),
    ("floor=-99999", "'floor' runs from -1000 to 0"), ("max_hands=100000", "'max_hands'"),
    ("nil_points=1000000", "'nil_points'"), ("bag_penalty=-5", "'bag_penalty'"),
    ("double_nil=1,2,999999", "'double_nil'"), ("remove=2H,2H", "names something twice"),
    ("target=" + "9" * 5000, "whole number"),
])
def test_options_out_of_range_are_refused_on_every_form(store, client, tmp_path, options,
                                                        words):
    refused_form(client, store, tmp_path, "/new", new_game(client, options=options), words)
    league_form = {"csrf": csrf(client), "organiser": "boss@x.test", "name": "L",
                   "preset": "standard", "options": options, "entry": "single",
                   "pairing": "round-robin", "starts": "2030-01-01", "ends": "2030-06-01",
                   "move_hours": "72", "on_timeout": "robot"}
    refused_form(client, store, tmp_path, "/l/new", league_form, words)


# -- proof of address before any account acts ------------------------------------------------


def changed(before: dict, after: dict) -> set[str]:
    return {table for table in after if after[table] != before[table]}


def text_of(mail) -> str:
    """The text part (every mail has an HTML one too)."""
    plain = next(p for p in mail.walk() if p.get_content_type() == "text/plain")
    return plain.get_payload(decode=True).decode()


def mail_ids(store, tmp_path) -> set[str]:
    return {m["Message-ID"] for m in sent_mail(store, tmp_path)}


def new_mail(store, tmp_path, seen: set[str]) -> list:
    """What went out since `seen` (a Maildir lists its messages in no order)."""
    return [m for m in sent_mail(store, tmp_path) if m["Message-ID"] not in seen]


def test_a_stranger_who_gives_a_players_address_causes_one_mail_and_nothing_else(
        store, client, tmp_path):
    """The issue: `POST /new` with you= an existing player's address seated that player at
    once and handed the poster a table link tied to the victim's account (from it the poster
    put the victim on vacation), and the invitees got mail for a game the victim never
    agreed to. Now the form mails that address one confirmation link, and that is all."""
    humans_game(store, preset("standard"))  # p1@x.test plays here, with a vacation bank
    seen = mail_ids(store, tmp_path)
    before = database(store)
    form = new_game(client, you="p1@x.test", seat0="p1@x.test", seat1="b@x.test",
                    seat2="c@x.test", seat3="d@x.test")
    r = client.post("/new", data=form, follow_redirects=True)
    assert r.status_code == 200 and "Check your mail" in r.text
    assert not re.search(r"/(t|i|o|g)/", r.text)  # no key and no game: nothing to act from
    assert changed(before, database(store)) == {"outbox", "webmail"}  # no game, seat, player
    (mail,) = new_mail(store, tmp_path, seen)
    assert mail["To"] == "p1@x.test" and mail["Subject"] == "Confirm your new game of Spades"
    assert "If it was not you, ignore this mail" in text_of(mail)
    assert client.post("/new", data=form).status_code == 303  # again: no second mail today
    assert len(new_mail(store, tmp_path, seen)) == 1


def test_a_stranger_cannot_make_someone_an_organiser(store, client, tmp_path):
    """`/l/new` mailed an unconfirmed organiser address the organiser's page at once."""
    humans_game(store, preset("standard"))
    seen = mail_ids(store, tmp_path)
    before = database(store)
    r = client.post("/l/new", data=league_form(client, organiser="p2@x.test"),
                    follow_redirects=True)
    assert r.status_code == 200 and "Check your mail" in r.text and "/o/" not in r.text
    assert changed(before, database(store)) == {"outbox", "webmail"}  # no league, no player
    (mail,) = new_mail(store, tmp_path, seen)
    assert mail["To"] == "p2@x.test" and mail["Subject"] == "Confirm your new league: L"
    assert "/o/" not in text_of(mail) and "/l/new/confirm/" in text_of(mail)


def test_the_form_mails_only_the_address_that_must_confirm(store, client, tmp_path):
    """`/new` mailed up to five addresses of the poster's choosing: now it mails only the
    creator's, and the invitations wait for the creator's button."""
    six = {f"seat{i}": f"p{i}@y.test" for i in range(6)}
    r = client.post("/new", data=new_game(client, preset="six-handed", you="p0@y.test", **six))
    assert r.status_code == 303
    assert [m["To"] for m in sent_mail(store, tmp_path)] == ["p0@y.test"]
    r = client.post(confirmation_links(store, "p0@y.test")[0], data={"csrf": csrf(client)})
    assert r.status_code == 303
    assert sorted(m["To"] for m in sent_mail(store, tmp_path)) == \
        [f"p{i}@y.test" for i in range(6)]


def test_a_link_holds_no_more_than_a_mail_client_keeps(store, client, tmp_path):
    """The link carries the checked form, within 2000 characters: a form of many option
    lines (each one valid) is more than that, and refused with why."""
    options = "\n".join(f"target={t}" for t in range(50, 1001))
    refused_form(client, store, tmp_path, "/new", new_game(client, options=options),
                 "more than a confirmation link can carry")


def test_the_longest_address_can_ask_to_join(store, client, tmp_path):
    """A join's mail was keyed by the whole address: past 200 characters that was a 500 on
    PostgreSQL. The key holds a digest now."""
    lid = league(store, players=0)
    with store.session() as s:
        join = f"/j/{s.get(League, lid).join_token}"
    longest = "j" * 64 + "@" + ".".join(["d" * 63, "e" * 63, "f" * 56]) + ".test"
    assert len(longest) == 254
    r = client.post(join, data={"csrf": csrf(client), "email": longest}, follow_redirects=True)
    assert r.status_code == 200 and "Check your mail" in r.text
    assert [m["To"] for m in sent_mail(store, tmp_path)].count(longest) == 1


# -- how much the web mails: per client address and per mailbox ------------------------------


def league_form(client, **change) -> dict:
    form = {"csrf": csrf(client), "organiser": "boss@x.test", "name": "L",
            "preset": "standard", "entry": "single", "pairing": "round-robin",
            "starts": "2030-01-01", "ends": "2030-06-01", "move_hours": "72",
            "on_timeout": "robot"}
    return dict(form, **change)


def too_many(client, store, tmp_path, path, form, ip):
    """POST from `ip`: 429 in the site's page, and nothing stored or mailed."""
    mail, before = len(sent_mail(store, tmp_path)), database(store)
    r = client.post(path, data=form, **from_(ip))
    assert r.status_code == 429, r.text[-400:]
    assert "<h1>Too many</h1>" in r.text and "<header>" in r.text
    assert "Nothing was sent or changed" in r.text and r.headers["Retry-After"] == "3600"
    assert database(store) == before and len(sent_mail(store, tmp_path)) == mail


def test_one_mailbox_gets_at_most_five_mails_an_hour_from_the_web(store, client, tmp_path):
    """Whoever asks, from wherever: a new game's, a new league's and a join's mails to one
    address count together."""
    lid = league(store, players=0)
    with store.session() as s:
        join = f"/j/{s.get(League, lid).join_token}"
    asks = [("/new", new_game(client, you="v@x.test", seat0="v@x.test", options=f"target={t}"))
            for t in (300, 400, 500)]
    asks += [("/l/new", league_form(client, organiser="v@x.test")),
             (join, {"csrf": csrf(client), "email": "V@x.test"})]
    for i, (path, form) in enumerate(asks):
        assert client.post(path, data=form, **from_(f"10.0.0.{i}")).status_code == 303, path
    assert len([m for m in sent_mail(store, tmp_path) if m["To"] == "v@x.test"]) == 5
    for path, form in [("/new", new_game(client, you="v@x.test", seat0="v@x.test")),
                       ("/l/new", league_form(client, organiser="v@x.test", name="M")),
                       (join, {"csrf": csrf(client), "email": "v@x.test", "name": "V"})]:
        too_many(client, store, tmp_path, path, form, "10.0.1.1")
    assert client.post("/new", data=new_game(client), **from_("10.0.1.1")).status_code == 303
    with time_machine.travel(datetime.now(UTC) + timedelta(hours=1, minutes=1)):
        r = client.post("/new", data=new_game(client, you="v@x.test", seat0="v@x.test"))
        assert r.status_code == 303


def test_one_client_causes_at_most_twenty_mails_an_hour(store, client, tmp_path):
    """Twenty addresses from one client, then 429; an IPv6 client counts by its /64."""
    for ip in ("192.0.2.7", "2001:db8:0:1::1"):
        for i in range(20):
            form = new_game(client, you=f"{i}@{ip.replace(':', '-')}.test")
            form["seat0"] = form["you"]
            mine = ip if ":" not in ip else f"2001:db8:0:1::{i + 1:x}"  # the same /64
            assert client.post("/new", data=form, **from_(mine)).status_code == 303, i
        too_many(client, store, tmp_path, "/new", new_game(client), ip)
        too_many(client, store, tmp_path, "/l/new", league_form(client), ip)
    assert client.post("/new", data=new_game(client), **from_("192.0.2.8")).status_code == 303
    assert client.post("/new", data=new_game(client, you="b@x.test", seat0="b@x.test"),
                       **from_("2001:db8:0:2::1")).status_code == 303


def test_the_invitations_count_too_and_a_refused_confirmation_keeps_its_link(store, client,
                                                                             tmp_path):
    """The creator's button mails the invitees: an invitee whose mailbox is full for the hour
    holds the game back (429, nothing made); the same link works an hour later, once."""
    for t in (300, 400, 500, 600, 700):  # b@x.test had five confirmation mails this hour
        form = new_game(client, you="b@x.test", seat0="b@x.test", options=f"target={t}")
        assert client.post("/new", data=form, **from_("10.0.0.9")).status_code == 303
    assert client.post("/new", data=new_game(client)).status_code == 303  # a@x invites b@x
    link = confirmation_links(store, "a@x.test")[0]
    too_many(client, store, tmp_path, link, {"csrf": csrf(client)}, "10.0.0.1")
    with store.session() as s:
        assert s.exec(select(Game)).all() == []
    with time_machine.travel(datetime.now(UTC) + timedelta(hours=1, minutes=1)):
        assert client.post(link, data={"csrf": csrf(client)}).status_code == 303
        assert client.post(link, data={"csrf": csrf(client)}).status_code == 409
    with store.session() as s:
        assert len(s.exec(select(Game)).all()) == 1


# -- bounds on every request -----------------------------------------------------------------


def test_a_huge_form_gets_413_and_is_neither_read_nor_echoed(store, client, tmp_path):
    before = database(store)
    junk = "A" * (20 * 1024 * 1024)
    for path in ("/new", "/demo", "/l/new", "/t/x/move"):
        r = client.post(path, data={"csrf": csrf(client), "you": junk})
        assert r.status_code == 413, path
        assert "Too large" in r.text and "pbem" in r.text and len(r.data) < 10_000
        assert "AAAAAAAAAA" not in r.text
    assert client.post("/new", data={"options": "x" * 60_000}).status_code == 400
    assert database(store) == before and sent_mail(store, tmp_path) == []


def _id_routes(app) -> list[tuple[str, set]]:
    """Every route with an id in it, as a path to format with {big} (a key in the same path
    stays a plain word)."""
    out = []
    for rule in app.url_map.iter_rules():
        if "<int:" in rule.rule:
            path = re.sub(r"<int:[a-z_]+>", "{big}", rule.rule)
            out.append((re.sub(r"<[a-z_]+>", "abcdefghijklmnop", path), rule.methods))
    return out


def test_ids_past_a_database_integer_are_404_on_every_route(store, app, client):
    humans_game(store, preset("standard"))
    routes = _id_routes(app)
    assert len(routes) >= 6  # /g/, /api/g/, /l/, /api/l/, seasons, a deal
    before = database(store)
    for big in (MAX_ID + 1, 2**63, 10**30, "9" * 5000):
        for path, methods in routes:
            url = path.format(big=big)
            for method in methods - {"HEAD", "OPTIONS"}:
                r = client.open(url, method=method, data={"csrf": csrf(client)})
                assert r.status_code == 404, (method, url[:80], r.status_code)
    assert client.get(f"/g/{MAX_ID}").status_code == 404  # the largest id: a plain miss
    assert database(store) == before


def test_keys_that_are_not_keys_are_404_and_control_characters_400(store, app, client,
                                                                   tmp_path):
    """A NUL byte in a key or a form field was a 500 on PostgreSQL (it cannot store one)."""
    gid = humans_game(store, preset("standard"))
    keyed = [r for r in app.url_map.iter_rules() if "token" in "".join(r.arguments)]
    assert len(keyed) >= 15
    mail = len(sent_mail(store, tmp_path))  # the game's first turn mail
    before = database(store)
    for rule in keyed:
        for key in ("%00abc", "a%0Db", "x" * 2100, "%C3%BC"):  # a confirmation: <= 2000
            path = re.sub(r"<int:[a-z_]+>", str(gid), rule.rule)
            path = re.sub(r"<[a-z_]+>", key, path)
            for method in rule.methods - {"HEAD", "OPTIONS"}:
                r = client.open(path, method=method, data={"csrf": csrf(client)})
                assert r.status_code == 404, (method, path[:80], r.status_code)
    assert database(store) == before
    for path, form in [("/new", new_game(client, seat1="b\x00@x.test")),
                       ("/l/new", {"csrf": csrf(client), "organiser": "boss@x.test",
                                   "name": "Nul\x00League"}),
                       ("/demo", {"csrf": csrf(client), "x": "\x1b[2J"}),
                       ("/demo", {"csrf": csrf(client), "x": ["fine", "second\x00"]})]:
        r = client.post(path, data=form)
        assert r.status_code == 400 and "control characters" in r.text, path
    assert database(store) == before
    assert len(sent_mail(store, tmp_path)) == mail


def test_organiser_numbers_past_an_id_are_refused_not_a_500(store, client, tmp_path):
    lid = league(store, players=4)
    with store.session() as s:
        admin = s.get(League, lid).admin_token
    o = f"/o/{admin}"
    for path, form, words in [
            (f"{o}/withdraw", {"entry": str(MAX_ID + 1)}, "a whole number up to"),
            (f"{o}/withdraw", {"entry": "9" * 30}, "a whole number up to"),
            (f"{o}/substitute", {"game": str(2**63), "seat": "0", "who": "robot"},
             "a whole number up to"),
            (f"{o}/substitute", {"game": "1", "seat": "99999999999", "who": "robot"},
             "a whole number up to")]:
        r = refused_form(client, store, tmp_path, path, dict(form, csrf=csrf(client)), words)
        assert "Not done" in r.text


def test_a_robot_cannot_take_the_last_persons_seat_from_the_web(store, client, tmp_path):
    lid = league(store, players=4)
    seasons.start_season(store, lid, OPERATOR)
    (gid,) = playing_games(store, lid)
    with store.session() as s:
        admin = s.get(League, lid).admin_token
    o = f"/o/{admin}"
    for seat in (0, 1, 2):
        r = client.post(f"{o}/substitute", data={"csrf": csrf(client), "game": str(gid),
                                                 "seat": str(seat), "who": "robot"})
        assert r.status_code == 303, r.text[-400:]
    before = counts(store, gid)
    for who in ("robot", "Robot:hard", "robot easy"):  # a robot of any level (issue 33)
        refused_form(client, store, tmp_path, f"{o}/substitute",
                     {"csrf": csrf(client), "game": str(gid), "seat": "3", "who": who},
                     "cannot take the last person's seat")
    assert counts(store, gid) == before


# -- headers, cookies and error pages --------------------------------------------------------


def check_headers(path: str, r) -> None:
    """What every response carries, and no-store on every page whose address is a key and
    on every redirect."""
    h = r.headers
    assert h.get("Content-Security-Policy") == CSP, path
    assert h.get("X-Content-Type-Options") == "nosniff", path
    assert h.get("Referrer-Policy") == "no-referrer", path
    secret = re.match(r"/(api/)?(t|m|i|o|j|new/confirm|l/new/confirm|signin)/", path) or \
        "token=" in path or r.status_code in (301, 302, 303, 307, 308)
    assert (h.get("Cache-Control") == "no-store") == bool(secret), (path, h.get("Cache-Control"))


def test_headers_on_pages_errors_and_keys(store, client):
    gid = humans_game(store, preset("standard"))
    tok = tokens(store, gid)[0]
    for path in ("/", f"/g/{gid}", "/api/games", "/new", "/l", f"/t/{tok}", f"/api/t/{tok}",
                 f"/t/{tok}/deal/1", "/t/nosuch", "/m/forged", "/i/nosuch", "/o/nosuch",
                 "/j/nosuch", "/j/confirm/forged", "/new/confirm/forged",
                 "/l/new/confirm/forged", f"/g/{gid}/created?token={tok}",
                 "/nowhere", "/api/nowhere"):
        check_headers(path, client.get(path))
    check_headers("/demo", client.delete("/demo"))  # a 405
    check_headers("/demo", client.get("/demo"))  # a redirect to its page


def test_error_pages_speak_to_people(store, client):
    r = client.get("/demo")  # a form's address, opened as a link: its page
    assert r.status_code == 303 and r.headers["Location"] == "/"
    r = client.delete("/demo")  # a method no form sends
    assert r.status_code == 405 and "POST" in r.headers["Allow"]
    assert "<h1>Not here</h1>" in r.text and "Spades by email" in r.text
    r = client.get("/no/such/page")
    assert r.status_code == 404 and "<h1>Not found</h1>" in r.text and "<header>" in r.text
    r = client.post("/new", data={"you": "a@x.test"})  # no CSRF
    assert r.status_code == 400 and "This form has expired" in r.text and "<header>" in r.text
    r = client.get("/api/g/999")
    assert r.status_code == 404 and r.get_json() == {
        "error": "Not found", "status": 404, "message": r.get_json()["message"]}
    for r in (client.get("/nowhere"), client.delete("/demo"), client.get("/api/nowhere")):
        assert "Werkzeug" not in r.text and "The requested URL" not in r.text


def test_a_failure_inside_is_the_sites_own_500_page(store, tmp_path, monkeypatch):
    """Outside tests (TESTING off) an exception is a 500 in the site's page: no traceback,
    no Python, nothing of the game's state."""
    app = make_app(store, tmp_path, monkeypatch)
    app.testing = False
    gid = humans_game(store, preset("standard"))
    app.config["PBEM_STORE"] = None  # every page that reads the database now fails
    r = app.test_client().get(f"/g/{gid}")
    assert r.status_code == 500 and "<h1>Something went wrong</h1>" in r.text
    assert "Traceback" not in r.text and "Error" not in r.text and "<header>" in r.text
    r = app.test_client().get(f"/api/g/{gid}")
    assert r.status_code == 500 and r.get_json()["error"] == "Something went wrong"


def test_the_session_cookie_is_secure_on_https(store, tmp_path, monkeypatch):
    r = make_app(store, tmp_path, monkeypatch).test_client().get("/new")
    assert BASE.startswith("http://") and "Secure" not in r.headers["Set-Cookie"]
    monkeypatch.setenv("PBEM_BASE_URL", "https://spades.example.org")
    from pbem.config import load
    from pbem.web.app import create_app

    app = create_app(load(), store, testing=True)
    r = app.test_client().get("/new", base_url="https://spades.example.org")
    cookie = r.headers["Set-Cookie"]
    assert "; Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


# -- `pbem serve` itself: the access log and a huge body over a real socket ------------------


def test_pbem_serve_masks_keys_in_its_access_log_and_refuses_a_huge_body(store, db_url,
                                                                         tmp_path):
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.error

    from tests.test_serve import free_port, wait_for

    gid = humans_game(store, preset("standard"))
    tok = tokens(store, gid)[1]
    port = free_port()
    env = dict(os.environ, PBEM_VAR_DIR=str(tmp_path), DATABASE_URL=db_url,
               PBEM_WEB_PORT=str(port), PBEM_BASE_URL=f"http://127.0.0.1:{port}")
    server = subprocess.Popen([sys.executable, "-m", "pbem.cli", "serve", "--no-smtp"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    site = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: answers(site))
        for path in (f"/t/{tok}", f"/api/t/{tok}", f"/g/{gid}/created?token={tok}",
                     "/m/secretmovelink.abc", "/j/confirm/secretjoinlink",
                     "/l/new/confirm/secretleaguelink"):
            try:
                urllib.request.urlopen(site + path, timeout=10)
            except urllib.error.HTTPError as e:
                assert e.code in (400, 404), path
        # a 20 MB form announced: refused at once, before its body is read (waitress's
        # own 413, pbem.web.server; the body is never sent, so no unread byte resets it)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
            c.sendall(b"POST /new HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-"
                      b"urlencoded\r\nContent-Length: 20971520\r\n\r\n")
            t0, reply = time.monotonic(), b""
            while time.monotonic() - t0 < 10 and (part := c.recv(65536)):
                reply += part
        assert reply.startswith(b"HTTP/1.1 413") and b"Too Large" in reply, reply
    finally:
        server.send_signal(signal.SIGINT)
        _, log = server.communicate(timeout=20)
    assert "GET /t/... HTTP/1.1" in log and "GET /j/confirm/... " in log, log[-2000:]
    assert "GET /l/new/confirm/... " in log
    for secret in (tok, "secretmovelink", "secretjoinlink", "secretleaguelink"):
        assert secret not in log, log[-2000:]


def test_gunicorn_with_the_masked_logger_writes_no_key(store, db_url, tmp_path):
    """README's larger site: gunicorn on wsgi.py, access log on, with pbem's logger class."""
    import sys

    gid = humans_game(store, preset("standard"))
    tok = tokens(store, gid)[2]
    fmt = '%(h)s "%(r)s" %(s)s U=%(U)s q=%(q)s ref=%(f)s'
    site, log = _wsgi_log(db_url, tmp_path, lambda port: [
        sys.executable, "-m", "gunicorn", "-w", "1", "-b", f"127.0.0.1:{port}",
        "--logger-class", "pbem.web.gunicorn_log.MaskedLogger", "--access-logfile", "-",
        "--access-logformat", fmt, "wsgi:app"],
        [f"/t/{tok}", f"/g/{gid}/created?token={tok}&x=1"], referer=f"/t/{tok}")
    assert '"GET /t/... HTTP/1.1" 200 U=/t/...' in log, log[-1500:]
    assert f"q=token=...&x=1 ref={site}/t/..." in log, log[-1500:]
    assert tok not in log


def test_flasks_own_development_server_writes_no_key(store, db_url, tmp_path):
    """`flask --app wsgi run` (Werkzeug's server, for a developer): its access log too."""
    import sys

    gid = humans_game(store, preset("standard"))
    tok = tokens(store, gid)[3]
    _, log = _wsgi_log(db_url, tmp_path, lambda port: [
        sys.executable, "-m", "flask", "--app", "wsgi", "run", "--port", str(port)],
        [f"/t/{tok}"])
    assert '"GET /t/... HTTP/1.1" 200' in log, log[-1500:]
    assert tok not in log


def _wsgi_log(db_url, tmp_path, command, paths, referer=None) -> tuple[str, str]:
    """Run wsgi.py's app under `command(port)`, GET each path: (the site, what it logged)."""
    import os
    import signal
    import subprocess
    from pathlib import Path

    from tests.test_serve import free_port, wait_for

    port = free_port()
    site = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PBEM_VAR_DIR=str(tmp_path), DATABASE_URL=db_url, PBEM_BASE_URL=site)
    server = subprocess.Popen(command(port), cwd=Path(__file__).resolve().parent.parent,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    try:
        wait_for(lambda: answers(site))
        for path in paths:
            headers = {"Referer": site + referer} if referer else {}
            urllib.request.urlopen(urllib.request.Request(site + path, headers=headers),
                                   timeout=10)
    finally:
        server.send_signal(signal.SIGTERM)
        log, _ = server.communicate(timeout=20)
    return site, log
