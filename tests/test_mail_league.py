"""League commands by mail, through the running SMTP handler: join (from anyone at plain
pbem@DOMAIN: the answer is a confirmation link to that address only), and at a player's
account address join, leave, leagues, moves, and `turns daily` (no mail a turn; the daily
digest lists the moves)."""

import re
from datetime import date

import pytest
from mail_helpers import ANN, game, prefs, running, text
from mail_helpers import account as account_address
from sqlmodel import select

from pbem.digest import send_digests
from pbem.league.manage import JOIN, OPERATOR, join, read_link
from pbem.organise import seasons
from pbem.store.models import Entry, Outbox, Player, Seat
from tests.league_helpers import league, playing_games, snapshot, state


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def plain(env) -> str:
    return f"pbem@{env.domain}"


def account(env) -> str:
    """Ann's own account address."""
    return account_address(env, ANN)


def test_a_stranger_joins_by_mail_and_gets_only_the_confirmation(env):
    lid = league(env.store, players=0)
    env.replies()  # the organiser's mail
    assert env.send(env.mail(plain(env), f"join {lid}", frm="new@x.test"))[0] == 250
    [mail] = env.replies()
    assert mail["To"] == "new@x.test" and mail["Subject"] == "Confirm your entry: Test League"
    token = re.search(r"/j/confirm/(\S+)", text(mail))[1]
    assert read_link(token, JOIN)["e"] == "new@x.test"
    with env.store.session() as s:
        assert s.exec(select(Entry)).all() == []  # nothing until the address says yes

    # a stranger's refused join, or any other command, gets no answer at all
    before = snapshot(env.store)
    for body in (f"join {lid + 7}", "join x", "leagues", "moves", f"leave {lid}"):
        assert env.send(env.mail(plain(env), body, frm="other@x.test"))[0] == 250
    assert env.replies() == [] and snapshot(env.store) == before


def test_a_player_joins_leaves_and_lists_leagues_by_mail(env):
    game(env.store)  # ann is known: she plays
    lid = league(env.store, players=2)
    env.replies()
    env.send(env.mail(account(env), f"join {lid}"))
    mails = env.replies()
    assert sorted(m["Subject"] for m in mails) == ["Confirm your entry: Test League",
                                                    "Re: move"]
    reply = next(m for m in mails if m["Subject"] == "Re: move")
    assert f"Done: join {lid}: a link to confirm your entry was mailed to {ANN}" in text(reply)

    join(env.store, lid, ANN)
    env.replies()
    env.send(env.mail(account(env), f"leagues\njoin {lid}"))
    [reply] = env.replies()
    body = text(reply)
    assert f"league {lid} (Test League), season 1: open" in body
    assert f"Not done: join {lid}\n{ANN} is entered in Test League already" in body

    env.send(env.mail(account(env), f"leave {lid}\nleave {lid}"))
    [reply] = env.replies()
    assert f"Done: leave {lid}: ann is out of season 1" in text(reply)
    assert f"Not done: leave {lid}\nyou have no entry in league {lid} to take out" in text(reply)


def test_moves_lists_every_game_waiting_for_me_with_its_link(env):
    lid = league(env.store, players=3)
    join(env.store, lid, ANN)
    seasons.start_season(env.store, lid, OPERATOR)
    [league_game] = playing_games(env.store, lid)
    own = game(env.store)  # ann bids first in her own game too
    env.replies()
    env.send(env.mail(account(env), "moves"))
    [reply] = env.replies()
    body = text(reply)
    # a line of 78 columns at most: the link may stand on the next line
    links = re.findall(r"^  Game (\d+)(.*):\s+(\S+/t/\w+)$", body, re.M)
    mine = {int(g) for g, _, _ in links}
    assert own in mine
    [(_, where, _)] = [x for x in links if int(x[0]) == own]  # its timeout, at this move
    assert re.fullmatch(r", due \w{3} \d\d \w{3} \d\d:\d\d UTC", where), where
    with env.store.session() as s:
        ann = s.exec(select(Player).where(Player.email == ANN)).one()
        seat = s.exec(select(Seat).where(Seat.game_id == league_game,
                                         Seat.player_id == ann.id)).one()
    assert (league_game in mine) == (seat.seat in state(env.store, league_game).to_act())
    if league_game in mine:
        assert any(", round 1" in where for g, where, _ in links if int(g) == league_game)


def test_turns_daily_sends_one_mail_a_day_instead_of_a_mail_a_turn(env):
    gid = game(env.store)  # registers ann; her first turn mail comes the usual way
    env.replies()
    env.send(env.mail(account(env), "turns daily"))
    assert "Done: turns: daily" in text(env.replies()[0])
    assert prefs(env.store, ANN)["turns"] == "daily"
    second = game(env.store)
    with env.store.session() as s:
        turns = s.exec(select(Outbox).where(Outbox.dedupe_key.like(f"turn:{second}:%"))).all()
    assert turns == []
    assert send_digests(env.store, date(2026, 11, 23)) == 1
    [digest] = env.replies()
    body = text(digest)
    assert "It is your move in:" in body and f"Game {gid}" in body and f"Game {second}" in body
    assert body.count("/t/") == 2
    assert send_digests(env.store, date(2026, 11, 23)) == 0  # once a day
    env.send(env.mail(account(env), "turns each"))
    env.replies()
    third = game(env.store)
    with env.store.session() as s:
        assert s.exec(select(Outbox).where(Outbox.dedupe_key.like(f"turn:{third}:%"))).all()


def test_bad_league_commands_are_answered_and_change_nothing(env):
    game(env.store)
    lid = league(env.store, players=4, max_entries=4)
    env.replies()
    before = snapshot(env.store)
    cases = [("join", "write: join LEAGUE"), (f"join {lid} and bob", "write: join LEAGUE"),
             ("join nine", "'nine' is not a league number"),
             (f"join {lid}", "Test League is full: 4 entries"),
             (f"join {lid} with bob@x.test", "Test League is for single players"),
             (f"join {lid} with bob@[10.0.0.1]", "'bob@[10.0.0.1]' is not a mail address"),
             (f"join {lid} with {'b' * 250}@x.test",
              f"'{'b' * 80}...' is not a mail address: over 254 characters"),
             ("leave", "'?' is not a league number"), ("turns sometimes", "write: turns daily")]
    for line, why in cases:
        env.send(env.mail(account(env), line))
        [reply] = env.replies()
        # the answer's lines are wrapped at 78 columns: compare the words
        said = " ".join(text(reply).split())
        assert " ".join(f"Not done: {line}\n{why}".split()) in said, text(reply)
    after = snapshot(env.store)
    assert after.pop("Outbox") == before.pop("Outbox") + len(cases)
    assert after == before
