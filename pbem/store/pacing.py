"""Fewer, better mails: what the outbox sender does with a due row for a player who set
`merge`, `quiet` or `cap` (pbem.store.prefs), or who plays a league game (merged by default).

    pacer = Pacer(session, rows, now)   # in the drain's reader: one query per kind of fact
    pacer.decide(row) -> Send | Hold(until) | Skip(why)

- merge: a turn mail waits `merge` minutes after it was written; when a turn or news mail
  of the player goes out, every other waiting turn and news mail of theirs goes in it
  (pbem.store.merged). A turn mail whose game moved on meanwhile is not sent at all.
- quiet: nothing is sent in the player's quiet hours (their zone); it goes out at the end.
- cap: at most `cap` turn and news mails a local day (a merged mail counts once); past it
  news is not sent (the next turn mail and the table show where the game is) and a turn
  mail waits for the next local day. A turn mail is never dropped, only held.
Answers to the player's own mail (`reply:`) and the links they asked for (`pbem.*`
confirmations, `signin:`) are never held: the player is awake, they just wrote.

Any other row is settled unsent when the player stopped that mail after it was written
(an unsubscribe, `mail off`, `notify digest`, `turns daily`) or their address bounces: what
a player asked us to stop, stops at once, not after the mails already queued.

A held row's next_attempt moves to when it may go, so the drain does not meet it again
before then and nobody else's mail waits behind it. A player without these settings gets
every mail at once, one by one, as before.
"""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, SQLColumnExpression, func, or_, update
from sqlmodel import Session, col, select

from ..engine.acts import QUIET
from . import prefs
from .games import mailable
from .models import Fixture, Move, Outbox, Player
from .states import Store

# answers to the player's mail, and links the player asked for (confirmations, sign-in)
ANSWERS = ("reply:", "pbem.", "signin:")
PACED = ("turn", "news")  # the kinds the cap counts and a merged mail carries
LEAGUE_MERGE = prefs.LEAGUE_MERGE  # minutes a league game's turn mail waits while unset
MAX_MERGED = 20  # rows one merged mail takes in (the rest go in the next)
SETTLED = "settled: "  # last_error of a row settled without a mail of its own
# a forgotten player's address is HANDLE@FORGOTTEN_DOMAIN (pbem.privacy.forget): under .test
# (RFC 2606), never delivered, and still an address a log's import takes
FORGOTTEN_DOMAIN = "forgotten.test"


@dataclass(frozen=True)
class Send:
    merge: bool = False  # take the player's other waiting turn and news mails in


@dataclass(frozen=True)
class Hold:
    until: datetime


@dataclass(frozen=True)
class Skip:
    why: str


def kind(row: Outbox) -> str:
    return row.dedupe_key.split(":", 1)[0]


def turn_of(key: str) -> tuple[int, int, int] | None:
    """(game, seat, seq) of a turn mail's key `turn:G:S:Q`, else None."""
    parts = key.split(":")
    if len(parts) != 4 or parts[0] != "turn" or not all(p.isdigit() for p in parts[1:]):
        return None
    return int(parts[1]), int(parts[2]), int(parts[3])


def aware(when: datetime) -> datetime:
    return when if when.tzinfo else when.replace(tzinfo=UTC)  # SQLite gives naive UTC


def game_seqs(s: Session, game_ids: Iterable[int | None]) -> dict[int, int]:
    """Each game's last move that was not talk or an offer (they change no one's turn, and
    write no new turn mail: the waiting one still stands)."""
    ids = {g for g in game_ids if g is not None}
    if not ids:
        return {}
    return dict(s.exec(select(Move.game_id, func.max(Move.seq))
                       .where(col(Move.game_id).in_(ids), col(Move.type).not_in(QUIET))
                       .group_by(col(Move.game_id))).all())


def stale(row: Outbox, seqs: dict[int, int]) -> bool:
    """A turn mail for a move the game is no longer at (the seat moved, or another did)."""
    turn = turn_of(row.dedupe_key)
    return turn is not None and stale_turn(turn, seqs)


def stale_turn(turn: tuple[int, int, int], seqs: dict[int, int]) -> bool:
    """A turn (game, seat, seq) the game is no longer at (`seqs`: each game's last seq)."""
    return seqs.get(turn[0], 0) > turn[2]


def is_paced_row(row: Outbox) -> bool:
    """A row take_waiting may merge into another mail (in Python, as is_paced_key in SQL)."""
    return row.attempts == 0 and kind(row) in PACED


def is_paced_key(key_column: SQLColumnExpression[str]) -> ColumnElement[bool]:
    return or_(key_column.like("turn:%"), key_column.like("news:%"))


class Pacer:
    """The facts the drain's decisions need, read once for a batch of due rows."""

    def __init__(self, s: Session, rows: list[Outbox], now: datetime):
        self.now = now
        addrs = {r.to_addr for r in rows}
        self.players = {p.email: p for p in s.exec(
            select(Player).where(col(Player.email).in_(addrs))).all()} if addrs else {}
        games = {r.game_id for r in rows if r.game_id is not None}
        self.league = set(s.exec(select(Fixture.game_id).where(
            col(Fixture.game_id).in_(games))).all()) if games else set()
        self.seqs = game_seqs(s, games)
        self.today: Counter[str] = Counter()
        for email, p in self.players.items():
            if prefs.get(p, "cap"):
                self.today[email] = s.exec(select(func.count()).where(
                    col(Outbox.to_addr) == email, col(Outbox.sent_at) >= day_start(p, now),
                    col(Outbox.last_error).is_(None), is_paced_key(col(Outbox.dedupe_key)))).one()

    def merge_minutes(self, player: Player, row: Outbox) -> int:
        own = (player.prefs or {}).get("merge")
        if own is not None:
            return own
        return LEAGUE_MERGE if row.game_id in self.league else 0

    def paced(self, player: Player, row: Outbox) -> bool:
        return bool(
            self.merge_minutes(player, row) or prefs.quiet_hours(player)
            or prefs.get(player, "cap"))

    def decide(self, row: Outbox) -> Send | Hold | Skip:
        player = self.players.get(row.to_addr)
        if row.to_addr.lower().endswith("@" + FORGOTTEN_DOMAIN):  # never, whatever the row
            return Skip("the player asked to be forgotten")
        if row.dedupe_key.startswith(ANSWERS):
            return Send()
        k = kind(row)
        why = unwanted(player, k)
        if why:
            return Skip(why)
        if player is None or not self.paced(player, row):
            return Send()
        if k == "turn" and stale(row, self.seqs):
            return Skip("the game moved on before it went out")
        ready = aware(row.created) + timedelta(minutes=self.merge_minutes(player, row))
        if k == "turn" and ready > self.now:
            return Hold(ready)
        end = quiet_end(player, self.now)
        if end is not None:
            return Hold(end)
        cap = prefs.get(player, "cap")
        if k in PACED and cap and self.today[row.to_addr] >= cap:
            if k == "news":
                return Skip("past the player's daily cap")
            return Hold(day_start(player, self.now, days=1))
        return Send(merge=k in PACED)

    def sent(self, row: Outbox) -> None:
        """Count a paced mail that went out (the cap counts mails, not merged rows)."""
        if kind(row) in PACED:
            self.today[row.to_addr] += 1


def unwanted(player: Player | None, k: str) -> str | None:
    """Why the player no longer wants a mail of kind `k` (None: they still do)."""
    if player is None:
        return None  # not a player (yet): an invitation, an organiser's address
    if not mailable(player):
        return "the player stopped all mail, or their address bounces"
    if k == "news" and prefs.notify(player) == "digest":
        return "the player takes a daily digest instead"
    if k == "turn" and (player.prefs or {}).get("turns") == "daily":
        return "the player takes a daily list of moves instead"
    return None


def day_start(player: Player, now: datetime, days: int = 0) -> datetime:
    """The player's local midnight of `now` (or `days` later: a local day may have 23 or 25
    hours), in UTC."""
    local = prefs.local(player, now).replace(hour=0, minute=0, second=0, microsecond=0)
    return (local + timedelta(days=days)).astimezone(UTC)  # wall-clock arithmetic


def quiet_end(player: Player, now: datetime) -> datetime | None:
    """When the player's quiet hours end, if `now` is inside them (in their zone)."""
    hours = prefs.quiet_hours(player)
    if hours is None:
        return None
    start, end = hours
    local = prefs.local(player, now)
    h = local.hour
    inside = start <= h < end if start < end else (h >= start or h < end)
    if not inside:
        return None
    out = local.replace(hour=end, minute=0, second=0, microsecond=0)
    if out <= local:
        out = (local + timedelta(days=1)).replace(hour=end, minute=0, second=0, microsecond=0)
    return out.astimezone(UTC)


def take_waiting(store: Store, row: Outbox, now: datetime, until: datetime
                 ) -> tuple[list[Outbox], list[Outbox]]:
    """Claim the player's other waiting turn and news mails for `row`'s mail: (rows to
    merge, stale turn rows). Only rows never tried are taken (a row another drainer holds,
    or one backing off after a failure, goes its own way), each by a compare-and-set, under
    the drainer's lease (its next_attempt is `until`, pbem.store.lease)."""
    with store.reader() as s:
        waiting = s.exec(select(Outbox).where(
            col(Outbox.to_addr) == row.to_addr, col(Outbox.id) != row.id,
            col(Outbox.sent_at).is_(None), col(Outbox.attempts) == 0,
            is_paced_key(col(Outbox.dedupe_key))).order_by(col(Outbox.id)).limit(MAX_MERGED)).all()
        seqs = game_seqs(s, {r.game_id for r in waiting})
        player = s.exec(select(Player).where(Player.email == row.to_addr)).first()
    # a kind the player no longer wants stays out: its own turn settles it (decide)
    waiting = [w for w in waiting if unwanted(player, kind(w)) is None]
    taken: list[Outbox] = []
    gone: list[Outbox] = []
    for w in waiting:
        with store.engine.begin() as c:
            ok = c.execute(update(Outbox).where(
                col(Outbox.id) == w.id, col(Outbox.sent_at).is_(None), col(Outbox.attempts) == 0,
                col(Outbox.next_attempt) == w.next_attempt).values(
                attempts=1, next_attempt=until)).rowcount == 1
        if ok:
            (gone if stale(w, seqs) else taken).append(w)
    return taken, gone
