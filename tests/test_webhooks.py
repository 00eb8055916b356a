"""League webhooks (issue 35): a real HTTP receiver on 127.0.0.1 gets each piece of a league's
news once, in the body its kind wants; a 500, a receiver that is down, a 429 with Retry-After
and a 404 are each handled as docs/leagues.md says; the URL is a secret (never in a page, a
listing, a log line or an export); the addresses we refuse (SSRF), the bound of 5, and the
organiser of another league (or a forged form) can neither add nor remove."""

import html
import json
import logging
import re
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner
from sqlalchemy import text
from sqlmodel import select

from pbem.cli import main
from pbem.engine import preset
from pbem.league import webhooks
from pbem.league.archive import export_league
from pbem.league.manage import OPERATOR, LeagueError
from pbem.league.pause import pause, resume
from pbem.organise import care
from pbem.organise.seasons import start_season
from pbem.privacy.export import player_data
from pbem.serve import post_until
from pbem.store import webhooks as queue
from pbem.store.models import League, Player, Webhook, WebhookPost
from pbem.store.models import now as utcnow
from tests.league_helpers import ORGANISER, fixtures, league, play_out
from tests.test_browser import chromium  # noqa: F401 (a fixture)
from tests.test_browser_look import axe  # noqa: F401 (a fixture)
from tests.web_helpers import csrf

SECRET = "T0pSecretChannelKey-9f8e7d6c5b4a"  # the part of a URL that is its key
CARD = re.compile(r"\b(10|[2-9JQKA])[SHDC]\b")  # a card as the pages and mails write it


class Receiver:
    """A webhook receiver on 127.0.0.1: answers each POST as `script` says (status,
    headers), 200 once the script is spent, and keeps every request it had."""

    def __init__(self):
        self.got: list[dict] = []
        self.script: list[tuple[int, dict]] = []
        self.port = 0
        self.server: ThreadingHTTPServer | None = None
        self.start()

    def start(self) -> None:
        me = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                size = min(int(self.headers.get("Content-Length", "0")), 100_000)
                body = json.loads(self.rfile.read(size))
                status, headers = me.script.pop(0) if me.script else (200, {})
                me.got.append({"path": self.path, "headers": dict(self.headers),
                               "body": body, "status": status})
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}/{SECRET}"

    def delivered(self) -> list[dict]:
        return [x for x in self.got if 200 <= x["status"] < 300]


@pytest.fixture
def hooks_env(monkeypatch, tmp_path, db_url):
    monkeypatch.setenv("DATABASE_URL", db_url)  # for the command line
    monkeypatch.setenv("PBEM_WEBHOOK_LOOPBACK", "on")
    monkeypatch.setenv("PBEM_WEBHOOK_TIMEOUT", "2")
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("PBEM_BASE_URL", "http://pbem.test")


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.stop()


def later(minutes: float):
    return utcnow() + timedelta(minutes=minutes)


def posts(store) -> list[WebhookPost]:
    with store.reader() as s:
        return list(s.exec(select(WebhookPost).order_by(WebhookPost.id)).all())


def organiser_id(store, lid: int) -> int:
    with store.reader() as s:
        return s.get(League, lid).organiser_id


# -- the news, and each kind's body ------------------------------------------------------------


def test_each_kind_gets_its_own_body_once(store, hooks_env, receiver):
    lid = league(store, players=4)
    for kind in queue.KINDS:
        webhooks.add(store, lid, OPERATOR, kind, receiver.url(f"/{kind}"))
    care.message(store, lid, OPERATOR, "Round two", "Round two starts on Monday.")
    assert queue.drain(store) == 4
    assert queue.drain(store, now=later(600)) == 0  # each once, however often it drains
    by = {x["path"].split("/")[1]: x for x in receiver.got}
    assert len(receiver.got) == 4 and set(by) == set(queue.KINDS)
    said = "Test League: Round two\n\nRound two starts on Monday."
    assert by["discord"]["body"] == {"content": said, "allowed_mentions": {"parse": []}}
    assert by["slack"]["body"] == {"text": said}
    assert by["matrix"]["body"] == {"text": said}
    plain = by["json"]["body"]
    assert plain["kind"] == "message" and plain["text"] == said
    assert plain["league"] == "Test League" and plain["league_id"] == lid
    assert plain["link"] == f"http://pbem.test/l/{lid}" and plain["subject"] == "Round two"
    ids = {x["headers"]["X-Pbem-Delivery"] for x in receiver.got}
    assert len(ids) == 4 and plain["id"] == by["json"]["headers"]["X-Pbem-Delivery"]
    assert all(x["headers"]["Idempotency-Key"] == x["headers"]["X-Pbem-Delivery"]
               for x in receiver.got)


def test_a_round_a_result_and_a_pause_are_posted_once_each(store, hooks_env, receiver):
    lid = league(store, players=4)
    webhooks.add(store, lid, OPERATOR, "json", receiver.url())
    start_season(store, lid, OPERATOR)
    gid = fixtures(store, lid)[0].game_id
    play_out(store, gid, seed=3)
    pause(store, lid, OPERATOR)
    resume(store, lid, OPERATOR)
    queue.drain(store)
    kinds = [x["body"]["kind"] for x in receiver.delivered()]
    assert kinds[0] == "round" and kinds.count("round") >= 1
    assert kinds.count("result") == 1 and "pause" in kinds and "resume" in kinds
    result = next(x["body"] for x in receiver.got if x["body"]["kind"] == "result")
    assert result["game"] == gid and len(result["sides"]) == 2
    assert all(isinstance(x["score"], int) for x in result["sides"])
    assert f"(game {gid})" in result["text"] and " won." in result["text"]
    assert not [x for x in receiver.got if CARD.search(json.dumps(x["body"]))]
    ids = [x["body"]["id"] for x in receiver.got]
    assert len(ids) == len(set(ids))
    assert queue.drain(store, now=later(600)) == 0


def test_a_duplicate_rounds_results_wait_for_the_round_to_end(store, hooks_env, receiver):
    rules = preset("standard").with_options(max_hands=1, target=1000)
    lid = league(store, players=8, entry="pair", pairing="duplicate", rules=rules, rounds=2)
    webhooks.add(store, lid, OPERATOR, "json", receiver.url())
    start_season(store, lid, OPERATOR)
    first, *rest = [f.game_id for f in fixtures(store, lid) if f.round == 1]
    play_out(store, first, seed=1)
    queue.drain(store)
    assert [x["body"]["kind"] for x in receiver.got] == ["round"]  # no result: hidden
    for gid in rest:
        play_out(store, gid, seed=gid)
    queue.drain(store)
    kinds = [x["body"]["kind"] for x in receiver.got]
    assert kinds.count("result") == 1 + len(rest) and kinds.count("round") == 2
    games = {x["body"]["game"] for x in receiver.got if x["body"]["kind"] == "result"}
    assert games == {first, *rest}
    assert not [x for x in receiver.got if CARD.search(json.dumps(x["body"]))]


# -- retries ---------------------------------------------------------------------------------


def test_a_500_and_a_receiver_that_is_down_are_tried_again(store, hooks_env, receiver):
    lid = league(store, players=4)
    webhooks.add(store, lid, OPERATOR, "slack", receiver.url())
    care.message(store, lid, OPERATOR, "One", "the first")
    receiver.script = [(500, {})]
    assert queue.drain(store) == 0
    [row] = posts(store)
    assert row.state == "queued" and row.last_error == "HTTP 500" and row.attempts == 1
    assert queue.drain(store) == 0  # not due yet: backoff
    assert queue.drain(store, now=later(1)) == 1
    assert [x["status"] for x in receiver.got] == [500, 200]
    care.message(store, lid, OPERATOR, "Two", "the second")
    receiver.stop()  # down: no answer at all
    assert queue.drain(store, now=later(2)) == 0
    assert posts(store)[1].last_error.startswith("no answer")
    receiver.start()  # back on the same port
    assert queue.drain(store, now=later(2)) == 0 and queue.drain(store, now=later(10)) == 1
    texts = [x["body"]["text"] for x in receiver.delivered()]
    assert texts == ["Test League: One\n\nthe first", "Test League: Two\n\nthe second"]
    assert [r.state for r in posts(store)] == ["sent", "sent"]


def test_a_429_waits_as_long_as_retry_after_says(store, hooks_env, receiver):
    lid = league(store, players=4)
    webhooks.add(store, lid, OPERATOR, "discord", receiver.url())
    care.message(store, lid, OPERATOR, "Hi", "there")
    now = utcnow()
    receiver.script = [(429, {"Retry-After": "300"})]
    assert queue.drain(store, now=now) == 0
    [row] = posts(store)
    assert abs((row.next_attempt - now).total_seconds() - 300) < 1  # not the 30 s backoff
    assert queue.drain(store, now=now + timedelta(seconds=290)) == 0
    assert queue.drain(store, now=now + timedelta(seconds=301)) == 1
    assert len(receiver.got) == 2 and len(receiver.delivered()) == 1


def test_a_404_gives_up_after_a_few_tries_and_the_organiser_sees_it(store, hooks_env,
                                                                      receiver, client):
    lid = league(store, players=4)
    webhooks.add(store, lid, OPERATOR, "json", receiver.url())
    care.message(store, lid, OPERATOR, "Hi", "there")
    receiver.script = [(404, {})] * 10
    for minutes in (0, 10, 30, 60, 120):
        queue.drain(store, now=later(minutes))
    assert len(receiver.got) == queue.MAX_REFUSED
    [row] = posts(store)
    assert row.state == "failed" and row.last_error == "HTTP 404"
    [shown] = webhooks.listed(store, lid, OPERATOR)
    assert shown.failed == 1 and shown.last_error == "HTTP 404" and shown.queued == 0
    with store.reader() as s:
        token = s.get(League, lid).admin_token
    page = html.unescape(client.get(f"/o/{token}").text)
    assert "1 given up" in page and "last failure: HTTP 404" in page
    out = CliRunner().invoke(main, ["league", "webhook", "list", str(lid)])
    assert "1 given up" in out.output and "HTTP 404" in out.output


def test_two_drainers_at_once_post_each_news_once(store, hooks_env, receiver):
    lid = league(store, players=4)
    webhooks.add(store, lid, OPERATOR, "json", receiver.url())
    n = 8
    with store.session() as s:
        for i in range(n):
            queue.queue(s, lid, {"id": f"test:{i}", "kind": "test", "text": f"news {i}"})
        s.commit()
    done: list[int] = []
    threads = [threading.Thread(target=lambda: done.append(queue.drain(store)))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(done) == n and len(receiver.got) == n
    assert len({x["body"]["id"] for x in receiver.got}) == n


def test_a_drainer_that_died_mid_post_leaves_its_post_for_later(store, hooks_env, receiver):
    """Its claim runs out, and the next drain (a new process: a new store) posts it."""
    from pbem.config import load
    from pbem.store.states import Store

    lid = league(store, players=4)
    webhooks.add(store, lid, OPERATOR, "json", receiver.url())
    care.message(store, lid, OPERATOR, "Hi", "there")
    now = utcnow()
    [row] = posts(store)
    assert queue._claim(store, row, now, load()) is not None  # then it died
    again = Store(store.url)
    assert queue.drain(again, now=now) == 0 and receiver.got == []
    assert queue.drain(again, now=now + timedelta(seconds=2) + queue.SPARE
                       + timedelta(seconds=2)) == 1
    assert len(receiver.got) == 1


def test_the_sender_loop_outlives_a_lost_database(store, hooks_env, receiver, caplog):
    lid = league(store, players=4)
    webhooks.add(store, lid, OPERATOR, "json", receiver.url())
    with store.engine.begin() as c:  # the queue's table is gone, as a database away is
        c.execute(text("ALTER TABLE webhook_post RENAME TO webhook_post_away"))
    stop = threading.Event()
    loop = threading.Thread(target=post_until, args=(stop, store, 0.05, 0.05))
    loop.start()
    try:
        time.sleep(0.5)
        assert loop.is_alive() and "webhooks could not be posted" in caplog.text
        with store.engine.begin() as c:
            c.execute(text("ALTER TABLE webhook_post_away RENAME TO webhook_post"))
        care.message(store, lid, OPERATOR, "Back", "again")
        for _ in range(100):
            if receiver.got:
                break
            time.sleep(0.05)
    finally:
        stop.set()
        loop.join()
    assert [x["body"]["subject"] for x in receiver.got] == ["Back"]


# -- the URL is a secret -----------------------------------------------------------------------


def test_the_url_never_shows_after_it_is_added(store, hooks_env, receiver, client, caplog,
                                               tmp_path):
    caplog.set_level(logging.DEBUG)
    lid = league(store, players=4)
    with store.reader() as s:
        token = s.get(League, lid).admin_token
    o = f"/o/{token}"
    r = client.post(f"{o}/webhook", data={"kind": "slack", "url": receiver.url(),
                                          "csrf": csrf(client)}, follow_redirects=True)
    assert "Webhook 1 added (127.0.0.1 ...5b4a" in html.unescape(r.text)
    out = CliRunner().invoke(main, ["league", "webhook", "add", str(lid), "discord", "-"],
                             input=receiver.url("/other") + "\n")
    assert out.exit_code == 0, out.output
    receiver.script = [(500, {})]
    care.message(store, lid, OPERATOR, "Hi", "there")
    queue.drain(store)
    queue.drain(store, now=later(5))
    listing = CliRunner().invoke(main, ["league", "webhook", "list", str(lid)]).output
    page = client.get(o).text
    refused = client.post(f"{o}/webhook", data={"kind": "nope", "url": receiver.url(),
                                                "csrf": csrf(client)}, follow_redirects=True)
    files = export_league(store, lid, whole=True)
    with store.reader() as s:
        boss = s.exec(select(Player).where(Player.email == ORGANISER)).one()
    mine = json.dumps(player_data(store, boss.id), default=str)
    assert "127.0.0.1 ...5b4a" in page and "127.0.0.1 ...5b4a" in listing
    for where in (page, listing, refused.text, out.output, caplog.text, mine,
                  *files.values()):
        assert SECRET not in where and SECRET[-8:] not in where
    assert len(receiver.got) == 3  # and it was posted to all the same


# -- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:9/x", "https://127.0.0.1/x", "https://localhost/x", "https://10.1.2.3/x",
    "https://192.168.0.1/x", "https://169.254.169.254/latest", "https://[::1]/x",
    "https://[::ffff:127.0.0.1]/x", "http://example.org/x", "ftp://example.org/x",
    "https://user:pw@8.8.8.8/x", "https://8.8.8.8/" + "x" * 500, "https:///x", "",
    "https://8.8.8.8/a b"])
def test_private_loopback_and_odd_addresses_are_refused(store, url, monkeypatch):
    monkeypatch.delenv("PBEM_WEBHOOK_LOOPBACK", raising=False)
    lid = league(store, players=0)
    with pytest.raises(LeagueError, match="refused|characters") as e:
        webhooks.add(store, lid, OPERATOR, "json", url)
    assert not url or url not in str(e.value)
    with store.reader() as s:
        assert s.exec(select(Webhook)).all() == []


def test_a_public_address_passes_the_check():
    assert webhooks.check_url("discord", "https://8.8.8.8/api/webhooks/1/abcd", False) == \
        "8.8.8.8 ...abcd"


def test_a_hook_whose_host_is_no_longer_allowed_gets_no_post(store, hooks_env, receiver,
                                                              monkeypatch):
    """The check is made again at each post (DNS may have changed): loopback refused."""
    lid = league(store, players=4)
    webhooks.add(store, lid, OPERATOR, "json", receiver.url())
    care.message(store, lid, OPERATOR, "Hi", "there")
    monkeypatch.delenv("PBEM_WEBHOOK_LOOPBACK")
    assert queue.drain(store) == 0 and receiver.got == []
    assert posts(store)[0].last_error.startswith("refused")


def test_at_most_five_a_league(store, hooks_env, receiver):
    lid = league(store, players=0)
    for i in range(webhooks.MAX_HOOKS):
        webhooks.add(store, lid, OPERATOR, "json", receiver.url(f"/h{i}"))
    with pytest.raises(LeagueError, match="5 webhooks"):
        webhooks.add(store, lid, OPERATOR, "json", receiver.url("/h9"))
    first = webhooks.listed(store, lid, OPERATOR)[0].id
    webhooks.remove(store, lid, OPERATOR, first)
    with pytest.raises(LeagueError, match="already"):
        webhooks.add(store, lid, OPERATOR, "json", receiver.url("/h2"))
    webhooks.add(store, lid, OPERATOR, "json", receiver.url("/h9"))  # room for one again
    assert len(webhooks.listed(store, lid, OPERATOR)) == webhooks.MAX_HOOKS


def test_the_organiser_page_adds_and_removes_its_own_webhooks(store, hooks_env, receiver,
                                                              client):
    lid, other = league(store, players=0), league(store, players=4)
    with store.reader() as s:
        mine, theirs = s.get(League, lid), s.get(League, other)
        someone = s.exec(select(Player.id).where(Player.email == "p0@league.test")).one()
    o, x = f"/o/{mine.admin_token}", f"/o/{theirs.admin_token}"
    ok = client.post(f"{o}/webhook", data={"kind": "matrix", "url": receiver.url(),
                                           "csrf": csrf(client)})
    assert ok.status_code == 303
    [hook] = webhooks.listed(store, lid, OPERATOR)
    # another league's organiser page cannot remove it, nor can a forged or missing token
    r = client.post(f"{x}/webhook/remove", data={"hook": str(hook.id), "csrf": csrf(client)},
                    follow_redirects=True)
    assert "has no webhook" in html.unescape(r.text)
    assert client.post(f"{o}/webhook/remove", data={"hook": str(hook.id),
                                                    "csrf": "forged"}).status_code == 400
    assert client.post(f"{o}/webhook/remove", data={"hook": str(hook.id)}).status_code == 400
    assert client.post(f"{o}/webhook", data={"kind": "json", "url": receiver.url("/f"),
                                             "csrf": "forged"}).status_code == 400
    assert client.post("/o/nosuchtoken/webhook/remove", data={
        "hook": str(hook.id), "csrf": csrf(client)}).status_code == 404
    assert client.post("/o/nosuchtoken/webhook", data={
        "kind": "json", "url": receiver.url("/g"), "csrf": csrf(client)}).status_code == 404
    assert [h.id for h in webhooks.listed(store, lid, OPERATOR)] == [hook.id]
    assert webhooks.listed(store, other, OPERATOR) == []
    # nor can another league's organiser by the services
    with pytest.raises(LeagueError, match="only the organiser"):
        webhooks.add(store, lid, someone, "json", receiver.url("/h"))
    with pytest.raises(LeagueError, match="only the organiser"):
        webhooks.remove(store, lid, someone, hook.id)
    assert organiser_id(store, lid) != someone
    r = client.post(f"{o}/webhook/remove", data={"hook": str(hook.id), "csrf": csrf(client)},
                    follow_redirects=True)
    assert "is removed" in html.unescape(r.text) and webhooks.listed(store, lid, OPERATOR) == []


# -- the request itself: TLS verified, the whole request timed ---------------------------------


def _cert(where) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    import ipaddress as ip
    from datetime import UTC, datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.now(UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(days=1)).not_valid_after(now + timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(
                ip.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = where / "cert.pem", where / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_file), str(key_file)


def test_https_is_verified_against_the_certificate(receiver, tmp_path, monkeypatch):
    """A receiver over TLS is posted to only when its certificate is trusted (here: made
    trusted through OpenSSL's SSL_CERT_FILE); an untrusted one gets nothing."""
    import ssl

    from pbem.store.webhook_http import Request, post

    cert, key = _cert(tmp_path)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    server = receiver.server
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    url = f"https://127.0.0.1:{receiver.port}/tls/{SECRET}"
    with pytest.raises(OSError, match="CERTIFICATE_VERIFY_FAILED|certificate verify"):
        post(Request(url, b"{}", timeout=3, loopback=True))
    assert receiver.got == []
    monkeypatch.setenv("SSL_CERT_FILE", cert)
    assert post(Request(url, b'{"text": "hi"}', timeout=3, loopback=True)).status == 200
    assert [x["body"] for x in receiver.got] == [{"text": "hi"}]


def test_a_receiver_that_drips_its_answer_is_cut_at_the_timeout():
    """Every read gets a byte in time, yet the whole request ends at the timeout."""
    import socket

    from pbem.store.webhook_http import Request, post

    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def drip():
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            while not stop.is_set():
                try:
                    conn.sendall(b"X-Slow: y\r\n")
                except OSError:
                    return
                stop.wait(0.2)

    threading.Thread(target=drip, daemon=True).start()
    started = time.monotonic()
    try:
        with pytest.raises(OSError):
            post(Request(f"http://127.0.0.1:{listener.getsockname()[1]}/x", b"{}",
                         timeout=1, loopback=True))
        assert time.monotonic() - started < 3
    finally:
        stop.set()
        listener.close()


def test_the_organiser_page_with_a_webhook_in_a_browser(chromium, axe, tmp_path):  # noqa: F811
    """At a phone's width and a desktop's: the webhook's host and last characters, never
    its URL; no accessibility fault (axe-core); and its Remove button removes it."""
    from tests.browser_helpers import serve
    from tests.test_browser_look import faults

    with serve(tmp_path) as (site, app):
        store = app.config["PBEM_STORE"]
        lid = league(store, players=0)
        webhooks.add(store, lid, OPERATOR, "discord",
                     f"https://8.8.8.8/api/webhooks/1/{SECRET}")  # a public address: no post
        with store.reader() as s:
            token = s.get(League, lid).admin_token
        for width in (390, 1280):
            page = chromium.new_page(viewport={"width": width, "height": 900})
            page.goto(f"{site}/o/{token}")
            assert "8.8.8.8 ...5b4a" in page.inner_text("table.webhooks")
            assert SECRET[:-4] not in page.content()
            assert faults(page, axe, width) == []
        with page.expect_navigation():
            page.locator("table.webhooks").get_by_role("button", name="Remove").click()
        assert "is removed" in page.locator('p.notice[role="status"]').inner_text()
        assert page.locator("table.webhooks").count() == 0
        assert webhooks.listed(store, lid, OPERATOR) == []
