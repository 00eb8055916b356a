"""A lost database does not kill `pbem serve` (issue 12): with PostgreSQL out of reach (a
proxy in front of it closes), mail is answered 451 so senders retry, pages say to come
back, the outbox loop waits, and all of it resumes alone when the database answers again.
The proxy is real TCP on this machine; PostgreSQL itself keeps running for other tests.

A database that falls silent (issue 29: a host gone, a firewall dropping) is a black hole
made for real: the proxy listens in a network namespace of its own, across a veth pair
whose far end is then set down, so the kernel drops every packet (no reset, no ACK) as a
lost host's network does. A user-space proxy that merely stops forwarding is no black hole
(its kernel still ACKs, and TCP's timeouts never fire). No test here logs a key."""

import ctypes
import os
import re
import signal
import smtplib
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from email.message import EmailMessage

import pytest
from sqlalchemy.engine import make_url
from sqlmodel import select

from pbem.store.models import League, Seat
from pbem.store.states import Store
from tests.league_helpers import ONE_HAND, league
from tests.mail_helpers import headline
from tests.test_serve import PBEM, free_port, messages, wait_for
from tests.web_helpers import humans_game, make_app, sent_mail

PG = os.environ.get("PBEM_TEST_DATABASE_URL")
needs_pg = pytest.mark.skipif(not PG, reason="needs PostgreSQL: set PBEM_TEST_DATABASE_URL")


class Proxy:
    """Forwards 127.0.0.1:port to the database; `cut()` refuses and drops every connection,
    `restore()` listens again on the same port."""

    def __init__(self, target: tuple[str, int]):
        self.target, self.port = target, free_port()
        self.socks: list[socket.socket] = []
        self.restore()

    def restore(self):
        self.listener = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def cut(self):
        listener, self.listener = self.listener, None
        if listener is not None:  # an accept() already waiting may take one (closed below)
            listener.close()
        for s in self.socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self.socks.clear()

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            if listener is not self.listener:  # taken after the cut: refused too
                client.close()
                return
            upstream = socket.create_connection(self.target)
            self.socks += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def reply(turn, message_id):
    msg = EmailMessage()
    msg["From"], msg["To"] = "ann@example.org", turn["Reply-To"]
    msg["Subject"], msg["Message-ID"] = "Re: " + turn["Subject"], message_id
    msg["In-Reply-To"] = turn["Message-ID"]
    msg.set_content("nil\n")
    return msg


def page_status(url) -> int:
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


@needs_pg
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)  # the proxy fronts it
def test_serve_waits_out_a_lost_database_and_resumes(db_url, tmp_path):
    url = make_url(db_url)
    proxy = Proxy((url.host, url.port or 5432))
    via = url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    smtp, web = free_port(), free_port()
    env = dict(os.environ, PBEM_VAR_DIR=str(tmp_path), PBEM_SMTP_PORT=str(smtp),
               PBEM_WEB_PORT=str(web), PBEM_BASE_URL=f"http://127.0.0.1:{web}",
               DATABASE_URL=via)
    subprocess.run(PBEM + ["game", "new", "--seat", "ann@example.org", "--seat", "robot",
                           "--seat", "robot", "--seat", "robot", "--first-dealer", "3"],
                   env=env, capture_output=True, text=True, check=True)
    server = subprocess.Popen(PBEM + ["serve"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        turn = wait_for(lambda: [m for m in messages(tmp_path / "mail")
                                 if "your turn" in headline(m)])[0]
        assert page_status(f"http://127.0.0.1:{web}/") == 200

        proxy.cut()
        with smtplib.SMTP("127.0.0.1", smtp, timeout=30) as c:
            with pytest.raises(smtplib.SMTPException) as refused:
                c.send_message(reply(turn, "<away@example.org>"))
        assert "451" in str(refused.value)
        assert page_status(f"http://127.0.0.1:{web}/") == 503
        threading.Event().wait(6)  # three tries of the outbox loop while it is away
        assert server.poll() is None, server.stderr.read()

        proxy.restore()
        with smtplib.SMTP("127.0.0.1", smtp, timeout=30) as c:
            c.send_message(reply(turn, "<back@example.org>"))
        wait_for(lambda: [m for m in messages(tmp_path / "mail")  # the answer to it, sent
                          if m["In-Reply-To"] == "<back@example.org>"], seconds=90)
        assert page_status(f"http://127.0.0.1:{web}/") == 200
    finally:
        err = stopped(server)
        proxy.cut()
    no_secret_in(err, [re.search(r"play\+([a-z0-9]+)@", turn["Reply-To"]).group(1),
                       *re.findall(r"/m/([A-Za-z0-9_.\-]{12,})", text(turn))])


def via(db_url: str, host: str, port: int) -> str:
    """`db_url` (its schema too) reached at host:port."""
    return make_url(db_url).set(host=host, port=port).render_as_string(hide_password=False)


def secrets_in(store, tmp_path) -> list[str]:
    """Every key the site holds: seats' tokens, organisers' and join keys, and the signed
    links of the mails sent (from the Maildir)."""
    with store.reader() as s:
        keys = list(s.exec(select(Seat.token)).all())
        for lg in s.exec(select(League)).all():
            keys += [lg.admin_token, lg.join_token]
    for m in messages(tmp_path / "mail"):
        keys += re.findall(r"/(?:m|c|u|t)/([A-Za-z0-9_.\-]{12,})", text(m))
        keys += re.findall(r"play\+([a-z0-9]+)@", m.as_string())
    return sorted({k for k in keys if k})


def text(msg) -> str:
    """A mail as its reader sees it: its headers and every text part decoded."""
    parts = [p.get_payload(decode=True).decode() for p in msg.walk()
             if p.get_content_maintype() == "text"]
    return "\n".join([str(msg.items()), *parts])


def no_secret_in(text: str, keys: list[str]) -> None:
    assert keys
    for key in keys:
        assert key not in text, f"a key in the log: ...{key[:6]}"


@needs_pg
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)  # the proxy fronts it
def test_every_page_answers_503_while_the_database_is_away_and_logs_no_key(
        db_url, tmp_path, monkeypatch, caplog, capfd):
    """Whatever layer meets the lost database (the driver under Store.quick_rows, a seat's
    page and its /seq; SQLAlchemy under the ORM's; the pad read by a reader not signed in),
    the page is the 503 with Retry-After, never a 500 whose log names the seat's token."""
    proxy = Proxy(("127.0.0.1", make_url(PG).port or 5432))
    store = Store(via(db_url, "127.0.0.1", proxy.port))
    app = make_app(store, tmp_path, monkeypatch)  # the settings the mails are signed with
    gid = humans_game(store, ONE_HAND)
    lg = league(store, players=4)
    app.testing = False  # as served: an error is a page and a log line, not raised here
    sent_mail(store, tmp_path)
    keys = secrets_in(store, tmp_path)
    with store.reader() as s:
        token = s.exec(select(Seat.token).where(Seat.game_id == gid)).first()
        admin = s.get(League, lg).admin_token
    link = next(k for m in messages(tmp_path / "mail")  # a mailed move link
                for k in re.findall(r"/m/([A-Za-z0-9_.\-]{12,})", text(m)))
    pages = [f"/t/{token}", f"/t/{token}/seq", f"/api/t/{token}", f"/o/{admin}", f"/m/{link}",
             "/", f"/g/{gid}", f"/api/g/{gid}", "/l"]
    client = app.test_client()
    assert [client.get(p).status_code for p in pages[:2]] == [200, 200]  # connections made
    assert app.test_client().get(f"/g/{gid}").status_code == 200  # the pad, rendered
    try:
        proxy.cut()
        for path in pages:
            got = client.get(path)
            assert (path, got.status_code) == (path, 503), got.get_data(as_text=True)[-300:]
            assert got.headers["Retry-After"] == "60"
        anyone = app.test_client().get(f"/g/{gid}")  # no cookie: a rendered pad, all the same
        assert (anyone.status_code, anyone.headers["Retry-After"]) == (503, "60")
        assert client.get("/live.js").status_code == 200
    finally:
        proxy.cut()
        store.engine.dispose()
    no_secret_in(caplog.text + "".join(capfd.readouterr()), keys)
    assert "Exception on" not in caplog.text  # no 500 at all


class BlackHole(Proxy):
    """The proxy, listening in a network namespace of its own behind a veth pair
    (root: ip netns, veth); `silence()` sets the far end down, `restore()` up again."""

    CLONE_NEWNET = 0x40000000

    def __init__(self, target: tuple[str, int]):
        n = os.getpid() % 100_000  # names and a subnet of this process's own
        self.ns, self.near, self.far = f"pbh{n}", f"pbh{n}a", f"pbh{n}b"
        net = f"10.{200 + n % 50}.{n // 50 % 250}"
        self.host, self.listener, self.socks = f"{net}.2", None, []
        try:
            for cmd in (f"ip netns add {self.ns}",
                        f"ip link add {self.near} type veth peer name {self.far} "
                        f"netns {self.ns}",
                        f"ip addr add {net}.1/30 dev {self.near}", f"ip link set {self.near} up",
                        f"ip -n {self.ns} addr add {self.host}/30 dev {self.far}",
                        f"ip -n {self.ns} link set {self.far} up"):
                self._ip(cmd)
            super().__init__(target)
        except OSError:
            self.remove()
            raise

    @staticmethod
    def _ip(cmd: str) -> None:
        done = subprocess.run(cmd.split(), capture_output=True, text=True)
        if done.returncode:
            raise OSError(f"{cmd}: {done.stderr.strip()}")

    def restore(self):
        if self.listener is not None:  # the listener stays; the link comes back
            self._ip(f"ip -n {self.ns} link set {self.far} up")
            return
        made = []
        thread = threading.Thread(target=self._listen, args=(made,))  # setns: its thread only
        thread.start()
        thread.join()
        self.listener = made[0]
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def _listen(self, made: list) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(f"/run/netns/{self.ns}", os.O_RDONLY)
        try:
            if libc.setns(fd, self.CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns")
        finally:
            os.close(fd)
        made.append(socket.create_server((self.host, self.port)))

    def silence(self):
        self._ip(f"ip -n {self.ns} link set {self.far} down")

    def remove(self):
        self.cut()
        for cmd in (["ip", "link", "del", self.near],  # both ends, now (its namespace may
                    ["ip", "netns", "del", self.ns]):  # outlive it a while: orphaned sockets)
            subprocess.run(cmd, capture_output=True)


def stopped(server) -> str:
    """Stop `pbem serve` (killed if Ctrl-C does not end it in time); its stderr."""
    if server is None:
        return ""
    server.send_signal(signal.SIGINT)
    try:
        return server.communicate(timeout=30)[1]
    except subprocess.TimeoutExpired:
        server.kill()
        return server.communicate()[1]


def black_hole(target) -> BlackHole:
    if os.geteuid() != 0:
        pytest.skip("a black hole needs root (a network namespace and a veth pair)")
    try:
        return BlackHole(target)
    except OSError as e:
        pytest.skip(f"no network namespace here: {e}")


def timed(what, limit: float):
    """what()'s result and its seconds, which must be under `limit`."""
    t = time.monotonic()
    got = what()
    took = time.monotonic() - t
    assert took < limit, f"took {took:.1f} s"
    return got, took


def data(client: smtplib.SMTP, msg) -> int:
    """The answer's code to DATA on a connection whose RCPT was taken."""
    try:
        return client.data(msg.as_bytes())[0]
    except smtplib.SMTPDataError as e:
        return e.smtp_code
    finally:
        client.close()


def mailed(smtp: int, msg) -> int:
    """The SMTP answer's code to `msg` (at RCPT or at DATA)."""
    try:
        with smtplib.SMTP("127.0.0.1", smtp, timeout=30) as c:
            c.send_message(msg)
        return 250
    except smtplib.SMTPRecipientsRefused as e:
        return next(code for code, _ in e.recipients.values())
    except smtplib.SMTPResponseException as e:
        return e.smtp_code


@needs_pg
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_silent_database_gives_503_and_451_within_seconds_and_recovers_alone(
        db_url, tmp_path):
    """`pbem serve` on PostgreSQL through a black hole: pages answer 503 and SMTP 451 in
    under 15 s (the libpq timeouts, pbem.store.db.pg_timeouts), /live.js is served all the
    while, and when the database is back a page is 200 and a mail 250 again, alone. Its
    stderr names no key."""
    hole = black_hole(("127.0.0.1", make_url(PG).port or 5432))
    smtp, web = free_port(), free_port()
    env = dict(os.environ, PBEM_VAR_DIR=str(tmp_path), PBEM_SMTP_PORT=str(smtp),
               PBEM_WEB_PORT=str(web), PBEM_BASE_URL=f"http://127.0.0.1:{web}",
               DATABASE_URL=via(db_url, hole.host, hole.port))
    site = f"http://127.0.0.1:{web}"
    server = None
    try:
        subprocess.run(PBEM + ["game", "new", "--seat", "ann@example.org", "--seat", "robot",
                               "--seat", "robot", "--seat", "robot", "--first-dealer", "3"],
                       env=env, capture_output=True, text=True, check=True)
        server = subprocess.Popen(PBEM + ["serve"], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        turn = wait_for(lambda: [m for m in messages(tmp_path / "mail")
                                 if "your turn" in headline(m)])[0]
        token = re.search(r"play\+([a-z0-9]+)@", turn["Reply-To"]).group(1)
        assert page_status(f"{site}/t/{token}") == 200

        held = smtplib.SMTP("127.0.0.1", smtp, timeout=30)  # RCPT taken: DATA meets the hole
        held.ehlo()
        held.mail("ann@example.org")
        assert held.rcpt(turn["Reply-To"])[0] == 250

        hole.silence()
        script = threading.Thread(target=lambda: served.extend(
            timed(lambda: page_status(f"{site}/live.js"), 2)[0] for _ in range(10)))
        served: list[int] = []
        script.start()  # while every page below waits on the database
        answers = [timed(lambda p=p: page_status(site + p), 15)
                   for p in (f"/t/{token}", f"/t/{token}/seq", "/")]
        refused, took = timed(lambda: mailed(smtp, reply(turn, "<silent@example.org>")), 15)
        later, data_took = timed(lambda: data(held, reply(turn, "<held@example.org>")), 15)
        script.join()
        assert [code for code, _ in answers] == [503, 503, 503]
        assert (refused, later) == (451, 451)
        assert served == [200] * 10
        print("silent database: pages", [round(t, 1) for _, t in answers], "s, SMTP at RCPT",
              round(took, 1), "s, at DATA", round(data_took, 1), "s")

        hole.restore()
        wait_for(lambda: page_status(f"{site}/t/{token}") == 200, seconds=20)
        wait_for(lambda: mailed(smtp, reply(turn, "<back@example.org>")) == 250,
                 seconds=20)
    finally:
        hole.remove()
        err = stopped(server)
    no_secret_in(err, [token, *re.findall(r"/m/([A-Za-z0-9_.\-]{12,})", text(turn))])


def test_an_unexpected_error_is_logged_with_the_paths_key_masked(app, store, caplog, capfd):
    """Flask's own line was `Exception on /t/<the token> [GET]`; the traceback's text is
    masked too (an error may quote what it was given)."""
    gid = humans_game(store, ONE_HAND)
    with store.reader() as s:  # closed: an open reader's locks would hold the schema's drop
        token = s.exec(select(Seat.token).where(Seat.game_id == gid)).first()

    def fails(token):
        raise RuntimeError(f"no luck with play+{token}@pbem.test at /t/{token}")

    app.add_url_rule("/t/<token>/fails", view_func=fails)  # a page's bug, as served
    app.testing = False
    assert app.test_client().get(f"/t/{token}/fails").status_code == 500
    assert "Exception on /t/.../fails [GET]" in caplog.text
    assert "play+...@pbem.test at /t/..." in caplog.text
    no_secret_in(caplog.text + "".join(capfd.readouterr()), [token])


@needs_pg
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_postgresql_connections_carry_the_timeouts_and_the_urls_own_win(db_url, monkeypatch):
    """The server-side limits are set on every connection (a setting changes them), and a
    libpq parameter the URL names itself is kept as it says."""
    from sqlalchemy import text as sql

    from pbem.store.db import make_engine, pg_timeouts

    monkeypatch.setenv("PBEM_DB_STATEMENT_TIMEOUT", "7")
    engine = make_engine(db_url)
    try:
        with engine.connect() as c:
            shown = [c.execute(sql(f"SHOW {name}")).scalar() for name in
                     ("statement_timeout", "idle_in_transaction_session_timeout")]
            assert c.execute(sql("SELECT count(*) FROM game")).scalar() == 0  # its schema
    finally:
        engine.dispose()
    assert shown == ["7s", "1min"]
    own = pg_timeouts(db_url + "&connect_timeout=10&options=-c%20statement_timeout%3D5000")
    assert "connect_timeout" not in own and own["tcp_user_timeout"] == 4000
    assert own["options"].count("statement_timeout") == 1
