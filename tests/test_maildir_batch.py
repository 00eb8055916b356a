"""The Maildir delivery's batches (pbem.store.maildir): a staged mail reaches new/ only after
the sync that makes it durable, a row says sent only after that, a mail that cannot be put
in place is retried, and the drain's grouped marks do what one statement a row did."""

import threading
import time
from datetime import timedelta

from sqlmodel import select

from pbem.serve import send_until
from pbem.store.models import Outbox
from pbem.store.models import now as utcnow
from pbem.store.outbox import _grouped, drain, key_name, maildir_delivery


def add_rows(store, n: int) -> list[Outbox]:
    with store.session() as s:
        rows = [Outbox(to_addr=f"p{i}@example.org", subject=f"Game {i}", body_text="Hi.\n",
                       dedupe_key=f"invite:{i}:1") for i in range(n)]
        s.add_all(rows)
        s.commit()
        return [s.get(Outbox, r.id) for r in rows]


def unsent(store) -> list[Outbox]:
    with store.reader() as s:
        return s.exec(select(Outbox).where(Outbox.sent_at.is_(None))).all()


def test_a_staged_mail_is_in_new_only_after_its_sync(store, tmp_path):
    rows = add_rows(store, 3)
    deliver = maildir_delivery(tmp_path, domain="pbem.test")
    for row in rows:
        deliver.stage(row)
    assert list((tmp_path / "new").iterdir()) == []  # not durable yet: not there
    assert len(list((tmp_path / "tmp").iterdir())) == 3
    assert deliver.sync() == {}
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == sorted(
        key_name(r.dedupe_key) for r in rows)
    assert list((tmp_path / "tmp").iterdir()) == []
    deliver(rows[0])  # delivered before: nothing new, nothing left in tmp/
    assert len(list((tmp_path / "new").iterdir())) == 3
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_drain_leaves_every_mail_in_new_and_nothing_in_tmp(store, tmp_path):
    rows = add_rows(store, 450)  # three syncs' worth, in batches of 200
    deliver = maildir_delivery(tmp_path, domain="pbem.test")
    sent = 0
    while n := drain(store, deliver):
        sent += n
    assert sent == len(rows) and unsent(store) == []
    assert len(list((tmp_path / "new").iterdir())) == len(rows)
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_mail_the_sync_cannot_place_is_retried_not_marked(store, tmp_path):
    rows = add_rows(store, 5)
    deliver = maildir_delivery(tmp_path, domain="pbem.test")
    taken = tmp_path / "new" / key_name(rows[2].dedupe_key)
    stage = deliver.stage

    def stage_then_block(row):
        stage(row)
        if row.id == rows[2].id:  # staged; now a directory holds its name: the move fails
            taken.mkdir()
            (taken / "x").write_text("x")

    deliver.stage = stage_then_block
    t0 = utcnow()
    assert drain(store, deliver, now=t0) == 4
    [left] = unsent(store)
    assert left.id == rows[2].id and left.attempts == 1 and left.last_error
    assert left.next_attempt == t0 + timedelta(minutes=1)
    assert list((tmp_path / "tmp").iterdir()) == []


def test_grouped_marks_do_what_one_statement_a_row_did():
    sent, err = dict(sent_at=1, last_error=None), dict(last_error="x", next_attempt=2)
    back = dict(attempts=0, next_attempt=3)
    got = {tuple(sorted(ids)): values for ids, values in _grouped(
        [(1, sent), (1, err), (2, sent), (3, err), (3, back), (4, err)])}
    # row 1: sent ends it; row 3: both apply, the later winning; 2 and 4 alone
    assert got == {(1, 2): sent, (3,): dict(last_error="x", attempts=0, next_attempt=3),
                   (4,): err}


def test_the_sender_sends_a_new_mail_at_once_not_at_its_next_round(store, tmp_path):
    deliver = maildir_delivery(tmp_path, domain="pbem.test")
    stop = threading.Event()
    sender = threading.Thread(target=send_until, args=(stop, store, deliver, 60.0))
    sender.start()
    try:
        time.sleep(0.5)  # its first drain found nothing: the next round is a minute away
        add_rows(store, 3)
        t0 = time.monotonic()
        while unsent(store) and time.monotonic() - t0 < 20:
            time.sleep(0.05)
        assert unsent(store) == [], "the mails waited for the sender's next round"
        assert len(list((tmp_path / "new").iterdir())) == 3
    finally:
        stop.set()
        sender.join(timeout=30)
