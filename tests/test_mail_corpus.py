"""The inbound mail corpus (issue 4): each mail goes through smtplib to the running aiosmtpd
handler over a real database; each test asserts the SMTP code, the reply (or that there is
none) and, for a bad mail, that the game did not change."""

import shutil
import smtplib
from datetime import date, timedelta
from email.message import EmailMessage

import pytest
from mail_helpers import (
    ANN,
    account,
    answered,
    crafted,
    done_line,
    game,
    headline,
    prefs,
    running,
    snapshot,
    state,
    text,
    wire,
)
from sqlmodel import select

from pbem.engine import preset
from pbem.mail.inbound import MAX_SIZE
from pbem.play import submit
from pbem.store.db import upgrade
from pbem.store.models import Move
from pbem.store.states import Store

# ann's hand in the crafted deal (helpers.fixed_hands): she bids first and leads trick 1
ANN_HAND = ["AS", "TS", "6S", "2S", "JH", "7H", "3H", "QD", "8D", "4D", "KC", "9C", "5C"]


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


@pytest.fixture
def bidding(env):
    """A game with known hands where it is ann's turn to bid (move 1)."""
    gid, hands = crafted(env.store)
    assert hands[0] == ANN_HAND and state(env.store, gid).to_act() == [0]
    return gid


@pytest.fixture
def playing(env, bidding):
    """ann bid 3, the robots bid: she leads trick 1. Returns (game id, her turn mail)."""
    submit(env.store, bidding, 0, {"type": "bid", "bid": 3})
    st = state(env.store, bidding)
    assert st.phase == "play" and st.to_act() == [0]
    mails = env.replies()
    assert len(mails) == 1 and "your turn" in headline(mails[0])
    return bidding, mails[0]


def moves_of(store, gid, seat=0, after=0) -> list[dict]:
    with store.session() as s:
        return list(s.exec(select(Move.payload).where(
            Move.game_id == gid, Move.actor == seat, Move.seq > after).order_by(Move.seq)).all())


def bad(env, gid, msg, code=250, replies=1, **send) -> list:
    """Send a mail that must change nothing; its SMTP code and `replies` replies checked."""
    before = snapshot(env.store, gid)
    got = env.send(msg, **send)
    assert got[0] == code, got
    after = snapshot(env.store, gid)
    for key in ("log", "moves", "turns"):
        assert after[key] == before[key], key
    assert after["outbox"] - before["outbox"] == replies
    mails = env.replies()
    assert len(mails) == replies
    for m in mails:  # answers go only to the registered player
        assert m["To"] == ANN and m["Auto-Submitted"] == "auto-replied"
    return mails


def answer(mails):
    """Our answer to the player's mail, among the mails that followed it (turn mails and the
    news of a scored hand too, in no set order)."""
    return next(m for m in mails if answered(m))


def refusal(mail, line: str, why: str, legal: str | None = None) -> str:
    """Check a refusal's reply: it quotes the line, says why, shows what is legal now."""
    body = text(mail)
    assert "not done" in headline(mail)
    assert f"Not done: your line\n  > {line}\n" in body, body
    assert why.lower() in body.lower(), body
    if legal:
        assert "Legal now:" in body and legal in body, body
    return body


# ---- good mail -------------------------------------------------------------------------

def test_bid_in_the_body(env, bidding):
    before = snapshot(env.store, bidding)
    to = env.address(bidding)
    assert env.send(env.mail(to, "bid 3\n", mid="<b1@example.org>"))[0] == 250
    assert moves_of(env.store, bidding) == [{"seq": 2, "type": "bid", "seat": 0, "bid": 3}]
    mails = env.replies()
    subjects = sorted(done_line(m) for m in mails)
    assert subjects == [f"Game {bidding}: you bid 3"]  # she leads: the answer is her turn mail
    reply = answer(mails)
    assert reply["Message-ID"].startswith(f"<turn.{bidding}.0.5.")
    assert "bid 3: done" in text(reply) and reply["In-Reply-To"] == "<b1@example.org>"
    assert reply["Reply-To"] == to
    assert snapshot(env.store, bidding)["moves"] == before["moves"] + 4  # ann's + 3 robots'


def test_command_in_the_subject_with_an_empty_body(env, bidding):
    msg = env.mail(env.address(bidding), None, subject="Re: bid 4")
    assert env.send(msg)[0] == 250
    assert [m["bid"] for m in moves_of(env.store, bidding)] == [4]
    assert any("bid 4: done" in text(m) for m in env.replies())


def test_several_commands_apply_in_order(env, bidding):
    msg = env.mail(env.address(bidding), "status\nbid 5\nplay JH\n")
    assert env.send(msg)[0] == 250
    mine = moves_of(env.store, bidding)
    assert [m["type"] for m in mine] == ["bid", "play"]
    assert mine[0]["bid"] == 5 and mine[1]["card"] == "JH"
    reply = answer(env.replies())
    body = text(reply)
    assert body.index("status:") < body.index("bid 5: done") < body.index("play JH: done")
    assert done_line(reply) == f"Game {bidding}: you bid 5 and played J♥"


def test_bid_then_claim_with_every_spade(env):
    spades = [c for c in preset("standard").deck() if c.endswith("S")]
    gid, _ = crafted(env.store, {0: spades})
    assert env.send(env.mail(env.address(gid), "bid 13\nclaim\n"))[0] == 250
    mine = moves_of(env.store, gid)
    assert [m["type"] for m in mine][:2] == ["bid", "claim"]
    body = text(answer(env.replies()))
    assert "claim: done" in body


def test_misdeal_where_the_rules_allow_it(env):
    rules = preset("tournament-500")
    gid, hands = crafted(env.store, {0: ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH",
                                         "3C", "4C", "5C", "6C", "7C"]}, rules=rules)
    assert state(env.store, gid).misdeal_allowed(0)
    assert env.send(env.mail(env.address(gid), "misdeal"))[0] == 250
    assert [m["type"] for m in moves_of(env.store, gid)] == ["misdeal"]
    assert any("misdeal: done" in text(m) for m in env.replies())
    assert state(env.store, gid).hands != hands  # dealt again


def test_status_help_and_games(env, playing):
    gid, _ = playing
    to = env.address(gid)
    for i, (line, expect) in enumerate([("status", "reply: play JH"),
                                        ("help", "You can write"),
                                        ("games", f"game {gid} (standard), seat 0: playing")]):
        mails = bad(env, gid, env.mail(to, line, mid=f"<s{i}@example.org>"))
        assert f"{line}:" in text(mails[0]) and expect in text(mails[0]), text(mails[0])


def test_auto_submitted_no_is_answered(env, bidding):
    msg = env.mail(env.address(bidding), "bid 2", Auto_Submitted="no")
    assert env.send(msg)[0] == 250
    assert [m["bid"] for m in moves_of(env.store, bidding)] == [2]


def test_a_bad_second_line_stops_after_the_first_applied(env, bidding):
    # a command written wrong (a line that is no command at all ends the mail quietly)
    msg = env.mail(env.address(bidding), "bid 3\nplay the best card\nstatus\n")
    assert env.send(msg)[0] == 250
    assert [m["bid"] for m in moves_of(env.store, bidding)] == [3]
    reply = answer(env.replies())
    # the one answer: her turn again after the robots' bids, so it is her turn mail too
    assert done_line(reply) == f"Game {bidding}: you bid 3; not done: play the best card"
    assert str(reply["Message-ID"]).startswith(f"<turn.{bidding}.0.")
    body = refusal(reply, "play the best card", "", legal="reply: play JH")
    assert "bid 3: done" in body and "Nothing after that line was read" in body
    assert "status:" not in body


@pytest.mark.parametrize("how", ["quoted-printable", "base64", "iso-8859-1", "windows-1252",
                                 "html-only"])
def test_encodings_are_read(env, bidding, how):
    msg = _encoded(env.address(bidding), "bid 6\n", how)
    assert env.send(msg)[0] == 250
    assert [m["bid"] for m in moves_of(env.store, bidding)] == [6]


@pytest.mark.parametrize("how", ["quoted-printable", "base64", "iso-8859-1", "windows-1252",
                                 "html-only"])
def test_encoded_gibberish_is_quoted_back_decoded(env, bidding, how):
    line = "bïd trois, s’il vous plaît" if how == "windows-1252" else "bïd trois àçé"
    mails = bad(env, bidding, _encoded(env.address(bidding), line + "\n", how))
    refusal(mails[0], line, "", legal="bid nil")


def _encoded(to, body, how) -> EmailMessage:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = ANN, to, "Re: your turn"
    if how == "html-only":
        quote = "<blockquote>bid 13<br>bid 12</blockquote>"
        m.set_content(f"<html><body><div class>{body}</div>{quote}</body></html>",
                      subtype="html")
    elif how in ("quoted-printable", "base64"):
        m.set_content(body, cte=how)
    else:
        m.set_content(body.encode(how), maintype="text", subtype="plain",
                      params={"charset": how}, cte="8bit" if how else None)
    return m


# ---- bad mail: the game does not change --------------------------------------------------

def test_forged_from_warns_the_player_only(env, playing):
    gid, _ = playing
    mails = bad(env, gid, env.mail(env.address(gid), "play JH", frm="mallory@example.net"))
    assert "ignored" in headline(mails[0]) and "mallory@example.net" in text(mails[0])


def test_forged_from_a_player_of_the_same_game(env):
    players = [ANN, "bob@example.org", "cy@example.org", "di@example.org"]
    gid = game(env.store, players)
    env.replies()
    seat = state(env.store, gid).to_act()[0]
    owner, other = players[seat], players[(seat + 1) % 4]
    for frm in ("nobody@example.org", other):  # a stranger, or a player of another seat
        before = snapshot(env.store, gid)
        assert env.send(env.mail(env.address(gid, seat), "bid 3", frm=frm))[0] == 250
        after = snapshot(env.store, gid)
        assert (after["log"], after["turns"]) == (before["log"], before["turns"])
        (warning,) = env.replies()
        assert warning["To"] == owner and "ignored" in headline(warning)
        assert frm in text(warning)


@pytest.mark.parametrize("rcpt", ["play+wrongtoken@{d}", "play+{t}@elsewhere.example",
                                  "someone@{d}", "play@{d}"])
def test_wrong_token_is_refused_at_rcpt(env, playing, rcpt):
    gid, _ = playing
    token = env.address(gid).split("+")[1].split("@")[0]
    to = rcpt.format(d=env.domain, t=token)
    bad(env, gid, env.mail(to, "play JH"), code=550, replies=0)


def test_unknown_token_answer_text(env, playing):
    code, reply = env.send(env.mail(f"play+nosuch@{env.domain}", "play JH"))
    assert (code, reply) == (550, "5.1.1 No such recipient here")


def test_stale_move(env, playing):
    gid, turn = playing
    old = f"<turn.{gid}.0.1.deadbeef@{env.domain}>"  # ann's bid turn: the game moved on
    msg = env.mail(env.address(gid), "play JH", In_Reply_To=old, References=old)
    mails = bad(env, gid, msg)
    refusal(mails[0], "play JH", "moved on", legal="reply: play JH")


def test_reply_to_the_current_turn_mail_is_not_stale(env, playing):
    gid, turn = playing
    msg = env.mail(env.address(gid), "play JH", In_Reply_To=turn["Message-ID"])
    assert env.send(msg)[0] == 250
    assert moves_of(env.store, gid, after=5)[0]["card"] == "JH"


def test_illegal_card(env, playing):
    gid, _ = playing
    mails = bad(env, gid, env.mail(env.address(gid), "play AS"))  # spades not broken yet
    refusal(mails[0], "play AS", "spade", legal="reply: play JH")


def test_card_not_in_hand(env, playing):
    gid, _ = playing
    mails = bad(env, gid, env.mail(env.address(gid), "KS"))
    refusal(mails[0], "KS", "hand", legal="reply: play JH")


def test_a_bid_when_it_is_time_to_play(env, playing):
    gid, _ = playing
    refusal(bad(env, gid, env.mail(env.address(gid), "bid 4"))[0], "bid 4", "", "play JH")


@pytest.mark.parametrize("line", ["claim", "misdeal"])
def test_claim_and_misdeal_refused_when_not_allowed(env, playing, line):
    gid, _ = playing
    refusal(bad(env, gid, env.mail(env.address(gid), line))[0], line, "", "reply: play JH")


def test_gibberish(env, playing):
    gid, _ = playing
    mails = bad(env, gid, env.mail(env.address(gid), "asdf qwerty zxcv\nplay JH\n"))
    body = refusal(mails[0], "asdf qwerty zxcv", "", legal="reply: play JH")
    assert "Nothing after that line was read" in body


def test_empty_body(env, playing):
    gid, _ = playing
    mails = bad(env, gid, env.mail(env.address(gid), "\n\n", subject="Re: your turn"))
    assert "I found no command in your mail" in text(mails[0])
    assert "reply: play JH" in text(mails[0])


def test_attachment_only(env, playing):
    gid, _ = playing
    msg = env.mail(env.address(gid), None)
    msg.add_attachment(b"play JH\n", maintype="text", subtype="plain", filename="move.txt")
    msg.add_attachment(b"%PDF-1.4 play JH", maintype="application", subtype="pdf",
                       filename="move.pdf")
    mails = bad(env, gid, msg)
    assert "I found no command in your mail" in text(mails[0])


def test_over_one_megabyte(env, playing):
    gid, _ = playing
    msg = env.mail(env.address(gid), "play JH\n" + ("x" * 75 + "\n") * (MAX_SIZE // 76 + 10))
    assert len(msg.as_bytes()) > MAX_SIZE
    bad(env, gid, msg, code=552, replies=0)  # smtplib sends SIZE: refused at MAIL FROM


def test_over_one_megabyte_without_size(env, playing):
    gid, _ = playing
    raw = env.mail(env.address(gid), "play JH\n" + ("y" * 75 + "\n") * (MAX_SIZE // 76 + 10))
    before = snapshot(env.store, gid)
    with smtplib.SMTP("127.0.0.1", env.port) as smtp:
        smtp.ehlo()
        assert smtp.mail(ANN)[0] == 250  # no SIZE given: it is refused at DATA
        assert smtp.rcpt(env.address(gid))[0] == 250
        assert smtp.data(wire(raw))[0] == 552
    assert snapshot(env.store, gid) == before and env.replies() == []


@pytest.mark.parametrize("header", [
    {"Auto_Submitted": "auto-replied"}, {"Auto_Submitted": "auto-generated"},
    {"Auto_Submitted": "auto-notified; owner-email=ann@example.org"},
    {"X_Autoreply": "yes"}, {"Precedence": "bulk"}, {"Precedence": "junk"},
    {"List_Id": "<spades.lists.example.org>"}, {"List_Post": "<mailto:l@example.org>"},
])
def test_automatic_and_list_mail_is_never_answered(env, playing, header):
    gid, _ = playing
    bad(env, gid, env.mail(env.address(gid), "I am away until Monday.\nplay JH\n", **header),
        replies=0)


def test_a_bounce(env, playing):
    gid, _ = playing
    msg = env.mail(env.address(gid), "Delivery failed.\nplay JH\n", frm=ANN,
                   subject="Undelivered Mail Returned to Sender")
    bad(env, gid, msg, replies=0, mail_from="")


def test_our_own_mail_is_never_answered(env, playing):
    gid, turn = playing
    del turn["To"]
    turn["To"] = env.address(gid)
    bad(env, gid, turn, replies=0, mail_from=f"play@{env.domain}")
    # nor a mail whose Sender is ours (a forwarder keeping our headers)
    msg = env.mail(env.address(gid), "play JH", Sender=f"play@{env.domain}")
    bad(env, gid, msg, replies=0)


def test_an_unknown_sender_at_the_account_address_gets_no_answer(env, playing):
    gid, _ = playing
    msg = env.mail(f"pbem@{env.domain}", "games", frm="stranger@example.net")
    bad(env, gid, msg, replies=0)


@pytest.mark.parametrize("mid", ["<twice@example.org>", None])
def test_the_same_mail_twice(env, playing, mid):
    gid, _ = playing
    msg = env.mail(env.address(gid), "play JH", mid=mid)
    assert env.send(msg)[0] == 250
    assert len(env.replies()) >= 1
    assert bad(env, gid, msg, replies=0) == []
    assert [m["card"] for m in moves_of(env.store, gid, after=5)][:1] == ["JH"]


def _quote(turn, style: str) -> str:
    lines = text(turn).splitlines()
    head = f"On Mon, 2 Nov 2020 at 10:00, play@pbem.localhost <{turn['Reply-To']}> wrote:"
    if style == "gmail":
        return head + "\n" + "\n".join("> " + x for x in lines)
    if style == "gmail wrapped":  # a long attribution line, wrapped by Gmail
        return (f"On Mon, 2 Nov 2020 at 10:00, Pbem Spades <\n{turn['Reply-To']}> wrote:\n\n"
                + "\n".join("> " + x for x in lines))
    if style == "bare >":
        return "\n".join(">" + x for x in lines)
    if style == "outlook":
        return ("-----Original Message-----\nFrom: play@pbem.localhost\nSent: Monday\n"
                f"Subject: {turn['Subject']}\n\n" + "\n".join(lines))
    return ("________________________________\nFrom: play@pbem.localhost\n"
            f"Subject: {turn['Subject']}\n\n" + "\n".join(lines))


STYLES = ["gmail", "gmail wrapped", "bare >", "outlook", "outlook rule"]


@pytest.mark.parametrize("style", STYLES)
def test_a_quoted_turn_mail_is_not_read_as_commands(env, playing, style):
    gid, turn = playing
    body = _quote(turn, style)
    assert "reply: play JH" in body  # the legal-move list is in the quote
    msg = env.mail(env.address(gid), "\n" + body, In_Reply_To=turn["Message-ID"])
    mails = bad(env, gid, msg)
    assert "I found no command in your mail" in text(mails[0])


@pytest.mark.parametrize("style", STYLES)
def test_a_move_above_the_quoted_turn_mail(env, playing, style):
    gid, turn = playing
    msg = env.mail(env.address(gid), "play 7H\n\n" + _quote(turn, style),
                   In_Reply_To=turn["Message-ID"])
    assert env.send(msg)[0] == 250
    mine = moves_of(env.store, gid, after=5)
    assert mine[0]["card"] == "7H" and all(m["type"] == "play" for m in mine)
    reply = answer(env.replies())
    assert "not done" not in headline(reply) and "play 7H: done" in text(reply)


# ---- the account address ------------------------------------------------------------------

def test_account_commands(env, playing):
    gid, _ = playing
    to = account(env, ANN)
    assert env.send(env.mail(to, "vacation 5 days\nnotify digest\n"))[0] == 250
    want = (date.today() + timedelta(days=5)).isoformat()
    assert prefs(env.store, ANN) == {"vacation_until": want, "notify": "digest",
                                     "vacation_bank": 14 - 5, "bank_month": date.today()
                                     .strftime("%Y-%m")}  # 14 days in a new player's bank
    (reply,) = env.replies()
    assert reply["To"] == ANN and reply["Reply-To"] == to
    assert f"Done: vacation: until {want}\nDone: notify: digest\n" in text(reply)
    msg = env.mail(to, None, subject="vacation off")
    assert env.send(msg)[0] == 250
    assert env.send(env.mail(to, "notify every turn\ngames"))[0] == 250
    got = prefs(env.store, ANN)
    assert "vacation_until" not in got and got["notify"] == "every trick"  # its first name
    assert got["vacation_bank"] == 14  # back early: the unused days return to the bank
    replies = env.replies()
    assert any(f"game {gid} (standard), seat 0: playing" in text(m) for m in replies)


def test_settings_by_mail(env, playing):
    to = account(env, ANN)
    body = "zone europe/paris\nrest Saturday and Sunday\nquiet 23-7\ncap 20\nmerge 30\n"
    assert env.send(env.mail(to, body))[0] == 250
    assert prefs(env.store, ANN) == {"zone": "Europe/Paris", "rest": [5, 6], "quiet": [23, 7],
                                     "cap": 20, "merge": 30}
    said = text(env.replies()[0])
    for line in ("zone: Europe/Paris", "rest: sat sun", "quiet: 23:00-07:00",
                 "cap: 20 mails a day", "merge: 30 minutes"):
        assert f"Done: {line}\n" in said
    assert env.send(env.mail(to, "quiet off\ncap off\nmerge off\nrest none"))[0] == 250
    assert prefs(env.store, ANN) == {"zone": "Europe/Paris", "rest": [], "merge": 0}


@pytest.mark.parametrize("line", ["vacation 99 days", "vacation forever", "notify never",
                                  "bid 3", "status", "zone Mars/Olympus", "rest every day",
                                  "rest mon tue wed thu", "quiet 8-23", "quiet 7-7", "cap 0",
                                  "cap 1000", "merge 999", "merge soon"])
def test_bad_account_commands(env, playing, line):
    gid, _ = playing
    assert env.send(env.mail(account(env, ANN), f"notify digest\n{line}\nvacation off"))[
        0] == 250
    assert prefs(env.store, ANN) == {"notify": "digest"}  # the first line only
    (reply,) = env.replies()
    assert f"Not done: {line}\n" in text(reply)


# ---- the database is unavailable: 451, so the sending server retries ----------------------

def test_database_unreachable_answers_451(monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))
    store = Store("postgresql+psycopg://postgres@127.0.0.1:1/nowhere?connect_timeout=2")
    with running(store, monkeypatch, tmp_path) as env:
        code, _ = env.send(env.mail(f"play+abcdefgh@{env.domain}", "play JH"))
        assert code == 451  # at RCPT: the token cannot be looked up
        code, _ = env.send(env.mail(f"pbem@{env.domain}", "games"))
        assert code == 451  # at DATA


def test_no_mail_is_lost_while_the_database_is_away(monkeypatch, tmp_path):
    db = tmp_path / "pbem.db"
    url = f"sqlite:///{db}"
    upgrade(url)
    store = Store(url)
    gid, _ = crafted(store)
    with running(store, monkeypatch, tmp_path) as env:
        msg = env.mail(env.address(gid), "bid 3", mid="<retry@example.org>")
        store.engine.dispose()
        shutil.move(db, tmp_path / "away.db")  # an empty database without tables in its place
        try:
            assert env.send(msg)[0] == 451
        finally:
            store.engine.dispose()
            for p in tmp_path.glob("pbem.db*"):
                p.unlink()
            shutil.move(tmp_path / "away.db", db)
        assert moves_of(store, gid) == []
        assert env.send(msg)[0] == 250  # the sender's retry
        assert [m["bid"] for m in moves_of(store, gid)] == [3]
        assert any("bid 3: done" in text(m) for m in env.replies())


def test_lmtp_delivery(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path, lmtp=True) as env:
        gid, _ = crafted(store)
        with smtplib.LMTP("127.0.0.1", env.port) as lmtp:
            refused = lmtp.sendmail(ANN, [env.address(gid)],
                                    wire(env.mail(env.address(gid), "bid 4")))
        assert refused == {}
        assert [m["bid"] for m in moves_of(store, gid)] == [4]


# ---- issue 13: the subject says the outcome; refusals show cards as the mail does ---------

def test_a_move_then_a_sign_off_is_done_and_says_so(env, playing):
    gid, _ = playing
    msg = env.mail(env.address(gid), "play JH\n\nThanks,\nAnn\n\nGet Outlook for Android")
    assert env.send(msg)[0] == 250
    assert moves_of(env.store, gid, after=5)[0]["card"] == "JH"
    reply = answer(env.replies())
    assert done_line(reply) == f"Game {gid}: you played J♥"
    assert "Not done" not in text(reply)


def test_a_mail_without_a_command_says_nothing_done(env, playing):
    gid, _ = playing
    (reply,) = bad(env, gid, env.mail(env.address(gid), "Thanks,\nAnn\n"))
    assert headline(reply) == f"Game {gid}: nothing done: no command found"


@pytest.mark.parametrize("line, subject", [("status", "your table"), ("help", "help")])
def test_status_and_help_subjects(env, playing, line, subject):
    gid, _ = playing
    (reply,) = bad(env, gid, env.mail(env.address(gid), line))
    assert headline(reply) == f"Game {gid}: {subject}"


@pytest.mark.parametrize("line, why", [
    ("play TS", "you may not play 10♠ now"),  # spades are not broken
    ("ten h", "10♥ is not in your hand"),
    ("play 10♥️", "10♥ is not in your hand"),
])
def test_refusals_name_cards_as_the_mail_shows_them(env, playing, line, why):
    gid, _ = playing
    (reply,) = bad(env, gid, env.mail(env.address(gid), line))
    body = refusal(reply, line.replace("\ufe0f", ""), why, legal="reply: play JH")
    assert headline(reply) == f"Game {gid}: not done: {line.replace(chr(0xfe0f), '')}"
    lines = body.split("\n")
    reason = lines[lines.index("Not done: your line") + 2]  # after the line quoted
    assert "TS" not in reason and "TH" not in reason, reason


def test_a_bottom_posted_move_is_read(env, playing):
    gid, turn = playing
    quote = "\n".join("> " + x for x in text(turn).splitlines())
    body = f"On Mon, 2 Nov 2020 at 10:00, Pbem <{turn['Reply-To']}> wrote:\n{quote}\n\n7h\n"
    msg = env.mail(env.address(gid), body, In_Reply_To=turn["Message-ID"])
    assert env.send(msg)[0] == 250
    assert moves_of(env.store, gid, after=5)[0]["card"] == "7H"
    assert done_line(answer(env.replies())) == f"Game {gid}: you played 7♥"
