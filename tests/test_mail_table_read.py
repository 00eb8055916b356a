"""A seat mail's table, read in one quick SELECT without a session (pbem.mail.inbound.Table):
the same Game instance the ORM's read gives, detached as the ORM leaves it, so a write
session takes it back as the row it is; its seats and players as read-only rows with the
values the ORM's read gives (every column, every type, NULLs, robots' seats, JSON); a state
the cache lacks is read in a reader session."""

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from sqlalchemy import func, inspect
from sqlalchemy.orm.exc import UnmappedInstanceError
from sqlmodel import select

from pbem.engine import preset
from pbem.mail.inbound import _QUICK_OF, PlayerRow, SeatRow, Table
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


def orm_read(store, by, value) -> Table:
    with store.reader() as s:
        return Table.read_in(s, store, by, value)


def quick_read(store, by, value) -> Table:
    rows = store.quick_rows(_QUICK_OF[by], **{by: value, "k": None})
    return Table._built(rows)


def described(x) -> tuple | None:
    """Every column's value with its type (repr shows the types inside JSON too), and the
    instance's ORM and pydantic state: what anything after the read could tell apart."""
    if x is None:
        return None
    st = inspect(x)
    values = {k: (type(v), repr(v)) for k, v in vars(x).items() if k != "_sa_instance_state"}
    return (type(x), values, st.key, st.detached, st.transient, dict(st.committed_state),
            set(st.expired_attributes), st.modified, x.__pydantic_fields_set__,
            x.__pydantic_extra__, x.__pydantic_private__)


def columns(x) -> dict | None:
    """A seat's or player's every column's value with its type: all a mail reads of it."""
    if x is None:
        return None
    return {c.key: (type(v), repr(v)) for c in type(x).__table__.columns
            for v in [getattr(x, c.key)]} if hasattr(type(x), "__table__") else {
        k: (type(v), repr(v)) for k, v in x._asdict().items()}


def table_described(t: Table) -> tuple:
    players = {k: columns(p) for k, p in t.players.items()}
    return described(t.game), [columns(x) for x in t.seats], players


def test_the_quick_read_gives_the_orms_instances(store):
    gid = game_of_every_kind(store)
    token = orm_read(store, "g", gid).seats[1].token  # the robot's seat
    for by, value in (("g", gid), ("t", token)):
        orm, quick = orm_read(store, by, value), quick_read(store, by, value)
        assert table_described(quick) == table_described(orm)
        assert [type(x) for x in quick.seats] == [SeatRow] * 4
        assert {type(p) for p in quick.players.values()} == {PlayerRow}
        assert list(quick.seats[0]._fields) == [c.key for c in Seat.__table__.columns]
        assert list(quick.players[quick.seats[0].player_id]._fields) == [
            c.key for c in Player.__table__.columns]
        assert [x.player_id for x in quick.seats] == [x.player_id for x in orm.seats]
        assert quick.seats[1].player_id is None and quick.seats[1].robot is True
        assert quick.game.paused_at == datetime(2026, 1, 2, 3, 4, 5, 6, UTC)
    assert store.quick_rows(_QUICK_OF["t"], t="nosuchtoken", k=None) == []
    assert Table.read(store, "t", "nosuchtoken") is None


# JSON as PostgreSQL takes it too (no NaN, no infinity)
_JSON = hs.recursive(
    hs.none() | hs.booleans() | hs.integers() | hs.text(max_size=5)
    | hs.floats(allow_nan=False, allow_infinity=False),
    lambda inner: hs.lists(inner, max_size=3)
    | hs.dictionaries(hs.text(max_size=3), inner, max_size=3), max_leaves=8)


@settings(max_examples=30, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(prefs=hs.dictionaries(hs.text(max_size=5), _JSON, max_size=4),
       name=hs.text(max_size=20).filter(lambda x: "\x00" not in x))
def test_any_json_and_text_read_the_same(store, prefs, name):
    gid = getattr(store, "_read_test_game", None)
    if gid is None:
        gid = store._read_test_game = game_of_every_kind(store)
    if "\x00" in repr(prefs):  # PostgreSQL's JSON takes no NUL character
        return
    with store.session() as s:
        ann = s.exec(select(Player).where(Player.email == WHO[0])).one()
        game = s.get(Game, gid)
        ann.prefs, ann.name, game.time_control = prefs, name, {"t": prefs}
        s.commit()
    assert table_described(quick_read(store, "g", gid)) == table_described(
        orm_read(store, "g", gid))


def test_a_quick_read_game_is_written_back_as_its_row(store):
    """play._once adds the read's game to its write and may change its status: an UPDATE
    of that row, never a new one. Its seats and players are read-only rows: a session
    refuses them, and so does an attribute set on them (nothing on the mail path may)."""
    gid = game_of_every_kind(store)
    table = Table.read(store, "g", gid)
    store.keep(gid, table.take())
    with store.session() as s:
        s.add(table.game)
        seat, player = table.seats[0], table.players[table.seats[0].player_id]
        for row in (seat, player):
            with pytest.raises(UnmappedInstanceError):
                s.add(row)
            with pytest.raises(UnmappedInstanceError):
                s.merge(row)
        with pytest.raises(AttributeError):
            seat.robot = True
        with pytest.raises(AttributeError):
            player.name = "x"
        assert not s.dirty and not s.new
        table.game.status = "over"
        assert [x is table.game for x in s.dirty] == [True]
        s.commit()
    with store.reader() as s:
        assert s.exec(select(func.count()).select_from(Game)).one() == 1
        assert s.exec(select(func.count()).select_from(Seat)).one() == 4
        assert s.get(Game, gid).status == "over"


def test_the_state_comes_from_the_cache_or_a_reader(store, monkeypatch):
    gid = game_of_every_kind(store)
    want = orm_read(store, "g", gid)
    assert want.live.seq > 0
    store.keep(gid, want.live)
    sessions = []
    reader = store.reader
    monkeypatch.setattr(store, "reader", lambda: sessions.append(1) or reader())

    hit = Table.read(store, "g", gid)  # the cache's state, at the table's seq: no session
    assert hit.live is want.live and sessions == []
    assert table_described(hit) == table_described(want)

    missed = Table.read(store, "g", gid)  # taken, not kept back: read again in a session
    assert sessions == [1] and missed.live is not want.live
    assert missed.live.seq == want.live.seq and missed.live.hands == want.live.hands
    assert table_described(missed) == table_described(want)

    store.keep(gid, fresh(want.game))  # the state before the deal
    caught = Table.read(store, "g", gid)  # a state at another seq: caught up in a session
    assert sessions == [1, 1] and caught.live.seq == want.live.seq


def test_a_failing_quick_read_falls_back_to_a_session(store, monkeypatch):
    gid = game_of_every_kind(store)
    want = orm_read(store, "g", gid)
    store.keep(gid, want.live)

    def broken(statement, **params):
        raise store.engine.dialect.dbapi.OperationalError("gone")

    monkeypatch.setattr(store, "quick_rows", broken)
    got = Table.read(store, "g", gid)
    assert table_described(got) == table_described(want) and got.live.seq == want.live.seq


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
    store.forget(gid)  # and so after a reader's read of a state the cache lacks
    missed = Table.read(store, "g", gid, "play+x@y <taken@x.test>")
    assert missed.seen is True and missed.live.seq > 0
