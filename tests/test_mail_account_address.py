"""Every command proves who sends it (issue 29), through the running SMTP handler and the
web app, on SQLite and PostgreSQL. A player's commands act at their secret account address
`pbem+KEY@` (or a seat's address); an organiser's at the league's `organiser+KEY@`; plain
`pbem@` acts on nothing: a forged From there changes nothing and mails only the real owner,
once an hour, who may do what the mail asked with one click."""

import re
from datetime import timedelta
from email.utils import make_msgid

import pytest
import time_machine
from league_helpers import ORGANISER, fixtures, league, state
from mail_helpers import ANN, account, game, organiser_address, prefs, running, text
from sqlmodel import select
from web_helpers import BASE, csrf, database, sign_in

from pbem.config import load
from pbem.league.manage import OPERATOR
from pbem.organise.seasons import start_season
from pbem.store.models import League, Outbox, Player
from pbem.store.models import now as utcnow
from pbem.web.app import create_app

BOB = "p1@league.test"  # a player of the league
FORGED = ["vacation 3", "mail off", "zone Europe/Paris", "cap 5", "merge 30"]
MTA = "mx.pbem.test"
LINK = re.compile(re.escape(BASE) + r"(/a/\S+)")


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_BASE_URL", BASE)
    with running(store, monkeypatch, tmp_path) as e:
        e.lid = league(store, players=8)
        start_season(store, e.lid, OPERATOR)
        e.replies()
        yield e


def _still(store) -> dict:
    """Every row but the outbox, the record of mails taken and the count of mails sent
    for the hourly limits."""
    return {k: v for k, v in database(store).items()
            if k not in ("outbox", "inbound", "webmail")}


def _plain(env) -> str:
    return f"pbem@{env.domain}"


def test_a_forged_from_at_plain_pbem_changes_nothing_and_mails_only_the_owner_once(env):
    before, rows = _still(env.store), database(env.store)["outbox"]
    assert env.send(env.mail(_plain(env), "\n".join(FORGED), frm=BOB))[0] == 250
    assert _still(env.store) == before  # bob's settings, and everything else, as they were
    [mail] = env.replies()  # one mail, to bob's own address: the forger learns nothing
    assert mail["To"] == BOB and len(database(env.store)["outbox"]) == len(rows) + 1
    body = text(mail)
    assert account(env, BOB) in body and LINK.search(body)
    assert all(f"  {line}" in body for line in FORGED)
    # a second forgery within the hour: nothing at all, not even a mail to bob
    assert env.send(env.mail(_plain(env), "vacation 5\nhelp", frm=BOB))[0] == 250
    assert env.replies() == [] and _still(env.store) == before


def test_the_owner_is_answered_again_after_an_hour(env):
    with time_machine.travel(utcnow(), tick=False) as t:
        for _ in range(3):
            assert env.send(env.mail(_plain(env), "vacation 3", frm=BOB, mid=make_msgid()))[
                0] == 250
            t.shift(timedelta(minutes=31))
        answers = [m for m in env.replies() if LINK.search(text(m))]  # (a league's turn
        assert len(answers) == 2  # mail waits 15 minutes) at 0 and 62 minutes, not at 31


def test_a_forgery_its_domain_disowns_is_answered_once_an_hour_too(store, monkeypatch,
                                                                   tmp_path):
    monkeypatch.setenv("PBEM_AUTHSERV_ID", MTA)
    with running(store, monkeypatch, tmp_path) as env:
        game(store)
        env.replies()
        before = _still(store)
        for _ in range(3):
            assert env.send(env.mail(_plain(env), "mail off", mid=make_msgid(),
                                     Authentication_Results=(
                f"{MTA}; dmarc=fail (p=none) header.from=example.org")))[0] == 250
        [mail] = env.replies()
        assert mail["To"] == ANN and _still(store) == before


def test_words_that_are_no_account_command_are_not_carried_to_the_owner(env):
    bait = "Your account is suspended: http://evil.example/login"
    assert env.send(env.mail(_plain(env), f"vacation 3\n{bait}", frm=BOB,
                             subject=bait))[0] == 250
    [mail] = env.replies()
    assert "evil.example" not in text(mail) and "evil.example" not in mail["Subject"]


@pytest.mark.parametrize("body", [
    "robot {lid} {game}", "robot {lid} {game} 1", "pause {lid}", "resume {lid}",
    "message {lid}: Your account is suspended, sign in at http://evil.example/login",
    "more {lid} {game} 48", "remind {lid} {game}", "rule {lid} {game} win 1: forged"])
def test_forged_organiser_commands_change_nothing_and_mail_no_player(env, body):
    game_id = fixtures(env.store, env.lid)[0].game_id
    before = _still(env.store)
    mail = env.mail(_plain(env), body.format(lid=env.lid, game=game_id), frm=ORGANISER)
    assert env.send(mail)[0] == 250
    assert _still(env.store) == before
    [answer] = env.replies()  # the organiser only, at their own address
    assert answer["To"] == ORGANISER
    assert organiser_address(env, env.lid) in text(answer)  # pointed to the right address
    assert "evil.example" not in text(answer)


def test_a_player_cannot_use_the_organiser_address(env):
    """A From that is not the organiser's, at the organiser address (a leaked key): nothing
    done; the organiser hears of it, the sender hears nothing."""
    game_id = fixtures(env.store, env.lid)[0].game_id
    before, st = _still(env.store), state(env.store, game_id)
    assert env.send(env.mail(organiser_address(env, env.lid), f"robot {env.lid} {game_id}",
                             frm=BOB))[0] == 250
    assert _still(env.store) == before and state(env.store, game_id).seq == st.seq
    [warning] = env.replies()
    assert warning["To"] == ORGANISER and "was ignored" in text(warning)


def test_the_organiser_address_takes_its_own_league_only(env):
    other = league(env.store, players=4)
    start_season(env.store, other, OPERATOR)
    env.replies()
    before = _still(env.store)
    assert env.send(env.mail(organiser_address(env, env.lid), f"pause {other}",
                             frm=ORGANISER))[0] == 250
    [answer] = env.replies()
    assert f"this is the organiser address of league {env.lid}, not of league {other}" \
        in " ".join(text(answer).split())
    assert _still(env.store) == before
    assert env.send(env.mail(organiser_address(env, env.lid), f"pause {env.lid}",
                             frm=ORGANISER))[0] == 250
    assert any(f"pause: season 1 of league {env.lid} paused" in text(m)
               for m in env.replies() if m["To"] == ORGANISER)


def test_the_owners_command_at_their_account_address_works_at_once(env):
    assert env.send(env.mail(account(env, BOB), "vacation 3\nmail off", frm=BOB))[0] == 250
    got = prefs(env.store, BOB)
    assert got["mail"] == "off" and "vacation_until" in got


def test_at_a_seat_address_the_account_commands_work_too(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as env:
        gid = game(store)
        env.replies()
        assert env.send(env.mail(env.address(gid), "zone Europe/Paris\nstatus"))[0] == 250
        assert prefs(store, ANN)["zone"] == "Europe/Paris"
        [reply] = env.replies()
        assert reply["To"] == ANN


def test_a_command_at_plain_pbem_works_after_one_click_and_only_once(env):
    assert env.send(env.mail(_plain(env), "vacation 3\nzone Europe/Paris", frm=BOB))[0] == 250
    [mail] = env.replies()
    path = LINK.search(text(mail))[1]
    client = create_app(load(), env.store, testing=True).test_client()
    before = database(env.store)
    page = client.get(path)  # a mail scanner's fetch, or the owner's look
    assert page.status_code == 200 and "vacation 3" in page.text
    assert page.headers["Cache-Control"] == "no-store"
    assert database(env.store) == before
    r = client.post(path, data={"csrf": csrf(client)})
    assert r.status_code == 303 and r.headers["Location"] == path  # told once, there
    r = client.get(path)
    assert r.status_code == 200 and "Done: vacation: until" in r.text
    got = prefs(env.store, BOB)
    assert got["zone"] == "Europe/Paris" and "vacation_until" in got
    after = database(env.store)
    r = client.post(path, data={"csrf": csrf(client)})  # the same link again
    assert r.status_code == 409 and database(env.store) == after


@pytest.mark.parametrize("bad", ["x" * 40, "not.a.link"])
def test_a_forged_link_does_nothing(env, bad):
    client = create_app(load(), env.store, testing=True).test_client()
    before = database(env.store)
    assert client.get(f"/a/{bad}").status_code in (400, 404)
    assert client.post(f"/a/{bad}", data={"csrf": csrf(client)}).status_code in (400, 404)
    assert database(env.store) == before


def test_an_unknown_key_is_refused_at_rcpt(env):
    for to in (f"pbem+aaaaaaaaaaaaaaaa@{env.domain}",
               f"organiser+aaaaaaaaaaaaaaaa@{env.domain}"):
        code, _ = env.send(env.mail(to, "vacation 3", frm=BOB))
        assert code == 550


def test_a_known_players_join_at_plain_pbem_only_mails_the_confirmation(env):
    open_league = league(env.store, players=0)
    env.replies()
    before = _still(env.store)
    assert env.send(env.mail(_plain(env), f"join {open_league}", frm=BOB))[0] == 250
    [mail] = env.replies()
    assert mail["To"] == BOB and mail["Subject"] == "Confirm your entry: Test League"
    assert _still(env.store) == before  # nothing until the address's owner says yes


def test_every_mail_to_a_player_names_their_addresses_and_no_one_elses(env):
    """The footer: the account address on every mail to a player, the organiser address on
    an organiser's; a mail to a stranger carries none."""
    assert env.send(env.mail(account(env, BOB), "games", frm=BOB))[0] == 250
    assert env.send(env.mail(organiser_address(env, env.lid), "help",
                             frm=ORGANISER))[0] == 250
    open_league = league(env.store, players=0)
    assert env.send(env.mail(_plain(env), f"join {open_league}", frm="new@x.test"))[0] == 250
    mails = {str(m["To"]): m for m in env.replies()}
    assert account(env, BOB) in text(mails[BOB])
    assert account(env, ORGANISER) in text(mails[ORGANISER])
    assert organiser_address(env, env.lid) in text(mails[ORGANISER])
    assert organiser_address(env, env.lid) not in text(mails[BOB])
    assert "pbem+" not in text(mails["new@x.test"])
    with env.store.session() as s:  # the rows as written: the footer is added on the way
        assert all("pbem+" not in r.body_text for r in s.exec(select(Outbox)).all())


def test_the_home_and_organiser_pages_show_the_addresses(env):
    client = create_app(load(), env.store, testing=True).test_client()
    sign_in(client, env.store, BOB)
    assert account(env, BOB) in client.get("/home").text
    with env.store.session() as s:
        token = s.get(League, env.lid).admin_token
        assert s.exec(select(Player).where(Player.email == BOB)).one().account_key
    assert organiser_address(env, env.lid) in client.get(f"/o/{token}").text


def test_a_leaked_address_is_replaced_by_its_owner_and_the_old_one_refused(env):
    """The home page's and the organiser page's button: a new key at once, the old address
    refused at RCPT (550) like any unknown one, the new one obeyed."""
    client = create_app(load(), env.store, testing=True).test_client()
    sign_in(client, env.store, BOB)
    old, old_org = account(env, BOB), organiser_address(env, env.lid)
    r = client.post("/home/address", data={"csrf": csrf(client)})
    new = account(env, BOB)
    assert r.status_code == 303 and new != old and new in client.get("/home").text
    assert env.send(env.mail(old, "cap 5", frm=BOB))[0] == 550
    assert env.send(env.mail(new, "cap 5", frm=BOB))[0] == 250
    assert prefs(env.store, BOB)["cap"] == 5
    new_org = _new_organiser_address(env)
    assert env.send(env.mail(old_org, f"remind {env.lid} 1", frm=ORGANISER))[0] == 550
    assert env.send(env.mail(new_org, f"remind {env.lid} 1", frm=ORGANISER))[0] == 250


def _new_organiser_address(env) -> str:
    """The organiser page's button, as the organiser presses it (CSRF refused first)."""
    with env.store.session() as s:
        token = s.get(League, env.lid).admin_token
    organiser = create_app(load(), env.store, testing=True).test_client()
    old, before = organiser_address(env, env.lid), database(env.store)
    r = organiser.post(f"/o/{token}/address", data={"csrf": "forged"})
    assert r.status_code == 400 and database(env.store) == before  # CSRF: nothing changed
    r = organiser.post(f"/o/{token}/address", data={"csrf": csrf(organiser)})
    new = organiser_address(env, env.lid)
    assert r.status_code == 303 and new != old and new in organiser.get(f"/o/{token}").text
    return new


def test_only_a_signed_in_player_gets_a_new_account_address(env):
    client = create_app(load(), env.store, testing=True).test_client()
    before = database(env.store)
    r = client.post("/home/address", data={"csrf": csrf(client)})
    assert r.status_code == 303 and r.location.endswith("/signin")
    assert database(env.store) == before
