"""Several receiving processes on one port (pbem.mail.workers): real worker processes on a
real port, on SQLite and PostgreSQL. Every mail lands exactly once however the connections
spread over the workers, when a worker is killed mid-run (the relay sends again, as a relay
does), and when the same mail reaches two processes at once."""

import os
import resource
import signal
import smtplib
import socket
import struct
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import select

from bench import mail as bench
from pbem.config import Settings
from pbem.mail.workers import FIRST_PAUSE, Workers
from pbem.store.models import Inbound, Move, Outbox
from tests.mail_helpers import done_line, free_port, headline
from tests.test_serve import PBEM, init_site, messages, wait_for

ATTEMPTS = 50  # a relay's tries of one mail before the test gives up on it
PYTHON = sys.executable


def settings(db_url, tmp_path) -> Settings:
    return Settings(var_dir=Path(tmp_path), database_url=db_url, mail_domain=bench.DOMAIN,
                    smtp_host="127.0.0.1", smtp_port=free_port())


@pytest.fixture
def pool(db_url, tmp_path):
    """Start Workers(cfg, n) on a free port; every pool started is stopped afterwards."""
    started = []

    def start(n: int, lmtp: bool = False) -> Workers:
        workers = Workers(settings(db_url, tmp_path), n, lmtp=lmtp)
        workers.start()
        started.append(workers)
        return workers

    yield start
    for workers in started:
        workers.stop()


class Relay:
    """One connection of a sending relay: a mail that gets a 4xx answer, or whose connection
    drops, is sent again on a new connection until it gets its 250 (a 5xx fails the test)."""

    def __init__(self, port: int):
        self.port, self.conn, self.retries = port, None, 0

    def send(self, sender: str, rcpt: str, raw: bytes) -> None:
        for _ in range(ATTEMPTS):
            try:
                if self.conn is None:
                    self.conn = smtplib.SMTP("127.0.0.1", self.port, timeout=60)
                self.conn.sendmail(sender, [rcpt], raw)
                return
            except (OSError, smtplib.SMTPServerDisconnected, smtplib.SMTPResponseException,
                    smtplib.SMTPRecipientsRefused) as e:
                if not _temporary(e):
                    raise
            self.retries += 1
            self.close()
            time.sleep(0.05)
        raise AssertionError(f"no 250 after {ATTEMPTS} tries")

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.quit()
            except (OSError, smtplib.SMTPException):
                self.conn.close()
            self.conn = None


def _temporary(e: Exception) -> bool:
    if isinstance(e, smtplib.SMTPResponseException):
        return 400 <= e.smtp_code < 500
    if isinstance(e, smtplib.SMTPRecipientsRefused):
        return all(400 <= code < 500 for code, _ in e.recipients.values())
    return True  # the connection dropped or was refused: a relay tries again


def play(store, port: int, connections: int, mails: int, meanwhile=None) -> list[Relay]:
    """`connections` relays at once, each sending `mails` moves of its own game; `meanwhile`
    (if given) is called with the count of mails answered so far until all are sent.
    Fails unless every mail is exactly one move (bench/mail.py's check)."""
    lanes = [bench.Players(store) for _ in range(connections)]
    relays = [Relay(port) for _ in range(connections)]
    done = Counter()

    def send(players, relay, i):
        for _ in range(mails):
            relay.send(*players.next_mail())
            done[i] += 1
        relay.close()

    threads = [threading.Thread(target=send, args=(p, r, i))
               for i, (p, r) in enumerate(zip(lanes, relays, strict=True))]
    for t in threads:
        t.start()
    while meanwhile and any(t.is_alive() for t in threads):
        meanwhile(sum(done.values()))
        time.sleep(0.02)
    for t in threads:
        t.join()
    assert sum(done.values()) == connections * mails
    bench.check(store, lanes, connections * mails)  # SystemExit if a mail is lost or doubled
    return relays


def test_many_mails_over_many_connections_land_once_each(store, pool):
    workers = pool(3)
    relays = play(store, workers.port, connections=6, mails=25)
    assert sum(r.retries for r in relays) == 0  # no 451: the writers waited their turns
    with store.reader() as s:
        by_game = Counter(m.game_id for m in s.exec(select(Move)) if m.source == "mail")
    assert sorted(by_game.values()) == [25] * 6


def test_a_killed_worker_is_restarted_and_no_mail_is_lost_or_doubled(store, pool):
    """Each worker in turn is SIGKILLed while four relays send; the relays send again what
    got no 250, and the parent starts a new worker in the dead one's place."""
    workers = pool(2)
    first = workers.pids()
    killed = []

    def kill(answered):
        if len(killed) < len(first) and answered >= 20 * (len(killed) + 1):
            os.kill(first[len(killed)], signal.SIGKILL)
            killed.append(first[len(killed)])

    relays = play(store, workers.port, connections=4, mails=25, meanwhile=kill)
    assert len(killed) == 2
    assert sum(r.retries for r in relays) >= 1  # some mail did go again
    deadline = time.monotonic() + 30
    while len(set(workers.pids()) - set(first)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    now = workers.pids()
    assert len(now) == 2 and not set(now) & set(first)
    assert all(_alive(pid) for pid in now)


def test_the_same_mail_to_two_processes_at_once_is_one_move_and_one_answer(store, pool):
    """Two receiving processes (two pools of one, so that the two deliveries surely meet in
    different processes) get each mail at the same moment."""
    ports = [pool(1).port, pool(1).port]
    players = bench.Players(store)
    for _ in range(12):
        assert _at_once(ports, *players.next_mail()) == [250, 250]
    bench.check(store, [players], 12)  # 12 moves by mail, 12 Inbound rows, all "done"
    with store.reader() as s:
        answers = Counter(o.headers.get("In-Reply-To") for o in s.exec(select(Outbox))
                          if o.headers.get("In-Reply-To", "").startswith("<bench."))
        assert len(s.exec(select(Inbound)).all()) == 12
    assert len(answers) == 12 and set(answers.values()) == {1}


def _at_once(ports: list[int], sender: str, rcpt: str, raw: bytes) -> list[int]:
    """The mail sent to each port at the same moment; the codes after DATA."""
    together = threading.Barrier(len(ports))

    def deliver(port):
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as c:
            c.ehlo()
            c.mail(sender)
            c.rcpt(rcpt)
            together.wait()
            return c.data(raw)[0]

    with ThreadPoolExecutor(len(ports)) as each:
        return list(each.map(deliver, ports))


def test_lmtp_workers_answer_each_recipient(store, pool):
    workers = pool(2, lmtp=True)
    players = bench.Players(store)
    sender, rcpt, raw = players.next_mail()
    with socket.create_connection(("127.0.0.1", workers.port), timeout=60) as s:
        f = s.makefile("rb")
        assert f.readline().startswith(b"220")
        s.sendall(b"LHLO relay.example.org\r\n")
        while not (line := f.readline()).startswith(b"250 "):
            assert line.startswith(b"250-")
        s.sendall(f"MAIL FROM:<{sender}>\r\nRCPT TO:<{rcpt}>\r\n"
                  "RCPT TO:<play+nosuchseat@pbem.localhost>\r\nDATA\r\n".encode())
        assert f.readline().startswith(b"250")
        assert f.readline().startswith(b"250")
        assert f.readline().startswith(b"550")  # unknown seat: refused at RCPT
        assert f.readline().startswith(b"354")
        s.sendall(raw.replace(b"\r\n.", b"\r\n..") + b"\r\n.\r\n")
        assert f.readline().startswith(b"250")  # one answer: one recipient was accepted
    bench.check(store, [players], 1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "--ppid", str(pid), "-o", "pid="], capture_output=True,
                         text=True).stdout
    return [int(x) for x in out.split()]


def _smtp_command(tmp_path, db_url, port: int) -> subprocess.Popen:
    env = os.environ | {"DATABASE_URL": db_url, "PBEM_VAR_DIR": str(tmp_path),
                        "PBEM_SMTP_PORT": str(port), "PBEM_SMTP_PROCESSES": "2"}
    return subprocess.Popen(PBEM + ["smtp"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _workers_of(proc: subprocess.Popen, n: int) -> list[int]:
    deadline = time.monotonic() + 60
    while len(kids := _children(proc.pid)) < n and time.monotonic() < deadline:
        time.sleep(0.1)
    return kids


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_the_workers_stop_with_the_command(tmp_path, db_url, how):
    """`pbem smtp` with PBEM_SMTP_PROCESSES=2 receives in two workers, which stop with it:
    on SIGTERM it stops them; killed outright, they see its pipe end and stop."""
    port = free_port()
    proc = _smtp_command(tmp_path, db_url, port)
    kids = _workers_of(proc, 2)
    assert len(kids) == 2
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as c:  # a worker answers on the port
        c.ehlo()
        assert c.rcpt("play+nosuchseat@pbem.localhost")[0] == 503  # (no MAIL yet)
        c.mail("ann@example.org")
        assert c.rcpt("play+nosuchseat@pbem.localhost")[0] == 550
    proc.send_signal(getattr(signal, how))
    proc.wait(30)
    deadline = time.monotonic() + 30
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(k) for k in kids)
    assert proc.returncode == (0 if how == "SIGTERM" else -signal.SIGKILL)


def test_serve_receives_in_workers_and_sends_their_answers(tmp_path):
    """`pbem serve --smtp-processes 2`: a worker takes the move, the serving process (its
    outbox) sends the answer; SIGTERM stops the workers with it."""
    port = free_port()
    env = dict(os.environ, PBEM_VAR_DIR=str(tmp_path), PBEM_SMTP_PORT=str(port))
    env.pop("DATABASE_URL", None)
    init_site(env)
    subprocess.run(PBEM + ["game", "new", "--seat", "ann@example.org", "--seat", "robot",
                           "--seat", "robot", "--seat", "robot", "--first-dealer", "3"],
                   env=env, capture_output=True, check=True)
    server = subprocess.Popen(PBEM + ["serve", "--no-web", "--smtp-processes", "2"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        kids = _workers_of(server, 2)
        assert len(kids) == 2
        turn = wait_for(lambda: [m for m in messages(tmp_path / "mail")
                                 if "your turn" in headline(m)])[0]
        reply = EmailMessage()
        reply["From"], reply["To"] = "ann@example.org", turn["Reply-To"]
        reply["Subject"], reply["Message-ID"] = "Re: " + turn["Subject"], "<w1@example.org>"
        reply.set_content("bid 3\n")
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
            assert smtp.send_message(reply) == {}
        wait_for(lambda: [m for m in messages(tmp_path / "mail")
                          if done_line(m) == "Game 1: you bid 3"])
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    assert server.returncode == 0
    assert not any(_alive(k) for k in kids)


def test_connections_opened_at_once_spread_over_the_workers(pool):
    """A relay opens its connections together: the least busy worker takes each, where
    asyncio's own server let one worker take all it found waiting (7 or 8 of 8 in 8 tries
    of 20). Counted as each worker's open sockets, before and with 8 connections."""
    workers = pool(3)
    # a worker's event loop runs once it has the shared socket and the loop's own pair
    wait_for(lambda: all(_sockets(pid) >= 3 for pid in workers.pids()), 60)
    before = {pid: _sockets(pid) for pid in workers.pids()}
    conns = [socket.create_connection(("127.0.0.1", workers.port)) for _ in range(8)]
    try:
        for c in conns:
            c.settimeout(60)
            assert c.recv(100).startswith(b"220")
        spread = [_sockets(pid) - n for pid, n in before.items()]
    finally:
        for c in conns:
            c.close()
    assert sum(spread) == 8 and max(spread) <= 4, spread


def _sockets(pid: int) -> int:
    """The process's open sockets; a descriptor closed while they are counted (a starting
    worker opens and closes its modules' files) is not one."""
    fds = Path(f"/proc/{pid}/fd")
    return sum(_is_socket(fds / fd) for fd in os.listdir(fds))


def _is_socket(fd: Path) -> bool:
    try:
        return os.readlink(fd).startswith("socket:")
    except FileNotFoundError:
        return False


def test_the_bench_runs_the_server_as_worker_processes(store, db_url, tmp_path):
    cfg = Settings(var_dir=Path(tmp_path), database_url=db_url, mail_domain=bench.DOMAIN)
    run = bench.bench(store, cfg, mails=40, connections=2, processes=2)  # checked: moves
    assert len(run.ours) == 40 and len(run.workers) == 2 and sum(run.workers) > 0


def test_a_worker_that_cannot_start_is_tried_again_later(pool, monkeypatch, caplog):
    """A worker killed while no new one can start (here: no Python where it was) is logged
    and tried again after longer and longer pauses, and comes back once it can."""
    workers = pool(1)
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    os.kill(workers.pids()[0], signal.SIGKILL)
    wait_for(lambda: sum("could not start" in r.message for r in caplog.records) >= 2, 30)
    assert workers.pids() == []
    assert workers.slots[0].pause >= 2 * FIRST_PAUSE  # it waits longer each time
    monkeypatch.setattr(sys, "executable", PYTHON)
    wait_for(lambda: workers.pids(), 30)
    with smtplib.SMTP("127.0.0.1", workers.port, timeout=60) as c:
        assert c.ehlo()[0] == 250


def test_a_worker_out_of_descriptors_takes_connections_again_once_it_has_some(store, pool):
    """A worker that cannot accept (EMFILE: its descriptors all used, as many connections
    can use them) keeps trying, and takes the waiting connections once it can."""
    workers = pool(1)
    pid = workers.pids()[0]
    wait_for(lambda: _sockets(pid) >= 3, 60)  # its event loop runs
    limits = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    # 0-2 are stdin, stdout and stderr: with a limit of 3 no new descriptor can be had
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (3, limits[1]))
    players = bench.Players(store)
    late = threading.Thread(target=Relay(workers.port).send, args=players.next_mail())
    late.start()
    time.sleep(1)  # the connection waits: the worker cannot take it
    assert late.is_alive()
    resource.prlimit(pid, resource.RLIMIT_NOFILE, limits)
    late.join(60)
    assert not late.is_alive()
    bench.check(store, [players], 1)


def test_connections_reset_at_once_leave_a_worker_taking_more(store, pool):
    """Clients that connect and reset at once (a scanner, a relay giving up) leave the
    worker taking and answering the next connection."""
    workers = pool(1)
    for _ in range(50):
        with socket.create_connection(("127.0.0.1", workers.port)) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    players = bench.Players(store)
    Relay(workers.port).send(*players.next_mail())
    bench.check(store, [players], 1)


def test_a_worker_out_of_descriptors_answers_try_again_later(store, pool):
    """A mail a worker cannot take now (no descriptor to be had mid-session) gets a 4xx that
    names nothing of ours, never a 5xx a relay would bounce it with; sent again, it lands."""
    workers = pool(1)
    players = bench.Players(store)
    sender, rcpt, raw = players.next_mail()
    pid = workers.pids()[0]
    with smtplib.SMTP("127.0.0.1", workers.port, timeout=60) as c:
        c.ehlo()
        limits = resource.prlimit(pid, resource.RLIMIT_NOFILE)
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (3, limits[1]))
        try:
            c.mail(sender)
            code, text = c.rcpt(rcpt)
            if code == 250:
                code, text = c.data(raw)
        finally:
            resource.prlimit(pid, resource.RLIMIT_NOFILE, limits)
        assert 400 <= code < 500, (code, text)
        assert b"/" not in text and b"Error" not in text
        c.rset()
    Relay(workers.port).send(sender, rcpt, raw)
    bench.check(store, [players], 1)
