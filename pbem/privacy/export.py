"""Everything we hold about one player, as JSON: their row (address, name, settings), their
league entries, each game they sit in as they may see it, and their own private notes. A
game that is over is its log as any download gives it (pbem.store.games.export,
`whole=False`); a game in play is that export (its finished hands) and the seat's own view
(pbem.engine.view) with its own pending orders: never another seat's hand or orders. Other
players appear by the name their tables show, not by their address (it is theirs, not this
player's)."""

import json
from typing import Any

from sqlmodel import Session, col, select

from ..engine import view
from ..gamelog import read_log
from ..organise import seeks
from ..store import calendars, notes, push
from ..store.games import ROBOT, export
from ..store.models import Entry, Game, League, Player, Season, Seat, SeatOrder
from ..store.models import now as utcnow
from ..store.states import Store

FORMAT = "pbem-player/1"
ORDERS_OF = ("text", "hand", "state", "created")  # a pending order as its player gave it


class NoPlayer(LookupError):
    """No player has that id or address: the message says which."""


def find(store: Store, who: str) -> Player:
    """The player `who` names: a number is an id, anything else an address."""
    with store.reader() as s:
        if who.strip().isdigit() and len(who.strip()) < 12:
            player = s.get(Player, int(who))
        else:
            player = s.exec(select(Player).where(Player.email == who.strip().lower())).first()
    if player is None:
        raise NoPlayer(f"there is no player {who[:80]!r}")
    return player


def player_data(store: Store, player_id: int) -> dict[str, Any]:
    """The whole export of one player (NoPlayer if there is none)."""
    with store.reader() as s:
        player = s.get(Player, player_id)
        if player is None:
            raise NoPlayer(f"there is no player {player_id}")
        seats = list(s.exec(select(Seat).where(Seat.player_id == player_id)
                            .order_by(col(Seat.game_id))).all())
        entries = _entries(s, player_id)
        organised = [{"league": lg.id, "name": lg.name} for lg in s.exec(
            select(League).where(League.organiser_id == player_id).order_by(col(League.id)))]
        own_notes = notes.of_player(s, player_id)  # theirs alone: in no one else's export
        own_seeks = seeks.of_player(s, player_id)
        pushes = push.of_player(s, player_id)  # the browsers they turned alerts on in
        feed = calendars.since(s, player_id)  # when made: its address is not kept
    return {"format": FORMAT, "exported": utcnow().isoformat(),
            "player": {"id": player.id, "email": player.email, "name": player.name,
                       "created": player.created.isoformat(), "settings": player.prefs or {}},
            "league_entries": entries, "leagues_organised": organised,
            "games": [_game(store, seat, player) for seat in seats], "notes": own_notes,
            "seeks": own_seeks, "push_subscriptions": pushes,
            "calendar_feed": {"created": feed.isoformat()} if feed else None}


def as_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n"


def _entries(s: Session, player_id: int) -> list[dict[str, Any]]:
    rows = s.exec(select(Entry, Season, League).join(Season, col(Season.id) == Entry.season_id)
                  .join(League, col(League.id) == Season.league_id)
                  .where((col(Entry.player_id) == player_id) | (col(Entry.partner_id) == player_id))
                  .order_by(col(Entry.id))).all()
    return [{"league": lg.id, "league_name": lg.name, "season": sn.number, "entry": e.id,
             "name": e.name, "status": e.status, "games": e.games,
             "joined": e.joined.isoformat()} for e, sn, lg in rows]


def _game(store: Store, seat: Seat, player: Player) -> dict[str, Any]:
    """One game as the player's seat may see it."""
    gid = seat.game_id
    header, _rules, events = read_log(export(store, gid, whole=False))
    with store.reader() as s:
        game = s.get_one(Game, gid)
        names = _names(s, gid, player)
        states = store.states(s, [gid]) if game.status == "playing" else {}
        orders = list(s.exec(select(SeatOrder).where(
            SeatOrder.game_id == gid, SeatOrder.seat == seat.seat,
            SeatOrder.state == "pending").order_by(col(SeatOrder.id))).all())
    header["seats"] = [_who(x, names) for x in header["seats"]]
    out: dict[str, Any] = {"game": gid, "status": game.status, "seat": seat.seat,
                           "created": game.created.isoformat(), "log": [header, *[
                               _named(ev, names) for ev in events]]}
    for g, st in states.items():
        try:
            out["view"] = view(st, seat.seat)
        finally:
            store.keep(g, st)
        out["orders"] = [{k: getattr(o, k) for k in ORDERS_OF} for o in orders]
    return out


def _names(s: Session, game_id: int, player: Player) -> dict[str, str]:
    """The addresses of the game's seated players to the names its tables show; the
    player's own stays their address."""
    rows = s.exec(select(Player).join(Seat, col(Seat.player_id) == Player.id)
                  .where(Seat.game_id == game_id)).all()
    return {p.email: p.name or "a player" for p in rows} | {player.email: player.email}


def _named(ev: Any, names: dict[str, str]) -> Any:
    """A `substitute` event names who left and who came by address: another player's is
    shown by name (one no longer at the table: "a player")."""
    if not isinstance(ev, dict) or ev.get("type") != "substitute":
        return ev
    return {**ev, **{k: _who(ev.get(k), names) for k in ("out", "in") if k in ev}}


def _who(address: Any, names: dict[str, str]) -> Any:
    if address == ROBOT or not isinstance(address, str):
        return address
    return names.get(address, "a player")
