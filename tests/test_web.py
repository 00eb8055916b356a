"""The web with Flask's test client on a real database: every route, the demo, starting a
game by invitation, moves from the table and from a turn mail's signed links (forged,
expired, stale and replayed links are refused), and GETs that never change a game."""

import json
import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from sqlmodel import select

from pbem.engine import Rules, preset
from pbem.signing import MAX_AGE, MOVE, Signer
from pbem.store.games import create_game
from pbem.store.models import Confirmation, Game, Move, Outbox, Player, Seat
from tests.web_helpers import (
    BASE,
    confirmation_links,
    confirmed,
    counts,
    csrf,
    drive,
    game_state,
    humans_game,
    mail_links,
    make_app,
    move_forms,
    posted,
    seats,
    tokens,
)

# every route of the app, and the test below that visits it (test_every_route_is_tested)
ROUTES = {
    "/": "test_pages_and_api", "/g/<int:game_id>": "test_pages_and_api",
    "/demo": "test_demo", "/new": "test_new_game_form_refuses_bad_input",
    "/new/confirm/<link:token>": "test_a_new_game_waits_for_its_creators_confirmation",
    "/g/<int:game_id>/created": "test_invitations_deal_when_all_accept",
    "/i/<token>": "test_invitations_deal_when_all_accept",
    "/t/<token>": "test_pages_and_api", "/t/<token>/move": "test_moves_from_table_buttons",
    "/m/<token>": "test_move_links_from_a_turn_mail",
    "/api/games": "test_pages_and_api", "/api/g/<int:game_id>": "test_pages_and_api",
    "/api/t/<token>": "test_pages_and_api",
    "/t/<token>/deal/<int:seq>": "test_a_finished_deal_is_shown_with_its_salt",
    "/t/<token>/vacation": "test_deadline_record_vacation_and_extra_time_on_the_page",
    "/t/<token>/extra": "test_deadline_record_vacation_and_extra_time_on_the_page",
    "/c/<token>": "test_the_creator_lets_the_robot_make_the_waiting_move_once",  # test_care
    "/u/<token>": "test_one_click_stops_that_kind_of_mail_and_a_get_changes_nothing",
    "/t/<token>/orders": "test_the_table_page_shows_and_edits_the_seats_own_orders_only",
    # at the table: tests/test_web_table_acts.py
    "/t/<token>/say": "test_say_on_the_table_page",
    "/t/<token>/undo": "test_undo_on_the_table_page",
    "/t/<token>/resign": "test_resign_on_the_table_page_asks_to_confirm",
    "/t/<token>/note": "test_notes_on_the_table_page_only_the_author_sees",  # test_notes
    "/t/<token>/hint": "test_a_hint_on_the_page_is_the_seats_alone_and_counted",  # test_review
    "/o/<admin_token>/hints": "test_the_organiser_page_allows_hints_and_turns_them_off",
    # sending an invitation again: tests/test_web_flow.py
    "/t/<token>/invite": "test_the_creators_table_says_who_has_said_yes_and_sends_again",
    # the league pages: tests/test_web_leagues.py
    "/l": "test_create_a_league_by_the_form", "/l/new": "test_create_a_league_by_the_form",
    "/l/new/confirm/<link:token>": "test_create_a_league_by_the_form",
    "/l/<int:league_id>": "test_a_season_page_during_and_after_play",
    "/l/<int:league_id>/s/<int:number>": "test_a_season_page_during_and_after_play",
    "/j/<join_token>": "test_join_by_link_end_to_end",
    "/j/confirm/<token>": "test_join_by_link_end_to_end",
    "/j/partner/<token>": "test_a_partner_says_yes",
    "/o/<admin_token>": "test_the_organiser_page_and_its_actions",
    "/o/<admin_token>/start": "test_the_organiser_page_and_its_actions",
    "/o/<admin_token>/season": "test_the_organiser_page_and_its_actions",
    "/o/<admin_token>/withdraw": "test_the_organiser_page_and_its_actions",
    "/o/<admin_token>/substitute": "test_the_organiser_page_and_its_actions",
    "/o/<admin_token>/export.zip": "test_a_pair_league_its_partnership_ratings_and_the_zip",
    "/o/<admin_token>/rule": "test_the_organisers_forms_and_their_refusals",
    "/o/<admin_token>/more": "test_the_organisers_forms_and_their_refusals",
    "/o/<admin_token>/robot": "test_the_organisers_forms_and_their_refusals",
    "/o/<admin_token>/remind": "test_the_organisers_forms_and_their_refusals",
    "/o/<admin_token>/message": "test_the_organisers_forms_and_their_refusals",
    "/o/<admin_token>/pause": "test_the_organisers_forms_and_their_refusals",
    "/o/<admin_token>/replay": "test_a_replay_is_dealt_in_the_league_and_counts",
    # a league's webhooks: tests/test_webhooks.py
    "/o/<admin_token>/webhook": "test_the_organiser_page_adds_and_removes_its_own_webhooks",
    "/o/<admin_token>/webhook/remove":
        "test_the_organiser_page_adds_and_removes_its_own_webhooks",
    "/api/leagues": "test_a_season_page_during_and_after_play",
    "/api/l/<int:league_id>": "test_a_season_page_during_and_after_play",
    "/api/l/<int:league_id>/s/<int:number>": "test_a_season_page_during_and_after_play",
    # a player's home and the live table: tests/test_home.py, tests/test_browser.py
    "/signin": "test_sign_in_by_a_mailed_link", "/signin/<link:token>":
    "test_a_reused_expired_or_forged_link_signs_no_one_in",
    "/signout": "test_sign_out_everywhere_ends_every_session",
    # the link a mail to plain pbem@ earns: tests/test_mail_account_address.py
    "/a/<link:token>": "test_a_command_at_plain_pbem_works_after_one_click_and_only_once",
    "/home": "test_the_home_lists_waiting_games_first_with_their_own_orders",
    "/home/settings": "test_settings_are_saved_and_bad_values_refused_beside_their_field",
    "/home/vacation": "test_vacation_from_the_home_page",
    "/home/address": "test_a_leaked_address_is_replaced_by_its_owner_and_the_old_one_refused",
    "/o/<admin_token>/address": "test_the_organiser_page_gives_a_new_organiser_address",
    "/t/<token>/seq": "test_the_seq_answers_304_until_the_game_moves",
    "/live.js": "test_two_pages_on_one_game_follow_it_without_a_click",
    # a player's own data: tests/test_privacy_mail.py
    "/home/data.json": "test_the_home_page_downloads_and_forgets_after_a_confirm",
    "/home/forget": "test_the_home_page_downloads_and_forgets_after_a_confirm",
    # the language menu: tests/test_i18n_web.py
    "/lang": "test_the_language_menu_keeps_a_visitors_choice_and_a_players_setting",
    "/forget/<token>": "test_forget_me_by_mail_asks_first_and_the_link_forgets",
    # the operator's: tests/test_health.py
    "/healthz": "test_healthz_reads_nothing_and_readyz_says_the_database_is_away",
    "/readyz": "test_readyz_wants_the_migrations_head",
    "/metrics": "test_metrics_answer_loopback_or_the_token_only",
    # open seeks: tests/test_seeks.py
    "/seeks": "test_seeks_on_the_home_page_and_at_seeks",
    "/seeks/new": "test_seeks_on_the_home_page_and_at_seeks",
    "/seeks/<int:seek_id>/accept": "test_seeks_on_the_home_page_and_at_seeks",
    "/seeks/<int:seek_id>/cancel": "test_seeks_on_the_home_page_and_at_seeks",
    # a player's calendar feed: tests/test_calendar.py
    "/cal/<token>.ics": "test_the_feed_holds_the_players_own_pending_deadlines_only",
    "/home/calendar": "test_the_home_page_makes_shows_once_and_turns_off_the_feed",
    # a duplicate league's board: tests/test_league_duplicate.py
    "/l/<int:league_id>/s/<int:number>/r/<int:rnd>/b/<int:board>":
        "test_a_table_still_playing_a_board_sees_nothing_of_it_from_another",
    # web push: tests/test_push.py
    "/sw.js": "test_the_worker_and_script_are_ours_under_the_strict_csp",
    "/push.js": "test_the_worker_and_script_are_ours_under_the_strict_csp",
    "/t/<token>/push": "test_turning_alerts_on_and_off_from_the_table_and_home",
    "/home/push": "test_turning_alerts_on_and_off_from_the_table_and_home",
}  # and test_docs_api_md_documents_every_endpoint for /api/


def test_every_route_is_tested(app):
    rules = {r.rule for r in app.url_map.iter_rules() if r.endpoint != "static"}
    assert rules == set(ROUTES)


def test_pages_and_api(store, client):
    pub = humans_game(store, preset("standard"))
    priv = humans_game(store, preset("standard"), public=False)
    st = game_state(store, pub)
    before = counts(store)

    r = client.get("/")
    assert r.status_code == 200
    assert f'href="/g/{pub}"' in r.text and f'href="/g/{priv}"' not in r.text
    assert 'action="/demo"' in r.text and 'href="/new"' in r.text
    games = client.get("/api/games").get_json()
    assert {"id": pub, "preset": "standard", "status": "playing", "url": f"/g/{pub}"} in games
    assert priv not in [g["id"] for g in games]

    r = client.get(f"/g/{pub}")
    assert r.status_code == 200
    assert "<svg" not in r.text and 'aria-label="Score pad"' in r.text and "p0 &amp; p2" in r.text
    assert 'class="card' not in r.text  # a spectator sees no hand while it is played
    pad = client.get(f"/api/g/{pub}").get_json()
    assert pad["id"] == pub and pad["seq"] == st.seq and pad["phase"] == "bid"
    assert pad["seats"] == ["p0", "p1", "p2", "p3"] and pad["hands"] == []
    assert [s["seats"] for s in pad["sides"]] == [[0, 2], [1, 3]]

    # a private game's pad is its players' business only
    assert client.get(f"/g/{priv}").status_code == 404
    assert client.get(f"/api/g/{priv}").status_code == 404
    assert client.get(f"/t/{tokens(store, priv)[0]}").status_code == 200
    for path in ("/g/9999", "/api/g/9999", "/t/nosuchtoken", "/api/t/nosuchtoken",
                 "/i/nosuchtoken", "/g/9999/created"):
        assert client.get(path).status_code == 404, path

    # each seat's table: its own hand by suit, bids and tricks, the pad, the commitment
    seat = st.to_act()[0]
    tok = tokens(store, pub)[seat]
    r = client.get(f"/t/{tok}")
    assert r.status_code == 200
    assert r.text.count('class="card') == 13 and "Spades" in r.text
    assert "Deal commitment" in r.text and st.deal_record["commitment"] in r.text
    assert "<svg" not in r.text and "to bid</span>" in r.text  # no chart before a score
    assert len(move_forms(r.text)) == len([a for a in st_legal(st, seat)])
    js = client.get(f"/api/t/{tok.upper()}").get_json()  # tokens may come back upper case
    assert js["seat"] == seat and js["game"] == pub and sorted(js["hand"]) == \
        sorted(st.hands[seat])
    assert js["legal"] == st_legal(st, seat) and "history" not in js
    assert counts(store) == before  # none of these GETs changed anything


def st_legal(st, seat):
    from pbem.engine import legal

    return legal(st, seat)


def test_demo(store, client):
    assert client.post("/demo").status_code == 400  # no CSRF field: refused
    assert client.post("/demo", data={"csrf": "forged"}).status_code == 400
    with store.session() as s:
        assert s.exec(select(Game)).all() == []
    r = client.post("/demo", data={"csrf": csrf(client)})
    assert r.status_code == 303 and r.headers["Location"].startswith("/t/")
    page = client.get(r.headers["Location"])
    assert page.status_code == 200 and "Your hand" in page.text
    with store.session() as s:
        (game,) = s.exec(select(Game)).all()
    assert [x.robot for x in seats(store, game.id)] == [False, True, True, True]
    st = game_state(store, game.id)
    assert st.phase == "bid" and st.to_act() == [0]  # the robots bid; the demo player is due
    assert page.text.count('class="card') == 13 and move_forms(page.text)


def test_new_game_form_refuses_bad_input(store, client):
    r = client.get("/new")
    assert r.status_code == 200 and 'name="csrf"' in r.text and "cutthroat-3" in r.text
    good = {"you": "a@x.test", "preset": "standard", "seat0": "a@x.test", "seat1": "robot",
            "seat2": "b@x.test", "seat3": "robot", "public": "on"}
    assert client.post("/new", data=good).status_code == 400  # no CSRF
    assert client.post("/new", data=dict(good, csrf="x")).status_code == 400
    token = csrf(client)
    bad = [({"you": "nobody"}, "your own email"),
           ({"seat2": "bob"}, "seat 2"),
           ({"options": "target"}, "KEY=VALUE"),
           ({"options": "nosuch=1"}, "unknown option"),
           ({"options": "target=abc"}, "whole number"),
           ({"preset": "nosuch"}, "nosuch"),
           ({"move_hours": "5"}, "choose a deadline"),
           ({"on_timeout": "explode"}, "choose a deadline")]
    for change, words in bad:
        r = posted(client, "/new", dict(good, csrf=token, **change), to="/new")
        assert 'class="error"' in r.text and words in r.text, (change, r.text[-800:])
        assert 'value="a@x.test"' in r.text or change.get("you")  # the form keeps its input
    with store.session() as s:
        assert s.exec(select(Game)).all() == [] and s.exec(select(Outbox)).all() == []


def test_a_new_game_waits_for_its_creators_confirmation(store, client):
    """The form makes nothing and mails only its creator: the game, its seats and its
    invitations come from the button behind the mailed link, once."""
    form = {"csrf": csrf(client), "you": "A@x.test", "preset": "standard", "public": "on",
            "options": "\n target = 300 \n\n", "seat0": "b@x.test", "seat1": "a@x.test",
            "seat2": "robot", "seat3": "c@x.test", "move_hours": "48"}
    r = posted(client, "/new", form, to="/new")
    assert r.status_code == 200 and "Check your mail" in r.text and "a@x.test" in r.text
    assert "/t/" not in r.text and "/g/" not in r.text
    r = client.post("/new", data=form)  # the same form again: no second mail today
    assert r.status_code == 303
    with store.session() as s:
        assert s.exec(select(Game)).all() == [] and s.exec(select(Seat)).all() == []
        assert s.exec(select(Player)).all() == []  # no account for anyone yet
        (ask,) = s.exec(select(Outbox)).all()
    assert ask.to_addr == "a@x.test" and ask.subject == "Confirm your new game of Spades"
    assert "b@x.test, robot and c@x.test" in ask.body_text
    (link,) = confirmation_links(store, "a@x.test")

    seen = counts(store)
    r = client.get(link)  # a mail scanner fetching the link changes nothing
    assert r.status_code == 200 and r.text.count("<button") == 1
    for shown in ("a@x.test", "b@x.test", "c@x.test", "target = 300",
                  "48 hours a move; at the deadline the robot moves"):
        assert shown in r.text, shown
    assert client.post(link).status_code == 400  # no CSRF
    assert counts(store) == seen
    with store.session() as s:
        assert s.exec(select(Game)).all() == []

    r = client.post(link, data={"csrf": csrf(client)})
    assert r.status_code == 303 and "/created?token=" in r.headers["Location"]
    gid = int(r.headers["Location"].split("/")[2])
    mine = r.headers["Location"].split("token=")[1]
    assert mine == tokens(store, gid)[1]  # the creator's own seat
    with store.session() as s:
        game = s.get(Game, gid)
    assert game.rules["target"] == 300 and game.time_control["move_hours"] == 48
    assert set(_invites(store, gid)) == {"b@x.test", "c@x.test"}
    made = counts(store)
    again = client.post(link, data={"csrf": csrf(client)})  # the creator presses again
    assert again.status_code == 409 and "used already" in again.text
    assert f'href="/t/{mine}"' in again.text
    again = client.get(link)  # a scanner, or a forwarded mail, later: no key
    assert again.status_code == 409 and "used already" in again.text and mine not in again.text
    assert counts(store) == made
    with store.session() as s:
        assert len(s.exec(select(Game)).all()) == 1

    # a forged, tampered, foreign or expired link makes nothing
    body, sig = link.rsplit(".", 1)
    join_link = Signer(client.application.config["PBEM_KEYS"], "pbem.join").dumps({"l": 1})
    for bad, why in [(f"{body}.{sig[::-1]}", "not valid"), ("/new/confirm/garbage", "not valid"),
                     (f"/new/confirm/{join_link}", "not valid")]:
        r = client.post(bad, data={"csrf": csrf(client)})
        assert r.status_code == 400 and "This link does not work" in r.text and why in r.text
    with time_machine.travel(datetime.now(UTC) + timedelta(days=15), tick=False):
        r = client.post(link, data={"csrf": csrf(client)})
        assert r.status_code == 400 and "expired" in r.text
    assert counts(store) == made


def _new_game(client, store, **seats_):
    """A game made from the form and confirmed by the link mailed to its creator: where the
    confirmation leads (the created page, with the creator's table)."""
    data = {"csrf": csrf(client), "you": "a@x.test", "preset": "standard", "public": "on",
            **seats_}
    r = confirmed(client, store, "/new", data, "a@x.test")
    assert r.status_code == 303, r.text
    return r.headers["Location"]


def _invites(store, gid) -> dict:
    with store.session() as s:
        rows = s.exec(select(Outbox).where(Outbox.game_id == gid)).all()
    out = {}
    for row in rows:
        assert row.dedupe_key.startswith("invite:")
        out[row.to_addr] = row.body_text.split(f"{BASE}/i/")[1].split()[0]
    return out


def test_invitations_deal_when_all_accept(store, client):
    where = _new_game(client, store, seat0="a@x.test", seat1="B@x.test", seat2="robot",
                      seat3="c@x.test")
    assert where.startswith("/g/") and "/created?token=" in where
    gid = int(where.split("/")[2])
    mine = where.split("token=")[1]
    r = client.get(where)
    assert r.status_code == 200 and f'href="/t/{mine}"' in r.text
    assert mine == tokens(store, gid)[0]
    invites = _invites(store, gid)
    assert set(invites) == {"b@x.test", "c@x.test"}  # the creator and the robot are seated
    assert counts(store, gid)[0] == 0  # no deal until everyone said yes
    assert client.get(f"/t/{mine}").status_code == 200  # the creator sees the empty table
    b, c = invites["b@x.test"], invites["c@x.test"]
    assert client.get(f"/t/{b}").status_code == 404  # not yet accepted: no table
    assert client.get(f"/api/t/{b}").status_code == 404

    before = counts(store)
    r = client.get(f"/i/{b}")  # a mail scanner fetching the link changes nothing
    assert r.status_code == 200 and 'value="yes"' in r.text and 'value="no"' in r.text
    assert counts(store) == before and not seats(store, gid)[1].accepted
    assert client.post(f"/i/{b}", data={"answer": "yes"}).status_code == 400  # no CSRF
    assert not seats(store, gid)[1].accepted

    r = client.post(f"/i/{b}", data={"answer": "yes", "csrf": csrf(client)})
    assert r.status_code == 303 and r.headers["Location"] == f"/t/{b}"
    assert counts(store, gid)[0] == 0  # c has not answered
    assert client.get(f"/t/{b}").status_code == 200
    r = client.post(f"/i/{c}", data={"answer": "yes", "csrf": csrf(client)})
    assert r.status_code == 303
    assert counts(store, gid)[0] > 0  # everyone is in: dealt
    with store.session() as s:
        assert s.get(Game, gid).status == "playing"
        assert s.exec(select(Move).where(Move.game_id == gid, Move.type == "deal")).first()
    r = client.get(f"/t/{c}")
    assert r.status_code == 200 and r.text.count('class="card') >= 13
    # answering again changes nothing
    before = counts(store)
    r = posted(client, f"/i/{c}", {"answer": "no", "csrf": csrf(client)}, to=f"/i/{c}")
    assert r.status_code == 200 and "answered already" in r.text
    assert counts(store) == before and not seats(store, gid)[3].robot


def test_decline_gives_the_seat_to_a_robot(store, client):
    where = _new_game(client, store, seat0="a@x.test", seat1="b@x.test", seat2="robot",
                      seat3="robot")
    gid = int(where.split("/")[2])
    b = _invites(store, gid)["b@x.test"]
    r = posted(client, f"/i/{b}", {"answer": "no", "csrf": csrf(client)}, to=f"/i/{b}")
    assert r.status_code == 200 and "Declined" in r.text
    seat = seats(store, gid)[1]
    assert seat.robot and seat.player_id is None and seat.token != b
    assert counts(store, gid)[0] > 0  # the robot filled the last seat: dealt
    for path in (f"/t/{b}", f"/api/t/{b}", f"/i/{b}"):  # the old link shows no robot's hand
        assert client.get(path).status_code == 404, path
    assert client.post(f"/t/{b}/move", data={"csrf": csrf(client), "type": "bid", "bid": "3",
                                             "seq": "1"}).status_code == 404


def test_moves_from_table_buttons(store, client):
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    seat = st.to_act()[0]
    tok = tokens(store, gid)[seat]
    other = tokens(store, gid)[(seat + 1) % 4]
    r = client.get(f"/t/{tok}")
    forms = move_forms(r.text)
    assert [f["label"] for f in forms][:3] == ["Bid nil", "Bid 1", "Bid 2"]
    bid3 = next(f for f in forms if f["label"] == "Bid 3")
    assert bid3["data"]["seq"] == str(st.seq)
    assert not move_forms(client.get(f"/t/{other}").text)  # not its turn: no buttons

    before = counts(store, gid)
    no_csrf = {k: v for k, v in bid3["data"].items() if k != "csrf"}
    assert client.post(bid3["action"], data=no_csrf).status_code == 400
    for bad in (dict(bid3["data"], type="cheat"), dict(bid3["data"], seq="x")):
        r = posted(client, bid3["action"], bad, to=f"/t/{tok}")
        assert "That move was not understood" in r.text
    r = posted(client, f"/t/{other}/move", bid3["data"])  # another seat, out of turn
    assert 'class="error"' in r.text and "Not played" in r.text
    assert counts(store, gid) == before

    r = posted(client, bid3["action"], bid3["data"], to=f"/t/{tok}")
    assert r.status_code == 200 and "Done: bid 3." in r.text
    assert game_state(store, gid).bids[seat] == 3
    with store.session() as s:
        m = s.exec(select(Move).where(Move.game_id == gid, Move.actor == seat)).one()
    assert m.source == "web" and m.payload["bid"] == 3
    after = counts(store, gid)
    r = posted(client, bid3["action"], bid3["data"])  # the same button again: stale
    assert "moved on" in r.text and counts(store, gid) == after


def _turn_mail(store, gid, seat):
    with store.session() as s:
        rows = s.exec(select(Outbox).where(Outbox.game_id == gid,
                                           Outbox.dedupe_key.startswith(f"turn:{gid}:{seat}:"))
                      .order_by(Outbox.id.desc())).all()
    return rows[0]


def test_move_links_from_a_turn_mail(store, client):
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    seat = st.to_act()[0]
    mail = _turn_mail(store, gid, seat)
    links = dict(mail_links(mail.body_html))
    assert len(links) == len(st_legal(st, seat)) and "bid 4" in links and "bid 5" in links

    before = counts(store)
    r = client.get(links["bid 4"])  # GET: the move and one button, nothing changes
    assert r.status_code == 200 and "Confirm: Bid 4" in r.text
    assert r.text.count("<button") == 1 and counts(store) == before
    r = client.head(links["bid 4"])
    assert counts(store) == before
    assert client.post(links["bid 4"]).status_code == 400  # no CSRF
    assert counts(store) == before

    r = posted(client, links["bid 4"], {"csrf": csrf(client)}, to=f"/t/{tokens(store, gid)[seat]}")
    assert r.status_code == 200 and "Done: Bid 4." in r.text
    assert game_state(store, gid).bids[seat] == 4
    with store.session() as s:
        m = s.exec(select(Move).where(Move.game_id == gid, Move.actor == seat)).one()
    assert m.ref.startswith("link:") and m.source == "web"
    used = counts(store)
    r = posted(client, links["bid 4"], {"csrf": csrf(client)})  # replayed
    assert "already played" in r.text.lower() and counts(store) == used  # the truth, not red
    assert 'class="error"' not in r.text
    assert game_state(store, gid).bids[seat] == 4

    # the game moves on until this seat is due again; the mail's other link is stale
    st = drive(store, gid, lambda x: seat in x.to_act())
    moved = counts(store)
    r = client.get(links["bid 5"], follow_redirects=True)  # the table as it is now
    assert r.status_code == 200 and "moved on" in r.text and counts(store) == moved
    assert all(f["data"]["seq"] == str(st.seq) for f in move_forms(r.text))
    r = posted(client, links["bid 5"], {"csrf": csrf(client)})
    assert "moved on" in r.text and counts(store) == moved
    fresh = move_forms(r.text)  # the current table, with this seat's fresh moves
    assert fresh and all(f["data"]["seq"] == str(st.seq) for f in fresh)
    assert game_state(store, gid).bids[seat] == 4


def test_forged_expired_and_foreign_tokens_are_refused(app, store, client):
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    seat = st.to_act()[0]
    keys = app.config["PBEM_KEYS"]
    data = {"g": gid, "s": seat, "a": {"type": "bid", "bid": 3}, "q": st.seq}
    good = Signer(keys).dumps(data)
    body, sig = good.rsplit(".", 1)
    forged = f"{body}.{sig[:-2]}{'AA' if sig[-2:] != 'AA' else 'BB'}"
    # the payload changed to another seat's move, the signature kept
    other = Signer(keys).dumps(dict(data, s=(seat + 1) % 4))
    swapped = f"{other.rsplit('.', 2)[0]}.{good.split('.', 1)[1]}"

    class Past(TimestampSigner):
        def get_timestamp(self):
            return int(time.time()) - MAX_AGE - 60

    expired = URLSafeTimedSerializer(keys, salt=MOVE, signer=Past).dumps(dict(data, n="ab"))
    other_purpose = Signer(keys, purpose="pbem.other").dumps(data)
    other_key = Signer(["not-our-key"]).dumps(data)
    before = counts(store)
    token = csrf(client)
    for bad, why in [(forged, "not valid"), (swapped, "not valid"), ("garbage", "not valid"),
                     (other_purpose, "not valid"), (other_key, "not valid"),
                     (expired, "expired")]:
        r = client.get(f"/m/{bad}")
        assert r.status_code == 400 and why in r.text, bad
        r = client.post(f"/m/{bad}", data={"csrf": token})
        assert r.status_code == 400 and why in r.text, bad
    assert counts(store) == before
    r = client.post(f"/m/{good}", data={"csrf": token})  # and the genuine one still works
    assert r.status_code == 303 and game_state(store, gid).bids[seat] == 3


def test_a_link_signed_with_the_old_key_still_works(store, tmp_path, monkeypatch):
    app = make_app(store, tmp_path, monkeypatch, secret="old-secret,new-secret")
    assert app.config["PBEM_KEYS"] == ["old-secret", "new-secret"]
    client = app.test_client()
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    seat = st.to_act()[0]
    # the turn mail is signed with the newest key
    links = dict(mail_links(_turn_mail(store, gid, seat).body_html))
    new = links["bid 2"].split("/m/")[1]
    Signer(["new-secret"]).loads(new)
    with pytest.raises(ValueError):
        Signer(["old-secret"]).loads(new)
    old = Signer(["old-secret"]).dumps({"g": gid, "s": seat, "a": {"type": "bid", "bid": 2},
                                        "q": st.seq})
    assert client.get(f"/m/{old}").status_code == 200
    r = client.post(f"/m/{old}", data={"csrf": csrf(client)})
    assert r.status_code == 303 and game_state(store, gid).bids[seat] == 2
    # a key that was never ours is refused
    nobody = Signer(["retired-long-ago"]).dumps({"g": gid, "s": seat, "a": {}, "q": 0})
    assert client.get(f"/m/{nobody}").status_code == 400


def test_a_running_app_follows_a_rotated_key_file(store, tmp_path, monkeypatch):
    """The key file replaced while the web worker runs: a turn mail signed with the new key
    (by the mail path, which reads the file again) works on the page at once, its form's
    session cookie signed with the new key too; a link signed with the old key is refused."""
    import os

    from pbem.play import submit

    app = make_app(store, tmp_path, monkeypatch)  # no PBEM_SECRET_KEY: var/secret_key
    client = app.test_client()
    gid = humans_game(store, preset("standard"))
    seat = game_state(store, gid).to_act()[0]
    old = dict(mail_links(_turn_mail(store, gid, seat).body_html))["bid 2"]
    assert client.get(old).status_code == 200
    new = tmp_path / "new_key"
    new.write_text("the-rotated-key-" + "k" * 32)
    os.replace(new, tmp_path / "secret_key")
    assert client.get(old).status_code == 400
    submit(store, gid, seat, {"type": "bid", "bid": 2}, source="cli")
    nxt = (seat + 1) % 4
    link = dict(mail_links(_turn_mail(store, gid, nxt).body_html))["bid 3"]
    Signer(["the-rotated-key-" + "k" * 32]).loads(link.split("/m/")[1])
    assert client.get(link).status_code == 200
    r = client.post(link, data={"csrf": csrf(client)})
    assert r.status_code == 303 and game_state(store, gid).bids[nxt] == 3
    assert app.config["SECRET_KEY"] == "the-rotated-key-" + "k" * 32  # the session's too


def test_a_link_for_a_seat_a_robot_took_is_refused(app, store, client):
    gid = create_game(store, Rules.from_dict({"preset": "standard"}),
                      ["a@x.test", "b@x.test", "c@x.test", "d@x.test"], first_dealer=0)
    from pbem.play import start

    start(store, gid)
    st = game_state(store, gid)
    seat = st.to_act()[0]
    token = Signer(app.config["PBEM_KEYS"]).dumps(
        {"g": gid, "s": seat, "a": {"type": "bid", "bid": 3}, "q": st.seq})
    with store.session() as s:
        row = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == seat)).one()
        row.robot, row.player_id = True, None
        s.add(row)
        s.commit()
    before = counts(store)
    r = client.post(f"/m/{token}", data={"csrf": csrf(client)})
    assert r.status_code == 400 and "no longer yours" in r.text and counts(store) == before


def test_docs_api_md_documents_every_endpoint(app, store, client):
    """docs/api.md: a section per /api/ route, with examples shaped like real responses."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    routes = {r.rule.replace("<int:game_id>", "<id>") for r in app.url_map.iter_rules()
              if r.rule.startswith("/api/")}
    assert routes == set(re.findall(r"^## `GET (/api/\S+)`", doc, re.M))
    examples = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", doc, re.S)]
    games, pad, pad_after, table = examples[:4]  # the games'; the leagues' follow
    gid = humans_game(store, preset("standard"))
    tok = tokens(store, gid)[0]
    live = client.get("/api/games").get_json()
    assert set(games[0]) == set(live[0])
    assert set(pad) == set(pad_after) == set(client.get(f"/api/g/{gid}").get_json())
    assert set(table) == set(client.get(f"/api/t/{tok}").get_json())
    for key in table:
        assert f"`{key}`" in doc, key


def test_passing_cards_from_the_table_form(store, client):
    gid = humans_game(store, Rules.from_dict({"preset": "standard", "pass_to_partner": "2"}))
    st = game_state(store, gid)
    assert st.phase == "pass"
    seat = st.to_act()[0]
    tok = tokens(store, gid)[seat]
    r = client.get(f"/t/{tok}")
    assert "Pass 2 cards to your partner" in r.text
    boxes = re.findall(r'type="checkbox" name="card" value="([2-9TJQKA][SHDC])"', r.text)
    assert sorted(boxes) == sorted(st.hands[seat])
    data = {"csrf": csrf(client), "type": "pass", "seq": str(st.seq), "card": boxes[:1]}
    r = posted(client, f"/t/{tok}/move", data)  # one card is not two: refused
    assert "Not played" in r.text and counts(store, gid)[0] == st.seq
    r = posted(client, f"/t/{tok}/move", dict(data, card=boxes[:2]))
    assert r.status_code == 200 and "Done: passed" in r.text
    assert game_state(store, gid).passed_away[seat] == boxes[:2]


def test_a_blind_nil_bidder_keeps_its_cards_from_the_table_page(store, client):
    from pbem.play import submit

    gid = humans_game(store, Rules.from_dict({"preset": "standard", "blind_nil_behind": -1000}))
    st = game_state(store, gid)
    first = st.to_act()[0]
    submit(store, gid, first, {"type": "bid", "bid": "blind nil"})
    while game_state(store, gid).phase == "bid":
        seat = game_state(store, gid).to_act()[0]
        submit(store, gid, seat, {"type": "look"})
        submit(store, gid, seat, {"type": "bid", "bid": 3})
    st = game_state(store, gid)
    assert st.phase == "pass" and st.to_act() == [first]
    tok = tokens(store, gid)[first]
    assert "Keep my cards (no exchange)" in client.get(f"/t/{tok}").text
    r = client.post(f"/t/{tok}/move", data={"csrf": csrf(client), "type": "pass",
                                            "seq": str(st.seq)})
    assert r.status_code == 303 and game_state(store, gid).phase == "play"
    assert game_state(store, gid).hands[first] == st.hands[first]  # nothing passed


def test_a_finished_deal_is_shown_with_its_salt(store, client):
    from pbem.engine.commitment import deal_digest

    gid = humans_game(store, preset("standard").with_options(target=1000))
    tok = tokens(store, gid)[0]
    first = game_state(store, gid).deal_record["seq"]
    assert client.get(f"/t/{tok}/deal/{first}").status_code == 404  # the hand is in play
    st = drive(store, gid, lambda x: x.hand_no == 1)  # one hand played and scored
    salt = st.reveals[first]
    with store.session() as s:
        deal = s.exec(select(Move.payload).where(Move.game_id == gid, Move.seq == first)).one()
    assert deal_digest(deal, salt) == deal["commitment"]
    table = client.get(f"/t/{tok}").text
    assert salt in table and f"/t/{tok}/deal/{first}" in table
    r = client.get(f"/t/{tok}/deal/{first}")
    assert r.status_code == 200 and salt in r.text and deal["commitment"] in r.text
    assert all(f"<code>{c}</code>" in r.text for h in deal["hands"] for c in h)
    assert client.get(f"/t/{tok}/deal/{st.deal_record['seq']}").status_code == 404  # not yet


def test_deadline_record_vacation_and_extra_time_on_the_page(store, client):
    from zoneinfo import ZoneInfo

    from pbem.store.models import Deadline, Player, Seat

    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    toks = tokens(store, gid)
    actor, other = st.to_act()[0], (st.to_act()[0] + 1) % 4

    def due():
        with store.session() as s:
            return s.exec(select(Deadline.due).where(
                Deadline.game_id == gid, Deadline.kind == "timeout",
                Deadline.state == "pending")).one()

    page = client.get(f"/t/{toks[actor]}").text
    assert "Due by" in page and "Your record: 0 moves on time" in page
    assert "(due " in client.get(f"/t/{toks[other]}").text  # others see whom they wait for
    first = due()
    with store.session() as s:  # the viewer's own clock
        viewer = s.exec(select(Player).join(Seat, Seat.player_id == Player.id).where(
            Seat.game_id == gid, Seat.seat == other)).one()
        viewer.prefs = dict(viewer.prefs, zone="Asia/Tokyo")
        s.add(viewer)
        s.commit()
    tokyo = first.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%a %d %b %H:%M Asia/Tokyo")
    assert f"(due {tokyo}, " in client.get(f"/t/{toks[other]}").text
    token = csrf(client)
    r = posted(client, f"/t/{toks[other]}/extra", {"csrf": token, "hours": "24"})
    assert "24 more hours" in r.text and (due() - first).total_seconds() == 24 * 3600
    r = posted(client, f"/t/{toks[other]}/extra", {"csrf": token, "hours": "999"})
    assert "Extra time is 24 or 48 hours" in r.text
    assert client.post(f"/t/{toks[other]}/extra", data={"hours": "24"}).status_code == 400
    assert (due() - first).total_seconds() == 24 * 3600
    r = posted(client, f"/t/{toks[actor]}/vacation", {"csrf": token, "days": "3"})
    assert r.status_code == 200 and "deadlines stand still" in r.text
    assert (due() - first).total_seconds() == (24 + 72) * 3600  # pushed by the vacation
    with store.session() as s:
        seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == actor)).one()
        assert s.get(Player, seat.player_id).prefs["vacation_bank"] == 14 - 3
    r = posted(client, f"/t/{toks[actor]}/vacation", {"csrf": token, "days": "99"})
    assert "vacation days left" in r.text
    r = posted(client, f"/t/{toks[actor]}/vacation", {"csrf": token, "days": "off"})
    assert r.status_code == 200 and "3 days returned" in r.text


def test_the_new_game_form_sets_the_time_control(store, client):
    data = {"csrf": csrf(client), "you": "a@x.test", "preset": "standard", "seat0": "a@x.test",
            "seat1": "robot", "seat2": "robot", "seat3": "robot", "move_hours": "168",
            "on_timeout": "wait", "weekend_pause": "on"}
    assert confirmed(client, store, "/new", data, "a@x.test").status_code == 303
    with store.session() as s:
        [game] = s.exec(select(Game)).all()
    assert game.time_control == {"move_hours": 168, "remind_hours": [24, 2],
                                 "weekend_pause": True, "on_timeout": "wait",
                                 "auto_vacation": True}  # on for a casual game


def test_a_confirmation_link_pressed_twice_at_once_makes_one_game(store, app):
    """Two presses of the same link racing: one game; the other press answers 409. And the
    database's unique ref holds even when both get past the first look: a second making
    raises IntegrityError and writes nothing."""
    import threading

    from sqlalchemy.exc import IntegrityError

    from pbem.engine import preset as preset_
    from pbem.web.newgame import _create_invited

    first = app.test_client()
    form = {"csrf": csrf(first), "you": "a@x.test", "preset": "standard",
            "seat0": "a@x.test", "seat1": "b@x.test", "seat2": "robot", "seat3": "robot"}
    assert first.post("/new", data=form).status_code == 303
    (link,) = confirmation_links(store, "a@x.test")
    clients = [app.test_client() for _ in range(4)]
    start, results = threading.Barrier(len(clients)), []

    def press(c, token):  # each a browser of its own, with its own form
        start.wait()
        results.append(c.post(link, data={"csrf": token}).status_code)

    threads = [threading.Thread(target=press, args=(c, csrf(c))) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(results) == [303, 409, 409, 409]
    with store.session() as s:
        (game,) = s.exec(select(Game)).all()
        ref = s.exec(select(Confirmation.ref).where(Confirmation.game_id == game.id)).one()
    before = counts(store)
    with app.app_context(), pytest.raises(IntegrityError):
        _create_invited(preset_("standard"), ["a@x.test", "b@x.test", "robot", "robot"],
                        "a@x.test", True, {}, ref=ref)
    assert counts(store) == before
    with store.session() as s:
        assert len(s.exec(select(Game)).all()) == 1 and len(s.exec(select(Seat)).all()) == 4
