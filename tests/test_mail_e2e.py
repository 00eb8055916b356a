"""End to end over real SMTP (and LMTP): players who know only their mail.

The inbound server runs in-process on a free port; the outbox is drained into a Maildir
under the test's directory. Each player reads the Maildir, takes its newest unanswered turn
mail, and answers its Reply-To with one of the move lines that mail lists (In-Reply-To: the
turn mail's Message-ID). The engine is used only to check what happened, from the exported
log: never to choose a move.
"""

import dataclasses
import random
import re

import pytest

from pbem.engine import preset, replay, score_pad
from pbem.play import start
from pbem.store.games import create_game
from tests.mail_players import DOMAIN, Table, check_secrecy, choose, load_log

HUMANS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]

def play_by_mail(table: Table, humans: dict[int, str], rng, until, limit: int) -> None:
    """Each player answers its newest turn mail, until `until()` is true."""
    table.fetch()
    for _ in range(limit):
        if until():
            return
        todo = [(who, table.pending(who)) for who in humans.values()]
        todo = [(who, m) for who, m in todo if m is not None]
        assert todo, "nobody has a turn mail to answer, yet the play is not done"
        for who, turn in todo:
            assert turn.reply_to.startswith("play+") and turn.reply_to.endswith("@" + DOMAIN)
            table.reply(who, turn, choose(turn, rng))
        table.fetch()
        refused = [m for m in table.mails.values() if "not done" in m.headline]
        assert not refused, refused[0].text
    raise AssertionError(f"not done after {limit} rounds")


def test_four_players_play_a_hand_by_mail(store, tmp_path):
    gid = create_game(store, preset("standard"), HUMANS, first_dealer=0)
    start(store, gid)
    humans = dict(enumerate(HUMANS))
    with Table(store, tmp_path) as table:
        def hand_two():
            return any(m.is_turn and m.hand_no == 2 for m in table.mails.values())

        play_by_mail(table, humans, random.Random(1), hand_two, limit=80)
        # four bids and 52 cards, one mail each, but for the cards that played themselves
        # (a seat's only legal card, the rest of a settled hand: at least the last trick)
        forced = [e for e in load_log(store, gid)[1] if e.get("auto") in ("forced", "settled")]
        assert len(forced) >= 4 and table.sent == 4 + 52 - len(forced)
        # every accepted move was answered with a "done" to its sender
        # (an answer that is the mover's turn mail too starts as the turn mail does)
        said = re.compile(rf"Game {gid}: you ")
        done = [m for m in table.mails.values() if said.match(m.headline)]
        assert len(done) == table.sent
        # each an answer and a turn mail, but where the answer is the mover's turn mail too
        folded = sum(m.message_id.startswith("<turn.") for m in done)
        assert check_secrecy(table, gid, humans) > 2 * table.sent - folded
        # the check can fail: a turn mail naming a card another player still holds
        _, events = load_log(store, gid)
        deal = next(e for e in events if e["type"] == "deal")
        turn = next(m for m in table.mails.values() if m.is_turn and m.to == HUMANS[0])
        leak = deal["hands"][1][0]
        turn.html += f"<p>{leak[0].replace('T', '10')}{'♠♥♦♣'['SHDC'.index(leak[1])]}</p>"
        with pytest.raises(AssertionError):
            check_secrecy(table, gid, humans)
        turn.html = turn.msg.get_body(("html",)).get_content()

        header, events = load_log(store, gid)
        plays = [e for e in events if e["type"] == "play"]
        assert len(plays) == 52
        pad = score_pad(replay(preset("standard"), events, header["first_dealer"]))
        assert len(pad["hands"]) == 1  # the hand was scored
        scores = [side["score"] for side in pad["sides"]]
        assert any(scores)
        # and the players were told: the first turn mail of hand 2 shows the new score
        first = min((m for m in table.mails.values() if m.is_turn and m.hand_no == 2),
                    key=lambda m: m.seq)
        assert first.scores() == scores


def test_one_human_and_three_robots_play_a_game_to_the_end(store, tmp_path):
    rules = dataclasses.replace(preset("standard"), target=100)
    gid = create_game(store, rules, ["ann@example.org", "robot", "robot", "robot"],
                      first_dealer=3)
    start(store, gid)
    humans = {0: "ann@example.org"}
    with Table(store, tmp_path) as table:
        def over():
            return any(m.headline == f"Game {gid} is over" for m in table.mails.values())

        play_by_mail(table, humans, random.Random(2), over, limit=400)
        last = [m for m in table.inbox("ann@example.org") if m.headline.endswith("is over")]
        assert len(last) == 1
        assert check_secrecy(table, gid, humans) > table.sent
        header, events = load_log(store, gid)
        pad = score_pad(replay(rules, events, header["first_dealer"]))
        assert pad["over"] and max(s["score"] for s in pad["sides"]) >= 100
        assert last[0].scores() == [s["score"] for s in pad["sides"]]
        assert f"Game {gid} is over" in last[0].text
        assert "Bids and tricks" not in last[0].text  # no empty next hand ("bid -, took 0")
        assert "The last hand: " in last[0].text
        # the human moved only by mail: its moves in the log are exactly the mails sent
        # (a `look` too: with blind nil on offer, trailing by 100, a reply may be one)
        mine = [e for e in events if e.get("seat") == 0 and e["type"] in ("bid", "play", "look")]
        forced = [e for e in mine if e.get("auto") in ("forced", "settled")]
        assert forced and len(mine) - len(forced) == table.sent  # the rest played themselves


@pytest.mark.parametrize("moves", [8])
def test_lmtp_carries_moves(store, tmp_path, moves):
    gid = create_game(store, preset("standard"), HUMANS, first_dealer=1)
    start(store, gid)
    humans = dict(enumerate(HUMANS))
    with Table(store, tmp_path, lmtp=True) as table:
        play_by_mail(table, humans, random.Random(3), lambda: table.sent >= moves, limit=20)
        _, events = load_log(store, gid)
        assert len([e for e in events if e["type"] in ("bid", "play") and "auto" not in e]) \
            == moves  # each mail's move (the cards that play themselves are no mail's)
        assert check_secrecy(table, gid, humans) >= 2 * moves
