"""A seat's own time: the hours that count against its clock. A player's rest days (in the
player's own zone, pbem.store.prefs) and the game's weekend pause (Saturday and Sunday UTC)
stand still; every other hour counts. Pure arithmetic on aware datetimes: no I/O.

Every loop is bounded: at most 3 rest days and a 2-day pause leave at least 48 hours of
each week running, and a walk steps from one midnight (local or UTC) to the next."""

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from .i18n import ngettext
from .store import prefs
from .store.models import Player

MAX_REST = prefs.MAX_REST_DAYS
_ZERO = timedelta(0)


@dataclass(frozen=True)
class Calendar:
    zone: ZoneInfo = ZoneInfo("UTC")
    rest: frozenset[int] = frozenset()
    weekend_pause: bool = False

    @property
    def plain(self) -> bool:
        """Every hour counts: plain clock arithmetic."""
        return not self.rest and not self.weekend_pause

    def stands_still(self, t: datetime) -> bool:
        if self.weekend_pause and t.astimezone(UTC).weekday() >= 5:
            return True
        return bool(self.rest) and t.astimezone(self.zone).weekday() in self.rest

    def next_edge(self, t: datetime) -> datetime:
        """The next moment the calendar may change: a UTC or a local midnight."""
        edges = []
        if self.weekend_pause:
            u = t.astimezone(UTC)
            edges.append(datetime.combine(u.date() + timedelta(days=1), time(), tzinfo=UTC))
        if self.rest:
            d = t.astimezone(self.zone).date() + timedelta(days=1)
            edges.append(datetime.combine(d, time(), tzinfo=self.zone).astimezone(UTC))
        edge = min(edges)
        return edge if edge > t else t + timedelta(hours=1)  # a midnight DST skipped: move on

    def add(self, start: datetime, hours: float) -> datetime:
        """The moment `hours` of own time after `start`."""
        if self.plain:
            return start + timedelta(hours=hours)
        t, left = start, timedelta(hours=hours)
        for _ in range(_steps(left)):
            if left <= _ZERO:
                return t
            edge = self.next_edge(t)
            if self.stands_still(t):
                t = edge
                continue
            step = min(left, edge - t)
            t, left = t + step, left - step
        if left <= _ZERO:
            return t
        raise RuntimeError(f"no deadline found for {hours} h from {start}")  # never: bounded

    def spent(self, start: datetime, end: datetime) -> timedelta:
        """The own time between `start` and `end` (none if `end` is not later)."""
        if end <= start:
            return _ZERO
        if self.plain:
            return end - start
        t, used = start, _ZERO
        for _ in range(_steps(end - start)):
            if t >= end:
                break
            edge = min(self.next_edge(t), end)
            if not self.stands_still(t):
                used += edge - t
            t = edge
        return used


def vacation_end(player: Player | None) -> datetime | None:
    until = (player.prefs or {}).get("vacation_until") if player else None
    if not until:
        return None
    return datetime.fromisoformat(until).replace(tzinfo=UTC) + timedelta(days=1)


def wait_starts(player: Player | None, now: datetime) -> datetime:
    """A move asked of a player on vacation counts from the end of the vacation."""
    return max(now, vacation_end(player) or now)


def _steps(span: timedelta) -> int:
    """Enough steps for `span` of own time: two edges a day, and a week's worth of days
    for every 48 hours that count, plus slack."""
    weeks = int(abs(span) / timedelta(hours=48)) + 2
    return weeks * 7 * 2 + 4


def calendar(player: Player | None, weekend_pause: bool = False) -> Calendar:
    """The player's calendar (None: no player, UTC and no rest days). Stored rest days are
    read defensively: days 0..6 only, at most MAX_REST of them."""
    rest = sorted(d for d in prefs.rest_days(player) if isinstance(d, int) and 0 <= d <= 6)
    return Calendar(prefs.zone(player), frozenset(rest[:MAX_REST]), weekend_pause)


def describe(span: timedelta) -> str:
    """A bank as a person says it: "2 days 4 h", "5 h", "40 min"."""
    minutes = max(0, int(span.total_seconds() // 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [ngettext("%(num)s day", "%(num)s days", days) % {"num": days}] if days else []
    if hours or (days and not mins):
        parts.append(f"{hours} h")
    if not days and not hours:
        parts.append(f"{mins} min")
    return " ".join(p for p in parts if p != "0 h") or "0 min"
