"""T4 by mail: the declarer's turn mail at the dummy's turn shows the exposed dummy, and
`play XX` in a reply plays the dummy's card (the same words as for one's own)."""

import pytest
from mail_helpers import ANN, crafted, headline, running, state, text

from pbem.engine import legal, preset
from pbem.play import submit


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def test_the_declarer_plays_the_dummy_by_mail(env):
    rules = preset("dummy-3")
    gid, _ = crafted(env.store, seats=[ANN, "robot", "robot"], rules=rules, first_dealer=2)
    submit(env.store, gid, 0, {"type": "bid", "bid": 13})  # nobody bids more: ann declares
    st = state(env.store, gid)
    assert st.phase == "play" and st.declarer == 0 and st.turn == 0
    submit(env.store, gid, 0, {"type": "play", "card": legal(st, 0)[0]["card"]})
    st = state(env.store, gid)
    assert st.turn == 0 and st.playing_hand == 3  # robot 1 played; now the dummy's turn
    card = legal(st, 0)[0]["card"]
    assert card in st.dummy_hand and card not in st.hands[0]
    turn = [m for m in env.replies() if "your turn" in headline(m)][-1]
    body = text(turn)
    assert "Dummy (played by ann, its turn): " in body
    msg = env.mail(env.address(gid), f"play {card}\n", subject="Re: " + turn["Subject"],
                   mid="<ann.9@example.org>", In_Reply_To=turn["Message-ID"],
                   References=f"{turn['References']} {turn['Message-ID']}")
    assert env.send(msg)[0] == 250
    reply = next(m for m in env.replies() if m["Auto-Submitted"] == "auto-replied")
    assert f"play {card}: done" in text(reply)
    after = state(env.store, gid)
    assert card not in after.dummy_hand and after.seq > st.seq


def test_the_dummys_card_is_refused_when_it_is_not_the_dummys_turn(env):
    """An attack by mail: at her own hand's turn the declarer names a dummy card."""
    gid, _ = crafted(env.store, seats=[ANN, "robot", "robot"], rules=preset("dummy-3"),
                     first_dealer=2)
    submit(env.store, gid, 0, {"type": "bid", "bid": 13})
    st = state(env.store, gid)
    assert st.turn == 0 and st.playing_hand == 0
    card = sorted(st.dummy_hand)[0]
    env.replies()
    assert env.send(env.mail(env.address(gid), f"play {card}\n"))[0] == 250
    reply = next(m for m in env.replies() if m["Auto-Submitted"] == "auto-replied")
    assert "not done" in headline(reply)
    after = state(env.store, gid)
    assert after.seq == st.seq and card in after.dummy_hand
