"""One sender, plainly (issue 29, item 3): a mail whose From names anything but one plain
address (two addresses, a group, a display name or comment that is itself an address, two
From headers, none) acts on nothing, is refused at DATA with 550 5.7.1, and gets no reply.
Real SMTP and LMTP into the running handler, over SQLite and PostgreSQL; every table's rows
and the Maildir are compared before and after."""

import logging
from email import policy
from email.parser import BytesParser

import pytest
from mail_helpers import ANN, crafted, prefs, running
from mail_helpers import account as account_address
from sqlalchemy import select
from sqlmodel import SQLModel
from test_mail_protocol import lmtp_session

from pbem.mail.reader import _Parsed, _sender
from pbem.store.models import Move

EVIL = "a@evil.example"
# each a mail's From header lines, as a forger writes them to pass for ann
FORGED = {
    "two addresses": [f"From: {ANN}, {EVIL}"],
    "a group": [f"From: friends: {ANN};"],
    "a quoted name that is an address": [f'From: "{ANN}" <{EVIL}>'],
    "a bare name that is an address": [f"From: {ANN} <{EVIL}>"],
    "an encoded name that is an address": [f"From: =?utf-8?q?{ANN.replace('@', '=40')}?= <{EVIL}>"],
    "a full-width at in the name": [f"From: {ANN.replace('@', '＠')} <{EVIL}>"],
    "an address in a comment": [f"From: {EVIL} ({ANN})"],
    "an encoded address in a comment": [f"From: {EVIL} (=?utf-8?q?{ANN.replace('@', '=40')}?=)"],
    "a name with CR LF and an address": [
        f"From: =?utf-8?q?Ann=0D=0ABcc=3A_{EVIL.replace('@', '=40')}?= <{ANN}>"],
    "two From headers": [f"From: {ANN}", f"From: {EVIL}"],
    "an empty From": ["From: "],
    "a From without a domain": ["From: ann"],
    "no From": [],
}
ACCOUNT_COMMANDS = "vacation 3\nmail off\nzone europe/paris\ncap 20\nmerge 30\n"


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


@pytest.fixture
def lmtp(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path, lmtp=True) as e:
        yield e


def raw_mail(from_lines: list[str], to: str, body: str, mid: str, extra: str = "") -> bytes:
    head = "".join(f"{line}\r\n" for line in from_lines)
    text = (f"{head}To: {to}\r\nSubject: Re: your turn\r\nMessage-ID: {mid}\r\n{extra}"
            f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}")
    return text.replace("\n", "\r\n").replace("\r\r\n", "\r\n").encode()


def rows(store) -> dict:
    """Every row of every table, in key order: what a refused mail must leave as it was."""
    with store.engine.connect() as c:
        return {t.name: c.execute(select(t).order_by(*t.primary_key.columns)).all()
                for t in SQLModel.metadata.sorted_tables}


def maildir(env) -> list[str]:
    """The Maildir's files, after the outbox has drained into it."""
    env.replies()
    return sorted(str(p.relative_to(env.maildir)) for p in env.maildir.rglob("*") if p.is_file())


def refused_and_unchanged(env, raw: bytes, rcpt: str) -> None:
    before, mails = rows(env.store), maildir(env)
    code, reply = env.send(raw, mail_from=EVIL, rcpt=rcpt)
    assert code == 550, reply
    assert reply.startswith("5.7.1 This mail's From must name exactly one address: "), reply
    assert rows(env.store) == before
    assert maildir(env) == mails and env.replies() == []


@pytest.mark.parametrize("form", FORGED)
def test_a_forged_from_to_a_seat_is_refused_at_data_and_changes_nothing(env, form, caplog):
    gid, _ = crafted(env.store)  # ann's turn to bid
    seat = env.address(gid)
    refused_and_unchanged(env, raw_mail(FORGED[form], seat, "bid 4", f"<s-{hash(form)}@x>"),
                          seat)
    assert seat.split("@")[0] not in caplog.text  # the seat's token is in no log line


@pytest.mark.parametrize("form", FORGED)
def test_a_forged_from_to_the_account_address_changes_nothing(env, form):
    crafted(env.store)  # ann is a player
    account = account_address(env)
    refused_and_unchanged(env, raw_mail(FORGED[form], account, ACCOUNT_COMMANDS,
                                        f"<a-{hash(form)}@x>"), account)
    assert prefs(env.store, ANN) == {}


def test_the_same_mails_from_one_plain_address_are_obeyed(env):
    """The proof that the tests above can fail: only the From differs."""
    gid, _ = crafted(env.store)
    frm = [f"From: Ann Lee <{ANN}>"]
    assert env.send(raw_mail(frm, env.address(gid), "bid 4", "<ok1@x>"),
                    mail_from=ANN, rcpt=env.address(gid))[0] == 250
    account = account_address(env)
    assert env.send(raw_mail(frm, account, ACCOUNT_COMMANDS, "<ok2@x>"),
                    mail_from=ANN, rcpt=account)[0] == 250
    with env.store.session() as s:
        assert [p["bid"] for p in s.execute(select(Move.payload).where(
            Move.game_id == gid, Move.source == "mail")).scalars()] == [4]
    got = prefs(env.store, ANN)
    assert (got["mail"], got["zone"], got["cap"], got["merge"]) == ("off", "Europe/Paris", 20, 30)
    assert "vacation_until" in got


def test_over_lmtp_each_recipient_is_refused(lmtp):
    gid, _ = crafted(lmtp.store)
    to = [lmtp.address(gid), f"pbem@{lmtp.domain}"]
    before, mails = rows(lmtp.store), maildir(lmtp)
    got = lmtp_session(lmtp.port, EVIL, to, raw_mail(FORGED["a bare name that is an address"],
                                                      to[0], "bid 4", "<lmtp@x>"))
    data = got.index("354 End data with <CR><LF>.<CR><LF>")
    assert [x[:9] for x in got[data + 1:data + 3]] == ["550 5.7.1"] * 2, got
    assert rows(lmtp.store) == before and maildir(lmtp) == mails


@pytest.mark.parametrize("extra, envelope", [
    ("Auto-Submitted: auto-replied\r\n", EVIL),  # an out-of-office reply
    ("", ""),  # a bounce: the null envelope sender
    ("Precedence: bulk\r\n", EVIL),
])
def test_automatic_mail_with_a_forged_from_stays_ignored(env, extra, envelope):
    """A 550 would make the relay bounce an automatic mail to its sender (or drop a bounce);
    it is never acted on nor answered anyway: 250, and nothing changes."""
    gid, _ = crafted(env.store)
    seat = env.address(gid)
    before, mails = rows(env.store), maildir(env)
    raw = raw_mail(FORGED["a bare name that is an address"], seat, "bid 4",
                   f"<auto-{hash(extra)}@x>", extra)
    assert env.send(raw, mail_from=envelope, rcpt=seat)[0] == 250
    after = rows(env.store)
    assert [r.result for r in after.pop("inbound")] == ["auto-submitted" if extra.startswith(
        "Auto") else "bounce" if not envelope else "bulk mail"]
    before.pop("inbound")
    assert after == before and maildir(env) == mails


# ---- the reader: plain Froms are read as before, at once -----------------------------------

PLAIN = {
    "ann@example.org": "ann@example.org",
    "Ann <Ann@Example.org>": "ann@example.org",
    "Ann B. Lee <ann@example.org>": "ann@example.org",
    '"Lee, Ann" <ann@example.org>': "ann@example.org",
    "<ann@example.org>": "ann@example.org",
    "Ann<ann@example.org>": "ann@example.org",
    "Zoë Ünal <zoe@example.org>": "zoe@example.org",
    "=?utf-8?q?Zo=C3=AB?= <zoe@example.org>": "zoe@example.org",
    "=?utf-8?b?QW5uDQo=?= <ann@example.org>": "ann@example.org",  # a name of CR LF
    "=?UTF-8?Q?Lee=2C_Zo=C3=AB?= <zoe@example.org>": "zoe@example.org",
    "ann@example.org (Ann Lee)": "ann@example.org",
    "Ann\r\n <ann@example.org>": "ann@example.org",  # folded
}


def sender_of(value: str) -> tuple:
    data = f"From: {value}\r\nSubject: x\r\n\r\nbid 3\r\n".encode()
    return _sender(BytesParser(_Parsed, policy=policy.compat32).parsebytes(data))


@pytest.mark.parametrize("value", PLAIN)
def test_one_plain_address_is_read(value):
    assert sender_of(value) == (PLAIN[value], None)


@pytest.mark.parametrize("form", [f for f in FORGED if len(FORGED[f]) == 1])
def test_every_forged_form_is_told_why(form):
    value = FORGED[form][0].removeprefix("From: ")
    assert sender_of(value)[0] == "" and sender_of(value)[1]


def test_a_long_name_is_read_in_linear_time():
    assert sender_of("a" * 100_000 + "(")[0] == ""


def test_the_smtp_servers_own_log_never_writes_a_secret_address(env, caplog):
    """aiosmtpd logs every RCPT at INFO (logger "mail.log"): the account's key is masked."""
    caplog.set_level(logging.INFO, logger="mail.log")
    crafted(env.store)
    account = account_address(env)
    code, _ = env.send(raw_mail([f"From: {ANN}"], account, "mail on\n", "<log-1@x>"),
                       mail_from=ANN, rcpt=account)
    assert code == 250
    said = [r.getMessage() for r in caplog.records if r.name == "mail.log"]
    assert any("rcpt to:" in m.lower() for m in said), said  # it did log the RCPT
    key = account.split("@")[0].split("+")[1]
    assert key not in caplog.text
