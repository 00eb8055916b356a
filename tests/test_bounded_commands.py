"""Issue 29, items 6 and 7: every mail a command makes is bounded, and the small holes. Each
attack as the issue tells it, on each backend: forged joins flooding a stranger, resign and
resign off over and over, an organiser entered in their own league, NUL bytes in a mail,
digits Python cannot convert in a form or a mail line, a redirect without no-store. Where
refused, the database (and the mail sent) is checked unchanged."""

import itertools
import re

import pytest
from click.testing import CliRunner
from mail_helpers import running, text
from sqlalchemy import func
from sqlmodel import select
from web_helpers import csrf, database, game_state, humans_game, sign_in, tokens

from pbem.cli import main
from pbem.engine import preset
from pbem.league.manage import LeagueSpec, create_league, join
from pbem.mail.commands.base import Context
from pbem.mail.commands.registry import ACCOUNT_COMMANDS, LEAGUE_COMMANDS, ORGANISER_COMMANDS
from pbem.mail.commands.runner import run
from pbem.organise import care
from pbem.play import TALK_PER_HOUR
from pbem.store.mail_limits import PER_ADDRESS
from pbem.store.models import League, Outbox, Player
from tests.league_helpers import ORGANISER, TODAY, league

ACCOUNT = ACCOUNT_COMMANDS + LEAGUE_COMMANDS + ORGANISER_COMMANDS

_IDS = itertools.count()
ODD_DIGITS = ["²", "٣", "1²", "¹²", "３"]  # str.isdigit() says yes to each; int("²") fails


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def _mail(env, to, body, frm):
    msg = env.mail(to, body, frm=frm, mid=f"<bounded{next(_IDS)}@x.test>")
    return env.send(msg)[0]


def _unchanged(store) -> dict:
    """Every row but the mails' own Inbound records (each mail read leaves one)."""
    return {k: v for k, v in database(store).items() if k != "inbound"}


def _mails_to(store, address: str) -> int:
    with store.session() as s:
        return s.exec(select(func.count(Outbox.id)).where(Outbox.to_addr == address)).one()


# -- joins by mail: the web's hourly limits ----------------------------------------------


def test_forged_joins_mail_a_stranger_at_most_five_times_an_hour(env):
    lid = league(env.store, players=0, entry="pair")
    victim, account = "victim@example.net", f"pbem@{env.domain}"
    for i in range(PER_ADDRESS):
        assert _mail(env, account, f"join {lid} with mate{i}@x.test", victim) == 250
    before = _unchanged(env.store)
    for i in range(PER_ADDRESS, 25):  # each a new partner: the once-a-day rule let all by
        assert _mail(env, account, f"join {lid} with mate{i}@x.test", victim) == 250
    assert _unchanged(env.store) == before
    mails = env.replies()
    to_victim = [m for m in mails if m["To"] == victim]
    assert len(to_victim) == PER_ADDRESS
    assert all(m["Subject"] == "Confirm your entry: Test League" for m in to_victim)


def test_one_partner_named_by_many_senders_is_named_at_most_five_times_an_hour(env):
    lid = league(env.store, players=0, entry="pair")
    env.replies()  # the organiser's
    for i in range(PER_ADDRESS + 3):  # eight forged senders, one invited address
        assert _mail(env, f"pbem@{env.domain}", f"join {lid} with victim@example.net",
                     f"s{i}@x.test") == 250
    asked = [m["To"] for m in env.replies()]
    assert sorted(asked) == sorted(f"s{i}@x.test" for i in range(PER_ADDRESS))


def test_a_join_over_the_limit_is_told_why_and_mails_nothing(store, monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))
    lid = league(store, players=0)
    for _ in range(PER_ADDRESS):
        assert run(Context(store, None, sender="new@x.test"), [f"join {lid}"], ACCOUNT) is None
    before = database(store)
    line, why = run(Context(store, None, sender="new@x.test"), [f"join {lid}"], ACCOUNT)
    assert "sent as much mail as we may for now" in why and "Nothing was sent" in why
    assert database(store) == before


# -- resign and resign off: as often as talk -----------------------------------------------


def test_resign_offers_and_withdrawals_are_limited_as_talk(env):
    gid = humans_game(env.store, preset("standard"))
    seat0 = env.address(gid, 0)
    env.replies()
    for i in range(TALK_PER_HOUR):
        assert _mail(env, seat0, "resign off" if i % 2 else "resign", "p0@x.test") == 250
    env.replies()
    with env.store.session() as s:
        offers = s.exec(select(func.count(Outbox.id)).where(
            Outbox.dedupe_key.like(f"concede:{gid}:%"))).one()
    assert offers == 3 * TALK_PER_HOUR  # each to the three other players
    before = _unchanged(env.store)
    assert _mail(env, seat0, "resign", "p0@x.test") == 250
    [answer] = env.replies()
    assert answer["To"] == "p0@x.test" and f"at most {TALK_PER_HOUR} an hour" in text(answer)
    assert _unchanged(env.store) == {**before, "outbox": _unchanged(env.store)["outbox"]}
    assert _mails_to(env.store, "p1@x.test") == 1 + TALK_PER_HOUR  # its turn mail, offers

    # agreeing to the partner's offer is never held back: the side gives the game up
    assert _mail(env, env.address(gid, 2), "resign", "p2@x.test") == 250
    assert _mail(env, seat0, "resign", "p0@x.test") == 250
    assert game_state(env.store, gid).phase == "over"


# -- the organiser entered in their own league ----------------------------------------------


def _organisers_league(store) -> int:
    lid = league(store, players=3)
    join(store, lid, ORGANISER)
    return lid


def test_an_organiser_entered_in_their_own_league_sends_a_message(store, monkeypatch,
                                                                  tmp_path):
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))
    lid = _organisers_league(store)
    with store.session() as s:
        boss = s.exec(select(Player).where(Player.email == ORGANISER)).one()
    assert care.message(store, lid, boss.id, "Hi", "Round two is out.") == 4
    with store.session() as s:
        rows = s.exec(select(Outbox).where(Outbox.dedupe_key.like(f"message:{lid}:%"))).all()
    assert sorted(r.to_addr for r in rows) == sorted(
        [ORGANISER] + [f"p{i}@league.test" for i in range(3)])  # one mail each


def test_an_organiser_entered_in_their_own_league_messages_from_the_command_line(
        store, db_url, tmp_path):
    lid = _organisers_league(store)
    result = CliRunner().invoke(main, ["league", "message", str(lid), "--subject", "Hi",
                                       "--text", "Hello"],
                                env={"DATABASE_URL": db_url, "PBEM_VAR_DIR": str(tmp_path)})
    assert result.exit_code == 0, result.output + repr(result.exception)
    assert result.output == "mailed 4 player(s)\n"
    with store.session() as s:
        to = s.exec(select(Outbox.to_addr).where(Outbox.dedupe_key.like(f"message:{lid}:%")))
        assert sorted(to) == sorted([ORGANISER] + [f"p{i}@league.test" for i in range(3)])


# -- NUL bytes in a mail ---------------------------------------------------------------------


def _raw(to: str, frm: str, subject: bytes, body: bytes, cte: bytes = b"7bit") -> bytes:
    return (b"From: " + frm.encode() + b"\r\nTo: " + to.encode() + b"\r\nSubject: " + subject
            + f"\r\nMessage-ID: <nul{next(_IDS)}@x.test>\r\n".encode()
            + b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: " + cte
            + b"\r\n\r\n" + body + b"\r\n")


@pytest.mark.parametrize("subject,body,cte", [
    (b"Re: move", b"bid 3\r\n\x00", b"7bit"),  # a NUL after the command
    (b"Re: move", b"bid\x00 3\r\nstatus", b"7bit"),  # inside it
    (b"bid \x003", b"", b"7bit"),  # in the subject, the command when the body has none
    (b"Re: move", b"YmlkIDMKAA==", b"base64"),  # "bid 3\n\0", encoded
    (b"=?utf-8?q?bid_3=00?=", b"", b"7bit"),  # in the subject's encoded word
], ids=["after", "inside", "subject", "base64", "encoded-subject"])
def test_a_nul_in_a_mail_is_dropped_before_anything_is_applied(env, subject, body, cte):
    gid = humans_game(env.store, preset("standard"))  # seat 1 bids first
    env.replies()
    raw = _raw(env.address(gid, 1), "p1@x.test", subject, body, cte)
    assert env.send(raw, mail_from="p1@x.test", rcpt=env.address(gid, 1))[0] == 250
    st = game_state(env.store, gid)
    assert st.bids[1] == 3
    answer = next(m for m in env.replies() if m["To"] == "p1@x.test")
    assert "Not done" not in text(answer) and "\x00" not in answer.as_string()


def test_the_forms_refuse_a_nul(client, store):
    gid = humans_game(store, preset("standard"))
    token = tokens(store, gid)[0]
    lid = league(store, players=0)
    with store.session() as s:
        join_token = s.get(League, lid).join_token
    before = database(store)
    for path, form in [(f"/t/{token}/say", {"text": "hi\x00there"}),
                       (f"/j/{join_token}", {"email": "new@x.test", "name": "A\x00B"})]:
        r = client.post(path, data={"csrf": csrf(client), **form})
        assert r.status_code == 400 and "control characters" in r.text
    assert database(store) == before


# -- ASCII digits only -----------------------------------------------------------------------


def _number_forms(store, client) -> list[tuple[str, dict, str]]:
    """(path, form, the field with a number) for every form of a route that reads one."""
    gid = humans_game(store, preset("standard"))
    t = tokens(store, gid)
    lg = create_league(store, LeagueSpec(ORGANISER, "Odd Digits", preset("standard"), TODAY,
                                         TODAY))
    o = f"/o/{lg.admin_token}"
    forms = [
        (f"/t/{t[1]}/move", {"type": "bid", "bid": "3"}, "seq"),
        (f"/t/{t[1]}/move", {"type": "bid", "seq": "1"}, "bid"),
        (f"/t/{t[1]}/undo", {}, "seq"),
        (f"/t/{t[0]}/invite", {}, "seat"),
        (f"/t/{t[0]}/vacation", {}, "days"),
        ("/home/vacation", {}, "days"),
        (f"{o}/rule", {"result": "win", "reason": "x", "side": "1"}, "game"),
        (f"{o}/rule", {"result": "win", "reason": "x", "game": "1"}, "side"),
        (f"{o}/rule", {"result": "adjust", "reason": "x", "game": "1"}, "points"),
        (f"{o}/rule", {"result": "undo", "reason": "x", "game": "1"}, "move"),
        (f"{o}/more", {"game": "1"}, "hours"),
        (f"{o}/more", {"hours": "2"}, "game"),
        (f"{o}/robot", {}, "game"),
        (f"{o}/remind", {}, "game"),
        (f"{o}/pause", {}, "season"),
        (f"{o}/message", {"subject": "s", "text": "t"}, "season"),
        (f"{o}/withdraw", {}, "entry"),
        (f"{o}/substitute", {"seat": "1", "who": "x@x.test"}, "game"),
        (f"{o}/substitute", {"game": "1", "who": "x@x.test"}, "seat"),
    ]
    sign_in(client, store, "p0@x.test")  # for /home's form
    return forms


def test_digits_python_cannot_convert_are_refused_in_every_form_never_500(client, store):
    forms = _number_forms(store, client)
    before = database(store)
    for path, form, field in forms:
        for digits in ODD_DIGITS:
            r = client.post(path, data={"csrf": csrf(client), **form, field: digits})
            assert r.status_code in (303, 400), (path, field, digits, r.status_code)
    assert database(store) == before


def test_digits_python_cannot_convert_are_refused_in_every_mail_command(store, monkeypatch,
                                                                       tmp_path):
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))
    lid = league(store, players=4)
    with store.session() as s:
        boss = s.exec(select(Player).where(Player.email == ORGANISER)).one()
        s.expunge(boss)
    before = database(store)
    for digits in ODD_DIGITS:
        for line in (f"vacation {digits}", f"vacation {digits} days", f"join {digits}",
                     f"leave {digits}", f"more {lid} {digits} 2", f"robot {lid} {digits}",
                     f"remind {digits} 1", f"rule {lid} {digits} replay: x",
                     f"message {lid} season {digits}: Hi"):
            said = run(Context(store, boss, sender=ORGANISER), [line], ACCOUNT)
            assert said is not None and said[0] == line, line
            assert not re.search(r"invalid literal|Traceback", said[1]), said
    assert database(store) == before


# -- no-store on every redirect --------------------------------------------------------------


def test_every_redirect_is_no_store(client, store):
    r = client.get("/home")
    assert r.status_code == 302 and r.headers["Location"].endswith("/signin")
    assert r.headers["Cache-Control"] == "no-store"
    r = client.post("/signout", data={"csrf": csrf(client)})  # a POST's 303 to its page
    assert 300 <= r.status_code < 400 and r.headers["Cache-Control"] == "no-store"
