"""No download shows the hand in play (issue 12): the organiser's zip of a running league
stops each running game's log at its last finished hand, on SQLite and PostgreSQL; only
the server's operator (the command line) exports whole."""

import io
import json
import zipfile

from click.testing import CliRunner

from pbem.engine import choose, preset, view
from pbem.gamelog import finished_hands, read_log, replay_log
from pbem.league.manage import OPERATOR
from pbem.organise.seasons import start_season
from pbem.play import submit
from pbem.store.games import export
from pbem.store.models import League
from tests.league_helpers import league, playing_games, state

TWO_HANDS = preset("standard").with_options(max_hands=2)


def moves(store, gid, n) -> None:
    for _ in range(n):
        st = state(store, gid)
        seat = st.to_act()[0]
        submit(store, gid, seat, choose(view(st, seat), seed=1, rules=st.rules),
               expect_seq=st.seq, source="web")


def hand_in_play(st) -> set[str]:
    return {c for hand in st.hands for c in hand} | {c for _, c in st.trick}


def zipped_logs(client, store, lid) -> dict[int, str]:
    with store.session() as s:
        admin = s.get(League, lid).admin_token
    r = client.get(f"/o/{admin}/export.zip")
    assert r.status_code == 200
    z = zipfile.ZipFile(io.BytesIO(r.data))
    return {int(n[len("games/game-"):-len(".jsonl")]): z.read(n).decode()
            for n in z.namelist() if n.startswith("games/")}


def test_the_organisers_zip_stops_a_running_game_at_its_last_finished_hand(store, client):
    lid = league(store, players=4, rules=TWO_HANDS)
    start_season(store, lid, OPERATOR)
    [gid] = playing_games(store, lid)
    moves(store, gid, 6)  # bids and a few cards of the first hand
    st = state(store, gid)
    logs = zipped_logs(client, store, lid)
    header, _, events = read_log(logs[gid])
    assert events == [] and header["seats"]  # no finished hand yet: nothing of the deal
    assert not any(c in logs[gid] for c in hand_in_play(st) if len(c) == 2 and c != "AS")

    while state(store, gid).hand_no < 1:  # the first hand ends; the second is dealt
        moves(store, gid, 1)
    moves(store, gid, 5)
    st = state(store, gid)
    text = zipped_logs(client, store, lid)[gid]
    shown = replay_log(text)  # the finished hand, revealed and verifiable
    assert shown.hand_no == 1 and shown.phase == "deal" and len(shown.reveals) == 1
    in_play = [ev for ev in read_log(export(store, gid))[2] if ev["seq"] > shown.seq]
    assert in_play[0]["type"] == "deal" and st.seq == in_play[-1]["seq"]
    assert not any(json.dumps(ev) in text for ev in in_play)


def test_the_operator_exports_whole(store, tmp_path, monkeypatch):
    from pbem.cli import main

    monkeypatch.setenv("DATABASE_URL", store.url)
    lid = league(store, players=4, rules=TWO_HANDS)
    start_season(store, lid, OPERATOR)
    [gid] = playing_games(store, lid)
    moves(store, gid, 6)
    r = CliRunner().invoke(main, ["league", "export", str(lid), str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "out" / "games" / f"game-{gid:06d}.jsonl").read_text()
    assert replay_log(text).seq == state(store, gid).seq


def test_finished_hands_keeps_a_revealed_hand_and_cuts_an_unrevealed_one():
    deal = {"seq": 1, "type": "deal"}
    bid = {"seq": 2, "type": "bid"}
    assert finished_hands([]) == []
    assert finished_hands([deal, bid]) == []
    reveal = {"seq": 3, "type": "reveal", "deal": 1}
    assert finished_hands([deal, bid, reveal]) == [deal, bid, reveal]
    again = {"seq": 4, "type": "deal"}
    assert finished_hands([deal, bid, reveal, again, bid]) == [deal, bid, reveal]
