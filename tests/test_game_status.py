"""A game's status (open, playing, over) is written by one UPDATE in the move's write
(pbem.play._set_status), not by an ORM flush: the write reads its table in one statement
(pbem.store.games.read_table) and holds no Game in its session at all."""

from sqlalchemy import event
from sqlalchemy.orm import Session
from sqlmodel import select

from pbem.engine import preset
from pbem.play import start
from pbem.store.games import create_game
from pbem.store.models import Game
from tests.league_helpers import play_out


def status(store, gid) -> str:
    with store.reader() as s:
        return s.exec(select(Game.status).where(Game.id == gid)).one()


def test_the_status_is_written_without_a_flush_of_the_game(store):
    gid = create_game(store, preset("standard"), ["a@x.test", "b@x.test", "c@x.test",
                                                  "d@x.test"])
    flushed, held = [], []  # each flush's dirty games; each commit's games in the session

    def before_flush(s, _ctx, _objects):
        flushed.extend(x for x in s.dirty if isinstance(x, Game))

    def before_commit(s):
        held.append(sum(isinstance(x, Game) for x in s.identity_map.values()))

    event.listen(Session, "before_flush", before_flush)
    event.listen(Session, "before_commit", before_commit)
    try:
        assert status(store, gid) == "open"
        start(store, gid)
        assert status(store, gid) == "playing"
        held.clear()
        play_out(store, gid)  # moves from the web
    finally:
        event.remove(Session, "before_flush", before_flush)
        event.remove(Session, "before_commit", before_commit)
    assert status(store, gid) == "over"
    assert flushed == []
    assert len(held) > 50 and held.count(0) == len(held)
