"""Forgetting a player: no more mail to them, and an anonymous handle ("player-7f3a9c01e2d4")
in place of their address and name in every table (pbem.privacy.scrub).

What stays: every game's log (their seat is named by the handle; talk that named them names
the handle, as one clean line, so the log replays), every league entry and result (so every
standing stays as it was), their games' seats. What goes: every mail to them, sent or not
(the outbox's copies are theirs), their private notes on games, their settings, their
calendar feed, their secret addresses (a new account key and new seat tokens: the old ones
are refused at RCPT, as any unknown key), every browser's sign-in. Their address becomes
`HANDLE@forgotten.test` (RFC 2606: never delivered; a log naming it still imports), which
the outbox never sends to (pbem.store.pacing), whatever the row.

A seat in a game still in play is handed to a robot (play.hand_over, as an organiser's
`robot` does): the game goes on at once for the other players, where a seat whose player
can no longer hear of their turn would only wait for its timeouts. In a game not dealt yet
a robot takes the seat as when an invitee declines. A league entry stays in
its season: withdrawing it would change the standings; a later round's table seats the
handle, with no mail, and its clock decides as for any silent seat.
"""

import secrets

from sqlmodel import Session, col, delete, or_, select

from .. import play
from ..league.results import changed
from ..organise import seeks
from ..store import calendars, notes, push
from ..store.games import ROBOT, new_token
from ..store.models import Entry, Game, Outbox, Player, Seat, new_key
from ..store.pacing import FORGOTTEN_DOMAIN
from ..store.states import Store
from ..web.signin import EPOCH
from .export import NoPlayer
from .scrub import Swap, Who, scrub

DOMAIN = FORGOTTEN_DOMAIN  # under .test (RFC 2606): never delivered
FORGOTTEN = "forgotten"  # the prefs key that says so (and when)


def is_forgotten(address: str) -> bool:
    return address.lower().endswith("@" + DOMAIN)


def forget(store: Store, player_id: int) -> str:
    """Forget the player (NoPlayer if there is none); their handle. Done again, it does
    nothing more (a player forgotten keeps their handle)."""
    handle = "player-" + secrets.token_hex(6)
    with store.session() as s:
        player = s.get(Player, player_id)
        if player is None:
            raise NoPlayer(f"there is no player {player_id}")
        if is_forgotten(player.email):
            return player.name
        old, new = Who(player.email, player.name), Who(f"{handle}@{DOMAIN}", handle)
        s.exec(delete(Outbox).where(col(Outbox.to_addr) == player.email))
        notes.forget(s, player_id)  # their private notes: no one else may ever read them
        seeks.forget(s, player_id)  # no seek deals them into a game any more
        push.forget(s, player_id)  # no browser of theirs hears of a turn any more
        calendars.forget(s, player_id)  # its address answers 404 from now on
        scrub(s, old, new)
        _own_rows(s, player, Swap(old, new), new)
        games, playing = _seats(s, player_id)
        s.commit()
    for game_id in games:  # this process's cached states hold the talk as it was
        store.forget(game_id)
    _start_when_full(store, games)
    for game_id, seat in playing:  # after the commit: the hand-over names the handle
        try:
            play.hand_over(store, game_id, seat, ROBOT, source="server",
                           ref=f"forget:{player_id}:{game_id}")
        except (play.Refused, ValueError):
            pass  # the game ended meanwhile: nothing to hand over
    return handle


def _own_rows(s: Session, player: Player, swap: Swap, new: Who) -> None:
    """The player's own row and league entries; their secret addresses made new."""
    for entry in s.exec(select(Entry).where(or_(col(Entry.player_id) == player.id,
                                                col(Entry.partner_id) == player.id))):
        entry.name = swap.text(entry.name, True)[:100]
        s.add(entry)
        changed(s, entry.season_id)  # the cached standings hold the name: read them again
    epoch = (player.prefs or {}).get(EPOCH, 0)
    player.email, player.name, player.account_key = new.email, new.name, new_key()
    player.prefs = {"mail": "off", FORGOTTEN: True, EPOCH: epoch + 1}  # signed out
    s.add(player)


def _seats(s: Session, player_id: int) -> tuple[set[int], list[tuple[int, int]]]:
    """Every seat of the player gets a new token (its table page and mail address die); in
    a game not dealt yet a robot takes it at once, as when an invitee declines: their
    games, and the seats in games in play, to be handed to a robot."""
    rows = s.exec(select(Seat, Game.status).join(Game, col(Game.id) == Seat.game_id)
                  .where(Seat.player_id == player_id)).all()
    for seat, status in rows:
        seat.token = new_token()
        if status == "open":
            seat.robot, seat.player_id, seat.accepted = True, None, True
        s.add(seat)
    return ({seat.game_id for seat, _ in rows},
            [(seat.game_id, seat.seat) for seat, status in rows if status == "playing"])


def _start_when_full(store: Store, game_ids: set[int]) -> None:
    """A game not dealt yet whose every seat has now said yes is dealt (pbem.web.newgame
    does the same when an invitee answers)."""
    for game_id in sorted(game_ids):
        with store.reader() as s:
            game = s.get(Game, game_id)
            ready = game is not None and game.status == "open" and all(
                x.accepted for x in s.exec(select(Seat).where(Seat.game_id == game_id)))
        if ready:
            play.start(store, game_id)
