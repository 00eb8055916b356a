"""Bounces (issue 13): each mail's envelope sender is its own signed bounce address; DSNs and
plain bounces sent there over SMTP mark the address, three hard ones stop its mail, and mail
from the address clears the stop. Forged bounces, and out-of-office replies, change nothing.
Real SMTP to the running handler, a real database (SQLite, and PostgreSQL when
PBEM_TEST_DATABASE_URL is set)."""

import re

import pytest
from aiosmtpd.controller import Controller
from league_helpers import ORGANISER, league
from mail_helpers import ANN, free_port, game, prefs, running, snapshot
from mail_helpers import account as account_address
from sqlmodel import select

from pbem.league.manage import OPERATOR
from pbem.mail.bounce import classify
from pbem.organise import seasons
from pbem.serve import smtp_delivery
from pbem.signing import secret_keys
from pbem.store import bounces
from pbem.store.games import mailable
from pbem.store.models import Outbox, Player
from pbem.store.outbox import drain


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def dsn(to: str, status: str = "5.1.1", action: str = "failed", mid: str = "") -> bytes:
    """A delivery status notification as Postfix writes one (RFC 3464)."""
    mid = mid or f"<dsn-{to.split('@')[0]}-{status}@mx.example.org>"
    return f"""\
From: MAILER-DAEMON@mx.example.org (Mail Delivery System)
To: {to}
Subject: Undelivered Mail Returned to Sender
Message-ID: {mid}
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B1"

--B1
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.org. I'm sorry to have to inform you
that your message could not be delivered to one or more recipients.

--B1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org
Arrival-Date: Mon, 23 Nov 2026 10:00:00 +0000

Final-Recipient: rfc822; {ANN}
Original-Recipient: rfc822;{ANN}
Action: {action}
Status: {status}
Diagnostic-Code: smtp; {status[0]}50 {status} mailbox unavailable

--B1
Content-Type: text/rfc822-headers

From: play@pbem.localhost
To: {ANN}
Subject: Game 1: your turn

--B1--
""".replace("\n", "\r\n").encode()


def plain_bounce(to: str, text: str, frm: str = "MAILER-DAEMON@mx.example.org") -> bytes:
    """A bounce as Exim and older MTAs write one: no report, a text that quotes the reply."""
    return f"""\
From: Mail Delivery System <{frm}>
To: {to}
Subject: Mail delivery failed: returning message to sender
Message-ID: <plain-{abs(hash(text))}@mx.example.org>
X-Failed-Recipients: {ANN}
Auto-Submitted: auto-replied

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  {ANN}
    {text}
""".replace("\n", "\r\n").encode()


def return_paths(env) -> list[str]:
    """The bounce address of each mail delivered to ann since the last look."""
    out = []
    for m in env.replies():
        if m["To"] == ANN:
            out.append(re.fullmatch(r"<(.+)>", m["Return-Path"]).group(1))
    return out


def turn_mails(env, n: int) -> list[str]:
    """n games where ann is to bid: the bounce address of each one's turn mail."""
    for _ in range(n):
        game(env.store, first_dealer=3)
    paths = return_paths(env)
    assert len(paths) == n, paths
    return paths


def state_of(store, email=ANN) -> dict:
    return prefs(store, email).get("bounces", {})


def player(store, email=ANN) -> Player:
    with store.session() as s:
        return s.exec(select(Player).where(Player.email == email)).one()


# ---- the proof ------------------------------------------------------------------------------

def test_dsns_for_a_seats_mail_over_smtp_mark_the_address_and_stop_its_mail(env):
    paths = turn_mails(env, 3)
    for path in paths:  # lowercase, and short enough for any MTA (local part <= 64)
        local, _, domain = path.partition("@")
        assert path == path.lower() and len(local) <= 64 and domain == env.domain
        assert local.startswith("bounce+")
    assert env.send(dsn(paths[0]), mail_from="", rcpt=paths[0])[0] == 250
    got = state_of(env.store)
    assert (got["hard"], got["status"], "stopped" in got) == (1, "5.1.1", False)
    assert mailable(player(env.store))
    for path in paths[1:]:
        assert env.send(dsn(path), mail_from="", rcpt=path)[0] == 250
    got = state_of(env.store)
    assert got["hard"] == 3 and got["stopped"]
    assert not mailable(player(env.store))
    # a new game's turn mail, where ann must bid, is not written at all
    with env.store.reader() as s:
        before = len(s.exec(select(Outbox.id)).all())
    gid = game(env.store, first_dealer=3)
    with env.store.session() as s:
        assert s.exec(select(Outbox).where(Outbox.to_addr == ANN,
                                           Outbox.game_id == gid)).all() == []
        assert len(s.exec(select(Outbox.id)).all()) == before
    assert return_paths(env) == []


def test_a_mail_from_the_address_clears_the_stop_and_its_mail_comes_again(env):
    paths = turn_mails(env, 3)
    for path in paths:
        env.send(dsn(path), mail_from="", rcpt=path)
    assert not mailable(player(env.store))
    gid = game(env.store, first_dealer=3)  # no turn mail: stopped
    assert return_paths(env) == []
    assert env.send(env.mail(env.address(gid), "status"))[0] == 250
    assert state_of(env.store) == {} and mailable(player(env.store))
    assert len(return_paths(env)) == 1  # the answer to "status"
    game(env.store, first_dealer=3)
    assert len(return_paths(env)) == 1  # turn mails again


def test_games_sent_to_the_account_address_clears_it_but_a_stranger_or_an_auto_reply_does_not(env):
    paths = turn_mails(env, 3)
    for path in paths:
        env.send(dsn(path), mail_from="", rcpt=path)
    account = account_address(env, ANN)
    # from a stranger's address, or auto-replied: it proves nothing of ann's mailbox
    env.send(env.mail(account, "games", frm="eve@example.net"))
    env.send(env.mail(account, "games", subject="Out of Office", Auto_Submitted="auto-replied"))
    assert state_of(env.store)["stopped"]
    assert env.send(env.mail(account, "games"))[0] == 250
    assert state_of(env.store) == {} and mailable(player(env.store))


# ---- what counts, and how much ---------------------------------------------------------------

def test_a_soft_failure_is_counted_but_never_stops_mail_and_a_delay_is_no_bounce(env):
    paths = turn_mails(env, 4)
    assert env.send(dsn(paths[0], "4.2.2"), mail_from="", rcpt=paths[0])[0] == 250
    assert env.send(dsn(paths[1], "4.4.1", action="delayed"), mail_from="",
                    rcpt=paths[1])[0] == 250
    assert env.send(dsn(paths[2], "2.0.0", action="delivered"), mail_from="",
                    rcpt=paths[2])[0] == 250
    got = state_of(env.store)
    assert (got.get("soft"), got.get("hard"), got.get("stopped")) == (1, None, None)
    assert mailable(player(env.store))


def test_the_same_mail_bounced_twice_counts_once(env):
    [path] = turn_mails(env, 1)
    env.send(dsn(path, mid="<one@mx.example.org>"), mail_from="", rcpt=path)
    env.send(dsn(path, mid="<one@mx.example.org>"), mail_from="", rcpt=path)  # redelivered
    env.send(dsn(path, "5.2.1", mid="<two@mx.example.org>"), mail_from="", rcpt=path)
    assert state_of(env.store)["hard"] == 1


def test_a_plain_bounce_from_mailer_daemon_with_a_5xx_is_hard(env):
    paths = turn_mails(env, 2)
    said = "SMTP error from remote mail server after RCPT TO:<ann@example.org>:\r\n" \
           "    550 5.1.1 <ann@example.org>: Recipient address rejected: User unknown"
    assert env.send(plain_bounce(paths[0], said), mail_from="", rcpt=paths[0])[0] == 250
    assert state_of(env.store)["hard"] == 1
    # a warning without a failure code is not counted
    env.send(plain_bounce(paths[1], "Delay reason: connection timed out, still trying"),
             mail_from="", rcpt=paths[1])
    assert state_of(env.store)["hard"] == 1 and "soft" not in state_of(env.store)


def test_an_out_of_office_reply_to_the_bounce_address_is_not_a_bounce(env):
    [path] = turn_mails(env, 1)
    before = snapshot(env.store, 1)
    away = env.mail(path, "I am away until Monday. 550 reasons to relax.\n", frm=ANN,
                    subject="Out of Office: Game 1: your turn", Auto_Submitted="auto-replied",
                    X_Autoreply="yes")
    assert env.send(away, mail_from="", rcpt=path)[0] == 250
    assert state_of(env.store) == {} and snapshot(env.store, 1) == before
    assert return_paths(env) == []  # and never answered


# ---- the attack -----------------------------------------------------------------------------

def test_forged_bounce_addresses_are_refused_at_rcpt_and_change_nothing(env):
    [path] = turn_mails(env, 1)
    local, _, domain = path.partition("@")
    row, mac = local[len("bounce+"):].split("-")
    flipped = mac[:-1] + ("a" if mac[-1] != "a" else "b")
    forged = [f"bounce+garbage@{domain}", f"bounce+{row}-{flipped}@{domain}",
              f"bounce+{int(row) + 1}-{mac}@{domain}", f"bounce+{row}@{domain}",
              f"bounce+{row}-{mac}@elsewhere.example",
              f"bounce+{row}-{mac}x@{domain}", f"bounce+0{row}-{mac}@{domain}"]
    for to in forged:
        code, said = env.send(dsn(to), mail_from="", rcpt=to)
        assert code == 550, (to, code, said)
    assert state_of(env.store) == {}
    # the case folded by a mail system is still ours
    assert env.send(dsn(path.upper()), mail_from="", rcpt=path.upper())[0] == 250
    assert state_of(env.store)["hard"] == 1


def test_a_dsn_sent_to_a_seats_play_address_marks_nothing_and_gets_no_answer(env):
    paths = turn_mails(env, 1)
    gid = game(env.store, first_dealer=3)
    return_paths(env)
    before = snapshot(env.store, gid)
    to = env.address(gid)
    for mid in ("<a@mx.example.org>", "<b@mx.example.org>", "<c@mx.example.org>"):
        assert env.send(dsn(to, mid=mid), mail_from="", rcpt=to)[0] == 250
    assert state_of(env.store) == {} and snapshot(env.store, gid) == before
    assert return_paths(env) == [] and paths


# ---- the code -------------------------------------------------------------------------------

def test_a_code_signed_with_an_old_key_still_verifies_after_a_new_key_is_added(store):
    with store.session() as s:
        s.add(Player(email=ANN, name="ann"))
        row = Outbox(to_addr=ANN, subject="x", body_text="x", dedupe_key="k")
        s.add(row)
        s.commit()
    old = bounces.return_path(["k1"], row, "pbem.test")
    assert bounces.row_for(store, ["k1", "k2"], old, "pbem.test").id == row.id
    assert bounces.row_for(store, ["k2"], old, "pbem.test") is None
    assert bounces.return_path(["k1", "k2"], row, "pbem.test") != old  # the newest signs
    mac = old.split("-")[1].split("@")[0]
    assert bounces.row_for(store, ["k1"], f"bounce+\u0661-{mac}@pbem.test", "pbem.test") is None


def test_through_an_smtp_relay_the_envelope_sender_is_the_mails_bounce_address(env):
    """The relay path (PBEM_SMTP_URL): MAIL FROM is the row's bounce address, and a DSN the
    relay would send back to it is taken by our handler."""
    class Sink:
        def __init__(self):
            self.got = []

        async def handle_DATA(self, server, session, envelope):
            self.got.append((envelope.mail_from, envelope.rcpt_tos, envelope.content))
            return "250 OK"

    sink, port = Sink(), free_port()
    relay = Controller(sink, hostname="127.0.0.1", port=port)
    relay.start()
    try:
        game(env.store, first_dealer=3)
        deliver = smtp_delivery(f"smtp://127.0.0.1:{port}", env.domain, secret_keys(env.cfg))
        assert drain(env.store, deliver=deliver) == 1
    finally:
        relay.stop()
    [(mail_from, rcpts, content)] = sink.got
    assert rcpts == [ANN] and mail_from.startswith("bounce+") and b"Return-Path" not in content
    assert env.send(dsn(mail_from), mail_from="", rcpt=mail_from)[0] == 250
    assert state_of(env.store)["hard"] == 1


def test_a_from_its_domain_disowns_does_not_clear_the_stop(store, monkeypatch, tmp_path):
    """With PBEM_AUTHSERV_ID, our MTA's DMARC failure means the mail is not the player's:
    it proves nothing of their mailbox."""
    monkeypatch.setenv("PBEM_AUTHSERV_ID", "mx.pbem.test")
    with running(store, monkeypatch, tmp_path) as env:
        paths = turn_mails(env, 3)
        for path in paths:
            env.send(dsn(path), mail_from="", rcpt=path)
        spoof = "mx.pbem.test; dmarc=fail (p=reject) header.from=example.org"
        env.send(env.mail(account_address(env, ANN), "games", Authentication_Results=spoof))
        assert state_of(env.store)["stopped"]
        env.send(env.mail(account_address(env, ANN), "games",
                          Authentication_Results="mx.pbem.test; dmarc=pass"))
        assert state_of(env.store) == {}


def test_the_organiser_hears_once_when_a_league_players_mail_stops(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as env:
        lid = league(store, players=4)
        seasons.start_season(store, lid, OPERATOR)
        p2 = "p2@league.test"
        with store.session() as s:
            s.add_all(Outbox(to_addr=p2, subject="x", body_text="x", dedupe_key=f"t:{i}")
                      for i in range(4))
            s.commit()
        paths = [re.fullmatch(r"<(.+)>", m["Return-Path"]).group(1)
                 for m in env.replies() if m["To"] == p2]
        assert len(paths) >= 4
        for path in paths:  # the fourth and later bounce after the stop: no second note
            assert env.send(dsn(path), mail_from="", rcpt=path)[0] == 250
        with store.session() as s:
            notes = s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("bounces:"))).all()
        assert [n.to_addr for n in notes] == [ORGANISER]
        assert p2 in notes[0].body_text and "/o/" in notes[0].body_text
        assert "bounces" in notes[0].subject


# ---- reading reports --------------------------------------------------------------------------

def report(*recipients: tuple[str, str], report_type: str = "delivery-status",
           part: str = "message/delivery-status") -> bytes:
    """A report with one block per (action, status) recipient."""
    blocks = "".join(f"\nFinal-Recipient: rfc822; r{i}@example.org\nAction: {a}\nStatus: {s}\n"
                     for i, (a, s) in enumerate(recipients))
    return f"""\
From: postmaster@example.org
Subject: Undeliverable: Game 1: your turn
Content-Type: multipart/report; report-type={report_type}; boundary="B"

--B
Content-Type: text/plain

Delivery has failed to these recipients or groups.
--B
Content-Type: {part}

Reporting-MTA: dns; mail.example.org
{blocks}
--B--
""".replace("\n", "\r\n").encode()


@pytest.mark.parametrize("raw, hard, status", [
    (report(("failed", "5.1.10")), True, "5.1.10"),  # Exchange's "recipient not found"
    (report(("failed", "4.4.7"), ("failed", "5.2.2")), True, "5.2.2"),  # the worst counts
    (report(("failed", "4.2.2 (mailbox full)")), False, "4.2.2"),
    (report(("delayed", "4.4.1"), ("delivered", "2.0.0")), None, "no failed recipient"),
    (report(("failed", "garbage")), None, "no failed recipient"),
    (report(("failed", "5.1.1"), report_type="disposition-notification"), None,
     "a report, not of delivery"),  # a read receipt (RFC 8098)
    (report(("failed", "5.1.1"), part="text/plain"), None,
     "a report without a delivery status"),
    (plain_bounce("x", "550-Mailbox unknown. Either there are no mailboxes"), True, "550"),
    (plain_bounce("x", "host said: 554 5.7.1 rejected", frm="postmaster@mx.example.org"),
     True, "554"),
    (plain_bounce("x", "550 5.1.1 no such user", frm="ann@example.org"), None,
     "not a bounce"),  # a person quoting an error is no bounce
    (plain_bounce("x", "There are 500 messages waiting"), None, "no failure code"),
    (plain_bounce("x", "Remote host said: 550 No such user here"), True, "550"),  # qmail
    (plain_bounce("x", "The error was 5.4.4"), True, "5.4.4"),
])
def test_what_a_report_or_a_plain_bounce_counts_as(raw, hard, status):
    got = classify(raw)
    assert (got.hard, got.status) == (hard, status)
