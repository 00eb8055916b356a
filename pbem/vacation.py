"""Vacations and extra time: a bank of days a player spends to stop their deadlines, and
more hours for a table. Both move pending deadline rows (pbem.deadlines); no game moves."""

from datetime import UTC, date, datetime, timedelta

from sqlmodel import select

from .store.models import Deadline, Player, Seat
from .store.models import now as utcnow

BANK = {"start": 14, "per_month": 2, "cap": 30}  # vacation days


def vacation_end(player: Player | None) -> datetime | None:
    until = (player.prefs or {}).get("vacation_until") if player else None
    if not until:
        return None
    return datetime.fromisoformat(until).replace(tzinfo=UTC) + timedelta(days=1)


def bank(prefs: dict, today: date) -> tuple[int, str]:
    """(vacation days in the bank today, the month it was last topped up): it starts at
    BANK["start"] and gains BANK["per_month"] a month, up to BANK["cap"]."""
    days = prefs.get("vacation_bank", BANK["start"])
    since = prefs.get("bank_month", today.strftime("%Y-%m"))
    y, m = map(int, since.split("-"))
    months = (today.year - y) * 12 + today.month - m
    return min(BANK["cap"], days + max(0, months) * BANK["per_month"]), today.strftime("%Y-%m")


def start_vacation(store, player_id: int, days: int, today: date | None = None) -> date:
    """Spend `days` from the bank: the player's deadlines stand still until the end."""
    today = today or utcnow().date()
    with store.session() as s:
        player = s.get(Player, player_id)
        have, month = bank(player.prefs or {}, today)
        if days > have:
            raise ValueError(f"you have {have} vacation days left")
        until = today + timedelta(days=days)
        player.prefs = dict(player.prefs or {}, vacation_until=until.isoformat(),
                            vacation_bank=have - days, bank_month=month)
        s.add(player)
        _shift(s, player_id, timedelta(days=days))
        s.commit()
    return until


def end_vacation(store, player_id: int, today: date | None = None) -> int:
    """Back early: the unused days return to the bank."""
    today = today or utcnow().date()
    with store.session() as s:
        player = s.get(Player, player_id)
        prefs = dict(player.prefs or {})
        until = prefs.pop("vacation_until", None)
        left = max(0, (date.fromisoformat(until) - today).days) if until else 0
        have, month = bank(prefs, today)
        player.prefs = dict(prefs, vacation_bank=min(BANK["cap"], have + left), bank_month=month)
        s.add(player)
        s.commit()
    return left


def extra_time(store, game_id: int, hours: int) -> int:
    """Give the players to act more time: every pending deadline of the game moves on."""
    with store.session() as s:
        rows = s.exec(select(Deadline).where(Deadline.game_id == game_id,
                                             Deadline.state == "pending")).all()
        for row in rows:
            row.due = row.due + timedelta(hours=hours)
            s.add(row)
        s.commit()
        return len(rows)


def _shift(s, player_id: int, by: timedelta) -> None:
    seats = s.exec(select(Seat).where(Seat.player_id == player_id)).all()
    for seat in seats:
        for row in s.exec(select(Deadline).where(Deadline.game_id == seat.game_id,
                                                 Deadline.seat == seat.seat,
                                                 Deadline.state == "pending")).all():
            row.due = row.due + by
            s.add(row)
