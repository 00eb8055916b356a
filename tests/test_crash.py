"""Crashes: a writer killed with SIGKILL at random points loses no committed move and leaves
no half-written one; every outbox row then reaches the Maildir exactly once, even when a
drainer is killed mid-drain or fails and retries. Real processes, real SIGKILL."""

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from email import message_from_bytes
from pathlib import Path

from sqlmodel import select

from pbem.engine import choose, preset, view
from pbem.gamelog import replay_log
from pbem.play import start, submit
from pbem.store.games import create_game, export
from pbem.store.models import Move, Outbox
from pbem.store.models import now as utcnow
from pbem.store.outbox import drain, key_name, maildir_delivery

ROOT = Path(__file__).resolve().parent.parent
WRITER = Path(__file__).resolve().parent / "crash_writer.py"
SEATS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]
ROUNDS = (5, 20)  # a killed writer's rounds: at least, and at most while it wrote too little
DRAINER = """
import sys, time
from pbem.store.states import Store
from pbem.store.outbox import drain, maildir_delivery
store, to_maildir = Store(sys.argv[1]), maildir_delivery(sys.argv[2], domain="pbem.test")
def deliver(row):
    to_maildir(row)
    print("sent", row.id, flush=True)
    time.sleep(float(sys.argv[3]))  # a slow acknowledgement: delivered, not marked sent
print("ready", flush=True)
sys.stdin.readline()  # go
while drain(store, deliver, limit=20):
    pass
"""


def spawn(*args) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    return proc


def kill_after(proc: subprocess.Popen, delay: float) -> str:
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL, f"it ended by itself ({proc.returncode}): {err}"
    return out


def moves(store) -> dict[int, list[int]]:
    with store.session() as s:
        rows = s.exec(select(Move.game_id, Move.seq).order_by(Move.game_id, Move.seq)).all()
    out = {}
    for gid, seq in rows:
        out.setdefault(gid, []).append(seq)
    return out


def outbox(store) -> list[Outbox]:
    with store.session() as s:
        return list(s.exec(select(Outbox).order_by(Outbox.id)).all())


def check_consistent(store) -> None:
    """Every game's log is 1..n and replays; the outbox has a turn notice for exactly the
    moves that were committed (the seat to act now has one; none is for a missing move)."""
    logs = moves(store)
    keys = {row.dedupe_key for row in outbox(store)}
    for gid, seqs in logs.items():
        assert seqs == list(range(1, len(seqs) + 1)), f"game {gid} has a gap or a duplicate"
        st = replay_log(export(store, gid))
        assert st.seq == len(seqs)
        if st.phase != "over":
            assert {f"turn:{gid}:{seat}:{st.seq}" for seat in st.to_act()} <= keys
    for key in keys:
        kind, gid, *rest = key.split(":")
        if kind == "turn":
            assert int(rest[1]) in logs[int(gid)], f"{key} is for a move never committed"


def maildir_ids(path: Path) -> Counter:
    files = list((path / "new").iterdir()) + list((path / "cur").iterdir())
    return Counter(message_from_bytes(f.read_bytes())["Message-ID"] for f in files)


def expected_ids(store, domain="pbem.test") -> Counter:
    return Counter(row.headers.get("Message-ID") or f"<{key_name(row.dedupe_key)}@{domain}>"
                   for row in outbox(store))


def test_a_killed_writer_loses_no_move_and_leaves_no_half_move(db_url, store, tmp_path):
    rng = random.Random(3)
    for _ in range(2):
        start(store, create_game(store, preset("standard"), SEATS, first_dealer=0))
    reported = set()
    for rnd in range(ROUNDS[1]):
        out = kill_after(spawn(str(WRITER), db_url, f"r{rnd}"), rng.uniform(0.05, 0.5))
        reported |= {tuple(map(int, line.split())) for line in out.splitlines() if line}
        in_db = {(gid, seq) for gid, seqs in moves(store).items() for seq in seqs}
        assert reported <= in_db, f"committed moves lost: {sorted(reported - in_db)[:5]}"
        check_consistent(store)
        if rnd + 1 >= ROUNDS[0] and len(reported) > 20:
            break  # (a busy machine writes less a round: it gets more rounds)
    assert len(reported) > 20, "the writer hardly wrote anything: no test of a crash"

    # two drainers at once, one killed mid-drain; then whatever is left (claims of the dead
    # drainer expire) is drained, and every row is in the Maildir once
    mail = tmp_path / "mail"
    a = spawn("-c", DRAINER, db_url, str(mail), "0.1")  # slow to acknowledge a delivery
    b = spawn("-c", DRAINER, db_url, str(mail), "0")
    for proc in (a, b):
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for _ in range(3):
        word, row_id = a.stdout.readline().split()
    kill_after(a, 0.01)  # between delivering a row and marking it sent
    b.communicate(timeout=60)
    assert b.returncode == 0
    with store.session() as s:
        assert s.get(Outbox, int(row_id)).sent_at is None, "the kill missed its moment"
    later = utcnow() + timedelta(hours=2)
    while drain(store, maildir_delivery(mail, domain="pbem.test"), now=later):
        pass
    rows = outbox(store)
    assert rows and all(row.sent_at is not None for row in rows)
    assert maildir_ids(mail) == expected_ids(store), "a row was sent twice, or never"
    assert len(list((mail / "tmp").iterdir())) <= 1  # the killed drainer's unfinished file


def play_a_few_moves(store, n=6) -> int:
    gid = create_game(store, preset("standard"), SEATS, first_dealer=0)
    st = start(store, gid).state
    for i in range(n):
        seat = st.to_act()[0]
        st = submit(store, gid, seat, choose(view(st, seat), seed=i), expect_seq=st.seq,
                    ref=f"m{i}").state
    return gid


def test_a_redo_after_a_crash_between_delivery_and_marking_sends_nothing_twice(store, tmp_path):
    play_a_few_moves(store)
    mail = tmp_path / "mail"
    deliver = maildir_delivery(mail, domain="pbem.test")
    rows = outbox(store)
    for row in rows[::2]:
        deliver(row)  # delivered, then the drainer died before marking the row sent
    assert drain(store, deliver) == len(rows)
    assert drain(store, deliver) == 0
    assert maildir_ids(mail) == expected_ids(store)
    # a mail client moving a message to cur/ does not make it look undelivered
    first = next((mail / "new").iterdir())
    first.rename(mail / "cur" / (first.name + ":2,S"))
    deliver(rows[0])
    deliver(rows[1])
    assert maildir_ids(mail) == expected_ids(store)


def test_a_failed_delivery_is_retried_with_backoff(store, tmp_path):
    play_a_few_moves(store, n=2)
    mail = tmp_path / "mail"
    deliver = maildir_delivery(mail, domain="pbem.test")
    (mail / "new").rmdir()  # a real failure: the Maildir is broken
    t0 = utcnow()
    assert drain(store, deliver, now=t0) == 0
    rows = outbox(store)
    assert rows and all(r.attempts == 1 and r.sent_at is None for r in rows)
    assert all("FileNotFoundError" in r.last_error for r in rows)
    assert all(r.next_attempt == t0 + timedelta(minutes=1) for r in rows)
    assert drain(store, deliver, now=t0 + timedelta(seconds=30)) == 0  # not due yet
    assert drain(store, deliver, now=t0 + timedelta(minutes=1)) == 0  # fails again
    rows = outbox(store)
    assert all(r.attempts == 2 and r.next_attempt == t0 + timedelta(minutes=3) for r in rows)
    (mail / "new").mkdir()
    assert drain(store, deliver, now=t0 + timedelta(minutes=3)) == len(rows)
    rows = outbox(store)
    assert all(r.sent_at is not None and r.last_error is None for r in rows)
    assert maildir_ids(mail) == expected_ids(store)
    msg = message_from_bytes(next((mail / "new").iterdir()).read_bytes())
    assert msg["From"] == "Spades by email <play@pbem.test>" and msg["To"].endswith("@example.org")
    assert msg["Reply-To"].startswith("play+") and msg["Auto-Submitted"] == "auto-generated"


def test_read_mail_is_found_in_cur_after_the_scan_was_cached(store, tmp_path, monkeypatch):
    """cur/ is read again only when it changed: a mail read after the last scan still counts
    as delivered, and sending many mails to a Maildir that was not touched reads cur/ once."""
    play_a_few_moves(store)
    mail = tmp_path / "mail"
    deliver = maildir_delivery(mail, domain="pbem.test")
    rows = outbox(store)
    deliver(rows[0])
    cur = mail / "cur"
    for i in range(50):  # months of read mail
        (cur / f"old{i}:2,S").write_bytes(b"x")
    hour_ago = time.time() - 3600
    os.utime(cur, (hour_ago, hour_ago))  # not changed lately: the scan may be kept
    scans = []
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda p: scans.append(p) or real_scandir(p))
    for row in rows[1:]:
        assert not deliver.delivered(key_name(row.dedupe_key))
    assert len(scans) == 1
    first = next((mail / "new").iterdir())
    first.rename(cur / (first.name + ":2,RS"))  # the client reads it: cur/ changes
    deliver(rows[0])  # a redo finds it there and writes nothing
    assert len(scans) == 2
    assert not list((mail / "new").iterdir())
    first_id = rows[0].headers.get("Message-ID") or f"<{key_name(rows[0].dedupe_key)}@pbem.test>"
    assert maildir_ids(mail)[first_id] == 1
