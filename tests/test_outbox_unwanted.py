"""What a player stops, stops at once: mail already queued when they unsubscribe, write
`mail off`, switch to a digest or a daily list, or when their address starts to bounce, is
settled unsent; answers to their own mail still go."""

from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import select

from pbem.store import prefs, unsubscribe
from pbem.store.models import Outbox, Player
from pbem.store.models import now as utcnow
from tests.mail_helpers import ANN, running
from tests.test_fewer_mails import delivered, queue, row, settle, waiting


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def ann_id(env) -> int:
    with env.store.session() as s:
        return s.exec(select(Player.id).where(Player.email == ANN)).one()


def test_a_one_click_unsubscribe_stops_the_turn_mail_already_queued(env):
    gid = waiting(env)
    assert row(env, f"turn:{gid}:0:").sent_at is None
    unsubscribe.apply(env.store, ANN, "all")  # the List-Unsubscribe POST of another mail
    assert delivered(env, utcnow()) == []
    settled = row(env, f"turn:{gid}:0:")
    assert settled.sent_at is not None
    assert settled.last_error == "settled: the player stopped all mail, or their address bounces"


def test_answers_to_her_own_mail_still_go_after_mail_off(env):
    waiting(env)
    settle(env, mail="off")
    queue(env, ANN, "reply:1")  # she wrote to us: the answer goes
    mails = delivered(env, utcnow())
    assert [m["To"] for m in mails] == [ANN]
    assert "reply:1" in mails[0].get_body(("plain",)).get_content()


def test_a_bouncing_address_gets_no_more_queued_mail(env):
    gid = waiting(env)
    with env.store.session() as s:
        p = s.get(Player, ann_id(env))
        p.prefs = dict(p.prefs or {}, bounces={"hard": 3, "stopped": utcnow().isoformat()})
        s.add(p)
        s.commit()
    assert delivered(env, utcnow()) == []
    assert row(env, f"turn:{gid}:0:").last_error.startswith("settled: ")


def test_daily_lists_and_digests_take_the_place_of_queued_turn_and_news_mails(env):
    gid = waiting(env)
    queue(env, ANN, f"news:{gid}:x", game_id=gid)
    prefs.update(env.store, ann_id(env), turns="daily", notify="digest")
    assert delivered(env, utcnow()) == []
    assert row(env, f"turn:{gid}:0:").last_error == (
        "settled: the player takes a daily list of moves instead")
    assert row(env, "news:").last_error == "settled: the player takes a daily digest instead"


def test_a_player_who_still_wants_mail_gets_it(env):
    gid = waiting(env)
    prefs.update(env.store, ann_id(env), notify="every trick")
    [mail] = delivered(env, utcnow())
    assert mail["To"] == ANN and f"game {gid}" in str(mail["Subject"]).lower()
    with env.store.session() as s:
        assert s.exec(select(Outbox).where(Outbox.sent_at.is_(None))).all() == []


def test_a_merged_mail_takes_in_no_turn_mail_the_player_now_takes_daily(env):
    gid = waiting(env)
    queue(env, ANN, f"news:{gid}:x", game_id=gid)
    prefs.update(env.store, ann_id(env), turns="daily", merge=30)  # news would take turns in
    turn = row(env, f"turn:{gid}:0:")
    with env.store.session() as s:  # the turn mail waits (held): only the news is due
        s.exec(update(Outbox).where(Outbox.id == turn.id).values(
            next_attempt=utcnow() + timedelta(days=1)))
        s.commit()
    [mail] = delivered(env, utcnow())
    body = mail.get_body(("plain",)).get_content()
    assert f"news:{gid}:x" in body and "Reply to this mail with one of" not in body
    assert row(env, f"turn:{gid}:0:").sent_at is None  # left for its own turn, which settles it
    assert delivered(env, utcnow() + timedelta(days=1, minutes=1)) == []
    assert row(env, f"turn:{gid}:0:").last_error == (
        "settled: the player takes a daily list of moves instead")
