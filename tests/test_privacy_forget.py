"""`forget` (issue 31): after it, no trace of the player's address or name in any table, in
any game's log export or in any page; every game replays as before; the standings are as
they were; their seat in a game in play is a robot's; no mail goes to them again. On SQLite
and PostgreSQL."""

import pytest
from click.testing import CliRunner
from league_helpers import fixtures, league, play_out, state
from privacy_helpers import dump
from sqlmodel import select
from web_helpers import seats, sign_in

from pbem.engine import choose, score_pad, view
from pbem.gamelog import replay_log
from pbem.league.manage import OPERATOR
from pbem.league.reports import season_standings
from pbem.organise.seasons import start_season
from pbem.play import import_log, submit
from pbem.privacy.forget import forget
from pbem.privacy.mailed import mail_export
from pbem.store.games import export
from pbem.store.models import Entry, Game, Outbox, Player, Season, Seat
from pbem.store.outbox import drain, maildir_delivery

ADDRESS, NAME = "p0@league.test", "Zebulon Quartz"


def _rename(store) -> int:
    """p0 as a person names themselves: their row and their entry."""
    with store.session() as s:
        player = s.exec(select(Player).where(Player.email == ADDRESS)).one()
        player.name = NAME
        entry = s.exec(select(Entry).where(Entry.player_id == player.id)).one()
        entry.name = NAME
        s.add(player)
        s.add(entry)
        s.commit()
        return player.id


def _standings(store, lid) -> list[tuple]:
    with store.reader() as s:
        season = s.exec(select(Season).where(Season.league_id == lid)).one()
        # by entry: rows of equal rank are listed by name, and the name is what changes
        return sorted((r.entry, r.rank, r.played, r.won, r.points, r.diff, r.bags)
                      for r in season_standings(s, season))


def _moves(store, gid, n, talk=None) -> None:
    for _ in range(n):
        st = state(store, gid)
        seat = st.to_act()[0]
        submit(store, gid, seat, choose(view(st, seat), seed=1, rules=st.rules),
               expect_seq=st.seq, source="web")
    if talk is not None:
        submit(store, gid, talk[0], {"type": "say", "text": talk[1]}, source="web")


@pytest.fixture
def site(store, client, tmp_path):
    """A league's first round: the other table played out, p0's in play (talk naming p0),
    p0 signed in on the web, p0 and their partner's exports mailed, the mails so far sent."""
    lid = league(store, players=8)
    pid = _rename(store)
    start_season(store, lid, OPERATOR)
    games = [f.game_id for f in fixtures(store, lid)]
    mine = next(g for g in games if any(x.player_id == pid for x in seats(store, g)))
    other = next(g for g in games if g != mine)
    play_out(store, other, seed=3)
    seat = next(x.seat for x in seats(store, mine) if x.player_id == pid)
    _moves(store, mine, 3, talk=((seat + 1) % 4, f"good luck {NAME}, {ADDRESS}"))
    sign_in(client, store, ADDRESS)
    with store.reader() as s:  # a partner's export names p0 (in its mail's attachment)
        mate = s.get(Player, seats(store, mine)[(seat + 2) % 4].player_id)
        me = s.get(Player, pid)
    assert mail_export(store, mate) and mail_export(store, me)
    drain(store, deliver=maildir_delivery(tmp_path / "mail", "pbem.localhost"))
    return lid, pid, mine, other, seat


def _trace(text: str) -> list[str]:
    low = text.lower()
    return [x for x in (ADDRESS, NAME.lower(), "zebulon") if x in low]


def test_forget_leaves_no_trace_and_every_game_and_standing_as_it_was(store, client, site):
    lid, pid, mine, other, seat = site
    assert _trace(repr(dump(store)))  # the test can fail: they are there before
    before = _standings(store, lid)
    pad = score_pad(replay_log(export(store, other)))
    handle = forget(store, pid)
    assert handle.startswith("player-")
    left = {k: [r for r in v if _trace(r)] for k, v in dump(store).items()}
    assert not any(left.values()), {k: v[:2] for k, v in left.items() if v}
    for gid in (mine, other):
        text = export(store, gid)
        assert _trace(text) == [] and (handle in text) == (gid == mine)
        replay_log(text)  # replays: talk and hand-overs are still legal events
    assert score_pad(replay_log(export(store, other))) == pad
    copy = import_log(store, export(store, mine))  # the log still imports, and plays the same
    assert state(store, copy).seq == state(store, mine).seq
    assert _standings(store, lid) == before
    with store.reader() as s:
        entry = s.exec(select(Entry).where(Entry.player_id == pid)).one()
    assert entry.name == handle
    # their seat in the game in play is a robot's now, and the game went on
    assert seats(store, mine)[seat].robot and state(store, mine).seq > 0
    pages = ["/", f"/g/{mine}", f"/g/{other}", f"/l/{lid}", f"/l/{lid}/s/1", "/home",
             *[f"/t/{x.token}" for x in seats(store, mine) if not x.robot]]
    for path in pages:
        r = client.get(path, follow_redirects=True)
        assert r.status_code == 200 and _trace(r.text) == [], path
    assert "/signin" in client.get("/home").headers["Location"]  # signed out everywhere


def test_no_mail_goes_to_a_forgotten_player(store, site, tmp_path):
    _lid, pid, mine, _other, _seat = site
    handle = forget(store, pid)
    address = f"{handle}@forgotten.test"
    with store.session() as s:  # whatever writes to the address later, an answer even
        s.add(Outbox(to_addr=address, subject="x", body_text="x", dedupe_key="reply:late"))
        s.add(Outbox(to_addr=address, subject="x", body_text="x", dedupe_key="turn:9:0:1"))
        s.commit()
    box = tmp_path / "after"
    drain(store, deliver=maildir_delivery(box, "pbem.localhost"))
    sent = [p.read_text() for p in (box / "new").iterdir()] if (box / "new").exists() else []
    assert not [m for m in sent if address in m or ADDRESS in m]
    with store.reader() as s:
        rows = s.exec(select(Outbox).where(Outbox.to_addr == address)).all()
        assert rows and all(r.last_error.startswith("settled: ") for r in rows)
        assert s.get(Game, mine) is not None


def test_forget_twice_keeps_the_handle(store, site):
    pid = site[1]
    assert forget(store, pid) == forget(store, pid)


def test_the_operators_commands(store, site, tmp_path, monkeypatch):
    from pbem.cli import main

    monkeypatch.setenv("DATABASE_URL", store.url)
    pid = site[1]
    out = tmp_path / "p0.json"
    r = CliRunner().invoke(main, ["player", "export", ADDRESS, str(out)])
    assert r.exit_code == 0, r.output
    assert NAME in out.read_text()
    r = CliRunner().invoke(main, ["player", "forget", str(pid)], input="n\n")
    assert r.exit_code == 1 and _trace(repr(dump(store)))  # asked, and not done
    r = CliRunner().invoke(main, ["player", "forget", ADDRESS, "--yes"])
    assert r.exit_code == 0 and "player-" in r.output, r.output
    assert _trace(repr(dump(store))) == []
    r = CliRunner().invoke(main, ["player", "export", ADDRESS])
    assert r.exit_code == 1 and "there is no player" in r.output


def test_a_seat_in_a_game_not_dealt_goes_to_a_robot_as_when_an_invitee_declines(store):
    from pbem.engine import preset
    from pbem.store.games import create_game

    gid = create_game(store, preset("standard"), [ADDRESS, "robot", "bob@example.org", "robot"])
    with store.session() as s:  # bob has not said yes yet: the deal waits for him
        bob = next(x for x in s.exec(select(Seat).where(Seat.game_id == gid)) if x.seat == 2)
        bob.accepted = False
        s.add(bob)
        s.commit()
        pid = s.exec(select(Player.id).where(Player.email == ADDRESS)).one()
    forget(store, pid)
    first = seats(store, gid)[0]
    assert first.robot and first.player_id is None and first.accepted
    with store.reader() as s:
        assert s.get(Game, gid).status == "open"  # still waiting for bob, nothing dealt
    assert ADDRESS not in export(store, gid)
