"""docs/deploy.md's mail recipe, run: a real Postfix (Debian's, a private instance) in front
of pbem as contrib/postfix configures it, and pbem as contrib/systemd/pbem.service runs it.

A player's reply goes to Postfix's port 25 (here a free loopback port), through the
transport map to pbem's LMTP port, and moves the game; pbem's mail goes out through
Postfix's loopback listener (PBEM_SMTP_URL) into the player's Maildir, delivered by
Postfix, and its DKIM signature verifies there against the record `pbem dkim keygen`
printed. Without postfix (or root) the test skips, saying why; .ci/run installs it."""

import json
import os
import re
import shlex
import signal
import smtplib
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path

import dkim
import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.store.states import store_for
from tests.mail_helpers import headline, prefs
from tests.postfix_helpers import DOMAIN, GONE, PLAYERS, ROOT, Ports, missing, running
from tests.test_serve import free_port, messages, wait_for

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "")
ANN = f"ann@{PLAYERS}"
BO = f"bo@{GONE}"  # the test's Postfix takes mail to bo from pbem, then bounces it
UNIT = ROOT / "contrib" / "systemd" / "pbem.service"
PBEM = [sys.executable, "-m", "pbem.cli"]


def unit_command(unit: Path) -> list[str]:
    """The unit's ExecStart, with this checkout's pbem for the installed one."""
    [line] = [x for x in unit.read_text().splitlines() if x.startswith("ExecStart=")]
    program, *args = shlex.split(line.removeprefix("ExecStart="))
    assert program == "/opt/pbem/.venv/bin/pbem", program
    return PBEM + args


def pbem(env: dict, *args: str) -> str:
    """A pbem command with the site's settings, run here (a process each costs seconds)."""
    done = CliRunner().invoke(main, list(args), env=env)
    assert done.exit_code == 0, done.output
    return done.output


def txt_record(printed: str):
    """A dnsfunc for dkimpy answering the DKIM record `pbem dkim keygen` printed."""
    name, _, rest = printed.partition(" IN TXT ")
    value = "".join(re.findall(r'"([^"]*)"', rest)).encode()

    def dns(asked: bytes, timeout: int = 5) -> bytes:
        return value if asked.decode() == name else b""
    return dns


def arrived(box: Path, says: str):
    """A look for the mail in the Maildir whose first line says `says` (in any case: "Your
    turn to bid" where no news comes before it): its bytes and message."""
    def look():
        found = [m for m in messages(box) if says.lower() in headline(m).lower()]
        return (found[0].as_bytes(), found[0]) if found else None
    return look


def until(look, postfix, seconds: float = 20):
    """wait_for, with Postfix's log (and the server's) in the failure."""
    try:
        return wait_for(look, seconds)
    except AssertionError:
        raise AssertionError("timed out; Postfix's log:\n" + postfix.log()) from None


def test_a_reply_through_postfix_moves_the_game_and_the_answer_arrives_signed(tmp_path):
    ports = Ports(mx=free_port(), out=free_port(), lmtp=free_port(), gone=free_port())
    env = dict(os.environ, PBEM_VAR_DIR=str(tmp_path / "var"), PBEM_MAIL_DOMAIN=DOMAIN,
               PBEM_SMTP_PORT=str(ports.lmtp), PBEM_SMTP_URL=f"smtp://127.0.0.1:{ports.out}",
               PBEM_WEB_PORT=str(free_port()))
    env.pop("DATABASE_URL", None)
    here = {**env, "DATABASE_URL": None}  # CliRunner unsets what is None
    pbem(here, "init")  # the site, as docs/deploy.md makes it
    dns = txt_record(pbem(here, "dkim", "keygen").splitlines()[0])
    # ann bids first; bo's provider refuses every mail, after Postfix took it
    pbem(here, "game", "new", "--seat", ANN, "--seat", "robot", "--seat", BO,
         "--seat", "robot", "--first-dealer", "3")
    with running(ports, mailboxes=["ann"]) as postfix:
        server = subprocess.Popen(unit_command(UNIT), env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        try:
            box = postfix.mailbox("ann")
            # the turn mail, delivered by Postfix (its Return-Path: our bounce address)
            raw, turn = until(arrived(box, "your turn to bid"), postfix)
            assert raw.startswith(b"Return-Path: <bounce+") and f"@{DOMAIN}>".encode() in raw
            assert dkim.verify(raw, dnsfunc=dns), postfix.log()
            reply = EmailMessage()
            reply["From"], reply["To"] = ANN, turn["Reply-To"]
            reply["Subject"], reply["In-Reply-To"] = "Re: " + turn["Subject"], turn["Message-ID"]
            reply.set_content("bid 3\n")
            with smtplib.SMTP("127.0.0.1", ports.mx, timeout=30) as mx:
                # an address pbem does not know is refused at RCPT, asked of pbem by Postfix
                mx.mail(ANN)
                assert mx.rcpt(f"play+nosuchseat@{DOMAIN}")[0] == 550, postfix.log()
                mx.rset()
                assert mx.send_message(reply) == {}
            raw, done = until(arrived(box, "Game 1: you bid 3"), postfix)
            assert dkim.verify(raw, dnsfunc=dns)
            assert not dkim.verify(raw.replace(b"bid 3", b"bid 4", 1), dnsfunc=dns)
            # the game's log holds the bid, made by the reply that came through Postfix
            log = [json.loads(x) for x in pbem(here, "game", "export", "1").splitlines()[1:]]
            assert {"type": "bid", "seat": 0, "bid": 3}.items() <= log[1].items()
            assert done["To"] == ANN
            # bo's turn mail bounced: Postfix's report to bounce+CODE@ went to pbem and counted
            store = store_for(f"sqlite:///{tmp_path / 'var' / 'pbem.db'}")
            bounced = until(lambda: prefs(store, BO).get("bounces"), postfix)
            assert bounced["hard"] == 1 and bounced["status"].startswith("5."), bounced
        finally:
            server.send_signal(signal.SIGINT)
            out, _ = server.communicate(timeout=20)
            print(out)
