"""A drainer's claim on a batch of outbox rows: a short lease kept alive by a heartbeat.

    with Lease(store, now, length) as lease:
        with lease.lock, store.engine.begin() as c:
            lease.claim_in(c, ids, due)   # -> the ids this drainer now holds
        lease.holds(row_id)               # deliver it? (held, with time to spare; no lock)
        with lease.lock: lease.held -= ids  # settled (committed): no longer renewed

A claimed row's next_attempt is the lease's end, a value that only this drainer writes (a
random microsecond is added), so every renewal is a compare-and-set on it: a row another
drainer took over after our lease ran out is never renewed, nor delivered, by us. A thread
renews the lease every BEAT seconds while the batch is out, so a slow relay keeps its rows.

The numbers come from the longest one delivery may take (`longest`, seconds: a relay's
timeout, which pbem.store.relay enforces for a whole mail; 0 for the Maildir, whose
delivery is idempotent): the lease is `longest` + `length` long, and a delivery starts only
while more than `longest` + SPARE of it is left. So a drainer that cannot renew (the
database is away, the process was stopped) stops starting deliveries, and the last it
started has ended (or been cut) SPARE before the lease runs out and another drainer may
take the rows: a dead drainer's rows are due again `longest` + `length` after its last
heartbeat.
"""

import logging
import secrets
import threading
from collections.abc import Iterable
from datetime import datetime, timedelta
from time import monotonic

from sqlalchemy import Connection, update
from sqlmodel import col, select

from .models import Outbox
from .states import Store

log = logging.getLogger(__name__)
LEASE = timedelta(seconds=15)  # the lease beyond the longest delivery: time to renew it
BEAT = 3.0  # seconds between renewals: several fit in a lease
SPARE = timedelta(seconds=6)  # left of the lease when the last delivery it covers ends
CHUNK = 500  # ids in one IN (...): far below any database's limit


def chunks(ids: Iterable[int]) -> list[list[int]]:
    ids = sorted(ids)
    return [ids[i:i + CHUNK] for i in range(0, len(ids), CHUNK)]


class Lease:
    def __init__(self, store: Store, now: datetime, length: timedelta = LEASE,
                 beat: float = BEAT, longest: float = 0.0):
        self.store, self.beat = store, beat
        self.longest = timedelta(seconds=longest)
        self.margin = self.longest + min(SPARE, length * 0.4)  # below `length`: renewals fit
        self.length = self.longest + length
        self._start, self._t0 = now, monotonic()
        self.until = self._next()
        self.held: set[int] = set()
        self.lock = threading.Lock()  # the heartbeat and the drain both touch held/until
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def clock(self) -> datetime:
        """The drain's `now`, moved on by the real time since (tests pass their own now)."""
        return self._start + timedelta(seconds=monotonic() - self._t0)

    def _next(self) -> datetime:
        return self.clock() + self.length + timedelta(microseconds=1 + secrets.randbelow(10**6))

    def claim_in(self, c: Connection, ids: Iterable[int], due: datetime) -> set[int]:
        """Claim the unsent rows of `ids` due by `due`, inside the caller's transaction
        (which holds self.lock, so no renewal moves `until` meanwhile)."""
        got: set[int] = set()
        for part in chunks(ids):
            c.execute(update(Outbox).where(
                col(Outbox.id).in_(part), col(Outbox.sent_at).is_(None),
                col(Outbox.next_attempt) <= due)
                .values(attempts=col(Outbox.attempts) + 1, next_attempt=self.until))
            got |= set(c.execute(select(Outbox.id).where(
                col(Outbox.id).in_(part), Outbox.next_attempt == self.until)).scalars())
        self.held |= got
        return got

    def holds(self, row_id: int) -> bool:
        """May a delivery of the row start now? Only if it ends (it takes `longest` at
        most) before the lease does, with SPARE to spare. Without the lock: a sender never
        waits on a renewal's or a mark's transaction. A renewal sets `until` only once it
        committed, so an old value is the earlier."""
        until = self.until
        return row_id in self.held and until - self.clock() > self.margin

    def renew(self) -> None:
        with self.lock:
            if not self.held:
                return
            new = self._next()
            kept: set[int] = set()
            with self.store.engine.begin() as c:
                for part in chunks(self.held):
                    c.execute(update(Outbox).where(
                        col(Outbox.id).in_(part), col(Outbox.sent_at).is_(None),
                        col(Outbox.next_attempt) == self.until).values(next_attempt=new))
                    kept |= set(c.execute(select(Outbox.id).where(
                        col(Outbox.id).in_(part), Outbox.next_attempt == new)).scalars())
            if self.held - kept:
                log.warning("outbox rows %s were taken over or settled elsewhere",
                            sorted(self.held - kept)[:10])
            self.held, self.until = kept, new

    def _beat(self) -> None:
        while not self._stop.wait(self.beat):
            try:
                self.renew()
            except Exception as e:  # the database is away: holds() stops us before the end
                # one line a beat, no statement or values: an outage is not a traceback
                log.warning("the outbox lease could not be renewed (%s)", type(e).__name__)

    def __enter__(self) -> "Lease":
        self._thread = threading.Thread(target=self._beat, daemon=True, name="outbox-lease")
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
