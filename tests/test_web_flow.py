"""Post/Redirect/Get and the site's own error pages (issue 18): every POST route answers 303
(the routes are read from the app, so a new one fails here until it has a sample), a GET on
a POST-only address leads to its page, a reload after a move sends nothing, and every error
is a page in the site's layout in plain words."""

import re

import pytest
from sqlalchemy import func
from sqlmodel import select
from werkzeug.exceptions import Forbidden

from pbem.engine import preset
from pbem.league.manage import join, request_join
from pbem.privacy.mailed import FORGET
from pbem.signing import CARE, COMMANDS, SIGN_IN, UNSUBSCRIBE, Signer
from pbem.store import mail_limits
from pbem.store.models import Game, League, Outbox, Player
from pbem.web import limits
from tests.league_helpers import league
from tests.web_helpers import (
    confirmation_links,
    counts,
    csrf,
    database,
    from_,
    game_state,
    humans_game,
    make_app,
    move_forms,
    sign_in,
    tokens,
)

NEW_GAME = {"you": "a@x.test", "preset": "standard", "seat0": "a@x.test",
            "seat1": "b@x.test", "seat2": "robot", "seat3": "c@x.test"}
NEW_LEAGUE = {"organiser": "boss@x.test", "name": "Flow League", "preset": "standard",
              "entry": "single", "pairing": "swiss", "starts": "2099-01-01",
              "ends": "2099-06-01"}


def _link_in_outbox(store, to: str, pattern: str) -> str:
    with store.session() as s:
        bodies = s.exec(select(Outbox.body_text).where(Outbox.to_addr == to)
                        .order_by(Outbox.id)).all()
    return [m.group(1) for b in bodies for m in [re.search(pattern, b)] if m][-1]


def _open_game(client, store) -> tuple[int, str, dict]:
    """A game from the form, confirmed, its invitations out: (id, the creator's token,
    {invitee: invitation token})."""
    client.post("/new", data=dict(NEW_GAME, csrf=csrf(client)))
    r = client.post(confirmation_links(store, "a@x.test")[-1], data={"csrf": csrf(client)})
    assert r.status_code == 303, r.text
    gid = int(r.headers["Location"].split("/")[2])
    invites = {x: _link_in_outbox(store, x, r"/i/([A-Za-z0-9_\-]+)")
               for x in ("b@x.test", "c@x.test")}
    return gid, tokens(store, gid)[0], invites


def samples(app, store, client) -> dict:
    """For every POST rule: (path, form) of a request it takes. Refusals of the game (an
    illegal move, a season that cannot start) count: they answer 303 too."""
    keys = app.config["PBEM_KEYS"]
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    seat = st.to_act()[0]
    tok = tokens(store, gid)
    move = move_forms(client.get(f"/t/{tok[seat]}").text)[0]
    link = Signer(keys).dumps({"g": gid, "s": seat, "q": st.seq,
                               "a": {"type": "bid", "bid": 3}})
    care = Signer(keys, CARE).dumps({"g": gid, "s": seat, "q": st.move_seq, "a": "robot"})
    open_gid, creator, invited = _open_game(client, store)
    with store.session() as s:
        p0 = s.exec(select(Player).where(Player.email == "p0@x.test")).one()
        p3 = s.exec(select(Player).where(Player.email == "p3@x.test")).one()
    lid = league(store, players=3)
    with store.session() as s:
        lg = s.get(League, lid)
    request_join(store, lid, "new@x.test", "Newt")
    pair = league(store, players=0, entry="pair")
    join(store, pair, "ann@x.test", partner="bob@x.test")
    client.post("/l/new", data=dict(NEW_LEAGUE, csrf=csrf(client)))
    client.post("/new", data=dict(NEW_GAME, seat3="d@x.test", csrf=csrf(client)))  # unpressed
    o = f"/o/{lg.admin_token}"
    return {
        "/c/<token>": (f"/c/{care}", {}),  # first: while the game waits at that move
        "/demo": ("/demo", {}),
        "/new": ("/new", NEW_GAME),
        "/new/confirm/<link:token>": (confirmation_links(store, "a@x.test")[-1], {}),
        "/i/<token>": (f"/i/{invited['b@x.test']}", {"answer": "yes"}),
        "/t/<token>/invite": (f"/t/{creator}/invite", {"seat": "3"}),
        "/t/<token>/move": (move["action"], move["data"]),
        "/t/<token>/vacation": (f"/t/{tok[0]}/vacation", {"days": "1"}),
        "/t/<token>/orders": (f"/t/{tok[1]}/orders", {"order": "cover"}),
        "/t/<token>/extra": (f"/t/{tok[(seat + 1) % 4]}/extra", {"hours": "24"}),
        "/t/<token>/say": (f"/t/{tok[2]}/say", {"text": "good luck"}),
        "/t/<token>/note": (f"/t/{tok[2]}/note", {"note": "keep the queen"}),
        "/t/<token>/hint": (f"/t/{tok[2]}/hint", {}),
        "/t/<token>/undo": (f"/t/{tok[2]}/undo", {"seq": "1"}),
        "/t/<token>/push": (f"/t/{tok[2]}/push", {"do": "on", "endpoint": "https://x.test/"}),
        "/home/push": ("/home/push", {"do": "all"}),
        "/t/<token>/resign": (f"/t/{tok[3]}/resign", {}),
        "/m/<token>": (f"/m/{link}", {}),
        "/u/<token>": ("/u/" + Signer(keys, UNSUBSCRIBE).dumps({"e": "p3@x.test",
                                                                "k": "news"}), {}),
        "/signin": ("/signin", {"email": "p0@x.test"}),
        "/a/<link:token>": ("/a/" + Signer(keys, COMMANDS).dumps(
            {"p": p0.id, "e": p0.email, "l": ["zone UTC"]}), {}),
        "/signin/<link:token>": ("/signin/" + Signer(keys, SIGN_IN).dumps(
            {"p": p0.id, "e": p0.email}), {}),
        "/home/settings": ("/home/settings", {"notify": "hand", "auto": "forced",
                                              "mail": "on", "zone": "UTC", "rest": "none",
                                              "quiet": "off", "cap": "off",
                                              "merge": "default"}),
        "/home/vacation": ("/home/vacation", {"days": "off"}),
        "/home/address": ("/home/address", {}),
        "/home/calendar": ("/home/calendar", {"do": "new"}),
        "/lang": ("/lang", {"lang": "de", "next": "/home"}),
        "/l/new": ("/l/new", NEW_LEAGUE),
        "/l/new/confirm/<link:token>": (confirmation_links(store, "boss@x.test")[0], {}),
        "/j/<join_token>": (f"/j/{lg.join_token}", {"email": "joe@x.test", "name": "Joe"}),
        "/j/confirm/<token>": (_link_in_outbox(store, "new@x.test",
                                               r"(/j/confirm/[A-Za-z0-9_.\-]+)"), {}),
        "/j/partner/<token>": (_link_in_outbox(store, "bob@x.test",
                                               r"(/j/partner/[A-Za-z0-9_.\-]+)"), {}),
        "/o/<admin_token>/withdraw": (f"{o}/withdraw", {"entry": "1"}),
        "/o/<admin_token>/substitute": (f"{o}/substitute", {"game": "1", "seat": "0",
                                                           "who": "robot"}),
        "/o/<admin_token>/season": (f"{o}/season", {"starts": "soon"}),
        "/o/<admin_token>/rule": (f"{o}/rule", {"game": "1", "result": "replay",
                                                 "reason": "a misdeal"}),
        "/o/<admin_token>/replay": (f"{o}/replay", {"game": "1"}),
        "/o/<admin_token>/more": (f"{o}/more", {"game": "1", "hours": "24"}),
        "/o/<admin_token>/robot": (f"{o}/robot", {"game": "1"}),
        "/o/<admin_token>/remind": (f"{o}/remind", {"game": "1"}),
        "/o/<admin_token>/pause": (f"{o}/pause", {"do": "pause"}),
        "/o/<admin_token>/hints": (f"{o}/hints", {"hints": "on"}),
        "/o/<admin_token>/message": (f"{o}/message", {"subject": "Hello",
                                                       "text": "Round two starts soon."}),
        "/o/<admin_token>/webhook": (f"{o}/webhook", {"kind": "discord",
                                                       "url": "https://127.0.0.1/x"}),
        "/o/<admin_token>/webhook/remove": (f"{o}/webhook/remove", {"hook": "1"}),
        "/o/<admin_token>/start": (f"{o}/start", {}),
        "/o/<admin_token>/address": (f"{o}/address", {}),
        "/forget/<token>": ("/forget/" + Signer(keys, FORGET).dumps(
            {"p": p3.id, "e": p3.email}), {}),
        "/seeks/new": ("/seeks/new", {"preset": "standard", "move_hours": "48",
                                      "robot_days": "3"}),  # p0's seek 1
        "/seeks/<int:seek_id>/accept": ("/seeks/1/accept", {}),  # refused: p0's own seek
        "/seeks/<int:seek_id>/cancel": ("/seeks/1/cancel", {}),
        "/home/forget": ("/home/forget", {}),  # forgets p0 and signs out: the last but one
        "/signout": ("/signout", {}),  # last: the POSTs above are a signed-in browser's
    }


def post_rules(app) -> set[str]:
    return {r.rule for r in app.url_map.iter_rules() if "POST" in r.methods}


def test_every_post_answers_303_to_a_page_that_opens(app, store, client):
    cases = samples(app, store, client)
    assert set(cases) == post_rules(app)  # a new POST route needs its sample here
    sign_in(client, store, "p0@x.test")
    for rule, (path, form) in cases.items():
        r = client.post(path, data=dict(form, csrf=csrf(client)))
        if rule == "/m/<token>" and r.status_code == 200:  # its move made by then (the
            assert "already played" in r.text, r.text[-500:]  # order of samples): the truth
            continue
        assert r.status_code == 303, (rule, r.status_code, r.text[-500:])
        page = client.get(r.headers["Location"])
        assert page.status_code == 200, (rule, r.headers["Location"], page.text[-500:])
        assert "Method Not Allowed" not in page.text


def test_a_get_on_a_post_only_address_leads_to_its_page(app, store, client):
    cases = samples(app, store, client)
    gets = {r.rule for r in app.url_map.iter_rules() if "GET" in r.methods}
    only_post = post_rules(app) - gets
    assert only_post and only_post <= set(cases)
    for rule in only_post:
        path = cases[rule][0]
        before = database(store)
        r = client.get(path)
        assert r.status_code == 303, (rule, r.status_code)
        above = r.headers["Location"]
        assert path.startswith(above.rstrip("/")) and above != path, (rule, above)
        assert client.get(above).status_code != 405
        assert database(store) == before  # a GET changes nothing
    tok = tokens(store, humans_game(store, preset("standard")))[0]
    assert client.get(f"/t/{tok}/move").headers["Location"] == f"/t/{tok}"
    assert client.get("/home/settings").headers["Location"] == "/home"
    r = client.put(f"/t/{tok}/move")  # another method: the site's 405 page
    assert r.status_code == 405 and "Not here" in r.text and "<header>" in r.text


def test_reloading_after_a_move_sends_nothing(store, client):
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    tok = tokens(store, gid)[st.to_act()[0]]
    move = move_forms(client.get(f"/t/{tok}").text)[0]
    r = client.post(move["action"], data=move["data"])
    assert r.status_code == 303 and r.headers["Location"] == f"/t/{tok}"
    moves = counts(store, gid)[0]
    first = client.get(f"/t/{tok}")
    assert first.status_code == 200 and "Done: " in first.text  # the notice, once
    again = client.get(f"/t/{tok}")  # the reload
    assert again.status_code == 200 and "Done: " not in again.text
    assert counts(store, gid)[0] == moves


def test_a_notice_shows_on_its_own_table_only(store, client):
    """One browser holding two seats' links: the first seat's notice (its passed cards,
    its move) never shows on the second seat's table."""
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    seat = st.to_act()[0]
    mine, other = tokens(store, gid)[seat], tokens(store, gid)[(seat + 2) % 4]
    move = move_forms(client.get(f"/t/{mine}").text)[0]
    client.post(move["action"], data=move["data"])
    assert "Done: " not in client.get(f"/t/{other}").text
    assert "Done: " in client.get(f"/t/{mine}").text
    assert mine not in client.get_cookie("session").value  # the key is not in the cookie


def test_a_refused_move_says_why_in_plain_words_and_changes_nothing(store, client):
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    tok = tokens(store, gid)[st.to_act()[0]]
    move = move_forms(client.get(f"/t/{tok}").text)[0]
    before = database(store)
    for bad in ({"seq": "abc"}, {"type": "fly"}, {"bid": "lots"}, {"seq": "1" * 40}):
        r = client.post(move["action"], data=dict(move["data"], **bad))
        assert r.status_code == 303
        page = client.get(r.headers["Location"]).text
        assert "That move was not understood" in page or "Not played" in page, bad
        assert "invalid literal" not in page and "Traceback" not in page
    assert database(store) == before


def test_form_errors_are_shown_beside_their_field_with_the_form_as_sent(store, client):
    before = database(store)
    r = client.post("/new", data=dict(NEW_GAME, seat1="not an address", csrf=csrf(client)))
    assert r.status_code == 303 and r.headers["Location"] == "/new"
    page = client.get("/new").text
    field = re.search(r'name="seat1" value="not an address"[^>]*aria-describedby='
                      r'"err-seat1"></label><p class="error" id="err-seat1">([^<]*)</p>', page)
    assert field and "seat 1: an email address" in field.group(1)
    assert 'value="a@x.test"' in page  # the rest of the form as sent
    assert database(store) == before
    assert 'id="err-seat1"' not in client.get("/new").text  # shown once
    r = client.post("/signin", data={"email": "nobody", "csrf": csrf(client)})
    page = client.get(r.headers["Location"]).text
    assert re.search(r'value="nobody"[^>]*aria-invalid="true"', page)
    assert '<p class="error" id="err-email">' in page
    lg = _league_row(store, league(store, players=4))
    r = client.post(f"/j/{lg.join_token}", data={"email": "x y", "csrf": csrf(client)})
    page = client.get(r.headers["Location"]).text
    assert re.search(r'value="x y"[^>]*aria-invalid="true"[^>]*></label><p class="error" '
                     r'id="err-email">[^<]*is not a mail address', page)
    r = client.post("/l/new", data=dict(NEW_LEAGUE, rounds="many", csrf=csrf(client)))
    page = client.get(r.headers["Location"]).text
    assert re.search(r'<p class="error" id="err-rounds">rounds: a whole number', page)
    client.post(f"/o/{lg.admin_token}/start", data={"csrf": csrf(client)})  # the form shows
    before = database(store)
    r = client.post(f"/o/{lg.admin_token}/season", data={"starts": "soon", "ends": "2099-01-01",
                                                          "csrf": csrf(client)})
    page = client.get(r.headers["Location"]).text
    assert re.search(r'name="starts" required value="soon"[^>]*></label><p class="error" '
                     r'id="err-starts">the first day: a date as YYYY-MM-DD', page)
    assert 'name="ends" required value="2099-01-01"' in page
    assert database(store) == before


def _league_row(store, lid) -> League:
    with store.session() as s:
        return s.get(League, lid)


def _page_of_the_site(r, status, words):
    assert r.status_code == status, (r.status_code, r.text[-300:])
    assert "<header>" in r.text and "Spades by email" in r.text  # the site's layout
    assert words in r.text, r.text[-500:]
    for python in ("Werkzeug", "The browser (or proxy)", "invalid literal", "Traceback"):
        assert python not in r.text


def test_every_error_is_a_page_of_the_site_in_plain_words(store, tmp_path, monkeypatch):
    app = make_app(store, tmp_path, monkeypatch)
    app.testing = False  # as served: an exception is a 500 page, not a test's traceback

    @app.get("/test-boom")
    def boom():
        raise RuntimeError("invalid literal for int() with base 10: 'abc'")

    @app.get("/test-forbidden")
    def forbidden():
        raise Forbidden()

    client = app.test_client()
    r = client.post("/demo", data={})  # no CSRF key: an old page, or another site's form
    _page_of_the_site(r, 400, "This form has expired")
    _page_of_the_site(client.get("/t/nosuchkey"), 404, "There is no such page")
    _page_of_the_site(client.delete("/demo"), 405, "use the buttons on the page")
    _page_of_the_site(client.get("/test-forbidden"), 403, "not for you")
    _page_of_the_site(client.post("/demo", data={"csrf": "x", "a": "b" * 70_000}), 413,
                      "Too large")
    _page_of_the_site(client.get("/test-boom"), 500, "Something went wrong")
    for _ in range(limits.PER_ADDRESS):
        client.post("/signin", data={"email": "p@x.test", "csrf": csrf(client)})
    _page_of_the_site(client.post("/signin", data={"email": "p@x.test", "csrf": csrf(client)}),
                      429, "try again in an hour")
    client.post("/new", data=dict(NEW_GAME, csrf=csrf(client)), **from_("10.0.0.9"))
    link = confirmation_links(store, "a@x.test")[-1]
    client.post(link, data={"csrf": csrf(client)}, **from_("10.0.0.9"))
    _page_of_the_site(client.post(link, data={"csrf": csrf(client)}), 409, "used already")


def test_the_creators_table_says_who_has_said_yes_and_sends_again(store, client):
    gid, creator, invited = _open_game(client, store)
    page = client.get(f"/t/{creator}").text
    assert "Waiting for ." not in page
    answers = re.findall(r"<li>Seat (\d): ([^,]+), (a robot|<strong>has said yes|has not "
                         r"answered yet)", page)
    assert [(a[0], a[2]) for a in answers] == [("0", "<strong>has said yes"),
                                               ("1", "has not answered yet"),
                                               ("2", "a robot"),
                                               ("3", "has not answered yet")]
    client.post(f"/i/{invited['b@x.test']}", data={"answer": "yes", "csrf": csrf(client)})
    page = client.get(f"/t/{creator}").text
    assert "Seat 1: b, <strong>has said yes" in page
    assert page.count("Send the invitation again") == 1  # only c has not answered

    def again(to):
        with store.session() as s:
            return s.exec(select(Outbox).where(Outbox.to_addr == to, Outbox.dedupe_key
                                               .contains(":again:"))).all()

    r = client.post(f"/t/{creator}/invite", data={"seat": "3", "csrf": csrf(client)})
    assert r.status_code == 303
    assert "sent again" in client.get(f"/t/{creator}").text
    (mail,) = again("c@x.test")
    assert f"/i/{invited['c@x.test']}" in mail.body_text and mail.game_id == gid
    # the same day again: refused, nothing queued
    r = client.post(f"/t/{creator}/invite", data={"seat": "3", "csrf": csrf(client)})
    assert "tomorrow" in client.get(r.headers["Location"]).text and len(again("c@x.test")) == 1
    # to a seat that has said yes, a robot's, or no seat at all: nothing
    before = database(store)
    for seat in ("1", "2", "0", "9", "-1", "x", "9" * 30):
        r = client.post(f"/t/{creator}/invite", data={"seat": seat, "csrf": csrf(client)})
        assert r.status_code == 303, seat
        assert "nothing was sent" in client.get(r.headers["Location"]).text
    assert database(store) == before


def test_an_invitation_is_sent_again_by_a_seat_of_the_game_only(store, client):
    gid, creator, invited = _open_game(client, store)
    other = tokens(store, humans_game(store, preset("standard")))[0]
    before = database(store)
    c = invited["c@x.test"]
    # an invitee who has not said yes has no table, so sends nothing; nor does a stranger
    for who in (c, "nosuchkey"):
        r = client.post(f"/t/{who}/invite", data={"seat": "3", "csrf": csrf(client)})
        assert r.status_code == 404
    # a seat of another game names a seat of its own game only
    r = client.post(f"/t/{other}/invite", data={"seat": "3", "csrf": csrf(client)})
    assert "nothing was sent" in client.get(r.headers["Location"]).text
    r = client.post(f"/t/{creator}/invite", data={"seat": "3"})  # no CSRF
    assert r.status_code == 400
    assert database(store) == before


def test_sending_again_is_held_to_the_webs_mail_limits(store, client, monkeypatch):
    _, creator, _ = _open_game(client, store)
    monkeypatch.setattr(mail_limits, "PER_ADDRESS", 1)  # c@x.test had its invitation already
    with store.session() as s:
        queued = s.exec(select(func.count(Outbox.id))).one()
    r = client.post(f"/t/{creator}/invite", data={"seat": "3", "csrf": csrf(client)})
    assert r.status_code == 429 and "try again in an hour" in r.text
    with store.session() as s:
        assert s.exec(select(func.count(Outbox.id))).one() == queued


def test_a_demo_is_private(store, client):
    r = client.post("/demo", data={"csrf": csrf(client)})
    assert r.status_code == 303
    with store.session() as s:
        (game,) = s.exec(select(Game)).all()
    assert not game.public
    assert f"Game {game.id}" not in client.get("/").text
    assert client.get(f"/g/{game.id}").status_code == 404
    assert client.get(r.headers["Location"]).status_code == 200  # its player's table


def test_a_finished_game_offers_no_vacation(store, client):
    gid = humans_game(store, preset("standard").with_options(max_hands=1))
    from tests.web_helpers import drive

    drive(store, gid, lambda st: False)
    tok = tokens(store, gid)[0]
    page = client.get(f"/t/{tok}").text
    assert "The game is over" in page and "Go on vacation" not in page
    assert "Resign" not in page and "Your record" in page
    before = database(store)
    r = client.post(f"/t/{tok}/vacation", data={"days": "1", "csrf": csrf(client)})
    assert r.status_code == 303 and "This game is over" in client.get(f"/t/{tok}").text
    assert database(store) == before
    assert client.get(f"/t/{tok}/resign").status_code == 303


@pytest.mark.parametrize("n, words", [(0, "0 bags"), (1, "1 bag"), (2, "2 bags")])
def test_counts_agree_with_their_nouns(app, n, words):
    with app.test_request_context():
        html = app.jinja_env.from_string('{% from "web/_pad.html" import pad_table %}'
                                         '{{ pad_table([], ["A", "B"], pad) }}').render(
            pad={"sides": [{"score": 10, "bags": n}, {"score": 0, "bags": 0}]})
    assert f"({words})" in html


def test_a_long_refused_form_keeps_the_session_cookie_small(store, client):
    """A browser drops a cookie past 4 KB, and the session's CSRF key with it: the form
    carried back gives way first, the error stays, and the next form still posts."""
    long = "x" * 64 + "@" + "d" * 180 + ".test"
    form = dict(NEW_GAME, you=long, options="target=300\n" * 150,
                **{f"seat{i}": long for i in range(6)})
    r = client.post("/new", data=dict(form, csrf=csrf(client)))
    assert r.status_code == 303
    cookie = r.headers["Set-Cookie"].split(";")[0]
    assert len(cookie) < 3000, len(cookie)
    page = client.get("/new").text
    assert 'class="error"' in page and "Nothing was sent" in page
    r = client.post("/signin", data={"email": "p@x.test", "csrf": csrf(client)})
    assert r.status_code == 303  # the session (its CSRF key) survived
