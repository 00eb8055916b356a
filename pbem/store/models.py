"""The tables. The move log (`Move`) is append-only; only pbem.play writes it."""

import base64
import secrets
from datetime import UTC, date, datetime

from sqlalchemy import JSON, Column, Index, MetaData, UniqueConstraint
from sqlmodel import Field, SQLModel

# names for constraints, so migrations can find them again (and SQLite batch mode works)
SQLModel.metadata = MetaData(naming_convention={
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
})


def _json_or_empty() -> Column:
    """A JSON column that a Core or bulk INSERT leaving it out fills with {}, as the model's
    default_factory does for an object (SQLModel passes no default of an sa_column on)."""
    return Column(JSON, nullable=False, default=dict)


def now() -> datetime:
    return datetime.now(UTC)


def new_key() -> str:
    """A secret for a mail address: short and lowercase (mail systems may fold an address's
    case), 80 random bits, as a seat's token (pbem.store.games.new_token)."""
    return base64.b32encode(secrets.token_bytes(10)).decode().lower()


class Player(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(unique=True, index=True, max_length=254)
    name: str = Field(default="", max_length=100)
    prefs: dict = Field(default_factory=dict, sa_column=_json_or_empty())
    created: datetime = Field(default_factory=now)
    # the secret of the player's account address pbem+KEY@DOMAIN (pbem.mail.inbound): made
    # with every player, however made (the column's default serves Core inserts too)
    account_key: str = Field(default_factory=new_key, unique=True, max_length=40)


class Game(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    rules: dict = Field(sa_column=Column(JSON, nullable=False))
    time_control: dict = Field(default_factory=dict, sa_column=_json_or_empty())
    status: str = Field(default="open", max_length=20, index=True)  # open, playing, over
    public: bool = True
    first_dealer: int = 0
    created_by: int | None = Field(default=None, foreign_key="player.id")
    created: datetime = Field(default_factory=now)
    paused_at: datetime | None = None  # its league paused it then: deadlines stand still


class Seat(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("game_id", "seat"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int
    player_id: int | None = Field(default=None, foreign_key="player.id", index=True)
    robot: bool = False
    # the robot's level (easy, medium, hard) chosen for this seat; None: the rules' `robot`
    robot_level: str | None = Field(default=None, max_length=10)
    token: str = Field(unique=True, max_length=40)  # secret to the seat's player
    accepted: bool = True  # an invited player has said yes (the deal waits for every seat)
    hints: int = 0  # hints this seat took (issue 33): shown on the score pad


class Move(SQLModel, table=True):
    """One event of a game's log. (game_id, seq) is unique: two racing writers, one wins."""

    __table_args__ = (UniqueConstraint("game_id", "seq"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    seq: int
    type: str = Field(max_length=20)
    payload: dict = Field(sa_column=Column(JSON, nullable=False))  # the whole event
    actor: int | None = None  # the seat that acted; None for the server (deals, reveals)
    source: str = Field(max_length=20)  # mail, web, clock, robot, cli, server, import
    ref: str | None = Field(default=None, unique=True, max_length=300)  # applies once
    created: datetime = Field(default_factory=now)


class DealSecret(SQLModel, table=True):
    """The salt of a deal's commitment, kept back until the hand is over."""

    __table_args__ = (UniqueConstraint("game_id", "deal_seq"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    deal_seq: int
    salt: str = Field(max_length=64)


class Outbox(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = Field(default=None, foreign_key="game.id")
    to_addr: str = Field(max_length=254)
    subject: str = Field(max_length=300)
    body_text: str
    body_html: str | None = None
    headers: dict = Field(default_factory=dict, sa_column=_json_or_empty())
    dedupe_key: str = Field(unique=True, max_length=200)
    attempts: int = 0
    last_error: str | None = None
    next_attempt: datetime = Field(default_factory=now, index=True)
    sent_at: datetime | None = Field(default=None, index=True)
    created: datetime = Field(default_factory=now)


class Inbound(SQLModel, table=True):
    """Inbound mail already seen, by Message-ID: the same mail twice applies once."""

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(unique=True, max_length=300)
    received: datetime = Field(default_factory=now)
    result: str = Field(default="", max_length=40)


class Deadline(SQLModel, table=True):
    """A reminder or a timeout, armed for one seat at one seq. Derived from the game's state
    and time control (written by pbem.play with the move), so it can always be rebuilt; the
    clock claims due rows here, so even two clocks fire each once."""

    __table_args__ = (UniqueConstraint("game_id", "seat", "seq", "kind", "hours_before"),
                      # the clock's tick: the rows still pending that are due, not the past
                      Index("ix_deadline_state_due", "state", "due"),
                      # a game's pending rows (`moves`, pages): not every pending row's
                      Index("ix_deadline_game_state", "game_id", "state"))
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    seat: int
    seq: int  # the move number it was armed at: if the game moved on, it does nothing
    kind: str = Field(max_length=10)  # reminder, timeout, robot (pbem.deadlines.ROBOT)
    hours_before: int = 0  # for a reminder: how long before the timeout
    due: datetime = Field(index=True)
    state: str = Field(default="pending", max_length=10)  # pending firing done
    claimed_at: datetime | None = None  # cancelled
    result: str = Field(default="", max_length=60)
    paused_at: datetime | None = None  # state "paused": due - paused_at is the time it has left


class SeatClock(SQLModel, table=True):
    """A seat's bank of time in a game with a bank clock (pbem.seatclock), written in each
    move's transaction: what the bank held when its current wait began, and when that was
    (None: the seat is not waiting). The due time is derived from the two, so a restart or
    `deadlines.rebuild` finds the same deadline."""

    __tablename__ = "seat_clock"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int
    bank_seconds: int  # what the bank held when the current wait began (or the last move)
    since: datetime | None = None  # when the seat's current wait began; None: not waiting
    seq: int = 0  # the move at which that wait began


# -- leagues ---------------------------------------------------------------------------------


class SeatOrder(SQLModel, table=True):
    """An order a player gave ahead for their seat (pbem.engine.orders): secret to the seat,
    kept until it acts (done), can no longer be kept or the hand ends (dropped)."""

    __tablename__ = "seat_order"
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int
    spec: dict = Field(sa_column=Column(JSON, nullable=False))  # {"kind": ..., ...}
    text: str = Field(max_length=100)  # as the player wrote it, to show them
    hand: int  # the hand it was given in: orders last a hand
    state: str = Field(default="pending", max_length=10)  # pending, done, dropped
    created: datetime = Field(default_factory=now)
    # the mail line (or the web form: pbem.web.tables) that gave it, and its place in the
    # line (pbem.orders.give): a mail delivered again, or twice at once, or a form sent
    # twice, keeps its orders once. None: a web order kept before its form had one
    ref: str | None = Field(default=None, unique=True, max_length=300)


class League(SQLModel, table=True):
    """A competition that runs for months: rules, time control and format for every game,
    an organiser, and seasons of rounds."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100)
    rules: dict = Field(sa_column=Column(JSON, nullable=False))
    time_control: dict = Field(default_factory=dict, sa_column=_json_or_empty())
    entry: str = Field(default="single", max_length=10)  # single (partners drawn), pair (fixed)
    pairing: str = Field(default="round-robin", max_length=20)  # round-robin, swiss
    rounds: int | None = None  # Swiss rounds; None: the default for the field's size
    max_entries: int | None = None
    stale_hours: int = 168  # a table that has not moved this long is flagged to the organiser
    timeout_forfeit: int | None = None  # a side timing out this often in a game loses it
    hints: bool = False  # its games' players may ask for hints (issue 33), as its organiser set
    organiser_id: int = Field(foreign_key="player.id")
    admin_token: str = Field(unique=True, max_length=40)  # the organiser's secret page
    join_token: str = Field(unique=True, max_length=40)  # the join link
    # the secret of the organiser address organiser+KEY@DOMAIN (pbem.mail.inbound)
    organiser_key: str = Field(default_factory=new_key, unique=True, max_length=40)
    seed: str = Field(max_length=40)  # the draws (round-one order, seats), repeatable
    created: datetime = Field(default_factory=now)


class Season(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("league_id", "number"),)
    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    number: int
    starts: date
    ends: date  # no round starts after this day
    status: str = Field(default="open", max_length=10)  # open (taking entries), running, over
    round: int = 0  # the round in play; 0 before the start
    rounds: int = 0  # how many rounds it has, fixed at the start
    paused_at: datetime | None = None  # paused by its organiser since then (league.pause)
    version: int = 0  # bumped by every change to how its results count: the cached
    # standings' key (pbem.league.reports)
    schedule: int = 2  # its round robin's schedule version (pbem.league.pairing.SCHEDULES),
    # kept for its life so its remaining rounds never change; seasons before 0011 have 1


class Entry(SQLModel, table=True):
    """One player, or a fixed partnership of two, in one season."""

    __table_args__ = (UniqueConstraint("season_id", "player_id"),)
    id: int | None = Field(default=None, primary_key=True)
    season_id: int = Field(foreign_key="season.id", index=True)
    player_id: int = Field(foreign_key="player.id")
    partner_id: int | None = Field(default=None, foreign_key="player.id")
    name: str = Field(max_length=100)
    status: str = Field(default="active", max_length=10)  # pending (partner), active, withdrawn
    games: str = Field(default="stand", max_length=10)  # withdrawn: its games stand, struck
    joined: datetime = Field(default_factory=now)


class Fixture(SQLModel, table=True):
    """One table of one round: its game, the entry at each seat, and the result once the
    game is over (written in the move's own transaction). A bye is a fixture without game."""

    __table_args__ = (UniqueConstraint("season_id", "round", "board"),
                      Index("ix_fixture_season_version", "season_id", "version"))
    id: int | None = Field(default=None, primary_key=True)
    season_id: int = Field(foreign_key="season.id", index=True)
    round: int
    board: int  # the table's number in its round
    seats: list = Field(sa_column=Column(JSON, nullable=False))  # entry id per seat; [id]: bye
    game_id: int | None = Field(default=None, foreign_key="game.id", unique=True)
    status: str = Field(default="playing", max_length=10)  # playing, over, bye
    result: dict = Field(default_factory=dict, sa_column=_json_or_empty())
    finished: datetime | None = None
    version: int = 0  # the season's version when its result was last written or ruled on:
    # a reader fetches only the fixtures changed since the version it holds (league.ledger)


# -- the web's confirmations and rate limits (issue 12) --------------------------------------


class Confirmation(SQLModel, table=True):
    """A mailed confirmation link that has done its deed, by the link's id: the same link
    clicked again, or replayed, finds it and does nothing (unique ref: two at once, one
    wins). It names what it made."""

    id: int | None = Field(default=None, primary_key=True)
    ref: str = Field(unique=True, max_length=40)
    game_id: int | None = Field(default=None, foreign_key="game.id")
    league_id: int | None = Field(default=None, foreign_key="league.id")
    created: datetime = Field(default_factory=now)


class WebMail(SQLModel, table=True):
    """One mail a web request queued: which client asked (its address, an IPv6 one by its
    /64), to whom, when. pbem.web.limits counts these per client and per mailbox; rows older
    than a day are pruned."""

    id: int | None = Field(default=None, primary_key=True)
    client: str = Field(max_length=64, index=True)
    to_addr: str = Field(max_length=254, index=True)
    created: datetime = Field(default_factory=now, index=True)


# -- a player's private notes (issue 34) -----------------------------------------------------


class Note(SQLModel, table=True):
    """A player's private note on a game (pbem.store.notes): only its author ever sees it.
    Not a move: no log, page, mail or export of anyone else reads this table. `ref` keeps a
    mail's line from adding it twice (unique: two deliveries at once, one wins)."""

    __table_args__ = (Index("ix_note_game_player", "game_id", "player_id"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    player_id: int = Field(foreign_key="player.id", index=True)
    text: str = Field(max_length=500)
    ref: str | None = Field(default=None, unique=True, max_length=300)
    created: datetime = Field(default_factory=now)


# -- open seeks (issue 34) -------------------------------------------------------------------


class Seek(SQLModel, table=True):
    """A player's open seek: a game of `rules` with anyone whose rating is in range; robots
    fill the empty seats at `due` if `robots` (else it expires then). pbem.organise.seeks:
    status open -> started (with its game), cancelled or expired; only an open seek changes,
    under a lock on its row."""

    __table_args__ = (Index("ix_seek_status_due", "status", "due"),)
    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)  # the poster
    rules: dict = Field(sa_column=Column(JSON, nullable=False))
    time_control: dict = Field(default_factory=dict, sa_column=_json_or_empty())
    rating_min: int | None = Field(default=None)
    rating_max: int | None = Field(default=None)
    robots: bool = Field(default=False)  # robots fill the empty seats at `due`
    status: str = Field(default="open", max_length=10)  # open, started, cancelled, expired
    due: datetime  # robots fill, or it expires
    game_id: int | None = Field(default=None, foreign_key="game.id", unique=True)
    created: datetime = Field(default_factory=now)


class SeekSeat(SQLModel, table=True):
    """A player's seat in a seek, the poster's first; one a player (unique)."""

    __tablename__ = "seek_seat"
    __table_args__ = (UniqueConstraint("seek_id", "player_id"),)
    id: int | None = Field(default=None, primary_key=True)
    seek_id: int = Field(foreign_key="seek.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    joined: datetime = Field(default_factory=now)


# -- web push (issue 35) ---------------------------------------------------------------------


class PushSubscription(SQLModel, table=True):
    """A browser's push subscription of a player (pbem.store.push): where to post (the push
    service's `endpoint`) and the browser's keys to encrypt for (RFC 8291). At most
    pbem.store.push.MAX_SUBSCRIPTIONS a player; dropped when the service says it is gone."""

    __tablename__ = "push_subscription"
    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    endpoint: str = Field(unique=True, max_length=600)
    p256dh: str = Field(max_length=100)  # the browser's public key (base64url)
    auth: str = Field(max_length=40)  # its auth secret (base64url)
    created: datetime = Field(default_factory=now)
    last_error: str | None = Field(default=None, max_length=200)


class PushMessage(SQLModel, table=True):
    """A push owed to one subscription: the turns of one turn mail that went out (`mail`:
    its outbox key; `turns`: the turn keys it showed). Sent, retried with backoff, or
    settled (sent_at with a last_error) by pbem.store.push.send_due."""

    __tablename__ = "push_message"
    __table_args__ = (UniqueConstraint("subscription_id", "mail"),)
    id: int | None = Field(default=None, primary_key=True)
    subscription_id: int = Field(foreign_key="push_subscription.id", index=True)
    mail: str = Field(max_length=200)
    turns: list = Field(sa_column=Column(JSON, nullable=False))
    attempts: int = 0
    next_attempt: datetime = Field(default_factory=now, index=True)
    sent_at: datetime | None = Field(default=None, index=True)
    last_error: str | None = Field(default=None, max_length=200)
    created: datetime = Field(default_factory=now)


# -- a player's calendar feed (issue 35) -----------------------------------------------------


class CalendarFeed(SQLModel, table=True):
    """A player's calendar feed (issue 35, pbem.store.calendars): its secret address
    /cal/TOKEN.ics, kept only as the SHA-256 of TOKEN, so the database alone does not give
    the feed away. At most one a player: a new one replaces it, and the old address is then
    no one's (404)."""

    __tablename__ = "calendar_feed"
    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", unique=True)
    token_hash: str = Field(unique=True, max_length=64)
    created: datetime = Field(default_factory=now)


# -- hand reviews (issue 33) -----------------------------------------------------------------


class HandReview(SQLModel, table=True):
    """A finished hand's review (pbem.engine.review). The write that ends a hand adds its
    row with no `data` (pbem.play); the clock works the review out outside any write and
    stores it once: the score pad and later mails show it. `hand` counts from 1."""

    __tablename__ = "hand_review"
    __table_args__ = (UniqueConstraint("game_id", "hand"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    hand: int
    # SQL NULL while pending (none_as_null: not the JSON text 'null'), so `IS NULL` finds it
    data: dict | None = Field(default=None, sa_column=Column(JSON(none_as_null=True),
                                                              nullable=True))
    created: datetime = Field(default_factory=now)
# -- league webhooks (issue 35) --------------------------------------------------------------


class Webhook(SQLModel, table=True):
    """A league's webhook: its news is posted there (pbem.league.webhooks). The URL is a
    secret (it holds the channel's key): only `hint` (its host and last characters) is ever
    shown, and nothing but the sender reads `url`."""

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    kind: str = Field(max_length=10)  # discord, slack, matrix, json
    url: str = Field(max_length=500)
    hint: str = Field(max_length=120)
    created: datetime = Field(default_factory=now)
    failed: int = 0  # posts given up (a 4xx, or too many tries): the organiser's page says
    last_error: str | None = Field(default=None, max_length=200)  # never the answer's text
    last_error_at: datetime | None = None


class WebhookPost(SQLModel, table=True):
    """One piece of a league's news for one webhook, queued in the news's own transaction
    and posted by pbem.store.webhooks.drain: queued, then sent or failed. `key` is the
    delivery id the receiver sees (unique: the same news queues once)."""

    __tablename__ = "webhook_post"
    __table_args__ = (Index("ix_webhook_post_state_next", "state", "next_attempt"),)
    id: int | None = Field(default=None, primary_key=True)
    webhook_id: int = Field(foreign_key="webhook.id", index=True)
    key: str = Field(unique=True, max_length=200)
    news: dict = Field(default_factory=dict, sa_column=_json_or_empty())
    state: str = Field(default="queued", max_length=10)  # queued, sent, failed
    attempts: int = 0
    next_attempt: datetime = Field(default_factory=now)
    sent_at: datetime | None = None
    last_error: str | None = Field(default=None, max_length=200)
    created: datetime = Field(default_factory=now)
