"""Orders given by mail are kept once (migration 0014: `seat_order.ref`, unique): a mail the
relay retries after our 4xx, or delivers twice at once, keeps its orders once. Real SMTP,
a real database (SQLite, and PostgreSQL when PBEM_TEST_DATABASE_URL is set), real threads."""

import smtplib
import threading
import time

import pytest
from alembic import command
from click.testing import CliRunner
from mail_helpers import running, text, wire
from sqlalchemy import inspect
from sqlmodel import select

from pbem import orders
from pbem.cli import main
from pbem.store.db import alembic_config, make_engine
from pbem.store.models import Move, SeatOrder
from tests import test_orders
from tests.test_mail_protocol import refuse_inbound
from tests.test_orders import dealt, rows, state

gid = test_orders.gid  # the fixture: bids made, seat 0 leads


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def kept(store, gid):
    return [(r.seat, r.spec, r.state) for r in rows(store, gid)]


def test_orders_in_a_retried_mail_are_kept_once(env, gid):
    """The orders commit on their own; the mail's answer is refused (451): the relay's
    retry finds them kept and keeps nothing more, and is answered as the first try."""
    bob = env.address(gid, seat=1)
    env.replies()
    msg = env.mail(bob, "if hearts are led play 5H\nplay 4H then 3H", frm="b@x.test",
                   mid="<orders-retried@x.test>")
    refuse_inbound(env.store, True)
    assert env.send(msg)[0] == 451
    first = kept(env.store, gid)
    assert len(first) == 3  # kept: the mail's later failure does not take them back
    refuse_inbound(env.store, False)
    assert env.send(msg)[0] == 250
    assert kept(env.store, gid) == first
    [answer] = env.replies()
    body = text(answer)
    assert "if hearts are led play 5H: 1 kept" in body and "play 4H then 3H: 2 kept" in body
    assert env.send(msg)[0] == 250 and kept(env.store, gid) == first  # a third time: seen


def test_an_order_that_played_before_the_retry_is_not_kept_again(env, gid):
    """Seat 0 leads: its order plays at once. The retry must neither keep it again nor
    refuse it because the card has left the hand."""
    ann = env.address(gid, seat=0)
    msg = env.mail(ann, "lead AH next", frm="a@x.test", mid="<played@x.test>")
    refuse_inbound(env.store, True)
    assert env.send(msg)[0] == 451
    assert kept(env.store, gid) == [(0, {"kind": "lead", "card": "AH"}, "done")]
    refuse_inbound(env.store, False)
    env.replies()
    assert env.send(msg)[0] == 250
    assert kept(env.store, gid) == [(0, {"kind": "lead", "card": "AH"}, "done")]
    with env.store.reader() as s:
        plays = s.exec(select(Move.payload).where(Move.game_id == gid, Move.actor == 0,
                                                  Move.type == "play")).all()
    assert [p["card"] for p in plays] == ["AH"]  # played once
    assert not any("not done" in text(m) for m in env.replies())


def test_a_bid_ahead_in_a_retried_mail_is_kept_once(env, store):
    gid = dealt(store)
    carol = env.address(gid, seat=2)
    msg = env.mail(carol, "bid 4", frm="c@x.test", mid="<bid-retried@x.test>")
    refuse_inbound(env.store, True)
    assert env.send(msg)[0] == 451
    refuse_inbound(env.store, False)
    env.replies()
    assert env.send(msg)[0] == 250
    assert kept(store, gid) == [(2, {"kind": "bid", "bid": 4}, "pending")]
    assert "bid 4: kept, made at your turn" in text(env.replies()[0])


def test_the_same_mail_delivered_twice_at_once_keeps_its_orders_once(env, gid):
    bob = env.address(gid, seat=1)
    msg = env.mail(bob, "play 4H then 3H", frm="b@x.test", mid="<twins@x.test>")
    start = threading.Barrier(2)
    errors = []

    def deliver():
        try:
            start.wait(10)
            with smtplib.SMTP("127.0.0.1", env.port, timeout=60) as smtp:
                smtp.sendmail("b@x.test", bob, wire(msg))
        except Exception as e:  # the test fails below, saying what
            errors.append(e)

    twins = [threading.Thread(target=deliver) for _ in range(2)]
    for t in twins:
        t.start()
    for t in twins:
        t.join(60)
    assert errors == []
    assert kept(env.store, gid) == [(1, {"kind": "play", "card": c}, "pending")
                                   for c in ("4H", "3H")]


def test_two_gives_racing_with_one_ref_keep_one_set(store, gid):
    """The race forced: a twin's write holds the same line's orders, not yet committed, when
    ours has read (nothing kept yet) and writes. The unique ref refuses ours; we find
    theirs. On SQLite ours waits for the write lock, on PostgreSQL for the unique index."""
    st = state(store, gid)
    ref = "<race@x.test>#1.1.0"
    twin = store.session()
    theirs = [SeatOrder(game_id=gid, seat=1, spec={"kind": "play", "card": c},
                        text="play 4H then 3H", hand=st.hand_no, ref=f"{ref}.{i}")
              for i, c in enumerate(("4H", "3H"))]
    twin.add_all(theirs)
    twin.flush()  # written, holding the lock (SQLite) or the index entries (PostgreSQL)
    got = []
    ours = threading.Thread(target=lambda: got.append(
        orders.give(store, gid, 1, "play 4H then 3H", st, ref)))
    ours.start()
    time.sleep(0.5)  # ours has read nothing kept and is waiting to write
    twin.commit()
    ids = [r.id for r in theirs]
    twin.close()
    ours.join(30)
    assert [[r.id for r in g] for g in got] == [ids]
    assert len(rows(store, gid)) == 2


def test_orders_on_the_web_have_no_ref_and_are_not_refused_as_twins(store, gid):
    """A web order has no mail: NULL, which no unique index counts as equal."""
    st = state(store, gid)
    orders.give(store, gid, 1, "if hearts are led play 5H", st)
    orders.give(store, gid, 1, "if hearts are led play 5H", st)
    assert [r.ref for r in rows(store, gid)] == [None, None]


def test_db_upgrade_from_0013_keeps_the_orders_there(db_url, store, gid):
    st = state(store, gid)
    orders.give(store, gid, 1, "if hearts are led play 5H", st)
    orders.give(store, gid, 2, "follow low in clubs", st)
    before = [(r.id, r.seat, r.spec, r.state) for r in rows(store, gid)]
    store.engine.dispose()
    command.downgrade(alembic_config(db_url), "0013")
    engine = make_engine(db_url)
    assert "ref" not in {c["name"] for c in inspect(engine).get_columns("seat_order")}
    engine.dispose()
    result = CliRunner().invoke(main, ["db", "upgrade"], env={"DATABASE_URL": db_url})
    assert result.exit_code == 0, result.output
    assert [(r.id, r.seat, r.spec, r.state) for r in rows(store, gid)] == before
    assert all(r.ref is None for r in rows(store, gid))
    # and the new key works at once: a mail's line kept once
    for _ in range(2):
        orders.give(store, gid, 3, "follow low in clubs", st, "<after@x.test>#1.3.0")
    assert len(rows(store, gid)) == 3
    command.check(alembic_config(db_url))
    with store.reader() as s:
        assert s.exec(select(SeatOrder.ref).where(SeatOrder.seat == 3)).all() == [
            "<after@x.test>#1.3.0.0"]
