"""Web push for turns (issue 35), end to end over real HTTP: the outbox's real drain sends a
turn mail and queues its push, pywebpush posts it to a push service of this test's (a small
HTTP server on 127.0.0.1), and the test decrypts it with the browser's keys it made as a
browser would (RFC 8291 aes128gcm): no mock of pywebpush, of the encryption or of the HTTP."""

import base64
import json
import os
import re
import threading
from collections import deque
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from mail_helpers import ANN, game
from sqlmodel import select

from pbem.config import load
from pbem.play import submit
from pbem.privacy.export import player_data
from pbem.privacy.forget import forget
from pbem.store import prefs, push
from pbem.store.models import Outbox, Player, PushMessage, PushSubscription, Seat
from pbem.store.models import now as utcnow
from pbem.store.outbox import drain, maildir_delivery
from pbem.store.push_send import send_due
from pbem.web.app import create_app
from tests.web_helpers import csrf, sign_in

S = timedelta(seconds=1)
CARD = re.compile(r"\b(10|[2-9TJQKA])\s?[SHDC♠♥♦♣]\b|[♠♥♦♣]")  # a card, as code or symbol


class Service(BaseHTTPRequestHandler):
    """A push service: keeps each POST, answers the next status queued (201 by default)."""

    def do_POST(self):  # noqa: N802 (the stdlib's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.got.append((self.path, {k.lower(): v for k, v in self.headers.items()},
                                body))
        status = self.server.answers.popleft() if self.server.answers else 201
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def service():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Service)
    server.got, server.answers = [], deque()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def cfg(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("PBEM_PUSH_LOOPBACK", "on")
    monkeypatch.delenv("PBEM_VAPID_KEY", raising=False)
    c = load()
    assert push.keygen(c.vapid_key) and not push.keygen(c.vapid_key)  # once
    return c


class Browser:
    """A browser's side of a subscription: its ECDH key pair and auth secret (RFC 8291)."""

    def __init__(self, service, name="a"):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.secret = os.urandom(16)
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        port = service.server_address[1]
        self.sub = push.Subscription(f"http://127.0.0.1:{port}/push/{name}", push.b64(point),
                                     push.b64(self.secret))

    def read(self, body: bytes) -> dict:
        return json.loads(http_ece.decrypt(body, private_key=self.key,
                                           auth_secret=self.secret, version="aes128gcm"))


def ann_id(store) -> int:
    """Ann's player id (her row made first if no game has seated her yet)."""
    with store.session() as s:
        pid = s.exec(select(Player.id).where(Player.email == ANN)).first()
        if pid is None:
            s.add(Player(email=ANN))
            s.commit()
            pid = s.exec(select(Player.id).where(Player.email == ANN)).one()
        return pid


def token(store, gid, seat=0) -> str:
    with store.reader() as s:
        return s.exec(select(Seat.token).where(Seat.game_id == gid, Seat.seat == seat)).one()


def mails(store, tmp_path, now) -> int:
    return drain(store, maildir_delivery(tmp_path / "mail", "pbem.localhost"), now=now)


def messages(store) -> list[PushMessage]:
    with store.reader() as s:
        return list(s.exec(select(PushMessage).order_by(PushMessage.id)).all())


def subscribed(store, cfg, service, name="a") -> Browser:
    b = Browser(service, name)
    push.subscribe(store, ann_id(store), b.sub, cfg)
    return b


def test_a_turn_pushes_once_what_is_asked_and_no_card(store, cfg, service, tmp_path):
    b = subscribed(store, cfg, service)
    gid = game(store, first_dealer=3)  # ann bids first: her turn mail is queued
    now = utcnow()
    assert mails(store, tmp_path, now) >= 1
    assert send_due(store, cfg, now) == 1
    [(path, headers, body)] = service.got
    assert path == "/push/a" and headers["content-encoding"] == "aes128gcm"
    assert int(headers["ttl"]) > 0
    vapid = headers["authorization"]  # "vapid t=JWT, k=the site's key" (RFC 8292)
    assert vapid.startswith("vapid t=") and f"k={push.public_key(cfg.vapid_key)}" in vapid
    claims = json.loads(base64.urlsafe_b64decode(vapid[8:].split(".")[1] + "=="))
    assert claims["aud"] == f"http://127.0.0.1:{service.server_address[1]}"
    got = b.read(body)
    assert got["body"] == f"Game {gid}: your bid"
    assert got["url"] == f"{cfg.base_url}/t/{token(store, gid)}"
    assert not CARD.search(json.dumps(got, ensure_ascii=False)), got  # no card at all
    assert body.count(b"your bid") == 0  # and the wire carries it encrypted
    assert send_due(store, cfg, now + S) == 0  # once
    mails(store, tmp_path, now + S)
    assert send_due(store, cfg, now + 2 * S) == 0 and len(service.got) == 1
    # her bid: the next turn of hers (after the robots bid, a card) pushes "your card"
    submit(store, gid, 0, {"type": "bid", "bid": 3})
    mails(store, tmp_path, now + 3 * S)
    send_due(store, cfg, now + 3 * S)
    assert [b.read(x[2])["body"] for x in service.got[1:]] == [f"Game {gid}: your card"]


def test_quiet_hours_hold_the_push_with_the_mail_and_it_comes_after(store, cfg, service,
                                                                     tmp_path):
    b = subscribed(store, cfg, service)
    prefs.update(store, ann_id(store), zone="UTC", quiet=[22, 7])
    gid = game(store, first_dealer=3)
    night = (utcnow() + timedelta(days=1)).replace(hour=23, minute=0, second=0,
                                                   microsecond=0)
    morning = (night + timedelta(days=1)).replace(hour=7)
    assert mails(store, tmp_path, night) == 0 and messages(store) == []
    assert send_due(store, cfg, night) == 0 and service.got == []
    assert mails(store, tmp_path, morning) == 1
    assert send_due(store, cfg, morning) == 1
    assert b.read(service.got[0][2])["body"] == f"Game {gid}: your bid"


def test_a_retry_that_falls_in_quiet_hours_waits_for_their_end(store, cfg, service, tmp_path):
    subscribed(store, cfg, service)
    game(store, first_dealer=3)
    day = (utcnow() + timedelta(days=1)).replace(hour=21, minute=59, second=0, microsecond=0)
    service.answers.append(500)
    mails(store, tmp_path, day)
    assert send_due(store, cfg, day) == 0  # a 500: again after 30 s, at 21:59:30
    prefs.update(store, ann_id(store), zone="UTC", quiet=[22, 7])
    assert send_due(store, cfg, day + 2 * 60 * S) == 0 and len(service.got) == 1
    [msg] = messages(store)
    assert push_send_aware(msg.next_attempt) == (day + timedelta(days=1)).replace(hour=7,
                                                                                  minute=0)


def push_send_aware(when: datetime) -> datetime:
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def test_a_mail_that_did_not_go_pushes_nothing_until_it_goes(store, cfg, service, tmp_path):
    subscribed(store, cfg, service)
    game(store, first_dealer=3)
    now = utcnow()

    def refused(row):
        raise OSError("the relay is away")

    assert drain(store, refused, now=now) == 0
    assert messages(store) == [] and send_due(store, cfg, now) == 0
    assert mails(store, tmp_path, now + 2 * 60 * S) == 1  # its retry goes: now the push
    assert len(messages(store)) == 1 and send_due(store, cfg, now + 2 * 60 * S) == 1


def test_past_the_cap_the_push_waits_with_the_mail(store, cfg, service, tmp_path):
    subscribed(store, cfg, service)
    prefs.update(store, ann_id(store), zone="UTC", cap=1)
    game(store, first_dealer=3)
    now = utcnow()
    assert mails(store, tmp_path, now) == 1 and send_due(store, cfg, now) == 1
    game(store, first_dealer=3)
    assert mails(store, tmp_path, now + S) == 0  # the second turn mail waits for tomorrow
    assert len(messages(store)) == 1 and send_due(store, cfg, now + S) == 0
    tomorrow = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    assert mails(store, tmp_path, tomorrow) == 1 and send_due(store, cfg, tomorrow) == 1
    assert len(service.got) == 2


def test_a_500_is_tried_again_with_backoff_and_never_holds_the_mail(store, cfg, service,
                                                                    tmp_path):
    b = subscribed(store, cfg, service)
    gid = game(store, first_dealer=3)
    now = utcnow()
    service.answers.extend([500, 503])
    mails(store, tmp_path, now)
    with store.reader() as s:  # the mail went, whatever the push does
        assert s.exec(select(Outbox).where(Outbox.dedupe_key.like(f"turn:{gid}:0:%"))
                      ).one().sent_at is not None
    assert send_due(store, cfg, now) == 0
    [msg] = messages(store)
    assert msg.attempts == 1 and msg.sent_at is None and "500" in msg.last_error
    with store.reader() as s:
        assert "500" in s.exec(select(PushSubscription)).one().last_error
    assert send_due(store, cfg, now + 29 * S) == 0 and len(service.got) == 1  # backing off
    assert send_due(store, cfg, now + 31 * S) == 0 and len(service.got) == 2  # 503: 60 s
    assert send_due(store, cfg, now + 61 * S) == 0 and len(service.got) == 2
    assert send_due(store, cfg, now + 92 * S) == 1 and len(service.got) == 3
    assert b.read(service.got[-1][2])["body"] == f"Game {gid}: your bid"
    assert send_due(store, cfg, now + 1000 * S) == 0 and len(service.got) == 3
    game(store, first_dealer=3)  # a month on, the next push prunes the settled row
    later = now + timedelta(days=31)
    mails(store, tmp_path, later)
    assert len(messages(store)) == 2 and send_due(store, cfg, later) == 1
    [kept] = messages(store)
    assert kept.sent_at is not None and kept.attempts == 1  # the new one; the old one gone


@pytest.mark.parametrize("status", [404, 410])
def test_a_gone_subscription_is_dropped(store, cfg, service, tmp_path, status):
    subscribed(store, cfg, service)
    game(store, first_dealer=3)
    now = utcnow()
    service.answers.append(status)
    mails(store, tmp_path, now)
    assert send_due(store, cfg, now) == 0 and len(service.got) == 1
    with store.reader() as s:
        assert s.exec(select(PushSubscription)).all() == []
    assert messages(store) == []
    game(store, first_dealer=3)
    mails(store, tmp_path, now + S)
    assert messages(store) == [] and send_due(store, cfg, now + 2 * S) == 0


def test_a_turn_the_game_moved_past_pushes_nothing(store, cfg, service, tmp_path):
    subscribed(store, cfg, service)
    gid = game(store, first_dealer=3)
    now = utcnow()
    mails(store, tmp_path, now)  # the mail went, its push is queued...
    submit(store, gid, 0, {"type": "bid", "bid": 3})  # ...and she bid on the web meanwhile
    assert send_due(store, cfg, now + S) == 0 and service.got == []
    first = messages(store)[0]
    assert first.sent_at is not None and "moved on" in first.last_error
    # with merge, a turn mail the game moved past is settled unsent: no push either
    prefs.update(store, ann_id(store), merge=30)
    two = game(store, first_dealer=3)
    submit(store, two, 0, {"type": "bid", "bid": 3})
    before = len(messages(store))
    mails(store, tmp_path, now + 31 * 60 * S)
    with store.reader() as s:
        skipped = s.exec(select(Outbox).where(Outbox.dedupe_key.like(f"turn:{two}:0:1"))).one()
    assert skipped.last_error.startswith("settled: ")
    assert all(f"turn:{two}:0:1" not in m.turns for m in messages(store)[before:])


def test_merged_turn_mails_make_one_push(store, cfg, service, tmp_path):
    b = subscribed(store, cfg, service)
    prefs.update(store, ann_id(store), merge=30)
    one, two = game(store, first_dealer=3), game(store, first_dealer=3)
    now = utcnow() + 31 * 60 * S
    assert mails(store, tmp_path, now) == 1  # one mail for both games
    assert send_due(store, cfg, now) == 1
    got = b.read(service.got[0][2])
    assert got["body"] == f"Games {one} and {two}: your turn"
    assert got["url"] == f"{cfg.base_url}/home"


def test_every_browser_of_the_player_gets_it_and_others_none(store, cfg, service, tmp_path):
    a, b = subscribed(store, cfg, service, "a"), subscribed(store, cfg, service, "b")
    game(store, ["bob@example.org", "robot", "robot", "robot"], first_dealer=3)
    mails(store, tmp_path, utcnow())
    assert messages(store) == []  # bob has no browser subscribed
    gid = game(store, first_dealer=3)
    mails(store, tmp_path, utcnow())
    assert send_due(store, cfg) == 2
    by_path = {p: body for p, _, body in service.got}
    assert a.read(by_path["/push/a"])["body"] == b.read(by_path["/push/b"])["body"] == (
        f"Game {gid}: your bid")


def test_forged_and_oversized_subscriptions_are_refused(store, cfg, service, monkeypatch):
    game(store, first_dealer=3)
    pid = ann_id(store)
    good = Browser(service).sub
    https = push.Subscription("https://fcm.googleapis.com/fcm/send/abc", good.p256dh,
                              good.auth)
    push.subscribe(store, pid, https, cfg)  # a real service's shape: taken
    bad = [
        good.__class__("https://fcm.googleapis.com/" + "a" * 600, good.p256dh, good.auth),
        good.__class__("https://evil.example/push", good.p256dh, good.auth),
        good.__class__("https://fcm.googleapis.com.evil.example/x", good.p256dh, good.auth),
        good.__class__("https://fcm.googleapis.com:8443/x", good.p256dh, good.auth),
        good.__class__("https://me@fcm.googleapis.com/x", good.p256dh, good.auth),
        good.__class__("http://fcm.googleapis.com/x", good.p256dh, good.auth),
        good.__class__("http://127.0.0.2:80/x", good.p256dh, good.auth),
        good.__class__("https://fcm.googleapis.com/a b", good.p256dh, good.auth),
        good.__class__("https://fcm.googleapis.com/\x00", good.p256dh, good.auth),
        good.__class__(good.endpoint, push.b64(b"\x04" + b"\x01" * 64), good.auth),  # off curve
        good.__class__(good.endpoint, good.p256dh[:-2], good.auth),
        good.__class__(good.endpoint, "x" * 10_000, good.auth),
        good.__class__(good.endpoint, good.p256dh, push.b64(b"\x00" * 15)),
        good.__class__(good.endpoint, good.p256dh, "!" * 22),
    ]
    for sub in bad:
        with pytest.raises(push.PushRefused):
            push.subscribe(store, pid, sub, cfg)
    monkeypatch.setenv("PBEM_PUSH_LOOPBACK", "off")  # loopback only when a test says so
    with pytest.raises(push.PushRefused):
        push.subscribe(store, pid, good, load())
    assert push.count(store, pid) == 1


def test_at_most_five_browsers_a_player_the_oldest_goes(store, cfg, service):
    game(store, first_dealer=3)
    pid = ann_id(store)
    browsers = [subscribed(store, cfg, service, f"b{i}") for i in range(7)]
    with store.reader() as s:
        kept = {r.endpoint for r in s.exec(select(PushSubscription)).all()}
    assert kept == {b.sub.endpoint for b in browsers[2:]}
    assert push.count(store, pid) == push.MAX_SUBSCRIPTIONS == 5
    push.subscribe(store, pid, browsers[-1].sub, cfg)  # the same browser again: no new row
    assert push.count(store, pid) == 5
    assert push.unsubscribe(store, pid, browsers[-1].sub.endpoint) == 1
    assert push.unsubscribe(store, pid) == 4 and push.count(store, pid) == 0


def test_the_export_names_them_and_forget_removes_them(store, cfg, service, tmp_path):
    b = subscribed(store, cfg, service)
    game(store, first_dealer=3)
    mails(store, tmp_path, utcnow())
    pid = ann_id(store)
    got = player_data(store, pid)["push_subscriptions"]
    assert [x["endpoint"] for x in got] == [b.sub.endpoint]
    assert b.sub.auth not in json.dumps(got)  # the browser's secret is not handed out
    forget(store, pid)
    assert push.count(store, pid) == 0 and messages(store) == []
    assert send_due(store, cfg) == 0 and service.got == []


# -- the pages -----------------------------------------------------------------------------


@pytest.fixture
def client(store, cfg):
    return create_app(load(), store, testing=True).test_client()


def test_the_worker_and_script_are_ours_under_the_strict_csp(store, client):
    for path in ("/sw.js", "/push.js"):
        r = client.get(path)
        assert r.status_code == 200 and r.content_type == "text/javascript; charset=utf-8"
        assert "script-src 'self'" in r.headers["Content-Security-Policy"]
        assert "unsafe-inline" not in r.headers["Content-Security-Policy"].split(
            "script-src")[1].split(";")[0]
    gid = game(store, first_dealer=3)
    page = client.get(f"/t/{token(store, gid)}")
    assert 'id="push"' in page.text and '<script src="/push.js">' in page.text
    assert re.search(r'data-key="[A-Za-z0-9_-]{87}"', page.text)
    assert not re.search(r"<script>|<script [^s]|on(click|load|submit)=", page.text)


def test_no_key_no_push_box(store, client, cfg):
    cfg.vapid_key.unlink()
    gid = game(store, first_dealer=3)
    assert 'id="push"' not in client.get(f"/t/{token(store, gid)}").text


def test_turning_alerts_on_and_off_from_the_table_and_home(store, client, cfg, service):
    gid = game(store, first_dealer=3)
    tok, pid = token(store, gid), ann_id(store)
    b = Browser(service)
    form = {"do": "on", "endpoint": b.sub.endpoint, "p256dh": b.sub.p256dh,
            "auth": b.sub.auth}
    r = client.post(f"/t/{tok}/push", data=dict(form, csrf=csrf(client)))
    assert r.status_code == 303 and push.count(store, pid) == 1
    assert "now tells you" in client.get(r.headers["Location"]).text
    r = client.post(f"/t/{tok}/push", data=dict(form, auth="short", csrf=csrf(client)))
    assert "not one push can encrypt to" in client.get(r.headers["Location"]).text
    r = client.post(f"/t/{tok}/push", data=dict(form, csrf="forged"))
    assert r.status_code == 400
    r = client.post(f"/t/{tok}/push", data={"do": "all", "csrf": csrf(client)})
    assert push.count(store, pid) == 1  # a table's link turns off only its own browser
    r = client.post(f"/t/{tok}/push", data={"do": "off", "endpoint": b.sub.endpoint,
                                            "csrf": csrf(client)})
    assert push.count(store, pid) == 0
    robot = token(store, gid, 1)
    assert client.post(f"/t/{robot}/push", data=dict(form, csrf=csrf(client))
                       ).status_code == 404
    assert client.post("/home/push", data={"do": "all", "csrf": csrf(client)}
                       ).status_code == 303 and push.count(store, pid) == 0  # not signed in
    push.subscribe(store, pid, b.sub, cfg)
    push.subscribe(store, pid, Browser(service, "b").sub, cfg)
    sign_in(client, store, ANN)
    home = client.get("/home").text
    assert "Turn alerts are on in 2 browsers." in home and 'id="push"' in home
    r = client.post("/home/push", data={"do": "all", "csrf": csrf(client)})
    assert r.status_code == 303 and push.count(store, pid) == 0


def test_every_push_route_is_tested_here():
    from tests.test_web import ROUTES

    ours = {r: t for r, t in ROUTES.items() if r.endswith(("/push", "push.js", "/sw.js"))}
    assert len(ours) == 4 and set(ours.values()) <= set(globals())


def test_init_makes_the_vapid_key_once_private_to_its_owner(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from pbem.cli import main

    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path / "var"))
    monkeypatch.delenv("PBEM_VAPID_KEY", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    first = CliRunner().invoke(main, ["init"])
    assert first.exit_code == 0 and "a new VAPID key" in first.output, first.output
    key = tmp_path / "var" / "vapid.key"
    made = key.read_bytes()
    assert key.stat().st_mode & 0o777 == 0o600 and push.public_key(key)
    again = CliRunner().invoke(main, ["init"])
    assert again.exit_code == 0 and "VAPID" not in again.output
    assert key.read_bytes() == made  # once per site: subscriptions stay good
