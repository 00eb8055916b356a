"""No address gets more than a day's cap of our mail (issue 12): a flood of invitations or
a reply loop waits for the next day instead of filling an inbox, and nothing is dropped."""

from datetime import UTC, datetime, timedelta

from sqlmodel import select

from pbem.store.models import Outbox
from pbem.store.outbox import drain, maildir_delivery

NOON = datetime(2026, 3, 2, 12, tzinfo=UTC)


def queue(store, to, n, tag):
    with store.session() as s:
        for i in range(n):
            s.add(Outbox(to_addr=to, subject=f"{tag} {i}", body_text="hello\n",
                         dedupe_key=f"{tag}:{i}", next_attempt=NOON - timedelta(hours=1)))
        s.commit()


def sent(store) -> dict[str, int]:
    with store.session() as s:
        rows = s.exec(select(Outbox).where(Outbox.sent_at.is_not(None))).all()
    out = {}
    for r in rows:
        out[r.to_addr] = out.get(r.to_addr, 0) + 1
    return out


def test_an_address_past_its_daily_cap_gets_the_rest_tomorrow(store, tmp_path):
    deliver = maildir_delivery(tmp_path / "mail", domain="pbem.test")
    queue(store, "flooded@example.org", 5, "flood")
    queue(store, "ann@example.org", 2, "turn")
    assert drain(store, deliver, now=NOON, daily_cap=3) == 5
    assert sent(store) == {"flooded@example.org": 3, "ann@example.org": 2}
    assert drain(store, deliver, now=NOON + timedelta(hours=11), daily_cap=3) == 0
    tomorrow = NOON + timedelta(hours=12, minutes=1)
    assert drain(store, deliver, now=tomorrow, daily_cap=3) == 2
    assert sent(store) == {"flooded@example.org": 5, "ann@example.org": 2}
    assert len(list((tmp_path / "mail" / "new").iterdir())) == 7  # every one, once
