"""A lost database does not kill `pbem serve` (issue 12): with PostgreSQL out of reach (a
proxy in front of it closes), mail is answered 451 so senders retry, pages say to come
back, the outbox loop waits, and all of it resumes alone when the database answers again.
The proxy is real TCP on this machine; PostgreSQL itself keeps running for other tests."""

import os
import signal
import smtplib
import socket
import subprocess
import threading
import urllib.error
import urllib.request
from email.message import EmailMessage

import pytest
from sqlalchemy.engine import make_url

from tests.mail_helpers import headline
from tests.test_serve import PBEM, free_port, messages, wait_for

PG = os.environ.get("PBEM_TEST_DATABASE_URL")
pytestmark = pytest.mark.skipif(not PG, reason="needs PostgreSQL: set PBEM_TEST_DATABASE_URL")


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
        listener.close()  # an accept() already waiting may still take one (closed below)
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
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        proxy.cut()
