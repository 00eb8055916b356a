"""Bounces (issue 13), as the table and the organiser see them: a seat whose mail stopped
is marked on its table's page and on the organiser's; the clock gives it no reminder and
runs its deadlines as for any silent seat. Real pages through Flask's client, the real
clock under time_machine."""

from datetime import UTC, datetime, timedelta

import time_machine
from sqlmodel import select

from pbem import clock
from pbem.engine import preset
from pbem.league.manage import OPERATOR
from pbem.organise import seasons
from pbem.play import start
from pbem.store import bounces
from pbem.store.games import create_game
from pbem.store.models import League, Move, Outbox, Player, Seat
from tests.league_helpers import league

NOTE = "mail to this player bounces"
HUMANS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]
T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)
H = timedelta(hours=1)


def stop(store, email: str) -> None:
    """Three hard bounces of three mails to `email`, recorded as the mail handler does."""
    with store.session() as s:
        rows = [Outbox(to_addr=email, subject="x", body_text="x", dedupe_key=f"b:{email}:{i}",
                       sent_at=datetime.now(UTC)) for i in range(3)]
        s.add_all(rows)
        s.commit()
    said = [bounces.record(store, row, True, "5.1.1") for row in rows]
    assert said[-1][0].endswith("mail stopped") and said[-1][1].email == email, said


def token(store, gid: int, seat: int) -> str:
    with store.session() as s:
        return s.exec(select(Seat.token).where(Seat.game_id == gid, Seat.seat == seat)).one()


def test_the_table_page_says_whose_mail_bounces(store, client):
    gid = create_game(store, preset("standard"), HUMANS, first_dealer=0)
    start(store, gid)
    page = client.get(f"/t/{token(store, gid, 0)}").text
    assert NOTE not in page
    stop(store, "bob@example.org")
    rows = [r for r in client.get(f"/t/{token(store, gid, 0)}").text.split("<tr") if NOTE in r]
    assert len(rows) == 1 and ">bob" in rows[0]
    assert "Mail to your address bounces" not in client.get(f"/t/{token(store, gid, 0)}").text
    assert "Mail to your address bounces" in client.get(f"/t/{token(store, gid, 1)}").text


def test_the_organisers_page_says_whose_mail_bounces(store, client):
    lid = league(store, players=4)
    seasons.start_season(store, lid, OPERATOR)
    with store.session() as s:
        admin = s.get(League, lid).admin_token
    assert NOTE not in client.get(f"/o/{admin}").text
    stop(store, "p2@league.test")
    page = client.get(f"/o/{admin}").text
    assert f"p2@league.test</span> <strong class=\"bounces\">({NOTE})</strong>" in page  # entries
    assert f"p2@league.test&gt; ({NOTE})" in page  # the seat at its table
    assert page.count(NOTE) == 2


def test_the_clock_reminds_a_bouncing_seat_of_nothing_and_times_it_out_as_usual(
        store, monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))
    with time_machine.travel(T0, tick=False) as t:
        gid = create_game(store, preset("standard"), HUMANS, first_dealer=0,
                          time_control={"move_hours": 6, "remind_hours": [2, 1]})
        stop(store, "bob@example.org")  # bob (seat 1) bids first
        start(store, gid)
        t.shift(5 * H)
        assert clock.tick(store) == 2  # both reminders are due, neither can reach bob
        t.shift(H)
        assert clock.tick(store) == 1  # the timeout: the robot bids for bob
        with store.session() as s:
            [mv] = s.exec(select(Move).where(Move.ref.startswith("timeout:"))).all()
            to_bob = s.exec(select(Outbox).where(Outbox.to_addr == "bob@example.org",
                                                 Outbox.sent_at.is_(None))).all()
            told = s.exec(select(Outbox.to_addr).where(
                Outbox.dedupe_key.startswith("timeout:"))).all()
            assert s.exec(select(Player).where(Player.email == "bob@example.org")).one() \
                .prefs["bounces"]["stopped"]
        assert (mv.game_id, mv.actor, mv.source) == (gid, 1, "clock")
        assert to_bob == []  # no turn mail, no reminder, no "your time ran out"
        # cy, to bid next, is told in her turn mail (one mail: pbem.notify.with_notices)
        assert sorted(told) == sorted(set(HUMANS) - {"bob@example.org", "cy@example.org"})
