"""Files a crash left in the Maildir's tmp/ (issue 29, item 8): removed once 36 hours old,
at the sender's start and then about daily, a bounded number a pass; a younger file, and
anything outside tmp/, is never touched."""

import os
import time

from pbem.store.maildir import STALE, SWEEP_AGAIN, SWEEP_EVERY, Sweeper
from pbem.store.models import Outbox
from pbem.store.outbox import drain, maildir_delivery

HOUR = 3600


def aged(path, hours: float, now: float | None = None):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"Subject: half a mail\n")
    when = (now or time.time()) - hours * HOUR
    os.utime(path, (when, when))
    return path


def names(path) -> list[str]:
    return sorted(p.name for p in path.iterdir())


def test_the_senders_start_removes_tmp_files_older_than_36_hours_and_no_other(tmp_path):
    box = tmp_path / "mail"
    for hours in (37, 36.5, 200):
        aged(box / "tmp" / f"old-{hours}", hours)
    for hours in (35.9, 1, 0):
        aged(box / "tmp" / f"young-{hours}", hours)
    aged(box / "new" / "old-read", 400)  # delivered mail, however old: never
    aged(box / "cur" / "old-read:2,S", 400)
    (box / "tmp" / "a-directory").mkdir()
    os.utime(box / "tmp" / "a-directory", (0, 0))

    maildir_delivery(box, domain="pbem.test")

    assert names(box / "tmp") == ["a-directory", "young-0", "young-1", "young-35.9"]
    assert names(box / "new") == ["old-read"] and names(box / "cur") == ["old-read:2,S"]


def test_a_pass_looks_at_a_bounded_number_and_goes_on_a_minute_later(tmp_path):
    now = [time.time()]
    for i in range(5):
        aged(tmp_path / f"old-{i}", 40, now[0])
    aged(tmp_path / "young", 2, now[0])
    sweep = Sweeper(tmp_path, per_pass=2, clock=lambda: now[0])
    left = []
    for _ in range(4):
        removed = sweep.due()
        assert removed <= 2 and sweep.due() == 0  # not again at once
        left.append(len(names(tmp_path)))
        now[0] += SWEEP_AGAIN
    assert left[-1] == 1 and names(tmp_path) == ["young"]
    assert left[0] >= 4  # two at most from the first pass: bounded


def test_a_tmp_file_is_removed_about_a_day_after_it_grows_old_while_mail_goes_out(
        store, tmp_path):
    box = tmp_path / "mail"
    deliver = maildir_delivery(box, domain="pbem.test")
    start = time.time()
    orphan = aged(box / "tmp" / "orphan", 30, start)  # 30 h old at the start: kept
    now = [start]
    deliver.sweeper = Sweeper(box / "tmp", clock=lambda: now[0])

    def send(i: int) -> int:
        with store.session() as s:
            s.add(Outbox(to_addr=f"p{i}@example.org", subject="Hi", body_text="Hi.\n",
                         dedupe_key=f"invite:{i}:1"))
            s.commit()
        return drain(store, deliver)

    assert send(0) == 1 and orphan.exists()
    now[0] = start + SWEEP_EVERY - 60  # a day on less a minute: 54 h old, but no pass yet
    assert send(1) == 1 and orphan.exists()
    now[0] = start + SWEEP_EVERY  # the daily pass, with the next mail
    assert send(2) == 1 and not orphan.exists()
    assert len(names(box / "new")) == 3 and names(box / "tmp") == []
    assert STALE == 36 * HOUR
