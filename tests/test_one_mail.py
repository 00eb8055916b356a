"""A mail whose move leaves its player to act again (won the trick and leads, looked at the
cards) is answered in one mail that is the turn mail too (pbem.notify.answer_stands): a
turn mail's Message-ID (a reply to it makes the next move), the legal moves' links, the
deadline line. Where the robots move after the write (after a deal: nobody could foresee
it), the turn mail stays. Real SMTP, the real outbox and Maildir, Flask's client."""

import re
from datetime import UTC, datetime, timedelta
from itertools import count
from urllib.parse import urlparse

import pytest
import time_machine
from mail_helpers import ANN, crafted, headline, running, state, text
from sqlmodel import select

from pbem.config import load
from pbem.engine import Rules, pretty
from pbem.play import submit
from pbem.signing import Signer, secret_keys
from pbem.store.models import Deadline, Move, Outbox
from pbem.web.app import create_app
from tests.web_helpers import csrf

PLAYERS = ["p0@x.test", "p1@x.test", "p2@x.test", ANN]  # ann plays seat 3
HANDS = {  # seat 0 leads a heart; ann (seat 3) wins it with the ace, last, and leads again
    # (KH or 2D: spades are not broken, and a lone legal card would play itself)
    0: ["2H", "3H", "4H", "5H", "6H", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"],
    1: ["7H", "8H", "9H", "4S", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD"],
    2: ["TH", "JH", "QH", "QD", "KD", "AD", "TC", "JC", "QC", "KC", "AC", "2S", "3S"],
    3: ["KH", "AH", "2D", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"],
}
_IDS = count()


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def ann_to_win_the_trick(env) -> int:
    gid, _ = crafted(env.store, HANDS, seats=PLAYERS)  # dealer 3: seat 0 bids and leads
    for seat, bid in ((0, 1), (1, 2), (2, 4), (3, 5)):
        submit(env.store, gid, seat, {"type": "bid", "bid": bid})
    for seat, card in ((0, "2H"), (1, "7H"), (2, "TH")):
        submit(env.store, gid, seat, {"type": "play", "card": card})
    env.replies()
    return gid


def to_ann(env, gid, body, reply_to=None, seat=3) -> list:
    """`body` from ann to her seat (a reply to our mail `reply_to`, if given); every mail
    that reached her after it."""
    headers = {}
    if reply_to is not None:
        headers = {"In_Reply_To": str(reply_to["Message-ID"]),
                   "References": f"{reply_to['References'] or ''} {reply_to['Message-ID']}"}
    msg = env.mail(env.address(gid, seat), body, mid=f"<one{next(_IDS)}@x.test>", **headers)
    assert env.send(msg)[0] == 250
    return [m for m in env.replies() if str(m["To"]) == ANN]


def links(mail) -> dict[str, str]:
    """The answer's move links by what they do ("play KH"), checked against its signer."""
    html = mail.get_body(("html",)).get_content()
    keys = Signer(secret_keys(load()))
    out = {}
    for url in re.findall(r'href="([^"]*/m/[^"]+)"', html):
        a = keys.loads(url.rsplit("/", 1)[1])["a"]
        out[f"{a['type']} {a.get('card', a.get('bid'))}"] = urlparse(url).path
    return out


def test_a_move_after_which_the_mover_leads_is_answered_in_one_mail(env):
    gid = ann_to_win_the_trick(env)
    [mail] = to_ann(env, gid, "AH")  # the answer, and no turn mail besides
    seq = state(env.store, gid).seq  # its subject: the turn mail's, and what was done
    assert headline(mail) == f"Game {gid}: you played {pretty('AH')}; your turn to lead"
    assert re.fullmatch(rf"<turn\.{gid}\.3\.{seq}\.[0-9a-f]+@{re.escape(env.domain)}>",
                        str(mail["Message-ID"]))
    body = text(mail)
    assert "Your move is due by " in body and "Legal now:" in body
    assert "Due by " in mail.get_body(("html",)).get_content()
    assert str(mail["Auto-Submitted"]) == "auto-replied" and mail["In-Reply-To"]
    with env.store.reader() as s:
        assert s.exec(select(Outbox).where(Outbox.dedupe_key == f"turn:{gid}:3:{seq}")
                      ).first() is None
    # it shows ann's own cards, and no card another seat holds
    st = state(env.store, gid)
    held = {pretty(c) for s in (0, 1, 2) for c in st.hands[s]}
    assert not any(c in body for c in held)
    assert all(pretty(c) in body for c in st.hands[3])
    # a reply to it is read as a reply to a turn mail: the next move is made
    [answer] = to_ann(env, gid, "KH", reply_to=mail)
    assert "not done" not in headline(answer), text(answer)
    assert state(env.store, gid).trick == [(3, "KH")]


def test_the_one_mails_links_work_as_a_turn_mails(env):
    gid = ann_to_win_the_trick(env)
    [mail] = to_ann(env, gid, "AH")
    moves = links(mail)
    assert "play KH" in moves and "play AS" not in moves  # spades not broken: legal only
    client = create_app(load(), env.store, testing=True).test_client()
    r = client.get(moves["play KH"])
    assert r.status_code == 200 and "Confirm" in r.text
    r = client.post(moves["play KH"], data={"csrf": csrf(client)})
    assert r.status_code == 303
    assert state(env.store, gid).trick == [(3, "KH")]
    with env.store.reader() as s:
        m = s.exec(select(Move).where(Move.game_id == gid).order_by(Move.seq.desc())).first()
    assert m.source == "web" and m.actor == 3


def test_a_look_by_mail_is_answered_in_one_mail_and_a_reply_to_it_bids(env, store):
    rules = Rules(preset="standard", blind_nil_behind=0)  # blind nil open: nobody has looked
    gid, hands = crafted(store, HANDS, seats=[ANN, *PLAYERS[:3]], rules=rules)
    env.replies()
    [mail] = to_ann(env, gid, "look", seat=0)  # she bids first
    assert headline(mail) == f"Game {gid}: you looked at your cards; your turn to bid"
    assert str(mail["Message-ID"]).startswith(f"<turn.{gid}.0.")
    assert all(pretty(c) in text(mail) for c in hands[0])
    assert not any(pretty(c) in text(mail) for c in hands[1])
    [answer] = to_ann(env, gid, "bid 3", reply_to=mail, seat=0)
    assert "not done" not in headline(answer), text(answer)
    assert state(env.store, gid).bids[0] == 3


def test_robots_moving_after_the_write_keep_the_turn_mail(env, store):
    """Ann claims the rest of the hand: the next deal comes in her write, and the robots
    bid first after it, each decided after the write. Her answer shows the table as the
    write left it (not her turn: no turn Message-ID, no deadline); the turn mail the
    robots' write sends shows the table she acts on."""
    spades = [f"{r}S" for r in "AKQJT98765432"]
    gid, _ = crafted(store, {0: spades})  # ann, seat 0, holds every spade; robots 1-3
    submit(store, gid, 0, {"type": "bid", "bid": 13})
    assert state(store, gid).to_act() == [0]  # the robots bid, and she leads
    env.replies()
    mails = to_ann(env, gid, "claim", seat=0)
    st = state(store, gid)
    assert st.hand_no == 1 and st.to_act() == [0], "the robots have bid: ann's turn"
    answer = next(m for m in mails if m["Auto-Submitted"] == "auto-replied")
    turn = next(m for m in mails if m is not answer)
    assert not str(answer["Message-ID"]).startswith("<turn.")
    assert "Your move is due by " not in text(answer)
    assert str(turn["Message-ID"]).startswith(f"<turn.{gid}.0.{st.seq}.")
    assert "Your move is due by " in text(turn)
    assert len(mails) == 2


def due_line(mail) -> str:
    return re.search(r"Your move is due by ([^.\n]+)\.", text(mail)).group(1)


def armed(store, gid, seat=3) -> str:
    """The seat's pending timeout, as a mail words it."""
    with store.reader() as s:
        due = s.exec(select(Deadline.due).where(Deadline.game_id == gid, Deadline.seat == seat,
                                                Deadline.kind == "timeout",
                                                Deadline.state == "pending")).one()
    return due.strftime("%a %d %b %Y, %H:%M UTC")


def test_the_one_mail_tells_what_a_turn_mail_tells(env):
    """Her pending orders and the very deadline armed, as her turn mail would."""
    gid = ann_to_win_the_trick(env)
    [answer] = to_ann(env, gid, "if diamonds are led play 2D")
    assert "not done" not in headline(answer), text(answer)
    submit(env.store, gid, 0, {"type": "say", "text": "well bid, ann"})
    env.replies()
    [mail] = to_ann(env, gid, "AH")
    body, html = text(mail), mail.get_body(("html",)).get_content()
    assert "Your orders, which only you see: if diamonds are led play 2D." in body
    assert "Your orders, which only you see: if diamonds are led play 2D." in html
    assert "well bid, ann" not in body  # said before her move: a turn mail's rule (talk)
    assert due_line(mail) == armed(env.store, gid)
    assert str(mail["Message-ID"]).startswith(f"<turn.{gid}.3.{state(env.store, gid).seq}.")


def test_an_undo_by_mail_tells_the_deadline_the_seat_keeps(env):
    """An undo gives the seat back the deadline it had for that move (pbem.play), and the
    answer, her turn mail, says that one, not a new one counted from the undo."""
    with time_machine.travel(datetime(2026, 3, 2, 9, 0, tzinfo=UTC), tick=True) as t:
        gid = ann_to_win_the_trick(env)
        kept = armed(env.store, gid)
        t.shift(timedelta(hours=3))
        [played] = to_ann(env, gid, "AH")
        assert due_line(played) == armed(env.store, gid) != kept
        t.shift(timedelta(hours=1))
        [mail] = to_ann(env, gid, "undo")
    assert state(env.store, gid).trick == [(0, "2H"), (1, "7H"), (2, "TH")]
    assert due_line(mail) == armed(env.store, gid) == kept
    assert headline(mail).startswith(f"Game {gid}: you took back your move; your turn to")
