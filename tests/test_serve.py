"""`pbem serve` as the README runs it: a real process, real SMTP in, mail out."""

import mailbox
import os
import re
import signal
import smtplib
import socket
import subprocess
import sys
import time
import urllib.request
from email.message import EmailMessage
from pathlib import Path

from aiosmtpd.controller import Controller

from pbem.serve import smtp_delivery
from pbem.store.models import Outbox
from tests.mail_helpers import done_line, headline

PBEM = [sys.executable, "-m", "pbem.cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(check, seconds=20.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("timed out waiting")


def messages(maildir: Path):
    """The Maildir's messages; [] while the server is moving one into it (then ask again)."""
    if not (maildir / "new").exists():
        return []
    try:
        return list(mailbox.Maildir(str(maildir), create=False))
    except FileNotFoundError:  # a file renamed from tmp/ to new/ between listing and reading
        return []


def init_site(env: dict) -> None:
    """`pbem init` in env's data directory: a new site, as an operator makes one."""
    subprocess.run(PBEM + ["init"], env=env, capture_output=True, check=True)


def test_serve_answers_a_move_by_mail(tmp_path):
    port, web = free_port(), free_port()
    env = dict(os.environ, PBEM_VAR_DIR=str(tmp_path), PBEM_SMTP_PORT=str(port),
               PBEM_WEB_PORT=str(web), PBEM_BASE_URL=f"http://127.0.0.1:{web}")
    env.pop("DATABASE_URL", None)
    init_site(env)
    new = subprocess.run(PBEM + ["game", "new", "--seat", "ann@example.org", "--seat", "robot",
                                 "--seat", "robot", "--seat", "robot", "--first-dealer", "3"],
                         env=env, capture_output=True, text=True, check=True)
    assert "game 1" in new.stdout.lower() or "1" in new.stdout
    server = subprocess.Popen(PBEM + ["serve"], env=env, stdout=subprocess.PIPE, text=True)
    try:
        turn = wait_for(lambda: [m for m in messages(tmp_path / "mail")
                                 if "your turn" in headline(m)])[0]
        reply = EmailMessage()
        reply["From"], reply["To"] = "ann@example.org", turn["Reply-To"]
        reply["Subject"], reply["Message-ID"] = "Re: " + turn["Subject"], "<r1@example.org>"
        reply["In-Reply-To"] = turn["Message-ID"]
        reply.set_content("bid 3\n")
        wait_for(lambda: _port_open(port))
        with smtplib.SMTP("127.0.0.1", port) as smtp:
            assert smtp.send_message(reply) == {}
        done = wait_for(lambda: [m for m in messages(tmp_path / "mail")
                                 if done_line(m) == "Game 1: you bid 3"])[0]
        assert "bid 3: done" in done.get_payload()[0].get_payload(decode=True).decode()
        assert done["To"] == "ann@example.org"
        # the same process serves the table the turn mail links to
        html = turn.get_payload()[1].get_payload(decode=True).decode()
        table = re.search(r'href="(http://127\.0\.0\.1:\d+/t/[a-z0-9]+)"', html).group(1)
        with urllib.request.urlopen(table, timeout=10) as page:
            assert page.status == 200 and "Your hand" in page.read().decode()
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=20)


def _port_open(port) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class _Sink:
    def __init__(self):
        self.got = []

    async def handle_DATA(self, server, session, envelope):
        self.got.append((envelope.rcpt_tos, envelope.content))
        return "250 OK"


def test_the_outbox_goes_through_an_smtp_relay():
    sink, port = _Sink(), free_port()
    relay = Controller(sink, hostname="127.0.0.1", port=port)
    relay.start()
    try:
        row = Outbox(to_addr="ann@example.org", subject="hello", body_text="hi there\n",
                     headers={"Reply-To": "play+abc@pbem.test"}, dedupe_key="k1")
        smtp_delivery(f"smtp://127.0.0.1:{port}", "pbem.test")(row)
    finally:
        relay.stop()
    [(rcpts, content)] = sink.got
    assert rcpts == ["ann@example.org"]
    assert b"Reply-To: play+abc@pbem.test" in content and b"hi there" in content


def test_pbem_clock_fires_a_due_deadline(tmp_path):
    """The dedicated clock process: a deadline already due is handled by its first tick."""
    from datetime import timedelta

    from sqlmodel import select

    from pbem.store.models import Deadline, Move
    from pbem.store.states import Store

    env = dict(os.environ, PBEM_VAR_DIR=str(tmp_path))
    env.pop("DATABASE_URL", None)
    init_site(env)
    subprocess.run(PBEM + ["game", "new", "--seat", "ann@example.org", "--seat", "robot",
                           "--seat", "robot", "--seat", "robot", "--first-dealer", "3",
                           "--no-auto-vacation"],  # the robot moves at the timeout
                   env=env, check=True, capture_output=True)
    store = Store(f"sqlite:///{tmp_path / 'pbem.db'}")
    with store.session() as s:
        for row in s.exec(select(Deadline)).all():
            row.due = row.due - timedelta(days=4)  # as if the player had not answered
            s.add(row)
        s.commit()
    clock = subprocess.Popen(PBEM + ["clock", "--every", "0.2"], env=env,
                             stdout=subprocess.PIPE, text=True)
    try:
        def timed_out():
            with store.session() as s:
                return s.exec(select(Move).where(Move.source == "clock")).first()
        move = wait_for(timed_out)
        assert move.ref.startswith("timeout:") and move.actor == 0
    finally:
        clock.send_signal(signal.SIGINT)
        assert clock.wait(timeout=20) == 0
