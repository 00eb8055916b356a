"""Issue 32, seen by a new player: one answer a mail, in plain words. Each test goes the real
way: a mail over SMTP to the handler, the outbox drained to a Maildir, Flask's client for
the links. Without the change each tests, it fails: two mails for a mail of two lines, a
move number in the preview, "undo: undo:", a card played for the player unmentioned, a red
"no longer works" on a used link, bids offered on a hand unseen, the address as a name."""

import re

import pytest
from mail_helpers import ANN, account, crafted, headline, running, state, text
from sqlmodel import select

from pbem.config import load
from pbem.engine import Rules, pretty
from pbem.play import submit
from pbem.store.models import Outbox, Player, Seat
from pbem.store.names import MAX_NAME, clean
from pbem.web.app import create_app
from tests.test_one_mail import HANDS, PLAYERS, ann_to_win_the_trick, links, to_ann
from tests.web_helpers import csrf


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def bids_in(env) -> int:
    """Ann (seat 3) to play last to the first trick: every seat has bid."""
    gid, _ = crafted(env.store, HANDS, seats=PLAYERS)
    for seat, bid in ((0, 1), (1, 2), (2, 4), (3, 5)):
        submit(env.store, gid, seat, {"type": "bid", "bid": bid})
    env.replies()
    return gid


def test_a_mail_of_two_lines_gets_one_answer_that_is_the_turn_mail_too(env):
    gid = ann_to_win_the_trick(env)  # her AH wins the trick: she leads next
    mails = to_ann(env, gid, "AH\nzone Europe/Paris")
    assert len(mails) == 1, [headline(m) for m in mails]  # not a turn mail besides
    [mail] = mails
    body = text(mail)
    assert "AH: done" in body and "zone: Europe/Paris" in body  # every line's outcome
    seq = state(env.store, gid).seq
    assert str(mail["Message-ID"]).startswith(f"<turn.{gid}.3.{seq}.")  # the contract's
    assert "Your move is due by" in body and "play KH" in body
    with env.store.reader() as s:
        assert s.exec(select(Outbox).where(Outbox.dedupe_key == f"turn:{gid}:3:{seq}")
                      ).first() is None
    [answer] = to_ann(env, gid, "KH", reply_to=mail)  # a reply to it is a turn mail's
    assert "not done" not in headline(answer), text(answer)
    assert state(env.store, gid).trick == [(3, "KH")]


def test_a_failing_second_line_still_gets_one_answer_with_both_outcomes(env):
    gid = ann_to_win_the_trick(env)
    [mail] = to_ann(env, gid, "AH\nplay 7C")  # she holds no 7♣
    body = text(mail)
    assert "AH: done" in body and "Not done: your line" in body and "play 7C" in body
    assert headline(mail) == (f"Game {gid}: you played {pretty('AH')}; not done: play 7C; "
                              "your turn to lead")


def test_previews_say_what_happened_in_words_and_no_move_number(env):
    gid = bids_in(env)
    for seat, card in ((0, "2H"), (1, "7H"), (2, "TH")):
        submit(env.store, gid, seat, {"type": "play", "card": card})
    [turn] = [m for m in env.replies() if str(m["To"]) == ANN]
    assert headline(turn) == f"Game {gid}: p2 played {pretty('TH')}; your turn to play"
    [answer] = to_ann(env, gid, "AH")
    assert headline(answer) == f"Game {gid}: you played {pretty('AH')}; your turn to lead"
    for mail in (turn, answer):
        assert not re.search(r"\bmove \d", f"{mail['Subject']} {headline(mail)}")
        assert re.fullmatch(rf"<turn\.{gid}\.3\.\d+\.[0-9a-f]+@{re.escape(env.domain)}>",
                            str(mail["Message-ID"]))  # the number stays where it belongs


def test_help_names_each_command_once(env):
    gid = ann_to_win_the_trick(env)
    [mail] = to_ann(env, gid, "help")
    listed = text(mail).split("You can write", 1)[1]
    assert "  undo: take back" in listed and "resign: give the game up" in listed
    assert not re.search(r"\b(\w+): \1:", listed), listed  # never "undo: undo:"
    assert "<move>" not in listed


def test_a_card_played_by_the_players_order_is_named_in_the_next_mail(env):
    gid = bids_in(env)
    [kept] = to_ann(env, gid, "if hearts are led play AH")
    assert "not done" not in headline(kept), text(kept)
    for seat, card in ((0, "2H"), (1, "7H"), (2, "TH")):
        submit(env.store, gid, seat, {"type": "play", "card": card})
    assert state(env.store, gid).tricks[-1][0][-1] == (3, "AH")  # her order played it
    [turn] = [m for m in env.replies() if str(m["To"]) == ANN]
    assert f"Played for you: {pretty('AH')} (your order)." in text(turn)
    assert f"Played for you: {pretty('AH')} (your order)." in \
        turn.get_body(("html",)).get_content()
    assert headline(turn) == f"Game {gid}: p2 played {pretty('TH')}; your turn to lead"


def test_a_used_link_says_already_played_with_the_way_to_the_table(env):
    gid = ann_to_win_the_trick(env)
    [mail] = to_ann(env, gid, "AH")
    path = links(mail)["play KH"]
    client = create_app(load(), env.store, testing=True).test_client()
    assert client.post(path, data={"csrf": csrf(client)}).status_code == 303
    for r in (client.get(path), client.post(path, data={"csrf": csrf(client)})):
        if r.status_code == 303:
            r = client.get(r.headers["Location"])
        assert r.status_code == 200
        assert "already played" in r.text.lower(), r.text[-600:]
        assert "no longer works" not in r.text and 'class="error"' not in r.text
        assert "/t/" in r.text  # the way to the table
    assert state(env.store, gid).trick == [(3, "KH")]  # once


def test_a_link_to_a_move_the_player_then_made_by_mail_says_already_played(env):
    gid = ann_to_win_the_trick(env)
    [mail] = to_ann(env, gid, "AH")
    path = links(mail)["play KH"]
    to_ann(env, gid, "KH", reply_to=mail)
    client = create_app(load(), env.store, testing=True).test_client()
    r = client.get(path)
    assert r.status_code == 200 and "already played" in r.text.lower()
    assert 'class="error"' not in r.text


def test_a_seat_that_may_bid_blind_nil_is_offered_no_bid_on_cards_unseen(env, store):
    rules = Rules(preset="standard", blind_nil_behind=0)  # blind nil open: nobody has looked
    gid, _ = crafted(store, HANDS, seats=[ANN, *PLAYERS[:3]], rules=rules)
    [turn] = to_ann(env, gid, "status", seat=0)  # her table and moves, as a turn mail's
    body, html = text(turn), turn.get_body(("html",)).get_content()
    assert "Your hand:" not in body  # hidden until she looks
    assert "bid blind nil" in body and re.search(r"^\s+look\b", body, re.M)
    assert not re.search(r"reply: bid \d|^\s+bid \d+$|^\s+bid nil$", body, re.M), body
    assert not re.search(r">bid \d+<", html)
    client = create_app(load(), env.store, testing=True).test_client()
    with store.reader() as s:
        token = s.exec(select(Seat.token).where(Seat.game_id == gid, Seat.seat == 0)).one()
    page = client.get(f"/t/{token}").text
    assert "Bid blind nil" in page and not re.search(r">Bid \d+<", page)
    [answer] = to_ann(env, gid, "bid 4", seat=0)  # written by hand, the rules take it
    assert state(env.store, gid).bids[0] == 4, text(answer)


def test_a_name_set_by_mail_shows_at_the_table_instead_of_the_address(env):
    gid = bids_in(env)
    msg = env.mail(account(env), "name Ann Smith", mid="<name1@x.test>")
    assert env.send(msg)[0] == 250
    [answer] = [m for m in env.replies() if str(m["To"]) == ANN]
    assert "name: you are shown as Ann Smith" in text(answer)
    submit(env.store, gid, 0, {"type": "play", "card": "2H"})
    submit(env.store, gid, 1, {"type": "play", "card": "7H"})
    submit(env.store, gid, 2, {"type": "play", "card": "TH"})
    env.replies()
    [mail] = to_ann(env, gid, "AH")
    assert "Ann Smith" in text(mail) and "Ann Smith A♥" in text(mail).replace(
        "(won by Ann Smith)", "")  # the last trick names her
    assert not re.search(r"\bann\b", text(mail).split("-- ")[0])


def test_a_name_set_at_the_seat_shows_in_that_mails_answer(env):
    gid = bids_in(env)
    [answer] = to_ann(env, gid, "name Ann Smith\nstatus")
    assert "name: you are shown as Ann Smith" in text(answer)
    assert re.search(r"^  Ann Smith +bid 5", text(answer), re.M), text(answer)


@pytest.mark.parametrize("bad", ["robot 2", "Robot", "ann@example.org", "see http://x.test",
                                 "www.spam.example", "buy.com", "x" * (MAX_NAME + 1), "You",
                                 "ｒｏｂｏｔ", "--"])
def test_a_name_we_do_not_show_is_refused_by_mail_and_changes_nothing(env, bad):
    bids_in(env)  # (ann is a player)
    msg = env.mail(account(env), f"name {bad}", mid="<bad@x.test>")
    before = _name(env)
    assert env.send(msg)[0] == 250
    [answer] = [m for m in env.replies() if str(m["To"]) == ANN]
    assert "Not done" in text(answer), text(answer)
    assert _name(env) == before == "ann"


def test_a_name_is_cleaned_of_controls_and_spaces():
    assert clean("  Ann\u200b  \tSmith\x07 ") == "Ann Smith"
    assert clean("Ａｎｎ") == "Ann"  # full-width letters read as letters
    with pytest.raises(ValueError):  # by mail the reader drops it first: "name" shows the name
        clean("\u202e")
    assert clean("Anne-Marie O'Neil") == "Anne-Marie O'Neil"


def _name(env) -> str:
    with env.store.reader() as s:
        return s.exec(select(Player.name).where(Player.email == ANN)).one()
