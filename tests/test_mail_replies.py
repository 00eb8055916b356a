"""Answers to a player's mail: each shows the table and the moves legal now, in a text and
an HTML part, threaded under the mail it answers (and so under the turn mail), with the
List-Unsubscribe of every mail."""

import pytest
from mail_helpers import ANN, crafted, headline, running, text

from pbem.compose import thread_root
from pbem.play import submit


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def html(msg) -> str:
    return msg.get_body(preferencelist=("html",)).get_content()


@pytest.fixture
def gid(env):
    """ann bid 3 (on the web, say) and the robots bid: her turn mail asks for a card."""
    gid, _ = crafted(env.store)
    submit(env.store, gid, 0, {"type": "bid", "bid": 3})
    return gid


def turn_and_answer(env, gid, line):
    """ann answers her turn mail with `line`: (the turn mail, our answer, what followed)."""
    turn = next(m for m in env.replies() if "your turn" in headline(m))
    msg = env.mail(env.address(gid), f"{line}\n", subject="Re: " + turn["Subject"],
                   mid="<ann.1@example.org>", In_Reply_To=turn["Message-ID"],
                   References=f"{turn['References']} {turn['Message-ID']}")
    assert env.send(msg)[0] == 250
    mails = env.replies()
    reply = next(m for m in mails if m["Auto-Submitted"] == "auto-replied")
    return turn, reply, mails


def test_a_move_done_is_answered_with_the_table_and_threaded_under_the_turn(env, gid):
    turn, reply, _ = turn_and_answer(env, gid, "play 4D")
    assert headline(reply) == f"Game {gid}: you played 4♦; your turn to play"
    # one subject for every mail of the game, so that Gmail and Outlook thread them too
    assert reply["Subject"] == turn["Subject"] == f"Spades game {gid}"
    body = text(reply)
    assert "play 4D: done" in body
    # the table after the robots played to her lead and robot 3 led again
    assert f"Game {gid} (standard), hand 1, move 10" in body
    assert "Your hand:" in body and "4♦" not in body.split("Your hand:")[1].split("\n\n")[0]
    assert "Last trick: ann 4♦, " in body
    assert "On the table: robot 3 A♣" in body
    assert "Legal now:\n  K♣     reply: play KC\n  9♣     reply: play 9C\n" in body
    # the answer is a reply to the player's mail, and so to the turn mail
    assert reply["In-Reply-To"] == "<ann.1@example.org>"
    refs = str(reply["References"]).split()
    assert refs[0] == thread_root(gid, env.domain)
    assert turn["Message-ID"] in refs and refs[-1] == "<ann.1@example.org>"
    assert reply["List-Unsubscribe"]  # and List-Unsubscribe-Post where the site is https
    page = html(reply)
    assert "play 4D: done" in page and "Last trick:" in page and "#b3261e" in page


def test_a_move_that_leaves_the_player_to_move_lists_the_moves_with_links(env):
    gid, _ = crafted(env.store)
    env.replies()
    assert env.send(env.mail(env.address(gid), "bid 3\n", mid="<ann.3@example.org>"))[0] == 250
    reply = next(m for m in env.replies() if m["Auto-Submitted"] == "auto-replied")
    body = text(reply)  # ann leads trick 1 now
    assert f"Game {gid} (standard), hand 1, move 5" in body
    assert "Legal now:" in body and "Q♦     reply: play QD" in body
    page = html(reply)
    assert page.count("/m/") == 9  # not the spades: not broken yet and "Q♦</span></a>" in page


def test_a_refusal_shows_the_table_and_the_legal_moves_in_both_parts(env, gid):
    turn, reply, mails = turn_and_answer(env, gid, "play KH")
    assert len(mails) == 1  # nothing was done, so no new turn mail
    assert headline(reply) == f"Game {gid}: not done: play KH"
    body = text(reply)
    assert "K♥ is not in your hand" in body  # the card as the mail shows it
    assert f"Game {gid} (standard), hand 1, move 5" in body and "Your hand:" in body
    assert "Legal now:" in body and "Q♦     reply: play QD" in body
    page = html(reply)
    assert "Not done: your line" in page and "play KH" in page and "K♥ is not" in page
    assert "Your hand:" in page and page.count("/m/") == 9  # not the spades: not broken yet
    assert reply["In-Reply-To"] == "<ann.1@example.org>"
    assert turn["Message-ID"] in str(reply["References"]).split()


def test_an_answer_to_a_mail_without_references_hangs_under_the_games_root(env, gid):
    env.replies()
    assert env.send(env.mail(env.address(gid), "status\n", mid="<ann.2@example.org>"))[0] == 250
    (reply,) = env.replies()
    assert headline(reply) == f"Game {gid}: your table" and reply["To"] == ANN
    assert str(reply["References"]).split() == [thread_root(gid, env.domain),
                                                  "<ann.2@example.org>"]
    assert "Legal now:" in text(reply) and "Legal now" not in html(reply)
    assert "click one" in html(reply)
