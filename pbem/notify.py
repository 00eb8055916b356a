"""Outbox rows for what a move changed, written in the move's own transaction: the turn
mail to each human who must act now, and the result to everyone when the game ends."""

import os

from . import compose, owntime, seatclock, talk
from .config import load
from .deadlines import due_time, time_control
from .engine import legal, view
from .engine.acts import QUIET
from .engine.orders import bids_later
from .signing import secret_keys, signer
from .store import prefs
from .store.games import mailable
from .store.models import now as utcnow


def mails(game, seats, players, st, events, before=None, orders=None, clocks=None,
          now=None, answered=None, answering=False, kept=None) -> list[dict]:
    """`orders`: each seat's pending orders, as written (a turn mail lists its own);
    `clocks`: a bank clock's seats (pbem.seatclock), each mail tells its own bank; `now`:
    the time the turn mails count their deadlines from (the write's, which arms them);
    `answered`: the seat whose mail made this move, which the answer to it tells what
    happened (the table, the hand just scored), so it gets no news mail of it besides;
    `answering`: that answer is written with this move, from this table, so where it is
    the seat's turn (`answer_stands`) the answer is its turn mail too; `kept`: the due
    times seats keep (after an undo), which their turn mails tell."""
    if not events:
        return []
    cfg = settings()
    names = seat_names(seats, players)
    humans = {x.seat: x for x in seats if not x.robot and mailable(players.get(x.player_id))}
    out = talk.mails(cfg, game, humans.values(), players, st, events, names, mail_row)
    if all(ev["type"] in QUIET for ev in events):
        return out  # talk and offers: no turn mail, nothing moved
    acting = [s for s in st.to_act() if s in humans and legal(st, s)]
    if answering and answer_stands(game, st, answered):
        acting = [s for s in acting if s != answered]
    for seat in [s for s in acting if _asked_anew(s, events, answered)]:
        player = players[humans[seat].player_id]
        if (player.prefs or {}).get("turns") != "daily":  # else: the daily list of moves
            out.append(turn_mail(cfg, game, humans[seat], player, st, names,
                                 (orders or {}).get(seat), (clocks or {}).get(seat), now,
                                 (kept or {}).get(seat)))
    if before is not None and st.phase != "over" and _news(st, before):
        for seat, x in humans.items():
            player = players[x.player_id]
            if seat not in acting and seat != answered and _wants_news(player, st, before):
                out.append(update_mail(cfg, game.id, x, player, st, names))
    if st.phase == "over":
        for x in humans.values():
            v = compose.context(view(st, x.seat), game.id, names)
            out.append(mail_row(cfg, game.id, x, players[x.player_id], f"over:{game.id}:{x.seat}",
                                f"Game {game.id} is over",
                                *_bodies(v, names, _result(game.id, st, names))))
    return out


DIGEST = "digest"

# What a move's mails read of the settings (addresses, links, the signing key). load()
# builds every setting from the environment anew (as much as a mail's signed links), so
# the Settings is kept while these variables stay the same: never stale, as load() is not.
_READS = ("PBEM_VAR_DIR", "PBEM_MAIL_DOMAIN", "PBEM_BASE_URL", "PBEM_SECRET_KEY")
_settings: tuple = ((), None)


def settings():
    global _settings
    key = tuple(map(os.environ.get, _READS))
    known = _settings  # one read: another thread may replace it, never change it
    if known[0] != key:
        known = _settings = (key, load())
    return known[1]


def _asked_anew(seat, events, answered=None) -> bool:
    """Does the seat need a new turn mail? Not when all that happened is another seat's look
    at its cards: the turn is unchanged, and the last turn mail's links still hold (pbem.play
    lets a move made before a look through). Nor when the seat took its own move back by
    mail: the answer shows the table and the moves legal now, and a reply to the answer or
    to the turn mail before is good (pbem.play lets a move made before a move and its undo
    through)."""
    if seat == answered and events[0]["type"] == "undo":
        return False
    return any(ev["type"] != "look" or ev.get("seat") == seat for ev in events)


def answer_stands(game, st, seat) -> bool:
    """Can the answer to the seat's mail, written with its move from the table the move
    left, stand for its turn mail (its Message-ID, links and deadline: one mail, not two)?
    When it is the seat's turn on that table (it won the trick, bids first in the new hand,
    looked at its cards), unless the game has a bank clock: the write pays the banks after
    the answer is rendered, so the turn mail tells the bank. A table the robots change after
    the write (their moves after a deal) gets its own turn mail from their write."""
    return seat in st.to_act() and bool(legal(st, seat)) \
        and time_control(game)["clock"] != "bank"


def _news(st, before) -> bool:
    """Did a trick or a hand end in this move? (what others are told of at once)"""
    return (st.hand_no, len(st.tricks)) != before


def _wants_news(player, st, before) -> bool:
    """`notify every trick`: at each trick and hand; `every hand` (the default): when a hand
    was scored, the new hand in the same mail; `digest`: never at once."""
    how = prefs.notify(player)
    return how == "every trick" or (how == "every hand" and st.hand_no != before[0])


def handover_mails(game, seats, players, ev, leaver) -> list[dict]:
    """A hand-over: the new player gets their table link, the others at the table and the
    player who left are told who plays the seat now."""
    cfg = settings()
    names = seat_names(seats, players)
    seat, gone = ev["seat"], leaver.name if leaver else f"robot {ev['seat']}"
    news = f"In game {game.id}, {names[seat]} now plays seat {seat} in place of {gone}.\n"
    out = []
    for x in seats:
        if x.robot or not mailable(players.get(x.player_id)):
            continue
        text, subject = news, f"Game {game.id}: {names[seat]} takes over seat {seat}"
        if x.seat == seat:
            subject = f"Game {game.id}: you take over seat {seat}"
            text = (f"You now play seat {seat} of game {game.id} in place of {gone}: the cards, "
                    f"bids and tricks so far are the seat's.\nYour table: "
                    f"{cfg.base_url}/t/{x.token}\nWhen it is your move a turn mail comes, as "
                    "for any game.\n")
        out.append(mail_row(cfg, game.id, x, players[x.player_id],
                            f"handover:{game.id}:{ev['seq']}:{x.seat}", subject, text))
    if leaver and mailable(leaver):
        mail = compose.game_mail(game.id, cfg.mail_domain,
                                 f"Game {game.id}: your seat is taken over", news)
        mail["headers"]["Auto-Submitted"] = "auto-generated"
        out.append(dict(mail, to_addr=leaver.email,
                        dedupe_key=f"handover:{game.id}:{ev['seq']}:left"))
    return out


def update_mail(cfg, game_id, seat, player, st, names) -> dict:
    v = compose.context(view(st, seat.seat), game_id, names)
    v.pop("last_hand", None)  # the mail's first line says it
    scored = not st.tricks and st.history
    what = "a hand was scored" if scored else "a trick was played"
    said = f"hand {len(st.history)} was scored: {_last_hand(st, names)}" if scored else what
    text = f"Game {game_id}: {said}. It is not your turn yet.{_bid_ahead(st, seat.seat)}"
    return mail_row(cfg, game_id, seat, player, f"news:{game_id}:{seat.seat}:{st.seq}",
                    f"Game {game_id}: {what}", *_bodies(v, names, text))


def _bid_ahead(st, seat) -> str:
    """A new hand's mail to a seat that bids later: it may bid now (pbem.orders keeps the bid
    and the door makes it at its turn), so the hand's bids need not wait one after another."""
    if not bids_later(st, seat):
        return ""
    if st.looked[seat]:
        return ("\nYour new hand is below. Reply with your bid now (bid 4, nil) and it is "
                "kept and made at your turn.")
    return ("\nYou may still bid blind: reply look to see your new hand. A bid after it, in "
            "the same mail, is kept and made at your turn.")


def _bodies(v, names, text) -> tuple[str, str]:
    """The text and HTML of a mail that tells of the game without asking for a move."""
    values = {"done": [], "error": None, "v": v, "names": names, "moves": [], "text": text}
    return compose.render("reply.txt", **values), compose.render("reply.html", **values)


def _result(game_id, st, names) -> str:
    scores = st.display_scores()
    label = " & ".join(names[s] for s in st.sides[st.winner])
    return (f"Game {game_id} is over: {label} won, "
            + " to ".join(str(x) for x in sorted(scores, reverse=True))
            + f".\nThe last hand: {_last_hand(st, names)}.")


def _last_hand(st, names) -> str:
    return compose.last_hand(st.history[-1], names) if st.history else ""


def due_words(game, player, now, clock=None, when=None) -> tuple[str, str | None]:
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


def seat_names(seats, players) -> list[str]:
    return [players[x.player_id].name if x.player_id in players else f"robot {x.seat}"
            for x in seats]


def turn_values(cfg, game, seat, player, st, names, orders=None, clock=None, now=None,
                kept=None) -> dict:
    """What a turn mail shows the seat (and an answer that stands for it does: pbem.mail.
    inbound): the table, the legal moves' links, the deadline its write arms (counted from
    `now`, or `kept`: the due time the seat keeps after an undo), the bank, the seat's
    pending orders, the talk since its last move."""
    v = compose.context(view(st, seat.seat), game.id, names)
    moves = compose.moves(v, reply_address(cfg, seat),
                          link_maker(cfg, game.id, seat.seat, st.seq))
    due, bank = due_words(game, player, now or utcnow(), clock, kept)
    return dict(v=v, names=names, moves=moves, table_url=f"{cfg.base_url}/t/{seat.token}",
                due=due, orders=orders, bank=bank, talk=talk.since_last_move(st, seat.seat))


def turn_subject(game_id, seq) -> str:
    """The turn mail's subject (players' mail filters look for it)."""
    return f"Game {game_id}: your turn (move {seq})"


def turn_mail(cfg, game, seat, player, st, names, orders=None, clock=None, now=None,
              kept=None) -> dict:
    game_id = game.id
    values = turn_values(cfg, game, seat, player, st, names, orders, clock, now, kept)
    text = compose.render("turn.txt", **values)
    html = compose.render("turn.html", **values)
    row = mail_row(cfg, game_id, seat, player, f"turn:{game_id}:{seat.seat}:{st.seq}",
                   turn_subject(game_id, st.seq), text, html)
    row["headers"]["Message-ID"] = compose.turn_message_id(game_id, seat.seat, st.seq,
                                                            cfg.mail_domain)
    return row


def link_maker(cfg, game_id, seat, seq):
    """A signed web link per legal move (pbem.web.links); it names game, seat, move, seq."""
    sign = signer(tuple(secret_keys(cfg))).move_links(game_id, seat, seq)  # a Signer a key set
    where = f"{cfg.base_url}/m/"

    def link(action) -> str:
        return where + sign(action)

    return link


def reply_address(cfg, seat) -> str:
    return f"play+{seat.token}@{cfg.mail_domain}"


def mail_row(cfg, game_id, seat, player, key, subject, text, html=None) -> dict:
    root = compose.thread_root(game_id, cfg.mail_domain)
    headers = {"Reply-To": reply_address(cfg, seat), "Auto-Submitted": "auto-generated",
               "In-Reply-To": root, "References": root}  # List-*: pbem.store.unsubscribe
    mail = compose.game_mail(game_id, cfg.mail_domain, subject, text, html)
    return dict(mail, to_addr=player.email, headers=dict(mail["headers"], **headers),
                dedupe_key=key)
