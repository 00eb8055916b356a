"""A reply in German, French, Spanish or Portuguese to a turn mail does its move, through
the whole mail path: SMTP, the reader, the runner, the door (issue 32)."""

import pytest
from mail_helpers import crafted, done_line, game, headline, running, snapshot, state, text

from pbem.play import submit


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def reply_to_turn(env, gid, line, n=1):
    """ann answers her turn mail with `line`; our answer."""
    turn = next(m for m in env.replies() if "your turn" in headline(m))
    msg = env.mail(env.address(gid), f"{line}\n", subject="Re: " + turn["Subject"],
                   mid=f"<ann.words.{n}@example.org>", In_Reply_To=turn["Message-ID"],
                   References=f"{turn['References']} {turn['Message-ID']}")
    assert env.send(msg)[0] == 250
    return next(m for m in env.replies() if m["Auto-Submitted"] == "auto-replied")


def test_a_german_bid_to_the_turn_mail_makes_the_bid(env):
    gid = game(env.store)  # the robots bid, then ann's turn mail asks for her bid
    reply = reply_to_turn(env, gid, "biete 4")
    assert done_line(reply) == f"Game {gid}: you bid 4"
    assert "biete 4: done" in text(reply)
    assert state(env.store, gid).bids[0] == 4


def test_a_french_card_to_the_turn_mail_plays_it(env):
    gid, _ = crafted(env.store)
    submit(env.store, gid, 0, {"type": "bid", "bid": 3})  # her turn mail asks for a card
    reply = reply_to_turn(env, gid, "je joue le 4 de carreau")
    assert done_line(reply) == f"Game {gid}: you played 4♦"
    st = state(env.store, gid)
    assert "4D" not in st.hands[0] and (0, "4D") in st.tricks[0][0]


def test_a_line_in_no_language_changes_nothing_and_says_so(env):
    gid, _ = crafted(env.store)
    env.replies()
    before = snapshot(env.store, gid)
    msg = env.mail(env.address(gid), "ich biete nicht vier\n", mid="<ann.words.9@example.org>")
    assert env.send(msg)[0] == 250
    (reply,) = env.replies()
    assert headline(reply) == f"Game {gid}: not done: ich biete nicht vier"
    after = snapshot(env.store, gid)
    assert after["log"] == before["log"] and after["moves"] == before["moves"]


def test_help_in_portuguese_lists_the_commands(env):
    gid, _ = crafted(env.store)
    env.replies()
    assert env.send(env.mail(env.address(gid), "ajuda\n", mid="<ann.words.8@example.org>"))[0] \
        == 250
    (reply,) = env.replies()
    assert headline(reply) == f"Game {gid}: help"
    assert "undo: take back" in text(reply)


def test_a_command_in_the_subject_of_an_empty_mail_may_be_in_german(env):
    gid, _ = crafted(env.store)
    env.replies()
    msg = env.mail(env.address(gid), None, subject="Re: Hilfe", mid="<ann.words.7@example.org>")
    assert env.send(msg)[0] == 250
    (reply,) = env.replies()
    assert headline(reply) == f"Game {gid}: help"
