"""Outbox rows for what a move changed, written in the move's own transaction: the turn
mail to each human who must act now, and the result to everyone when the game ends."""

import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import cast

from babel.dates import format_datetime

from . import compose, owntime, seatclock, talk
from .config import Settings, load
from .deadlines import due_time, time_control
from .engine import State, legal, pretty, view
from .engine.orders import bids_later
from .engine.view import bid_words
from .i18n import _, current, language, ngettext
from .signing import secret_keys, signer
from .store import prefs, reviews
from .store.games import mailable
from .store.models import Game, Player, Seat, SeatClock
from .table import Table, id_of, seat_names


def mails(t: Table) -> list[dict]:
    """The Outbox rows for what the move `t` did: the talk, a turn mail to each human asked
    anew to act (telling its pending orders, its bank and the deadline its write arms from
    `t.now`, or the due time it keeps after an undo), the news of a trick or hand to those
    who want it, and the result when the game ends. The seat whose mail made the move
    (`t.answered`) gets no news mail besides its answer, nor a turn mail where that answer
    (`t.answering`: written with the move, or after the mail's later lines from the table
    this write left) stands for it (`answer_stands`): one mail answers a mail."""
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


NOTICE = "timeout:"  # the clock's notice of a timeout, keyed timeout:ROW:SEAT (pbem.clock)


def with_notices(t: Table, queued: list[dict]) -> list[dict]:
    """`queued` (the mails written with the move) and the move's own (`mails`), where a
    timeout's notice to a seat that gets a turn, news or result mail from the same write
    goes in that mail instead of beside it: one mail says the time ran out, and what now."""
    t.notices = {_seat_of(m): _told(m) for m in queued
                 if str(m.get("dedupe_key", "")).startswith(NOTICE)}
    own = mails(t)
    gid = t.game_id
    folded = {seat for seat in t.notices if any(m["dedupe_key"].startswith(
        (f"turn:{gid}:{seat}:", f"news:{gid}:{seat}:")) or m["dedupe_key"] == f"over:{gid}:{seat}"
        for m in own)}
    return [m for m in queued if not (str(m.get("dedupe_key", "")).startswith(NOTICE)
                                      and _seat_of(m) in folded)] + own


def held(t: Table, mail: dict) -> bool:
    """Is `mail`, written with the move, held for the robots' write after it (pbem.play)? A
    timeout's notice is, when robots move next: their write may ask its seat to move."""
    return t.robots_next and str(mail.get("dedupe_key", "")).startswith(NOTICE)


def _seat_of(mail: dict) -> int:
    return int(str(mail["dedupe_key"]).rsplit(":", 1)[1])


def _told(mail: dict) -> str:
    """A game mail's words below its first line (compose.game_mail)."""
    return str(mail["body_text"]).split("\n\n", 1)[-1].strip()


def _acting(t: Table, humans: dict[int, Seat]) -> list[int]:
    """The human seats asked to act now that a turn mail (or the answer) tells."""
    acting = [s for s in t.st.to_act() if s in humans and legal(t.st, s)]
    if t.answering and answer_stands(t.game, t.st, t.answered):
        acting = [s for s in acting if s != t.answered]
    return acting


def _news_mails(cfg: Settings, t: Table, waiting: list[Seat]) -> list[dict]:
    """A trick or a hand that ended, to the seats not asked to act that want to hear it; not
    when robots move after the write (`t.robots_next`): the robots' write tells it (from
    the same `before`), in the turn mail to the seat they leave to act, so that seat gets
    one mail, not the news and then its turn."""
    if t.before is None or t.st.phase == "over" or t.robots_next or not _news(t.st, t.before):
        return []
    return [update_mail(cfg, t, x) for x in waiting
            if x.seat != t.answered and _wants_news(t.player(x), t.st, t.before)]


def in_language(make: Callable[[Settings, Table, Seat], dict]
                ) -> Callable[[Settings, Table, Seat], dict]:
    """A seat's mail made in its player's language (pbem.store.prefs.language)."""
    def made(cfg: Settings, t: Table, seat: Seat) -> dict:
        with language(prefs.language(t.player(seat))):
            return make(cfg, t, seat)

    made.__doc__ = make.__doc__
    return made


@in_language
def _over_mail(cfg: Settings, t: Table, seat: Seat) -> dict:
    gid = t.game_id
    v = _with_hints(compose.context(view(t.st, seat.seat), gid, t.names, t.st.table), t)
    notice = t.notices.get(seat.seat)
    return mail_row(cfg, seat, t.player(seat), f"over:{gid}:{seat.seat}",
                    _("Game %(game)s is over") % {"game": gid},
                    *_bodies(v, t.names, (f"{notice}\n" if notice else "")
                             + _result(gid, t.st, t.names), played_for(t, seat.seat),
                             settled_news(t)))


DIGEST = "digest"

# What a move's mails read of the settings (addresses, links, the signing key). load()
# builds every setting from the environment anew (as much as a mail's signed links), so
# the Settings is kept while these variables stay the same: never stale, as load() is not.
_READS = ("PBEM_VAR_DIR", "PBEM_MAIL_DOMAIN", "PBEM_BASE_URL", "PBEM_SECRET_KEY")
_settings: tuple[tuple[str | None, ...], Settings | None] = ((), None)


def _with_hints(v: dict, t: Table) -> dict:
    """The hints each seat took, on the mail's score pad (issue 33)."""
    v["hints"] = reviews.hint_words(t.names, [x.hints for x in t.seats])
    return v


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
    gid = id_of(game)
    out: list[dict] = []
    for x in seats:
        player = players.get(x.player_id or 0)
        if x.robot or player is None or not mailable(player):
            continue
        with language(prefs.language(player)):
            out.append(mail_row(cfg, x, player, f"handover:{gid}:{ev['seq']}:{x.seat}",
                                *_handover_words(cfg, x, names, ev, leaver)))
    if leaver and mailable(leaver):
        with language(prefs.language(leaver)):
            mail = compose.game_mail(gid, cfg.mail_domain, _("Game %(game)s: your seat is "
                                     "taken over") % {"game": gid},
                                     _handover_news(gid, names, ev, leaver))
        mail["headers"]["Auto-Submitted"] = "auto-generated"
        out.append(dict(mail, to_addr=leaver.email,
                        dedupe_key=f"handover:{gid}:{ev['seq']}:left"))
    return out


def _handover_news(gid: int, names: list[str], ev: dict, leaver: Player | None) -> str:
    seat = ev["seat"]
    gone = leaver.name if leaver else _("robot %(seat)s") % {"seat": seat}
    return _("In game %(game)s, %(name)s now plays seat %(seat)s in place of %(gone)s.") % {
        "game": gid, "name": names[seat], "seat": seat, "gone": gone} + "\n"


def _handover_words(cfg: Settings, x: Seat, names: list[str], ev: dict,
                    leaver: Player | None) -> tuple[str, str]:
    """(subject, text) of a hand-over's mail to the seat `x`."""
    gid, seat = x.game_id, ev["seat"]
    values = {"game": gid, "name": names[seat], "seat": seat, "url": f"{cfg.base_url}/t/{x.token}",
              "gone": leaver.name if leaver else _("robot %(seat)s") % {"seat": seat}}
    if x.seat != seat:
        return (_("Game %(game)s: %(name)s takes over seat %(seat)s") % values,
                _handover_news(gid, names, ev, leaver))
    return (_("Game %(game)s: you take over seat %(seat)s") % values,
            _("You now play seat %(seat)s of game %(game)s in place of %(gone)s: the cards, "
              "bids and tricks so far are the seat's.\nYour table: %(url)s\nWhen it is your "
              "move a turn mail comes, as for any game.") % values + "\n")


@in_language
def update_mail(cfg: Settings, t: Table, seat: Seat) -> dict:
    gid, st = t.game_id, t.st
    v = _with_hints(compose.context(view(st, seat.seat), gid, t.names, st.table), t)
    v.pop("last_hand", None)  # the mail's first line says it
    values = {"game": gid, "number": len(st.history), "result": _last_hand(st, t.names)}
    notice = t.notices.get(seat.seat)
    if not st.tricks and st.history:
        subject = _("Game %(game)s: a hand was scored") % values
        text = _("Game %(game)s: hand %(number)s was scored: %(result)s. It is not your turn "
                 "yet.") % values
    else:
        subject = _("Game %(game)s: a trick was played") % values
        text = _("Game %(game)s: a trick was played. It is not your turn yet.") % values
    return mail_row(cfg, seat, t.player(seat), f"news:{gid}:{seat.seat}:{st.seq}",
                    subject, *_bodies(v, t.names, (f"{notice}\n" if notice else "") + text
                                      + _bid_ahead(st, seat.seat), played_for(t, seat.seat),
                                      settled_news(t)))


def _bid_ahead(st: State, seat: int) -> str:
    """A new hand's mail to a seat that bids later: it may bid now (pbem.orders keeps the bid
    and the door makes it at its turn), so the hand's bids need not wait one after another."""
    if not bids_later(st, seat):
        return ""
    if st.looked[seat]:
        return "\n" + _("Your new hand is below. Reply with your bid now (bid 4, nil) and it "
                        "is kept and made at your turn.")
    return "\n" + _("You may still bid blind: reply look to see your new hand. A bid after "
                    "it, in the same mail, is kept and made at your turn.")


def _bodies(v: dict, names: list[str], text: str, for_you: list[str] | None = None,
            settled: str = "") -> tuple[str, str]:
    """The text and HTML of a mail that tells of the game without asking for a move
    (`for_you`: what was played for the seat, played_for; `settled`: settled_news)."""
    values = {"done": [], "error": None, "v": v, "names": names, "moves": [], "text": text,
              "for_you": for_you, "settled": settled}
    return compose.render("reply.txt", **values), compose.render("reply.html", **values)


def _result(game_id: int, st: State, names: list[str]) -> str:
    scores = st.display_scores()
    label = " & ".join(names[s] for s in st.sides[cast(int, st.winner)])  # it is over
    return _("Game %(game)s is over: %(side)s won, %(scores)s.\nThe last hand: %(result)s.") % {
        "game": game_id, "side": label, "result": _last_hand(st, names),
        "scores": _scores(sorted(scores, reverse=True))}


def _scores(scores: list[int]) -> str:
    """ "352 to 190" (three sides: "352 to 190 to 75")."""
    text = str(scores[0])
    for x in scores[1:]:
        text = _("%(first)s to %(then)s") % {"first": text, "then": x}
    return text


def _last_hand(st: State, names: list[str]) -> str:
    return compose.last_hand(st.history[-1], names) if st.history else ""


def due_words(game: Game, player: Player | None, now: datetime, clock: SeatClock | None = None,
              when: datetime | None = None) -> tuple[str, str | None]:
    """When the move is due (`when`, if the seat keeps a due time: after an undo), in UTC
    and (if it differs) on the player's own clock; and with a bank clock, what the seat's
    bank holds ("2 days 4 h")."""
    tc = time_control(game)
    when = when or due_time(tc, player, now, clock)
    text = format_datetime(when, "EEE dd MMM yyyy, HH:mm 'UTC'", tzinfo=UTC, locale=current())
    mine = prefs.local(player, when)
    if mine.utcoffset():
        zone = prefs.get(player, "zone")
        text += f" ({format_datetime(mine, 'EEE HH:mm', tzinfo=mine.tzinfo, locale=current())}" \
                f" {zone})"
    if tc["clock"] != "bank":
        return text, None
    return text, owntime.describe(seatclock.left(tc, clock, player, now))


def turn_values(cfg: Settings, t: Table, seat: Seat) -> dict:
    """What a turn mail shows the seat (and an answer that stands for it does: pbem.mail.
    inbound): the table, the legal moves' links, the deadline its write arms (counted from
    `t.now`, or the due time the seat keeps after an undo), the bank, the seat's pending
    orders, the talk since its last move."""
    gid, st = t.game_id, t.st
    v = _with_hints(compose.context(view(st, seat.seat), gid, t.names, st.table), t)
    moves = compose.moves(v, reply_address(cfg, seat), link_maker(cfg, gid, seat.seat, st.seq))
    due, bank = due_words(t.game, t.player(seat), t.now, (t.clocks or {}).get(seat.seat),
                          t.kept.get(seat.seat))
    return dict(v=v, names=t.names, moves=moves, table_url=f"{cfg.base_url}/t/{seat.token}",
                due=due, orders=t.orders.get(seat.seat), bank=bank,
                talk=talk.since_last_move(st, seat.seat),
                for_you=played_for(t, seat.seat), notice=t.notices.get(seat.seat),
                settled=settled_news(t))


@in_language
def turn_mail(cfg: Settings, t: Table, seat: Seat) -> dict:
    gid, seq = t.game_id, t.st.seq
    values = turn_values(cfg, t, seat)
    text = compose.render("turn.txt", **values)
    html = compose.render("turn.html", **values)
    row = mail_row(cfg, seat, t.player(seat), f"turn:{gid}:{seat.seat}:{seq}",
                   turn_headline(t, seat.seat), text, html)
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


# A game mail's first line, the preview a mail client lists beside the subject, says what
# happened in words ("Game 3: Ann bid 4; your turn to bid"), never a move number (the turn
# mail's Message-ID keeps it: compose.turn_message_id). And what was played for a seat
# without its player's hand on it (its only card, its own order, a timeout) is named in the
# mails to that seat the write makes.
MAX_FOR_YOU = 13  # a hand's cards at most: a line, not a log (the newest)
FOR_YOU = ("play", "bid", "pass", "draw")  # the moves a mail says were made for the seat


def your_turn(st: State, seat: int) -> str:
    """What the seat is asked to do now, in a few words."""
    if st.phase == "bid" and st.comeout_side is not None:
        return _("your turn: come out or stay")
    if st.phase == "bid":
        return _("your turn to bid")
    if st.phase == "play":
        return _("your turn to lead") if not st.trick else _("your turn to play")
    if st.phase == "pass":
        return _("your turn to pass cards")
    if st.phase == "draw":
        return _("your turn to draw")
    return _("your turn")


def last_news(events: Sequence[dict], names: Sequence[str], seat: int) -> str:
    """The last thing another seat did (or the deal) among the move's events, in words:
    "Ann bid 4", "Bob played 10♥", "a new hand was dealt"; "" if none says anything."""
    for ev in reversed(events):
        kind, who = ev["type"], ev.get("seat")
        if kind == "deal":
            return _("a new hand was dealt")
        if who == seat or not isinstance(who, int) or not 0 <= who < len(names):
            continue
        if kind == "bid":
            return _("%(name)s bid %(bid)s") % {"name": names[who], "bid": bid_words(ev)}
        if kind == "play":
            return _("%(name)s played %(card)s") % {"name": names[who],
                                                    "card": pretty(ev["card"])}
        if kind == "claim":
            return _("%(name)s claimed the rest") % {"name": names[who]}
        if kind == "undo":
            return _("%(name)s took a move back") % {"name": names[who]}
    return ""


def turn_headline(t: Table, seat: int) -> str:
    """A turn mail's first line: "Game 3: Ann bid 4; your turn to bid"."""
    news = last_news(t.events, t.names, seat)
    turn = your_turn(t.st, seat)
    if news:
        return _("Game %(game)s: %(news)s; %(turn)s") % {"game": t.game_id, "news": news,
                                                         "turn": turn}
    return _("Game %(game)s: %(what)s") % {"game": t.game_id,
                                           "what": turn[:1].upper() + turn[1:]}


def played_for(t: Table, seat: int) -> list[str]:
    """The seat's cards and bids made for it since the last mail it surely got, with why:
    "10♥ (your only card)", "bid 4 (your order)", "Q♣ (your time ran out)": those of
    earlier writes that mailed it nothing, or whose mail a merge or the cap settled unsent
    (`t.earlier`, from the log), then this write's. Not the seat's own moves; never
    another seat's."""
    made = [*(t.earlier(seat) if t.earlier is not None else []),
            *((ev, t.source if i < t.own else "") for i, ev in enumerate(t.events))]
    out = []
    for ev, source in made:
        if ev.get("seat") != seat or ev["type"] not in FOR_YOU \
                or ev.get("auto") == "settled":  # settled_news tells every seat of those
            continue
        why = _why(ev, source)
        if why:
            out.append(f"{_said(ev)} ({why})")
    return out[-MAX_FOR_YOU:]


def settled_news(t: Table) -> str:
    """"The last 3 tricks go as they must: Ann A♠, ..." when the write played the rest of a
    settled hand (pbem.engine.settled), trick by trick: every card named was played in the
    write, so it is public (cards already on its first trick are not named again). The
    plays from the first settled card run to the end of the hand."""
    first = next((i for i, ev in enumerate(t.events) if ev.get("auto") == "settled"), None)
    if first is None:
        return ""
    plays = []
    for ev in t.events[first:]:
        if ev["type"] != "play":
            break
        plays.append(ev)
    n, size = t.st.n, t.st.table.hand_size
    before = (size * n - len(plays)) % n  # cards already on the first trick
    tricks = size - (size * n - len(plays)) // n
    groups, group = [], []
    for ev in plays:
        group.append(f"{t.names[ev['seat']]} {pretty(ev['card'])}")
        if len(group) + before == n:
            groups.append(", ".join(group))
            group, before = [], 0
    if group:
        groups.append(", ".join(group))
    values = {"tricks": tricks, "cards": "; ".join(groups)}
    if tricks == 1:  # its own sentence: every plural form below names the number
        return _("The last trick goes as it must: %(cards)s.") % values
    return ngettext("The last %(tricks)s trick goes as it must: %(cards)s.",
                    "The last %(tricks)s tricks go as they must: %(cards)s.", tricks) % values


def _why(ev: dict, source: str) -> str:
    auto = ev.get("auto")
    if auto == "order":
        return _("your order")
    if auto == "forced":
        return _("your only card")
    if auto:
        return _("your cards were equal")
    if source == "clock":
        return _("your time ran out")
    if source in ("robot", "organiser"):
        return _("a robot stood in")
    return ""


def _said(ev: dict) -> str:
    if ev["type"] == "play":
        return pretty(ev["card"])
    if ev["type"] == "bid":
        return _("bid %(bid)s") % {"bid": bid_words(ev)}
    if ev["type"] == "pass":
        return _("passed %(cards)s") % {"cards": " ".join(pretty(c) for c in ev.get("cards", []))}
    return _("kept the card") if ev.get("keep") else _("took the next card")
