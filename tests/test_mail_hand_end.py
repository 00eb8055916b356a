"""The card that ends a hand, sent by mail: its player gets one mail, the answer, which tells
the hand's score as the others' news does (not the answer and a news mail besides)."""

import itertools

import pytest
from mail_helpers import headline, running, text
from sqlmodel import select
from web_helpers import drive, game_state, humans_game

from pbem.compose import last_hand
from pbem.engine import preset
from pbem.store import prefs
from pbem.store.models import Outbox, Player

_IDS = itertools.count()


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def _rows(store, gid, seq) -> dict[str, list[str]]:
    """Each address's mails of the write at `seq` and after: dedupe keys."""
    with store.session() as s:
        rows = s.exec(select(Outbox).where(Outbox.game_id == gid)).all()
    out = {}
    for r in rows:
        if r.dedupe_key.startswith(("news:", "turn:")) and int(r.dedupe_key.split(":")[-1]) < seq:
            continue
        out.setdefault(r.to_addr, []).append(r.dedupe_key.split(":")[0])
    return out


def test_the_card_that_ends_a_hand_by_mail_is_answered_with_the_score_in_one_mail(env):
    gid = humans_game(env.store, preset("standard"))
    with env.store.session() as s:
        pids = s.exec(select(Player.id)).all()
    for pid in pids:
        prefs.update(env.store, pid, auto="off")  # no card plays itself: the last is sent
    st = drive(env.store, gid, lambda st: len(st.tricks) == 12 and len(st.trick) == 3)
    env.replies()
    seat = st.to_act()[0]
    msg = env.mail(env.address(gid, seat), f"play {st.playable(seat)[0]}",
                   frm=f"p{seat}@x.test", mid=f"<end{next(_IDS)}@x.test>")
    assert env.send(msg)[0] == 250
    after = game_state(env.store, gid)
    assert after.hand_no == 1 and after.phase == "bid"
    got = [m for m in env.replies() if str(m["To"]) == f"p{seat}@x.test"]
    mover_turns = seat in after.to_act()  # it bids first in the next hand
    assert len(got) == 1, [headline(m) for m in got]  # then the answer is its turn mail
    [answer] = [m for m in got if m["Auto-Submitted"] == "auto-replied"]
    assert str(answer["Message-ID"]).startswith("<turn.") == mover_turns
    scored = f"Hand 1 was scored: {last_hand(after.history[0], [f'p{i}' for i in range(4)])}"
    assert scored in text(answer)
    html = answer.get_body(("html",)).get_content()
    assert "Hand 1 was scored: p" in html
    news = _rows(env.store, gid, st.seq + 1)
    assert news[f"p{seat}@x.test"] == ["reply"]
    for other in set(range(4)) - {seat}:  # the others: news, or the turn mail to bid first
        assert news[f"p{other}@x.test"] == ["turn" if other in after.to_act() else "news"]
