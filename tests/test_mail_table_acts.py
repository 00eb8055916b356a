"""At the table by mail: `say ...`, `undo`, `resign` and `resign off`, through the real SMTP
handler, and the attacks (someone else's move, a stranger's say, an over-long say, talk
after the game is over)."""

import itertools

import pytest
from mail_helpers import headline, running, snapshot, text
from sqlmodel import select
from web_helpers import game_state, humans_game

from pbem.engine import preset
from pbem.store.models import Move, Outbox

_IDS = itertools.count()


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def _send(env, gid, seat, body, frm=None):
    """Mail `body` from the seat's player (or `frm`) to its address; the answers to it."""
    msg = env.mail(env.address(gid, seat), body, frm=frm or f"p{seat}@x.test",
                   mid=f"<acts{next(_IDS)}@x.test>")
    assert env.send(msg)[0] == 250
    return [m for m in env.replies() if str(m["To"]) == (frm or f"p{seat}@x.test")
            and m["Auto-Submitted"] == "auto-replied"]  # the answer, not a turn mail


def _latest(store, key):
    with store.session() as s:
        return s.exec(select(Outbox).where(Outbox.dedupe_key.startswith(key))
                      .order_by(Outbox.id.desc())).first()


def test_say_by_mail_is_heard_by_the_others_and_in_the_next_turn_mail(env):
    gid = humans_game(env.store, preset("standard"))
    env.replies()
    [answer] = _send(env, gid, 0, "say Good luck, <b>all</b>!")
    assert "you spoke at the table" in headline(answer)
    st = game_state(env.store, gid)
    assert st.talk == [{"seq": st.seq, "seat": 0, "text": "Good luck, <b>all</b>!"}]
    heard = {r.to_addr for r in [_latest(env.store, f"say:{gid}:{st.seq}:{s}")
                                 for s in range(4)] if r}
    assert heard == {"p1@x.test", "p2@x.test", "p3@x.test"}
    _send(env, gid, 1, "bid 3")
    turn = _latest(env.store, f"turn:{gid}:2:")
    assert "Said at the table since your last move:" in turn.body_text
    assert "p0: Good luck, <b>all</b>!" in turn.body_text
    assert "&lt;b&gt;all&lt;/b&gt;" in turn.body_html and "<b>all</b>" not in turn.body_html


def test_a_say_line_the_mail_client_wrapped_is_one_say_and_the_move_after_it_is_made(env):
    gid = humans_game(env.store, preset("standard"))  # seat 1 bids first
    env.replies()
    body = ("say Good luck all, and may the best side win: I have been waiting for\n"
            "this game since the league opened\n"
            "bid 3\n")
    [answer] = _send(env, gid, 1, body)
    assert "not done" not in headline(answer), text(answer)
    st = game_state(env.store, gid)
    assert [t["text"] for t in st.talk] == [
        "Good luck all, and may the best side win: I have been waiting for this game since "
        "the league opened"]
    assert st.bids[1] == 3


def test_bad_talk_by_mail_changes_nothing(env):
    gid = humans_game(env.store, preset("standard"))
    env.replies()
    before = snapshot(env.store, gid)
    [answer] = _send(env, gid, 1, "say " + "x" * 301)
    assert "not done" in headline(answer) and "at most 300" in text(answer)
    [answer] = _send(env, gid, 1, "say")
    assert "not done" in headline(answer) and "say what" in text(answer)
    stranger = _send(env, gid, 1, "say I am not p1", frm="mallory@evil.test")
    assert stranger == []  # no answer to an unknown sender, and nothing said
    after = snapshot(env.store, gid)
    assert after["log"] == before["log"] and after["turns"] == before["turns"]


def test_undo_by_mail(env):
    gid = humans_game(env.store, preset("standard"))
    env.replies()
    _send(env, gid, 1, "bid 3")
    [answer] = _send(env, gid, 2, "undo")  # seat 1's move: not seat 2's to take back
    assert "not done" in headline(answer) and "no move of yours" in text(answer)
    [answer] = _send(env, gid, 1, "undo")
    assert "you took back your move" in headline(answer)
    st = game_state(env.store, gid)
    assert st.bids[1] is None and st.to_act() == [1]
    _send(env, gid, 1, "bid 4")
    _send(env, gid, 2, "bid 2")
    [answer] = _send(env, gid, 1, "undo")  # too late: seat 2 has bid since
    assert "not done" in headline(answer)
    assert game_state(env.store, gid).bids[1:3] == [4, 2]
    with env.store.session() as s:
        undo = s.exec(select(Move).where(Move.game_id == gid, Move.type == "undo")).one()
    assert undo.source == "mail" and undo.actor == 1


def test_undo_by_mail_is_answered_in_one_mail_and_a_reply_to_it_makes_the_move(env):
    gid = humans_game(env.store, preset("standard"))  # seat 1 bids first
    [turn] = [m for m in env.replies() if str(m["To"]) == "p1@x.test"]
    answer = _reply(env, gid, 1, "bid 3", turn)
    mails = _reply(env, gid, 1, "undo", answer, every=True)
    assert [headline(m) for m in mails] == [  # no turn mail: this is it
        "Game 1: you took back your move; your turn to bid"]
    assert "Legal now:" in text(mails[0])  # the moves, and in the HTML part their links
    assert "/m/" in mails[0].get_body(("html",)).get_content()
    _reply(env, gid, 1, "bid 4", mails[0])  # the answer's thread names the turn mail before
    assert game_state(env.store, gid).bids[1] == 4


def _reply(env, gid, seat, body, to, every=False):
    """`body` from the seat's player as a reply to our mail `to` (its threading headers)."""
    refs = f"{to['References'] or ''} {to['Message-ID']}".strip()
    msg = env.mail(env.address(gid, seat), body, frm=f"p{seat}@x.test",
                   mid=f"<acts{next(_IDS)}@x.test>", In_Reply_To=to["Message-ID"],
                   References=refs)
    assert env.send(msg)[0] == 250
    mails = [m for m in env.replies() if str(m["To"]) == f"p{seat}@x.test"]
    if every:
        return mails
    [answer] = [m for m in mails if m["Auto-Submitted"] == "auto-replied"]
    assert "not done" not in headline(answer), text(answer)
    return answer


def test_resign_by_mail_needs_both_partners(env):
    gid = humans_game(env.store, preset("standard"))
    env.replies()
    [answer] = _send(env, gid, 0, "resign")
    assert "you said resign" in headline(answer)
    offer = _latest(env.store, f"concede:{gid}:")
    assert "offers to resign" in offer.body_text
    [answer] = _send(env, gid, 0, "resign off")
    assert "took back your offer" in headline(answer)
    _send(env, gid, 0, "resign")
    [answer] = _send(env, gid, 2, "resign")
    assert "your side gave the game up" in text(answer)
    st = game_state(env.store, gid)
    assert st.phase == "over" and st.winner == 1 and st.resigned == 2
    [answer] = _send(env, gid, 1, "say gg")
    assert "not done" in headline(answer) and "the game is over" in text(answer)


def test_a_cutthroat_player_resigns_alone_by_mail(env):
    gid = humans_game(env.store, preset("cutthroat-4"))
    env.replies()
    [answer] = _send(env, gid, 3, "resign")
    assert "your side gave the game up" in text(answer)
    assert game_state(env.store, gid).phase == "over"


def test_talk_is_said_as_written_while_the_full_width_move_after_it_is_read(env):
    gid = humans_game(env.store, preset("standard"))  # seat 1 bids first
    env.replies()
    body = "Привет!\nｓａｙ ｇｏｏｄ ｌｕｃｋ ①, ﬁne\nｂｉｄ　３\nОтправлено с iPhone\n"
    [answer] = _send(env, gid, 1, body)
    assert "not done" not in headline(answer), text(answer)
    assert "Отправлено" not in text(answer) and "Привет" not in text(answer)
    st = game_state(env.store, gid)
    # as written, not NFKC's "good luck 1, fine"
    assert [t["text"] for t in st.talk] == ["ｇｏｏｄ ｌｕｃｋ ①, ﬁne"]
    assert st.bids[1] == 3
