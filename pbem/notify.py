"""Outbox rows for what a move changed, written in the move's own transaction: the turn
mail to each human who must act now, and the result to everyone when the game ends."""

import os
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import cast

from . import compose, owntime, seatclock, talk
from .config import Settings, load
from .deadlines import due_time, time_control
from .engine import State, legal, view
from .engine.orders import bids_later
from .signing import secret_keys, signer
from .store import prefs
from .store.games import mailable
from .store.models import Game, Player, Seat, SeatClock
from .table import Table, id_of


def mails(t: Table) -> list[dict]:
    """The Outbox rows for what the move `t` did: the talk, a turn mail to each human asked
    anew to act (telling its pending orders, its bank and the deadline its write arms from
    `t.now`, or the due time it keeps after an undo), the news of a trick or hand to those
    who want it, and the result when the game ends. The seat whose mail made the move
    (`t.answered`) gets no news mail besides its answer, nor a turn mail where that answer,
    written with the move (`t.answering`), stands for it (`answer_stands`)."""
    if not t.events:
        return []
    cfg = settings()
    humans = {x.seat: x for x in t.seats
              if not x.robot and mailable(t.players.get(x.player_id or 0))}
    out = talk.mails(cfg, t, list(humans.values()), mail_row)
    if not t.moved():
        return out  # talk and offers: no turn mail, nothing moved
    acting = _acting(t, humans)
    out += [turn_mail(cfg, t, humans[seat]) for seat in acting
            if _asked_anew(seat, t.events, t.answered)
            and (t.player(humans[seat]).prefs or {}).get("turns") != "daily"]  # else: a daily list
    out += _news_mails(cfg, t, [x for seat, x in humans.items() if seat not in acting])
    if t.st.phase == "over":
        out += [_over_mail(cfg, t, x) for x in humans.values()]
    return out


def _acting(t: Table, humans: dict[int, Seat]) -> list[int]:
    """The human seats asked to act now that a turn mail (or the answer) tells."""
    acting = [s for s in t.st.to_act() if s in humans and legal(t.st, s)]
    if t.answering and answer_stands(t.game, t.st, t.answered):
        acting = [s for s in acting if s != t.answered]
    return acting


def _news_mails(cfg: Settings, t: Table, waiting: list[Seat]) -> list[dict]:
    """A trick or a hand that ended, to the seats not asked to act that want to hear it."""
    if t.before is None or t.st.phase == "over" or not _news(t.st, t.before):
        return []
    return [update_mail(cfg, t, x) for x in waiting
            if x.seat != t.answered and _wants_news(t.player(x), t.st, t.before)]


def _over_mail(cfg: Settings, t: Table, seat: Seat) -> dict:
    gid = t.game_id
    v = compose.context(view(t.st, seat.seat), gid, t.names)
    return mail_row(cfg, seat, t.player(seat), f"over:{gid}:{seat.seat}", f"Game {gid} is over",
                    *_bodies(v, t.names, _result(gid, t.st, t.names)))


DIGEST = "digest"

# What a move's mails read of the settings (addresses, links, the signing key). load()
# builds every setting from the environment anew (as much as a mail's signed links), so
# the Settings is kept while these variables stay the same: never stale, as load() is not.
_READS = ("PBEM_VAR_DIR", "PBEM_MAIL_DOMAIN", "PBEM_BASE_URL", "PBEM_SECRET_KEY")
_settings: tuple[tuple[str | None, ...], Settings | None] = ((), None)


def settings() -> Settings:
    global _settings
    key = tuple(map(os.environ.get, _READS))
    known_key, known = _settings  # one read: another thread may replace it, never change it
    if known_key != key or known is None:
        known = load()
        _settings = (key, known)
    return known


def _asked_anew(seat: int, events: list[dict], answered: int | None = None) -> bool:
    """Does the seat need a new turn mail? Not when all that happened is another seat's look
    at its cards: the turn is unchanged, and the last turn mail's links still hold (pbem.play
    lets a move made before a look through). Nor when the seat took its own move back by
    mail: the answer shows the table and the moves legal now, and a reply to the answer or
    to the turn mail before is good (pbem.play lets a move made before a move and its undo
    through)."""
    if seat == answered and events[0]["type"] == "undo":
        return False
    return any(ev["type"] != "look" or ev.get("seat") == seat for ev in events)


def answer_stands(game: Game, st: State, seat: int | None) -> bool:
    """Can the answer to the seat's mail, written with its move from the table the move
    left, stand for its turn mail (its Message-ID, links and deadline: one mail, not two)?
    When it is the seat's turn on that table (it won the trick, bids first in the new hand,
    looked at its cards), unless the game has a bank clock: the write pays the banks after
    the answer is rendered, so the turn mail tells the bank. A table the robots change after
    the write (their moves after a deal) gets its own turn mail from their write."""
    return seat in st.to_act() and bool(legal(st, seat)) \
        and time_control(game)["clock"] != "bank"


def _news(st: State, before: tuple[int, int]) -> bool:
    """Did a trick or a hand end in this move? (what others are told of at once)"""
    return (st.hand_no, len(st.tricks)) != before


def _wants_news(player: Player, st: State, before: tuple[int, int]) -> bool:
    """`notify every trick`: at each trick and hand; `every hand` (the default): when a hand
    was scored, the new hand in the same mail; `digest`: never at once."""
    how = prefs.notify(player)
    return how == "every trick" or (how == "every hand" and st.hand_no != before[0])


def handover_mails(game: Game, seats: list[Seat], players: dict[int, Player], ev: dict,
                   leaver: Player | None) -> list[dict]:
    """A hand-over: the new player gets their table link, the others at the table and the
    player who left are told who plays the seat now."""
    cfg = settings()
    names = seat_names(seats, players)
    gid, seat, gone = id_of(game), ev["seat"], leaver.name if leaver else f"robot {ev['seat']}"
    news = f"In game {gid}, {names[seat]} now plays seat {seat} in place of {gone}.\n"
    out: list[dict] = []
    for x in seats:
        if x.robot or not mailable(players.get(x.player_id or 0)):
            continue
        text, subject = news, f"Game {gid}: {names[seat]} takes over seat {seat}"
        if x.seat == seat:
            subject = f"Game {gid}: you take over seat {seat}"
            text = (f"You now play seat {seat} of game {gid} in place of {gone}: the cards, "
                    f"bids and tricks so far are the seat's.\nYour table: "
                    f"{cfg.base_url}/t/{x.token}\nWhen it is your move a turn mail comes, as "
                    "for any game.\n")
        out.append(mail_row(cfg, x, players[x.player_id or 0],
                            f"handover:{gid}:{ev['seq']}:{x.seat}", subject, text))
    if leaver and mailable(leaver):
        mail = compose.game_mail(gid, cfg.mail_domain,
                                 f"Game {gid}: your seat is taken over", news)
        mail["headers"]["Auto-Submitted"] = "auto-generated"
        out.append(dict(mail, to_addr=leaver.email,
                        dedupe_key=f"handover:{gid}:{ev['seq']}:left"))
    return out


def update_mail(cfg: Settings, t: Table, seat: Seat) -> dict:
    gid, st = t.game_id, t.st
    v = compose.context(view(st, seat.seat), gid, t.names)
    v.pop("last_hand", None)  # the mail's first line says it
    scored = not st.tricks and st.history
    what = "a hand was scored" if scored else "a trick was played"
    said = f"hand {len(st.history)} was scored: {_last_hand(st, t.names)}" if scored else what
    text = f"Game {gid}: {said}. It is not your turn yet.{_bid_ahead(st, seat.seat)}"
    return mail_row(cfg, seat, t.player(seat), f"news:{gid}:{seat.seat}:{st.seq}",
                    f"Game {gid}: {what}", *_bodies(v, t.names, text))


def _bid_ahead(st: State, seat: int) -> str:
    """A new hand's mail to a seat that bids later: it may bid now (pbem.orders keeps the bid
    and the door makes it at its turn), so the hand's bids need not wait one after another."""
    if not bids_later(st, seat):
        return ""
    if st.looked[seat]:
        return ("\nYour new hand is below. Reply with your bid now (bid 4, nil) and it is "
                "kept and made at your turn.")
    return ("\nYou may still bid blind: reply look to see your new hand. A bid after it, in "
            "the same mail, is kept and made at your turn.")


def _bodies(v: dict, names: list[str], text: str) -> tuple[str, str]:
    """The text and HTML of a mail that tells of the game without asking for a move."""
    values = {"done": [], "error": None, "v": v, "names": names, "moves": [], "text": text}
    return compose.render("reply.txt", **values), compose.render("reply.html", **values)


def _result(game_id: int, st: State, names: list[str]) -> str:
    scores = st.display_scores()
    label = " & ".join(names[s] for s in st.sides[cast(int, st.winner)])  # it is over
    return (f"Game {game_id} is over: {label} won, "
            + " to ".join(str(x) for x in sorted(scores, reverse=True))
            + f".\nThe last hand: {_last_hand(st, names)}.")


def _last_hand(st: State, names: list[str]) -> str:
    return compose.last_hand(st.history[-1], names) if st.history else ""


def due_words(game: Game, player: Player | None, now: datetime, clock: SeatClock | None = None,
              when: datetime | None = None) -> tuple[str, str | None]:
    """When the move is due (`when`, if the seat keeps a due time: after an undo), in UTC
    and (if it differs) on the player's own clock; and with a bank clock, what the seat's
    bank holds ("2 days 4 h")."""
    tc = time_control(game)
    when = when or due_time(tc, player, now, clock)
    text = when.strftime("%a %d %b %Y, %H:%M UTC")
    mine = prefs.local(player, when)
    if mine.utcoffset():
        text += mine.strftime(f" (%a %H:%M {prefs.get(player, 'zone')})")
    if tc["clock"] != "bank":
        return text, None
    return text, owntime.describe(seatclock.left(tc, clock, player, now))


def seat_names(seats: Sequence[Seat], players: Mapping[int, Player]) -> list[str]:
    """Each seat's player's name, in seat order ("robot 2" for a robot's seat)."""
    return [players[x.player_id].name if x.player_id is not None and x.player_id in players
            else f"robot {x.seat}" for x in seats]


def turn_values(cfg: Settings, t: Table, seat: Seat) -> dict:
    """What a turn mail shows the seat (and an answer that stands for it does: pbem.mail.
    inbound): the table, the legal moves' links, the deadline its write arms (counted from
    `t.now`, or the due time the seat keeps after an undo), the bank, the seat's pending
    orders, the talk since its last move."""
    gid, st = t.game_id, t.st
    v = compose.context(view(st, seat.seat), gid, t.names)
    moves = compose.moves(v, reply_address(cfg, seat), link_maker(cfg, gid, seat.seat, st.seq))
    due, bank = due_words(t.game, t.player(seat), t.now, (t.clocks or {}).get(seat.seat),
                          t.kept.get(seat.seat))
    return dict(v=v, names=t.names, moves=moves, table_url=f"{cfg.base_url}/t/{seat.token}",
                due=due, orders=t.orders.get(seat.seat), bank=bank,
                talk=talk.since_last_move(st, seat.seat))


def turn_subject(game_id: int, seq: int) -> str:
    """The turn mail's subject (players' mail filters look for it)."""
    return f"Game {game_id}: your turn (move {seq})"


def turn_mail(cfg: Settings, t: Table, seat: Seat) -> dict:
    gid, seq = t.game_id, t.st.seq
    values = turn_values(cfg, t, seat)
    text = compose.render("turn.txt", **values)
    html = compose.render("turn.html", **values)
    row = mail_row(cfg, seat, t.player(seat), f"turn:{gid}:{seat.seat}:{seq}",
                   turn_subject(gid, seq), text, html)
    row["headers"]["Message-ID"] = compose.turn_message_id(gid, seat.seat, seq,
                                                            cfg.mail_domain)
    return row


def link_maker(cfg: Settings, game_id: int, seat: int, seq: int) -> Callable[[dict], str]:
    """A signed web link per legal move (pbem.web.links); it names game, seat, move, seq."""
    sign = signer(tuple(secret_keys(cfg))).move_links(game_id, seat, seq)  # a Signer a key set
    where = f"{cfg.base_url}/m/"

    def link(action: dict) -> str:
        return where + sign(action)

    return link


def reply_address(cfg: Settings, seat: Seat) -> str:
    return f"play+{seat.token}@{cfg.mail_domain}"


def mail_row(cfg: Settings, seat: Seat, player: Player, key: str, subject: str,
             *bodies: str) -> dict:
    """An Outbox row (a dict) to a seat's player, in its game's thread; `bodies`: the text,
    and the HTML if any."""
    game_id = seat.game_id
    root = compose.thread_root(game_id, cfg.mail_domain)
    headers = {"Reply-To": reply_address(cfg, seat), "Auto-Submitted": "auto-generated",
               "In-Reply-To": root, "References": root}  # List-*: pbem.store.unsubscribe
    mail = compose.game_mail(game_id, cfg.mail_domain, subject, *bodies)
    return dict(mail, to_addr=player.email, headers=dict(mail["headers"], **headers),
                dedupe_key=key)
