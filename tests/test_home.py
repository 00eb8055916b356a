"""A player's home (issue 14): signing in by a mailed link (through the real outbox and a
Maildir), the home page's games and settings, and the table page's move number with its
ETag, which lets an open page follow its game."""

import re
from datetime import UTC, datetime, timedelta

import time_machine
from itsdangerous import URLSafeTimedSerializer
from sqlmodel import select

from pbem import orders
from pbem.config import load
from pbem.engine import Rules, preset
from pbem.signing import MOVE, Signer
from pbem.store import prefs
from pbem.store.models import Player
from pbem.web.app import create_app
from tests.web_helpers import (
    BASE,
    csrf,
    database,
    drive,
    from_,
    game_state,
    humans_game,
    make_app,
    move_forms,
    sent_mail,
    sign_in,
    tokens,
)

LINK = re.compile(re.escape(BASE) + r"(/signin/[A-Za-z0-9_.\-]+)")


def ask_link(client, email, ip="192.0.2.1"):
    return client.post("/signin", data={"csrf": csrf(client), "email": email}, **from_(ip),
                       follow_redirects=True)


def signin_mails(store, tmp_path) -> list[str]:
    """To whom sign-in links went (the outbox drained into a Maildir, as `pbem serve` does)."""
    return [m["To"] for m in sent_mail(store, tmp_path) if m["Subject"] == "Your sign-in link"]


def mailed_links(store, tmp_path, to) -> list[str]:
    """The sign-in links that reached `to`'s mailbox."""
    return [LINK.search(next(p for p in m.walk() if p.get_content_type() == "text/plain")
                        .get_payload(decode=True).decode()).group(1)
            for m in sent_mail(store, tmp_path)
            if m["To"] == to and m["Subject"] == "Your sign-in link"]


def test_sign_in_by_a_mailed_link(store, client, tmp_path):
    gid = humans_game(store, preset("standard"))
    assert client.get("/home").headers["Location"] == "/signin"  # not signed in yet
    r = client.get("/signin")
    assert r.status_code == 200 and 'name="email"' in r.text
    r = ask_link(client, "P0@x.test")
    assert r.status_code == 200 and "Check your mail" in r.text and "p0@x.test" in r.text
    (mail,) = [m for m in sent_mail(store, tmp_path) if m["Subject"] == "Your sign-in link"]
    assert mail["To"] == "p0@x.test" and "30 minutes" in str(mail)
    (link,) = mailed_links(store, tmp_path, "p0@x.test")

    before = database(store)
    r = client.get(link)  # a mail scanner's fetch: a button, nothing done
    assert r.status_code == 200 and r.text.count("<button") == 1 and "p0@x.test" in r.text
    assert r.headers["Cache-Control"] == "no-store"
    assert client.get("/home").status_code == 302
    assert client.post(link).status_code == 400  # no CSRF field
    assert database(store) == before

    r = client.post(link, data={"csrf": csrf(client)})
    assert r.status_code == 303 and r.headers["Location"] == "/home"
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Expires=" in cookie
    assert "Secure" not in cookie  # the site is http here; see the https test below
    r = client.get("/home")
    assert r.status_code == 200 and f"Game {gid}" in r.text and "p0@x.test" in r.text
    assert r.headers["Cache-Control"] == "no-store" and 'href="/home"' in r.text

    r = client.post(link, data={"csrf": csrf(client)})  # the same link again
    assert r.status_code == 409 and "used already" in r.text

    r = client.post("/signout", data={"csrf": csrf(client)})
    assert r.status_code == 303 and r.headers["Location"] == "/"
    assert "signed out" in client.get("/").text
    assert client.get("/home").headers["Location"] == "/signin"


def test_the_session_cookie_is_secure_on_https(store, tmp_path, monkeypatch):
    make_app(store, tmp_path, monkeypatch)
    monkeypatch.setenv("PBEM_BASE_URL", "https://pbem.test")
    client = create_app(load(), store, testing=True).test_client()
    humans_game(store, preset("standard"))
    sign_in(client, store, "p1@x.test")
    r = client.post("/signout", data={"csrf": csrf(client)})
    assert "Secure" in r.headers["Set-Cookie"] and "HttpOnly" in r.headers["Set-Cookie"]


def test_an_unknown_address_gets_the_same_page_and_no_mail(store, client, tmp_path):
    humans_game(store, preset("standard"))
    known = ask_link(client, "p0@x.test")
    unknown = ask_link(client, "stranger@x.test")
    assert known.status_code == unknown.status_code == 200
    assert known.text.replace("p0@x.test", "X") == unknown.text.replace("stranger@x.test", "X")
    assert signin_mails(store, tmp_path) == ["p0@x.test"]
    before = database(store)
    r = client.post("/signin", data={"csrf": csrf(client), "email": "not an address"},
                    follow_redirects=True)
    assert r.history and 'class="error"' in r.text and "not an address" in r.text
    assert client.post("/signin", data={"email": "p0@x.test"}).status_code == 400  # no CSRF
    assert database(store) == before and signin_mails(store, tmp_path) == ["p0@x.test"]


def test_a_reused_expired_or_forged_link_signs_no_one_in(store, client, tmp_path):
    humans_game(store, preset("standard"))
    ask_link(client, "p0@x.test")
    (link,) = mailed_links(store, tmp_path, "p0@x.test")
    token = link.rsplit("/", 1)[1]
    keys = client.application.config["PBEM_KEYS"]
    with store.session() as s:
        pid = s.exec(select(Player.id).where(Player.email == "p0@x.test")).one()
    forged = [
        URLSafeTimedSerializer("not-our-key", salt="pbem.sign-in").dumps({"p": pid,
                                                                          "e": "p0@x.test"}),
        Signer(keys, MOVE).dumps({"p": pid, "e": "p0@x.test"}),  # signed, for another use
        token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB"),
        Signer(keys, "pbem.sign-in").dumps({"p": pid, "e": "p1@x.test"}),  # not its address
    ]
    before = database(store)
    for bad in forged:
        for method in (client.get, client.post):
            r = method(f"/signin/{bad}", data={"csrf": csrf(client)})
            assert r.status_code == 400 and "not valid" in r.text, (bad, r.text[-300:])
    with time_machine.travel(datetime.now(UTC) + timedelta(minutes=31)):
        r = client.post(link, data={"csrf": csrf(client)})
        assert r.status_code == 400 and "expired" in r.text
    assert database(store) == before and client.get("/home").status_code == 302

    assert client.post(link, data={"csrf": csrf(client)}).status_code == 303  # in time: works
    other = client.application.test_client()  # a replay from another browser
    r = other.post(link, data={"csrf": csrf(other)})
    assert r.status_code == 409 and "used already" in r.text
    assert other.get("/home").status_code == 302


def test_sign_in_requests_are_limited_alike_for_known_and_unknown(store, client, tmp_path):
    humans_game(store, preset("standard"))
    for email in ("p0@x.test", "nobody@x.test"):
        for i in range(5):
            assert ask_link(client, email, ip=f"10.0.{i}.1").status_code == 200
        r = ask_link(client, email, ip="10.9.9.9")
        assert r.status_code == 429 and "Nothing was sent" in r.text
    assert len(mailed_links(store, tmp_path, "p0@x.test")) == 5
    for i in range(20):  # one client: 20 requests an hour, then 429 whatever the address
        assert ask_link(client, f"a{i}@x.test", ip="192.0.2.50").status_code == 200
    assert ask_link(client, "p1@x.test", ip="192.0.2.50").status_code == 429
    assert not mailed_links(store, tmp_path, "p1@x.test")


def test_sign_out_everywhere_ends_every_session(store, app, tmp_path):
    humans_game(store, preset("standard"))
    phone, laptop = app.test_client(), app.test_client()
    sign_in(phone, store, "p0@x.test")
    sign_in(laptop, store, "p0@x.test")
    laptop.post("/signout", data={"csrf": csrf(laptop), "everywhere": "1"})
    assert phone.get("/home").headers["Location"] == "/signin"
    sign_in(phone, store, "p0@x.test")  # a new sign-in works again
    assert phone.get("/home").status_code == 200


def _home_games(html: str) -> list[tuple[str, str]]:
    """(class, game number) of each game row, in the page's order."""
    return re.findall(r'<li class="game (\w+)"><a href="[^"]*">Game (\d+)</a>', html)


def test_the_home_lists_waiting_games_first_with_their_own_orders(store, app, client):
    rules = preset("standard")
    theirs = humans_game(store, rules, first_dealer=0)  # seat 1 bids first
    mine = humans_game(store, rules, first_dealer=3)  # seat 0 (p0) bids first
    over = humans_game(store, Rules.from_dict({"preset": "standard", "max_hands": "1"}))
    drive(store, over, lambda st: False)
    playing = humans_game(store, rules, first_dealer=0)
    st = drive(store, playing, lambda st: st.phase == "play" and 0 not in st.to_act())
    led = st.hands[0][0]
    orders.give(store, playing, 0, f"lead {led} next", st)
    other = next(c for c in st.hands[1])
    orders.give(store, playing, 1, f"lead {other} next", st)
    prefs.update(store, _pid(store, "p0@x.test"), zone="Asia/Tokyo")

    sign_in(client, store, "p0@x.test")
    r = client.get("/home")
    rows = _home_games(r.text)
    assert rows[0] == ("waiting", str(mine))
    assert {g for c, g in rows if c == "going"} == {str(theirs), str(playing)}
    assert rows[-1] == ("over", str(over))
    assert "Asia/Tokyo" in r.text and "left)" in r.text  # the deadline on the player's clock
    assert f"lead {led.lower()} next" in r.text.lower()  # p0's own order
    assert f"lead {other.lower()} next" not in r.text.lower()  # never another seat's
    own = set(tokens(store, mine)[:1] + tokens(store, theirs)[:1] + tokens(store, over)[:1]
              + tokens(store, playing)[:1])
    assert set(re.findall(r'href="/t/([a-z0-9]+)"', r.text)) == own
    assert 'class="card' not in r.text

    bob = app.test_client()  # another player's session sees nothing of p0's
    sign_in(bob, store, "p1@x.test")
    page = bob.get("/home").text
    assert "p0@x.test" not in page and f"lead {led.lower()} next" not in page.lower()
    assert not own & set(re.findall(r'href="/t/([a-z0-9]+)"', page))
    assert f"lead {other.lower()} next" in page.lower()


def _pid(store, email):
    with store.session() as s:
        return s.exec(select(Player.id).where(Player.email == email)).one()


GOOD = {"notify": "digest", "auto": "equal", "mail": "on", "zone": "europe/paris",
        "rest": "sat sun", "quiet": "23-7", "cap": "10", "merge": "30", "name": " Ann  Smith "}
BAD = {"notify": ("loud", "choose one from the list"), "auto": ("always", "choose one from"),
       "zone": ("Mars/Olympus", "not a time zone"), "rest": ("funday", "not a day"),
       "quiet": ("25-3", "not an hour"), "cap": ("0", "the daily cap"),
       "merge": ("999", "minutes a turn mail waits"),
       "name": ("robot 2", "pass for someone else")}


def test_settings_are_saved_and_bad_values_refused_beside_their_field(store, client):
    humans_game(store, preset("standard"))
    pid = _pid(store, "p0@x.test")
    form = dict(GOOD, csrf="x")
    assert client.post("/home/settings", data=form).status_code == 400  # no CSRF, no session
    r = client.post("/home/settings", data=dict(GOOD, csrf=csrf(client)))
    assert r.headers["Location"] == "/signin"  # not signed in: nothing changed
    assert (_player(store, pid).prefs or {}) == {}

    sign_in(client, store, "p0@x.test")
    r = client.post("/home/settings", data=dict(GOOD, csrf=csrf(client)),
                    follow_redirects=True)
    assert r.status_code == 200 and "saved" in r.text
    assert _player(store, pid).name == "Ann Smith"  # cleaned (issue 32)
    saved = _player(store, pid).prefs
    assert {k: saved[k] for k in GOOD if k != "name"} == {
        "notify": "digest", "auto": "equal", "mail": "on", "zone": "Europe/Paris",
        "rest": [5, 6], "quiet": [23, 7], "cap": 10, "merge": 30}
    page = client.get("/home").text  # the form shows them back, in words that read again
    for name, shown in (("zone", "Europe/Paris"), ("rest", "sat sun"), ("quiet", "23-7"),
                        ("cap", "10"), ("merge", "30"), ("name", "Ann Smith")):
        assert f'name="{name}" value="{shown}"' in page, name
    assert '<option value="digest" selected>' in page

    before = database(store)
    for key, (value, words) in BAD.items():
        r = client.post("/home/settings", data=dict(GOOD, csrf=csrf(client), **{key: value}),
                        follow_redirects=True)
        assert r.history[0].status_code == 303, key
        error = re.search(rf'<p class="error" id="err-{key}">([^<]*)</p>', r.text)
        assert error and words in error.group(1), (key, r.text[-1500:])
        assert 'aria-invalid="true"' in r.text and "Nothing was saved" in r.text
    r = client.post("/home/settings", data=dict(GOOD, csrf=csrf(client), zone="Nowhere",
                                                cap="lots"), follow_redirects=True)
    assert r.history and 'value="Nowhere"' in r.text  # the form keeps what was sent
    assert 'id="err-zone"' in r.text and 'id="err-cap"' in r.text
    assert database(store) == before

    r = client.post("/home/settings", data=dict(GOOD, csrf=csrf(client), quiet="off",
                                                cap="off", merge="0", rest="none"))
    assert r.status_code == 303
    p = _player(store, pid)
    assert prefs.quiet_hours(p) is None and prefs.get(p, "cap") is None and \
        prefs.get(p, "rest") == [] and prefs.get(p, "merge") == 0


def _player(store, pid):
    with store.session() as s:
        return s.get(Player, pid)


def test_vacation_from_the_home_page(store, client):
    humans_game(store, preset("standard"))
    sign_in(client, store, "p0@x.test")
    pid = _pid(store, "p0@x.test")
    before = database(store)
    for bad in ("-3", "2.5", "99", ""):
        r = client.post("/home/vacation", data={"csrf": csrf(client), "days": bad},
                        follow_redirects=True)
        assert r.history and "No vacation" in r.text, bad
    assert database(store) == before
    r = client.post("/home/vacation", data={"csrf": csrf(client), "days": "3"},
                    follow_redirects=True)
    assert r.status_code == 200 and "On vacation until" in r.text
    assert "vacation_until" in _player(store, pid).prefs
    r = client.post("/home/vacation", data={"csrf": csrf(client), "days": "off"},
                    follow_redirects=True)
    assert r.status_code == 200 and "Welcome back: 3 days returned" in r.text
    assert "vacation_until" not in _player(store, pid).prefs


def test_the_seq_answers_304_until_the_game_moves(store, client, monkeypatch):
    gid = humans_game(store, preset("standard"), first_dealer=3)
    tok = tokens(store, gid)
    r = client.get(f"/t/{tok[1]}")
    tag = re.search(r'data-etag="([^"]+)"', r.text).group(1).replace("&#34;", '"')
    assert 'src="/live.js"' in r.text and f'href="/t/{tok[1]}">Refresh</a>' in r.text
    first = client.get(f"/t/{tok[1]}/seq")
    assert first.status_code == 200 and first.headers["ETag"] == tag
    assert first.get_json() == {"seq": game_state(store, gid).seq}

    replays = []
    real = store.state
    monkeypatch.setattr(store, "state", lambda *a, **k: replays.append(a) or real(*a, **k))
    same = client.get(f"/t/{tok[1]}/seq", headers={"If-None-Match": tag})
    assert same.status_code == 304 and same.data == b"" and same.headers["ETag"] == tag
    assert replays == []  # a 304 reads one number, no game state
    monkeypatch.setattr(store, "state", real)

    forms = move_forms(client.get(f"/t/{tok[0]}").text)
    client.post(forms[0]["action"], data=dict(forms[0]["data"], csrf=csrf(client)))
    moved = client.get(f"/t/{tok[1]}/seq", headers={"If-None-Match": tag})
    assert moved.status_code == 200 and moved.headers["ETag"] != tag
    assert moved.get_json()["seq"] > first.get_json()["seq"]
    assert client.get("/t/nosuchtoken/seq").status_code == 404

    js = client.get("/live.js")
    assert js.status_code == 200 and js.mimetype == "text/javascript"
    assert "If-None-Match" in js.text and "location.replace" in js.text


def test_each_settings_refusal_comes_whole_from_the_catalogue(store, client):
    """A refused setting's words come from below the page (pbem.store.prefs, names,
    vacation) and go inside the page's sentence: in the pseudo-language each is marked
    too (a placeholder's value outside the marks would show), beside its field and in the
    vacation's refusal; and in German they are German."""
    from tests.pseudo import leftover_words, page_text, pseudo

    humans_game(store, preset("standard"))
    sign_in(client, store, "p0@x.test")
    typed = {"loud", "always", "Mars", "Olympus", "funday", "robot", "lots"}
    for key, (value, _words) in {**BAD, "cap": ("lots", ""), "merge": ("-1", "")}.items():
        with pseudo():
            r = client.post("/home/settings", data=dict(GOOD, csrf=csrf(client),
                                                        **{key: value}), follow_redirects=True)
        error = re.search(rf'<p class="error" id="err-{key}">([^<]*)</p>', r.text)
        assert error, key
        assert leftover_words(page_text(error.group(1)), typed) == [], (key, error.group(1))
    for days in ("99", "x"):
        with pseudo():
            r = client.post("/home/vacation", data={"csrf": csrf(client), "days": days},
                            follow_redirects=True)
        alert = re.search(r'role="alert"[^>]*>(.*?)</', r.text, re.S)
        assert alert and "⟦No vacation: ⟧" in alert.group(1), r.text[-800:]
        assert leftover_words(page_text(alert.group(1))) == [], alert.group(1)
    de = {"Accept-Language": "de"}
    r = client.post("/home/settings", data=dict(GOOD, csrf=csrf(client), quiet="25-3"),
                    headers=de, follow_redirects=True)
    error = re.search(r'<p class="error" id="err-quiet">([^<]*)</p>', r.text)
    assert error and "Stunde" in error.group(1), error
