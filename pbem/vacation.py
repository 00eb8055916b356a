"""Vacations and extra time: a bank of days a player spends to stop their deadlines, and
more hours for a table. Both move pending deadline rows (pbem.deadlines); no game moves."""

from datetime import UTC, date, datetime, timedelta

from babel.dates import format_datetime
from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql import ColumnElement
from sqlmodel import Session, col, select

from . import compose
from .config import load
from .deadlines import EXTRA, add_to_bank, shift_bank
from .engine import State
from .engine.acts import QUIET
from .i18n import _, current, language
from .store.games import mailable, players_of
from .store.models import Deadline, Game, Move, Outbox, Player, Seat, SeatClock
from .store.models import now as utcnow
from .store.prefs import language as prefs_language
from .store.states import Store
from .table import seat_names

BANK = {"start": 14, "per_month": 2, "cap": 30}  # vacation days
PARTNER_GIFTS = 2  # a hand: the times a side may give its own partner more time
TO_PARTNER = " to partner"  # the end of an extra time record's result: given to a partner
MAX_UNDO_CHAIN = 200  # moves taken back in turn, followed back to the turn they began at


def bank(prefs: dict, today: date, joined: date | None = None) -> tuple[int, str]:
    """(vacation days in the bank today, the month it was last topped up): it starts at
    BANK["start"] and gains BANK["per_month"] a month from the month the player `joined`
    (else today), up to BANK["cap"]."""
    days = prefs.get("vacation_bank", BANK["start"])
    since = prefs.get("bank_month") or (joined or today).strftime("%Y-%m")
    y, m = map(int, since.split("-"))
    months = (today.year - y) * 12 + today.month - m
    return min(BANK["cap"], days + max(0, months) * BANK["per_month"]), today.strftime("%Y-%m")


def start_vacation(store: Store, player_id: int, days: int, today: date | None = None) -> date:
    """Spend `days` (a whole number, 1 to what the bank holds): the player's deadlines stand
    still until the end. A vacation taken while on one extends it."""
    today = today or utcnow().date()
    if type(days) is not int or days < 1:
        raise ValueError(_("a vacation is a whole number of days, at least 1"))
    with store.session() as s:
        player = s.get_one(Player, player_id)
        have, month = bank(player.prefs or {}, today, player.created.date())
        if days > have:
            raise ValueError(_("you have %(days)s vacation days left") % {"days": have})
        until = max(today, _until(player.prefs) or today) + timedelta(days=days)
        player.prefs = dict(player.prefs or {}, vacation_until=until.isoformat(),
                            vacation_bank=have - days, bank_month=month)
        s.add(player)
        _shift(s, player, timedelta(days=days))
        s.commit()
    return until


def end_vacation(store: Store, player_id: int, today: date | None = None) -> int:
    """Back early: the unused days return to the bank, and the deadlines they pushed on come
    back by as many days."""
    today = today or utcnow().date()
    with store.session() as s:
        player = s.get_one(Player, player_id)
        prefs = dict(player.prefs or {})
        until = _until(prefs)
        prefs.pop("vacation_until", None)
        left = max(0, (until - today).days) if until else 0
        have, month = bank(prefs, today, player.created.date())
        player.prefs = dict(prefs, vacation_bank=min(BANK["cap"], have + left), bank_month=month)
        s.add(player)
        _shift(s, player, -timedelta(days=left))
        s.commit()
    return left


def auto_day(store: Store, row: Deadline, now: datetime) -> date | None:
    """A timeout (`row`, a Deadline) in a game with automatic vacation: if the seat's player
    has a vacation day in the bank, spend one instead. Everything, the player's mail too,
    in one transaction whose mail's dedupe key (the row's id) makes it happen once, however
    often the clock tries. Returns the vacation's end, or None (no day left: time is up)."""
    today = now.date()
    try:
        with store.session() as s:
            seat = s.exec(select(Seat).where(Seat.game_id == row.game_id,
                                             Seat.seat == row.seat)).one()
            player = s.get(Player, seat.player_id) if seat.player_id else None
            if player is None:
                return None  # nobody's bank
            if _spent_before(s, row):
                return _until(player.prefs)
            have, month = bank(player.prefs or {}, today, player.created.date()) \
                if not seat.robot else (0, "")
            if have < 1:
                return None
            until = max(today, _until(player.prefs) or today) + timedelta(days=1)
            player.prefs = dict(player.prefs or {}, vacation_until=until.isoformat(),
                                vacation_bank=have - 1, bank_month=month)
            s.add(player)
            _shift(s, player, timedelta(days=1))
            due = now + timedelta(days=1)  # as a vacation day moves every other deadline
            s.add(Deadline(game_id=row.game_id, seat=row.seat, seq=row.seq, kind="timeout",
                           hours_before=_given(s, row) + 1, due=due))
            if mailable(player):
                s.add(_auto_mail(row, player, due, have - 1))
            s.commit()
            return until
    except IntegrityError:
        return _until(_prefs_of(store, row))  # done before, by a clock that died after


def _spent_before(s: Session, row: Deadline) -> bool:
    """A later timeout for the same move: a clock that died after the commit spent it."""
    return s.exec(select(Deadline.id).where(
        Deadline.game_id == row.game_id, Deadline.seat == row.seat, Deadline.seq == row.seq,
        Deadline.kind == "timeout", col(Deadline.id) > row.id)).first() is not None


def _given(s: Session, row: Deadline) -> int:
    return s.exec(select(func.max(Deadline.hours_before)).where(
        Deadline.game_id == row.game_id, Deadline.seat == row.seat, Deadline.seq == row.seq,
        Deadline.kind == "timeout")).one() or 0


def _auto_mail(row: Deadline, player: Player, due: datetime, left: int) -> Outbox:
    with language(prefs_language(player)):
        values = {"game": row.game_id, "left": left, "due": format_datetime(
            due, "EEE dd MMM HH:mm 'UTC'", tzinfo=UTC, locale=current())}
        mail = compose.game_mail(
            row.game_id, load().mail_domain,
            _("Game %(game)s: a vacation day instead of a timeout") % values,
            _("Your time ran out in game %(game)s: a day of your vacation began instead.\nYour "
              "deadlines stand still a day, so this move is now due by %(due)s. %(left)s "
              "vacation days are left in your bank. Mail \"vacation off\" (or use your "
              "table's page) to end the vacation early.") % values + "\n")
    mail["headers"]["Auto-Submitted"] = "auto-generated"
    return Outbox(**mail, to_addr=player.email, dedupe_key=f"vacation:{row.id}")


def _prefs_of(store: Store, row: Deadline) -> dict:
    with store.reader() as s:
        seat = s.exec(select(Seat).where(Seat.game_id == row.game_id,
                                         Seat.seat == row.seat)).one()
        player = s.get(Player, seat.player_id) if seat.player_id else None
        return (player.prefs or {}) if player else {}


def _until(prefs: dict | None) -> date | None:
    until = (prefs or {}).get("vacation_until")
    return date.fromisoformat(until) if until else None


def extra_time(store: Store, game_id: int, hours: int, by: int | None = None) -> int:
    """Give the players to act `hours` more: every pending deadline of the game moves on.
    `by` is the seat that asks: never one to act, once a move for the whole table, and to
    its own partner twice a hand (`_may_give`); the table hears of it. (None: the
    organiser or operator, unbounded.) Returns the rows moved."""
    with store.session() as s:
        game = s.get_one(Game, game_id)
        st = store.state(s, game)
        if by is not None:
            to_partner = _may_give(s, st, game_id, by)
            s.add(Deadline(game_id=game_id, seat=by, seq=st.move_seq, kind=EXTRA, state="done",
                           due=utcnow(), result=f"+{hours} h" + (TO_PARTNER if to_partner
                                                                  else "")))
            _tell_the_table(s, game_id, st, by, hours)
        rows = s.exec(select(Deadline).where(Deadline.game_id == game_id,
                                             Deadline.state == "pending")).all()
        banked = _into_banks(s, game, timedelta(hours=hours))
        for row in rows:
            if row.seat not in banked:
                row.due = row.due + timedelta(hours=hours)
                s.add(row)
        s.commit()
        return len(rows)


def _into_banks(s: Session, game: Game, more: timedelta) -> set[int]:
    """A bank clock: the extra time goes into the waiting seats' banks. Returns them."""
    clocks = s.exec(select(SeatClock).where(SeatClock.game_id == game.id,
                                            col(SeatClock.since).is_not(None))).all()
    for clock in clocks:
        seat = s.exec(select(Seat).where(Seat.game_id == game.id,
                                         Seat.seat == clock.seat)).one()
        player = s.get(Player, seat.player_id) if seat.player_id else None
        add_to_bank(s, game, clock, player, more)
    return {c.seat for c in clocks}


def _may_give(s: Session, st: State, game_id: int, by: int) -> bool:
    """Refuse (ValueError) unless `by` may give the players to act more time now: one who
    waits, once a move for the whole table (a move taken back and its undo are no new move),
    and to its own partner at most PARTNER_GIFTS times a hand by either partner. Returns
    whether the time goes to `by`'s partner."""
    if st.phase == "over":
        raise ValueError(_("the game is over"))
    to_act = st.to_act()
    if by in to_act:
        raise ValueError(_("only a player who waits may give more time, not the one to move"))
    given = select(Deadline.id).where(*_table_gifts(game_id),
                                      col(Deadline.seq).in_(_same_wait(s, game_id, st.move_seq)))
    if s.exec(given).first():
        raise ValueError(_("more time was given for this move already (once a move for the "
                           "whole table)"))
    side = st.sides[st.side_of[by]]
    if not any(x in side for x in to_act):
        return False
    hand_starts = (st.deal_record or {}).get("seq", 0)
    gifts = s.exec(select(func.count()).where(
        *_table_gifts(game_id), col(Deadline.seat).in_(side), Deadline.seq >= hand_starts,
        col(Deadline.result).endswith(TO_PARTNER))).one()
    if gifts >= PARTNER_GIFTS:
        raise ValueError(_("your side gave your partner more time %(most)s times this hand "
                           "already, the most a hand") % {"most": PARTNER_GIFTS})
    return True


def _table_gifts(game_id: int) -> tuple[ColumnElement[bool], ...]:
    """Where the table's gifts of time in a game are (not an organiser's, by a care link)."""
    return (col(Deadline.game_id) == game_id, col(Deadline.kind) == EXTRA,
            col(Deadline.result).not_like("care:%"))


def _same_wait(s: Session, game_id: int, seq: int) -> list[int]:
    """The moves at which the table has waited for the same turn: `seq` and, while that is
    an undo, the move before the one it took back (the two leave the table as it was)."""
    seqs = [seq]
    for _step in range(MAX_UNDO_CHAIN):
        move = s.exec(select(Move.type, Move.payload).where(Move.game_id == game_id,
                                                            Move.seq == seqs[-1])).first()
        kind, payload = move or (None, {})
        if kind != "undo":
            break
        before = s.exec(select(func.max(Move.seq)).where(
            Move.game_id == game_id, Move.seq < payload["undo"],
            col(Move.type).not_in(QUIET))).one()
        if before is None:
            break
        seqs.append(before)
    return seqs


def _tell_the_table(s: Session, game_id: int, st: State, by: int, hours: int) -> None:
    seats = s.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))).all()
    players = players_of(s, seats)
    names = seat_names(seats, players)
    waiting = ", ".join(names[x] for x in st.to_act())
    for x in seats:
        player = players.get(x.player_id) if x.player_id else None
        if player and mailable(player) and not x.robot:
            values = {"game": game_id, "hours": hours, "move": st.move_seq, "name": names[by],
                      "waiting": waiting}
            with language(prefs_language(player)):
                mail = compose.game_mail(
                    game_id, load().mail_domain,
                    _("Game %(game)s: %(hours)s more hours for move %(move)s") % values,
                    _("%(name)s gave %(waiting)s %(hours)s more hours for move %(move)s of game "
                      "%(game)s.") % values + "\n")
            mail["headers"]["Auto-Submitted"] = "auto-generated"
            s.add(Outbox(**mail, to_addr=player.email,
                         dedupe_key=f"extra:{game_id}:{st.move_seq}:{by}:{x.seat}"))


def _shift(s: Session, player: Player, by: timedelta) -> None:
    """Move the player's pending deadlines by `by`. A seat waiting on a bank clock pays for
    its wait so far and waits from `by` later; its deadlines are derived again from that
    (rest days do not shift with the calendar), so a rebuild finds the same ones."""
    seats = s.exec(select(Seat).where(Seat.player_id == player.id)).all()
    for seat in seats:
        clock = s.exec(select(SeatClock).where(SeatClock.game_id == seat.game_id,
                                               SeatClock.seat == seat.seat,
                                               col(SeatClock.since).is_not(None))).first()
        if clock is not None:
            shift_bank(s, s.get_one(Game, seat.game_id), clock, player, by, utcnow())
            continue
        for row in s.exec(select(Deadline).where(Deadline.game_id == seat.game_id,
                                                 Deadline.seat == seat.seat,
                                                 Deadline.state == "pending")).all():
            row.due = row.due + by
            s.add(row)
