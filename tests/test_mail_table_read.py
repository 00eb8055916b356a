"""A seat mail's table, read through the ORM in one SELECT in a reader session
(pbem.mail.inbound.Table): the game, its seats and players as the ORM's own reads give
them, detached, so a write session takes the game back as the row it is; the state from the
cache, caught up in the same session when the cache lacks it; and whether the mail was taken
before, asked in the same SELECT."""

from datetime import UTC, datetime

from sqlalchemy import func, inspect
from sqlmodel import select

from pbem.engine import preset
from pbem.mail.inbound import Table
from pbem.play import start
from pbem.store.games import create_game
from pbem.store.models import Game, Inbound, Player, Seat
from pbem.store.states import fresh

WHO = ["ann@x.test", "robot", "bob@x.test", "ann@x.test"]  # ann sits twice, seat 1 a robot


def game_of_every_kind(store) -> int:
    """A dealt game with NULLs and non-NULLs in its columns: a robot, a player twice, a
    time control, prefs, a paused game created by a player, a private one."""
    gid = create_game(store, preset("standard"), WHO, first_dealer=2, public=False,
                      time_control={"move_hours": 6, "remind_hours": [2, 1], "bank": None})
    with store.session() as s:
        ann = s.exec(select(Player).where(Player.email == WHO[0])).one()
        ann.prefs = {"cards": "letters", "off": False, "n": [1.5, None], "x": {"y": 2}}
        game = s.get(Game, gid)
        game.created_by, game.paused_at = ann.id, datetime(2026, 1, 2, 3, 4, 5, 6, UTC)
        s.commit()
    start(store, gid)
    return gid


def columns(x) -> dict | None:
    """Every column's value with its type (repr shows the types inside JSON too)."""
    if x is None:
        return None
    return {c.key: (type(v), repr(v)) for c in type(x).__table__.columns
            for v in [getattr(x, c.key)]}


def loaded(store, gid: int) -> tuple:
    """The game, its seats and players, each read by the ORM on its own."""
    with store.reader() as s:
        seats = s.exec(select(Seat).where(Seat.game_id == gid).order_by(Seat.seat)).all()
        players = {x.player_id: columns(s.get(Player, x.player_id))
                   for x in seats if x.player_id is not None}
        return columns(s.get(Game, gid)), [columns(x) for x in seats], players


def described(t: Table) -> tuple:
    return (columns(t.game), [columns(x) for x in t.seats],
            {k: columns(p) for k, p in t.players.items()})


def test_the_read_gives_the_orms_instances(store):
    gid = game_of_every_kind(store)
    want = loaded(store, gid)
    with store.reader() as s:  # the robot's seat
        token = s.exec(select(Seat.token).where(Seat.game_id == gid, Seat.seat == 1)).one()
    for by, value in (("g", gid), ("t", token)):
        table = Table.read(store, by, value)
        store.keep(gid, table.take())
        assert described(table) == want
        assert [type(x) for x in table.seats] == [Seat] * 4
        assert {type(p) for p in table.players.values()} == {Player}
        assert all(inspect(x).detached for x in [table.game, *table.seats])
        assert table.seats[1].player_id is None and table.seats[1].robot is True
        assert table.game.paused_at == datetime(2026, 1, 2, 3, 4, 5, 6, UTC)
        assert table.seen is None  # not asked
    assert Table.read(store, "t", "nosuchtoken") is None
    assert Table.read(store, "g", gid + 1) is None


def test_the_read_game_is_written_back_as_its_row(store):
    """play._once may change the read's game (its status): an UPDATE of that row, never a
    new one."""
    gid = game_of_every_kind(store)
    table = Table.read(store, "g", gid)
    store.keep(gid, table.take())
    with store.session() as s:
        s.add(table.game)
        assert not s.dirty and not s.new
        table.game.status = "over"
        assert [x is table.game for x in s.dirty] == [True]
        s.commit()
    with store.reader() as s:
        assert s.exec(select(func.count()).select_from(Game)).one() == 1
        assert s.exec(select(func.count()).select_from(Seat)).one() == 4
        assert s.get(Game, gid).status == "over"


def test_the_state_comes_from_the_cache_or_is_caught_up(store, monkeypatch):
    gid = game_of_every_kind(store)
    want = Table.read(store, "g", gid)
    assert want.live.seq > 0
    store.keep(gid, want.live)
    sessions = []
    reader = store.reader
    monkeypatch.setattr(store, "reader", lambda: sessions.append(1) or reader())

    hit = Table.read(store, "g", gid)  # the cache's state, at the table's seq
    assert hit.live is want.live and sessions == [1]  # one read
    assert described(hit) == described(want)

    missed = Table.read(store, "g", gid)  # taken, not kept back: replayed in the same read
    assert sessions == [1, 1] and missed.live is not want.live
    assert missed.live.seq == want.live.seq and missed.live.hands == want.live.hands

    store.keep(gid, fresh(want.game))  # the state before the deal
    caught = Table.read(store, "g", gid)  # a state at another seq: caught up
    assert sessions == [1, 1, 1] and caught.live.seq == want.live.seq


def test_the_read_says_whether_the_mail_was_taken_before(store):
    """The seen-before check rides on the table's SELECT: the Inbound row's key, or not."""
    gid = game_of_every_kind(store)
    with store.session() as s:
        s.add(Inbound(message_id="play+x@y <taken@x.test>", result="done"))
        s.commit()
    seen = {}
    for key in ("play+x@y <taken@x.test>", "play+x@y <new@x.test>", None):
        table = Table.read(store, "g", gid, key)
        seen[key] = table.seen
        store.keep(gid, table.take())
    assert seen == {"play+x@y <taken@x.test>": True, "play+x@y <new@x.test>": False,
                    None: None}
    store.forget(gid)  # and so with a state the cache lacks
    missed = Table.read(store, "g", gid, "play+x@y <taken@x.test>")
    assert missed.seen is True and missed.live.seq > 0
