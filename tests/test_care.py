"""A table that waits is not stuck for ever (issue 12): a `wait` timeout mails whoever
looks after the game (its creator here, a league's organiser there) one-use links to let
the robot make the move or to give more time; the links change nothing on GET, work once,
and do nothing once the game has moved on."""

import re

import time_machine
from sqlmodel import select

from pbem import clock
from pbem.engine import preset
from pbem.play import start
from pbem.store.games import create_game, player_for
from pbem.store.models import Deadline, Game, Move, Outbox
from tests.test_clock import HUMANS, T0, move, state
from tests.web_helpers import counts, csrf

H = 3600
WAIT = {"move_hours": 6, "remind_hours": [], "on_timeout": "wait"}
BOSS = "boss@example.org"


def waiting_game(store, t, creator=BOSS) -> int:
    gid = create_game(store, preset("standard"), list(HUMANS), first_dealer=0,
                      time_control=WAIT)
    if creator:
        with store.session() as s:
            s.get(Game, gid).created_by = player_for(s, creator).id
            s.commit()
    start(store, gid)
    t.shift(7 * 60 * 60)
    assert clock.tick(store) == 1  # bob's move waits
    return gid


def care_links(store) -> dict[str, str]:
    with store.session() as s:
        [mail] = s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("care:"))).all()
    assert mail.to_addr == BOSS and "Each link works once" in mail.body_text
    found = re.findall(r"^(.*):\n  http://[^/]+(/c/\S+)$", mail.body_text, re.M)
    return {"robot" if "robot" in text else re.search(r"\d+", text).group(): path
            for text, path in found}


def moves(store, gid) -> list[Move]:
    with store.session() as s:
        return list(s.exec(select(Move).where(Move.game_id == gid, Move.source == "organiser")))


def test_the_creator_lets_the_robot_make_the_waiting_move_once(store, client):
    with time_machine.travel(T0, tick=False) as t:
        gid = waiting_game(store, t)
        links = care_links(store)
        assert set(links) == {"robot", "24", "72"}
        before = counts(store, gid)
        page = client.get(links["robot"])
        assert page.status_code == 200 and "let the robot make move 1 for bob" in page.text
        assert counts(store, gid) == before  # a scanner's GET changes nothing
        token = csrf(client)
        r = client.post(links["robot"], data={"csrf": token})
        assert r.status_code == 303 and r.headers["Location"] == links["robot"]
        assert "Done" in client.get(links["robot"]).text  # what was done, once
        [robot] = moves(store, gid)
        assert robot.actor == 1 and robot.seq == 2 and robot.ref.startswith("care:")
        again = client.post(links["robot"], data={"csrf": token})
        assert again.status_code == 409 and len(moves(store, gid)) == 1
        late = client.post(links["24"], data={"csrf": token})  # the game moved on
        assert late.status_code == 409 and "moved on" in late.text


def test_more_time_arms_a_new_deadline_once(store, client):
    with time_machine.travel(T0, tick=False) as t:
        gid = waiting_game(store, t)
        links = care_links(store)
        token = csrf(client)
        assert client.post(links["24"], data={"csrf": token}).status_code == 303
        with store.session() as s:
            [due] = s.exec(select(Deadline).where(Deadline.game_id == gid,
                                                  Deadline.state == "pending")).all()
        assert due.seat == 1 and due.seq == 1 and (due.due - T0).total_seconds() == 31 * H
        for path in (links["24"], links["72"]):  # once, and one deadline at a time
            r = client.post(path, data={"csrf": token}, follow_redirects=True)
            assert r.status_code == 409, path
        move(store, gid)  # bob moves in the new time
        assert state(store, gid).seq > 1 and moves(store, gid) == []


def test_a_forged_or_foreign_care_link_does_nothing(store, client):
    from pbem.signing import MOVE, Signer

    with time_machine.travel(T0, tick=False) as t:
        gid = waiting_game(store, t)
        path = care_links(store)["robot"]
        keys = client.application.config["PBEM_KEYS"]
        move_link = Signer(keys, MOVE).dumps({"g": gid, "s": 1, "q": 1, "a": "robot"})
        token = csrf(client)
        before = counts(store, gid)
        for bad in (path[:-3] + "abc", f"/c/{move_link}", "/c/x"):
            assert client.post(bad, data={"csrf": token}).status_code in (400, 404), bad
        assert counts(store, gid) == before


def test_a_game_the_operator_made_has_nobody_to_ask(store):
    with time_machine.travel(T0, tick=False) as t:
        waiting_game(store, t, creator=None)
        with store.session() as s:
            assert s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("care:"))
                          ).all() == []


def test_a_league_table_that_waits_asks_its_organiser(store):
    from pbem.league.manage import OPERATOR
    from pbem.organise.seasons import start_season
    from tests.league_helpers import ORGANISER, league, playing_games

    lid = league(store, players=4, time_control=WAIT)
    with time_machine.travel(T0, tick=False) as t:
        start_season(store, lid, OPERATOR)
        [gid] = playing_games(store, lid)
        t.shift(7 * 60 * 60)
        assert clock.tick(store) == 1
    with store.session() as s:
        [mail] = s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("care:"))).all()
    assert mail.to_addr == ORGANISER and f"game {gid}" in mail.body_text
