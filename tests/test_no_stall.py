"""Nothing one player does holds the others (issue 12). On SQLite one writer holds the
write lock at a time: a claim's search (up to a second) runs before the write, in a read
that takes no lock, and pages read beside a writer instead of queueing behind it.
(PostgreSQL reads never wait for writers: these are SQLite's tests.)"""

import sqlite3

import pytest
from sqlmodel import select

from pbem.engine import claims, preset
from pbem.gamelog import export as write_log
from pbem.play import Refused, import_log, start, submit
from pbem.store import prefs
from pbem.store.db import upgrade
from pbem.store.models import Player
from pbem.store.states import Store
from tests.web_helpers import make_app, tokens

STD = preset("standard")
RANKS = "AKQJT98765432"
# seat 0 holds the four top spades and nine hearts, seat 1 the other spades: a claim by
# seat 0 needs a real search (no top trump elsewhere, not only trumps in hand)
HANDS = [["AS", "KS", "QS", "JS"] + [r + "H" for r in "AKQJT9876"],
         [r + "S" for r in "T98765432"] + ["5H", "4H", "3H", "2H"],
         [r + "D" for r in RANKS], [r + "C" for r in RANKS]]


@pytest.fixture
def sqlite(tmp_path):
    path = tmp_path / "pbem.db"
    upgrade(f"sqlite:///{path}")
    return Store(f"sqlite:///{path}"), path


def claim_position(store) -> int:
    """A game whose bids are done and seat 0 is to lead, from a log with these hands."""
    log = write_log(STD, [{"seq": 1, "type": "deal", "dealer": 3, "hands": HANDS}],
                    ["a@x.test", "b@x.test", "c@x.test", "d@x.test"], first_dealer=3)
    gid = import_log(store, log)
    with store.reader() as s:  # d keeps auto off, else the hand plays itself once bid
        d = s.exec(select(Player.id).where(Player.email == "d@x.test")).one()
    prefs.update(store, d, auto="off")
    start(store, gid)
    for seat, bid in ((0, 4), (1, 3), (2, 1), (3, 1)):
        submit(store, gid, seat, {"type": "bid", "bid": bid})
    return gid


def write_lock_free(path) -> bool:
    raw = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        raw.execute("BEGIN IMMEDIATE")
        raw.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        raw.close()


def test_a_claim_is_searched_once_and_outside_the_write_lock(sqlite, monkeypatch):
    store, path = sqlite
    gid = claim_position(store)
    searched = []
    real = claims._search

    def watched(st, seat, budget):
        searched.append("free" if write_lock_free(path) else "held")
        return real(st, seat, budget)

    monkeypatch.setattr(claims, "_search", watched)
    monkeypatch.setattr(claims, "_known", {})  # no answer kept from another test
    with pytest.raises(Refused, match="does not hold"):
        submit(store, gid, 0, {"type": "claim"})
    assert searched == ["free"]  # and not again inside the write: the engine kept it


def test_a_claim_that_went_stale_while_searched_is_refused_not_searched_again(
        sqlite, monkeypatch):
    store, path = sqlite
    gid = claim_position(store)
    real = claims._search
    calls = []

    def meanwhile(st, seat, budget):  # the leader plays while the claim is being searched
        if not calls:
            calls.append(seat)
            submit(store, gid, 0, {"type": "play", "card": "AH"}, source="web")
        return real(st, seat, budget)

    monkeypatch.setattr(claims, "_search", meanwhile)
    monkeypatch.setattr(claims, "_known", {})
    with pytest.raises(Refused, match="moved on while your claim was checked"):
        submit(store, gid, 0, {"type": "claim"})
    assert calls == [0]


def test_pages_answer_while_another_process_holds_the_write_lock(sqlite, tmp_path,
                                                                  monkeypatch):
    store, path = sqlite
    gid = claim_position(store)
    client = make_app(store, tmp_path, monkeypatch).test_client()
    toks = tokens(store, gid)
    store.forget(gid)  # a page must read the game back from the database
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process is mid-write, holding the lock
    try:
        for url in (f"/t/{toks[1]}", f"/g/{gid}", "/", f"/api/g/{gid}", "/l"):
            assert client.get(url).status_code == 200, url
    finally:
        writer.execute("ROLLBACK")
        writer.close()
