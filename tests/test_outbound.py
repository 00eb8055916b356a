"""What every mail we send carries (issue 13): a From with our name, a Date in +0000; a
game's or a league's news also List-Id, List-Unsubscribe with an https one-click link and
a mailto, and List-Unsubscribe-Post (RFC 8058), a mail that is not news none of them
(issue 32); the one-click link stops that kind of mail for that
player and nothing else; with a key, every mail is DKIM-signed and verifies against the
record `pbem dkim keygen` prints."""

import mailbox
import re

import dkim
import pytest
from click.testing import CliRunner
from sqlmodel import select

from pbem.engine import preset
from pbem.play import start, submit
from pbem.store.games import create_game
from pbem.store.models import Outbox, Player
from pbem.store.outbox import drain, maildir_delivery
from tests.web_helpers import counts, make_app

ANN = "ann@example.org"


@pytest.fixture
def env(store, tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("PBEM_MAIL_DOMAIN", "pbem.test")
    for name in ("PBEM_DKIM_KEY", "PBEM_MAILDIR"):
        monkeypatch.delenv(name, raising=False)
    client = make_app(store, tmp_path, monkeypatch).test_client()
    monkeypatch.setenv("PBEM_BASE_URL", "https://spades.example.org")  # RFC 8058 wants https
    return client, tmp_path / "var" / "mail"


def sent(store, maildir) -> list:
    drain(store, maildir_delivery(maildir, "pbem.test"))
    return list(mailbox.Maildir(str(maildir), factory=None, create=False))


def ann_game(store) -> int:
    gid = create_game(store, preset("standard"), [ANN, "robot", "robot", "robot"],
                      first_dealer=3)
    start(store, gid)  # ann bids first: her turn mail
    return gid


def prefs(store) -> dict:
    with store.session() as s:
        return s.exec(select(Player).where(Player.email == ANN)).one().prefs or {}


def one_click(msg) -> str:
    return re.search(r"<https?://[^/>]+(/u/[^>]+)>", msg["List-Unsubscribe"]).group(1)


def test_every_mail_carries_our_name_a_known_zone_and_the_list_headers(store, env):
    client, maildir = env
    ann_game(store)
    [turn] = sent(store, maildir)
    assert turn["From"] == "Spades by email <play@pbem.test>"
    assert turn["Date"].endswith("+0000")
    assert turn["List-Id"] == "Spades by email <games.pbem.test>"
    with store.session() as s:  # the mailto goes to ann's own account address
        key = s.exec(select(Player.account_key).where(Player.email == ANN)).one()
    assert f"<mailto:pbem+{key}@pbem.test?subject=turns%20daily>" in turn["List-Unsubscribe"]
    assert one_click(turn).startswith("/u/")
    assert turn["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_a_site_on_plain_http_offers_no_one_click(store, env, monkeypatch):
    client, maildir = env
    monkeypatch.setenv("PBEM_BASE_URL", "http://127.0.0.1:5000")
    ann_game(store)
    [turn] = sent(store, maildir)
    assert "/u/" in turn["List-Unsubscribe"] and turn["List-Unsubscribe-Post"] is None


def test_one_click_stops_that_kind_of_mail_and_a_get_changes_nothing(store, env):
    client, maildir = env
    gid = ann_game(store)
    [turn] = sent(store, maildir)
    link = one_click(turn)
    before = counts(store, gid), prefs(store)
    page = client.get(link)
    assert page.status_code == 200 and "a mail for every turn" in page.text
    assert (counts(store, gid), prefs(store)) == before
    r = client.post(link, data={"List-Unsubscribe": "One-Click"})  # as a provider posts it
    assert r.status_code == 200 and prefs(store)["turns"] == "daily"
    submit(store, gid, 0, {"type": "bid", "bid": 3})
    with store.session() as s:  # her next turn comes in the daily list, not by mail
        assert s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("turn:"))
                      ).all()[1:] == []


def test_unsubscribing_from_any_other_news_stops_all_mail_until_mail_on(store, env):
    client, maildir = env
    with store.session() as s:
        s.add(Outbox(to_addr=ANN, subject="hello", body_text="hi\n", dedupe_key="over:9:1"))
        s.commit()
    gid = ann_game(store)
    over = next(m for m in sent(store, maildir) if m["Subject"] == "hello")
    assert "subject=mail%20off" in over["List-Unsubscribe"]
    assert client.post(one_click(over), data={"List-Unsubscribe": "One-Click"}
                       ).status_code == 200
    assert prefs(store)["mail"] == "off"
    submit(store, gid, 0, {"type": "bid", "bid": 3})
    with store.session() as s:
        assert len(s.exec(select(Outbox).where(Outbox.to_addr == ANN)).all()) == 2


def test_a_forged_unsubscribe_link_changes_nothing(store, env):
    client, maildir = env
    gid = ann_game(store)
    [turn] = sent(store, maildir)
    before = counts(store, gid), prefs(store)
    for bad in (one_click(turn)[:-4] + "abcd", "/u/x", "/u/" + "a" * 40):
        r = client.post(bad, data={"List-Unsubscribe": "One-Click"})
        assert r.status_code in (400, 404), bad
    assert (counts(store, gid), prefs(store)) == before


def test_dkim_signs_every_mail_and_it_verifies_against_the_printed_record(store, env):
    from pbem.cli import main

    client, maildir = env
    made = CliRunner().invoke(main, ["dkim", "keygen"])
    assert made.exit_code == 0, made.output
    assert CliRunner().invoke(main, ["dkim", "keygen"]).exit_code == 1  # never overwritten
    record = made.output.splitlines()[0]
    assert record.startswith("pbem._domainkey.pbem.test. IN TXT")
    txt = "".join(re.findall(r'"([^"]*)"', record)).encode()
    ann_game(store)
    drain(store, maildir_delivery(maildir, "pbem.test"))
    [path] = (maildir / "new").iterdir()
    raw = path.read_bytes()
    # the Maildir's Return-Path (the bounce address, as a delivering MTA adds it), then ours
    return_path, rest = raw.split(b"\n", 1)
    assert return_path.startswith(b"Return-Path: <bounce+")
    assert rest.startswith(b"DKIM-Signature:") and b"d=pbem.test" in raw

    def dns(name, timeout=5):
        assert name == b"pbem._domainkey.pbem.test."
        return txt

    assert dkim.verify(raw, dnsfunc=dns)
    assert not dkim.verify(raw.replace(b"Your hand", b"Her hand", 1), dnsfunc=dns)


@pytest.mark.parametrize("key", ["invite:9:1", "signin:abc", "pbem.new-game:x:2026-11-23",
                                 "reply:pbem+abc@pbem.test <a@example.org>", "bounces:1:2:x"])
def test_a_mail_that_is_not_news_carries_no_list_headers(store, env, key):
    """An invitation, a sign-in link, a confirmation, an answer at the account address, a
    bounce notice: not a list, so no List-Id and no one-click that would stop all mail."""
    _, maildir = env
    with store.session() as s:
        s.add(Outbox(to_addr=ANN, subject="hello", body_text="hi\n", dedupe_key=key))
        s.add(Outbox(to_addr=ANN, subject="news", body_text="hi\n", dedupe_key="news:9:1:2"))
        s.commit()
    mails = {m["Subject"]: m for m in sent(store, maildir)}
    for name in ("List-Id", "List-Unsubscribe", "List-Unsubscribe-Post"):
        assert mails["hello"][name] is None, name
        assert mails["news"][name] is not None, name  # the same outbox, a news mail
