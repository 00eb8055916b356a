"""The operator's log (pbem.logs, docs/operating.md): a line per mail in, mail out, move and
timeout, as text or JSON lines, and no key, token, signed link or player's address in any
line, whoever writes it (ours, aiosmtpd's, waitress's access log), even at DEBUG."""

import http.cookiejar
import io
import json
import re
import threading
import urllib.parse
import urllib.request
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import select

from pbem import logs
from pbem.clock import tick
from pbem.config import SettingError, load
from pbem.engine import preset
from pbem.store.games import create_game
from pbem.store.models import Deadline, Outbox, Player, Seat
from pbem.store.models import now as utcnow
from pbem.web.app import create_app
from pbem.web.server import make_server
from tests.mail_helpers import free_port, running

WHO = "wendeline.qx"  # the player's address' local part: in no line
ADDRESS = f"{WHO}@example.org"


class Played:
    """A game played a little by mail and on the web, through real servers, with what a
    log must never hold."""

    def __init__(self, store, env):
        self.store, self.env = store, env
        self.gid = create_game(store, preset("standard"), [ADDRESS, "robot", "robot", "robot"],
                               first_dealer=3)  # the player bids first
        from pbem.play import start

        start(store, self.gid)
        with store.session() as s:
            self.tokens = list(s.exec(select(Seat.token).where(Seat.game_id == self.gid)))
            self.key = s.exec(select(Player.account_key).where(Player.email == ADDRESS)).one()
        self.links: list[str] = []

    def by_mail(self, body: str = "bid 3\n") -> None:
        mail = self.env.mail(self.env.address(self.gid), body, frm=ADDRESS, subject="Re: go")
        assert self.env.send(mail)[0] == 250
        self.env.replies()  # the outbox sent: the mail-out lines

    def on_the_web(self, app) -> None:
        """The turn mail's first move link, as a browser follows it: the page, then its
        button, through waitress (the access log's lines too)."""
        with self.store.session() as s:
            rows = s.exec(select(Outbox).where(Outbox.to_addr == ADDRESS)
                          .order_by(Outbox.id.desc())).all()
        self.links = [m for r in rows for m in re.findall(r"/m/([A-Za-z0-9_.\-]+)",
                                                          r.body_html or "")]
        port = free_port()
        site = make_server("127.0.0.1", port, app)
        threading.Thread(target=site.run, daemon=True).start()
        try:
            browser = urllib.request.build_opener(
                urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
            base = f"http://127.0.0.1:{port}"
            browser.open(f"{base}/t/{self.tokens[0]}", timeout=20).read()
            page = browser.open(f"{base}/m/{self.links[0]}", timeout=20).read().decode()
            csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
            browser.open(f"{base}/m/{self.links[0]}", timeout=20,
                         data=urllib.parse.urlencode({"csrf": csrf}).encode()).read()
        finally:
            site.stop()
        self.env.replies()

    def secrets(self) -> list[str]:
        return [WHO, self.key, *self.tokens, *self.links]


@pytest.fixture
def logged(monkeypatch):
    """setup(...) into a buffer; the handler taken off again at the end."""
    import logging

    handlers = []

    def setup(**env):
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        buf = io.StringIO()
        handlers.append(logs.setup(load(), buf))
        return buf

    yield setup
    for h in handlers:
        logging.getLogger().removeHandler(h)
    logging.getLogger().setLevel(logging.WARNING)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_mail_and_web_moves_leave_lines_without_keys_or_addresses(store, monkeypatch, tmp_path,
                                                                  logged, fmt):
    with running(store, monkeypatch, tmp_path) as env:
        buf = logged(PBEM_LOG_LEVEL="debug", PBEM_LOG_FORMAT=fmt)
        played = Played(store, env)
        played.by_mail()
        played.on_the_web(create_app(load(), store, testing=True))
    log = buf.getvalue()
    for secret in played.secrets():
        assert secret not in log, (secret, log[-3000:])
    assert ADDRESS.split("@")[1] in log  # the sender's domain is what a line names
    if fmt == "json":
        lines = [json.loads(line) for line in log.splitlines()]  # every line is one object
        ours = {x["logger"]: x for x in lines if x["logger"].startswith("pbem.")}
        assert ours["pbem.mail.in"]["sender_domain"] == "example.org"
        assert ours["pbem.mail.in"]["outcome"] == "done"
        assert ours["pbem.mail.in"]["game"] == played.gid
        assert {x["source"] for x in lines if x["logger"] == "pbem.move"} >= {"mail", "web"}
        assert any(x["logger"] == "pbem.mail.out" and x["to_domain"] == "example.org"
                   for x in lines)
        assert any(x["logger"] == "pbem.web.access" for x in lines)
        return
    assert re.search(rf"pbem.mail.in: mail in from example.org, game {played.gid}: done "
                     r"\(\d+ ms\)", log), log[-3000:]
    assert re.search(rf"pbem.move: move in game {played.gid} by seat 0 from mail: ", log)
    assert re.search(rf"pbem.move: move in game {played.gid} by seat 0 from web: ", log)
    assert re.search(r"pbem.mail.out: mail out \d+ to example.org, game \d+: stored", log)
    assert '"GET /t/... HTTP/1.1" 200' in log  # the access log, through the same handler
    assert "...@example.org" in log  # aiosmtpd's MAIL FROM at DEBUG: its local part masked


def test_the_level_setting_keeps_lines_below_it_out(store, monkeypatch, tmp_path, logged):
    with running(store, monkeypatch, tmp_path) as env:
        buf = logged(PBEM_LOG_LEVEL="warning")
        Played(store, env).by_mail()
    assert "mail in from" not in buf.getvalue()


def test_at_info_a_mail_is_our_line_not_aiosmtpds_every_command(store, monkeypatch, tmp_path,
                                                                logged):
    with running(store, monkeypatch, tmp_path) as env:
        buf = logged(PBEM_LOG_LEVEL="info")
        Played(store, env).by_mail()
    log = buf.getvalue()
    assert "mail in from example.org" in log
    assert "mail.log" not in log, log  # its MAIL, RCPT, DATA... lines: at DEBUG only


@pytest.mark.parametrize("name,value", [("PBEM_LOG_LEVEL", "loud"),
                                        ("PBEM_LOG_FORMAT", "xml")])
def test_a_mistyped_log_setting_is_named(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingError, match=name):
        load()


def test_a_timeout_has_its_line(store, monkeypatch, tmp_path, logged):
    with running(store, monkeypatch, tmp_path) as env:
        buf = logged()
        played = Played(store, env)
        with store.session() as s:  # the player's timeout fell due a minute ago
            s.exec(update(Deadline).where(Deadline.game_id == played.gid,
                                          Deadline.kind == "timeout")
                   .values(due=utcnow() - timedelta(seconds=60)))
            s.commit()
        assert tick(store) >= 1
    assert re.search(rf"pbem.timeout: timeout in game {played.gid} for seat 0, 6\d s after "
                     r"it fell due: timeout: robot", buf.getvalue()), buf.getvalue()


def test_the_redaction_keeps_our_addresses_and_hides_players():
    line = ("to ann.b+x@mail.example.org from play+abc123@pbem.test via "
            "smtp://user:hunter2@relay.example.net (pbem@pbem.test, /t/abcdef "
            "bounce+1-xy@pbem.test, play@gmail.com)")
    assert logs.redact(line, "pbem.test") == (
        "to ...@mail.example.org from play+...@pbem.test via smtp://...@relay.example.net "
        "(pbem@pbem.test, /t/... bounce+...@pbem.test, ...@gmail.com)")
