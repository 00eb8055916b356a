"""Vacations and extra time: a bank of days a player spends to stop their deadlines, and
more hours for a table. Both move pending deadline rows (pbem.deadlines); no game moves."""

from datetime import date, timedelta

from sqlmodel import select

from . import compose
from .config import load
from .deadlines import EXTRA
from .notify import seat_names
from .store.games import mailable, players_of
from .store.models import Deadline, Game, Outbox, Player, Seat
from .store.models import now as utcnow

BANK = {"start": 14, "per_month": 2, "cap": 30}  # vacation days


def bank(prefs: dict, today: date, joined: date | None = None) -> tuple[int, str]:
    """(vacation days in the bank today, the month it was last topped up): it starts at
    BANK["start"] and gains BANK["per_month"] a month from the month the player `joined`
    (else today), up to BANK["cap"]."""
    days = prefs.get("vacation_bank", BANK["start"])
    since = prefs.get("bank_month") or (joined or today).strftime("%Y-%m")
    y, m = map(int, since.split("-"))
    months = (today.year - y) * 12 + today.month - m
    return min(BANK["cap"], days + max(0, months) * BANK["per_month"]), today.strftime("%Y-%m")


def start_vacation(store, player_id: int, days: int, today: date | None = None) -> date:
    """Spend `days` (a whole number, 1 to what the bank holds): the player's deadlines stand
    still until the end. A vacation taken while on one extends it."""
    today = today or utcnow().date()
    if type(days) is not int or days < 1:
        raise ValueError("a vacation is a whole number of days, at least 1")
    with store.session() as s:
        player = s.get(Player, player_id)
        have, month = bank(player.prefs or {}, today, player.created.date())
        if days > have:
            raise ValueError(f"you have {have} vacation days left")
        until = max(today, _until(player.prefs) or today) + timedelta(days=days)
        player.prefs = dict(player.prefs or {}, vacation_until=until.isoformat(),
                            vacation_bank=have - days, bank_month=month)
        s.add(player)
        _shift(s, player_id, timedelta(days=days))
        s.commit()
    return until


def end_vacation(store, player_id: int, today: date | None = None) -> int:
    """Back early: the unused days return to the bank, and the deadlines they pushed on come
    back by as many days."""
    today = today or utcnow().date()
    with store.session() as s:
        player = s.get(Player, player_id)
        prefs = dict(player.prefs or {})
        until = _until(prefs)
        prefs.pop("vacation_until", None)
        left = max(0, (until - today).days) if until else 0
        have, month = bank(prefs, today, player.created.date())
        player.prefs = dict(prefs, vacation_bank=min(BANK["cap"], have + left), bank_month=month)
        s.add(player)
        _shift(s, player_id, -timedelta(days=left))
        s.commit()
    return left


def _until(prefs) -> date | None:
    until = (prefs or {}).get("vacation_until")
    return date.fromisoformat(until) if until else None


def extra_time(store, game_id: int, hours: int, by: int | None = None) -> int:
    """Give the players to act `hours` more: every pending deadline of the game moves on.
    `by` is the seat that asks: never one to act, and once a move; the table hears of it.
    (None: the organiser or operator, unbounded.) Returns the rows moved."""
    with store.session() as s:
        game = s.get(Game, game_id)
        st = store.state(s, game)
        if by is not None:
            _may_give(s, st, game_id, by)
            s.add(Deadline(game_id=game_id, seat=by, seq=st.move_seq, kind=EXTRA, state="done",
                           due=utcnow(), result=f"+{hours} h"))
            _tell_the_table(s, game_id, st, by, hours)
        rows = s.exec(select(Deadline).where(Deadline.game_id == game_id,
                                             Deadline.state == "pending")).all()
        for row in rows:
            row.due = row.due + timedelta(hours=hours)
            s.add(row)
        s.commit()
        return len(rows)


def _may_give(s, st, game_id, by) -> None:
    if st.phase == "over":
        raise ValueError("the game is over")
    if by in st.to_act():
        raise ValueError("only a player who waits may give more time, not the one to move")
    given = s.exec(select(Deadline.id).where(
        Deadline.game_id == game_id, Deadline.seat == by, Deadline.seq == st.move_seq,
        Deadline.kind == EXTRA)).first()
    if given:
        raise ValueError("you gave more time for this move already")


def _tell_the_table(s, game_id, st, by, hours) -> None:
    seats = s.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat)).all()
    players = players_of(s, seats)
    names = seat_names(seats, players)
    waiting = ", ".join(names[x] for x in st.to_act())
    for x in seats:
        if mailable(players.get(x.player_id)) and not x.robot:
            headline = f"Game {game_id}: {hours} more hours for move {st.move_seq}"
            mail = compose.game_mail(game_id, load().mail_domain, headline,
                                     f"{names[by]} gave {waiting} {hours} more hours for move "
                                     f"{st.move_seq} of game {game_id}.\n")
            mail["headers"]["Auto-Submitted"] = "auto-generated"
            s.add(Outbox(**mail, to_addr=players[x.player_id].email,
                         dedupe_key=f"extra:{game_id}:{st.move_seq}:{by}:{x.seat}"))


def _shift(s, player_id: int, by: timedelta) -> None:
    seats = s.exec(select(Seat).where(Seat.player_id == player_id)).all()
    for seat in seats:
        for row in s.exec(select(Deadline).where(Deadline.game_id == seat.game_id,
                                                 Deadline.seat == seat.seat,
                                                 Deadline.state == "pending")).all():
            row.due = row.due + by
            s.add(row)
