"""What GET /metrics tells (Prometheus' text format, by prometheus_client), read from the
database at each scrape (docs/operating.md):

    text(Sources(store, shunted)) -> (bytes, content type)

Every figure is a query, not a counter kept in a process: the moves and mails in are rows
the database keeps anyway (`move.source`, `inbound.result`), and the outbox, the deadlines
and the shunt are states. So a site of several processes (gunicorn's workers, `pbem smtp
--processes N`, `pbem clock` apart, even on other hosts) tells the same totals from any of
them, a restart loses nothing, and no process needs prometheus_client's multiprocess
directory. The two append-only tables are counted once, then only their new rows (`Tally`);
the rest are reads of a few indexed rows (bench/metrics.py measures a scrape).
"""

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import func
from sqlalchemy.orm import InstrumentedAttribute
from sqlmodel import Session, col, select

from .store.models import Deadline, Inbound, Move, Outbox
from .store.models import now as utcnow
from .store.states import Store

STUCK = timedelta(minutes=5)  # a deadline firing this long: its clock died (pbem.clock.LEASE)
# what a mail came to (inbound.result, as pbem.mail.inbound records it) -> the outcome's
# label: a fixed few, whatever words a result carries (a bounce's status, say)
OUTCOMES = (("done", "done"), ("refused", "refused"), ("no command", "no_command"),
            ("forged sender", "forged"), ("unknown sender", "unknown_sender"),
            ("failed its domain", "unverified"), ("plain address", "plain"),
            ("bounce:", "bounce"), ("not a bounce", "not_bounce"),
            ("unknown bounce", "not_bounce"))
IGNORED = {"auto-submitted", "bounce", "list mail", "bulk mail", "auto-reply", "our own mail",
           "no sender", "ignored"}  # pbem.mail.reader's reasons to leave a mail unanswered
LINE = "line done"  # a mail's line's own row (pbem.mail.once): not a mail
# rows below the newest id counted again each scrape: a transaction that took its id before
# a later one committed (PostgreSQL's sequences) is still counted when it commits
MARGIN = 1000


@dataclass
class Sources:
    """Where the figures come from: the store, and how many mails wait in the shunt."""

    store: Store
    shunted: Callable[[], int]


def outcome(result: str) -> str:
    """The label of an inbound row's result."""
    if result in IGNORED:
        return "ignored"
    return next((label for start, label in OUTCOMES if result.startswith(start)), "other")


class Tally:
    """An append-only table's rows counted by one column: the rows up to a watermark once
    (kept in this process), the newer ones at each scrape, by their primary key's index. A
    scrape costs the rows added since the last, not the table (300,000 moves: 0.3 s)."""

    def __init__(self, key: InstrumentedAttribute, label: InstrumentedAttribute):
        self.key, self.label = key, label
        self.upto, self.counts = 0, Counter[str]()
        self.lock = threading.Lock()

    def read(self, s: Session) -> Counter[str]:
        with self.lock:
            top = s.exec(select(func.max(self.key))).one() or 0
            if top < self.upto:  # another database under the same URL (a restore)
                self.upto, self.counts = 0, Counter()
            settled = top - MARGIN
            if settled > self.upto:
                self.counts.update(self._rows(s, self.upto, settled))
                self.upto = settled
            return self.counts + self._rows(s, self.upto, None)

    def _rows(self, s: Session, above: int, upto: int | None) -> Counter[str]:
        where = [col(self.key) > above] + ([col(self.key) <= upto] if upto is not None else [])
        rows = s.exec(select(self.label, func.count()).where(*where)
                      .group_by(col(self.label))).all()
        return Counter({label: n for label, n in rows})


_TALLIES: dict[tuple[str, str], Tally] = {}  # (the database's URL, the table) -> its tally
_MADE = threading.Lock()


def tally(store: Store, key: InstrumentedAttribute, label: InstrumentedAttribute) -> Tally:
    name = (store.engine.url.render_as_string(), str(key))
    with _MADE:
        if name not in _TALLIES:
            _TALLIES[name] = Tally(key, label)
        return _TALLIES[name]


class Figures(Collector):
    """A prometheus_client collector whose every scrape reads the database."""

    def __init__(self, sources: Sources):
        self.sources = sources

    def collect(self) -> Iterator[Metric]:
        started = time.perf_counter()
        now = utcnow()
        store = self.sources.store
        with store.reader() as s:
            moves = tally(store, Move.id, Move.source).read(s)  # type: ignore[arg-type]
            results = tally(store, Inbound.id, Inbound.result).read(s)  # type: ignore[arg-type]
            unsent = s.exec(select(func.count(), func.min(Outbox.created),
                                   func.count(col(Outbox.last_error)))
                            .where(col(Outbox.sent_at).is_(None))).one()
            due = s.exec(select(func.count(), func.min(Outbox.next_attempt)).where(
                col(Outbox.sent_at).is_(None), col(Outbox.next_attempt) <= now)).one()
            late = s.exec(select(func.count(), func.min(Deadline.due)).where(
                col(Deadline.state) == "pending", col(Deadline.due) <= now)).one()
            stuck = s.exec(select(func.count()).where(
                col(Deadline.state) == "firing", col(Deadline.claimed_at) < now - STUCK)).one()
        yield _labelled(CounterMetricFamily(
            "pbem_moves", "Events in the move logs, by source (mail, web, clock, robot, cli, "
            "server, import)", labels=["source"]), moves)
        yield from _mails_in(results)
        yield from _outbox(now, unsent, due)
        yield _gauge("pbem_deadlines_due", "Reminders and timeouts due and not fired",
                     late[0])
        yield _gauge("pbem_deadline_lag_seconds", "How long the oldest due deadline has "
                     "waited for the clock (0: none due)", _age(now, late[1]))
        errors = GaugeMetricFamily("pbem_errors", "Things failing now: mails whose processing "
                                   "failed (kept in the shunt), unsent mails whose last try "
                                   "failed, deadlines whose clock died firing them",
                                   labels=["kind"])
        for kind, value in (("shunt", self.sources.shunted()), ("outbox", unsent[2]),
                            ("deadline", stuck)):
            errors.add_metric([kind], value)
        yield errors
        yield _gauge("pbem_metrics_read_seconds", "What this scrape's reads took",
                     time.perf_counter() - started)


def _mails_in(results: Counter[str]) -> Iterator[Metric]:
    """Mails taken (each its inbound row, but a line's: LINE), by outcome; the bounces among
    them by kind."""
    outcomes: Counter[str] = Counter()
    bounces: Counter[str] = Counter({"hard": 0, "soft": 0})
    for result, count in results.items():
        if result == LINE:
            continue
        outcomes[outcome(result)] += count
        for kind in ("hard", "soft"):
            if result.startswith(f"bounce: {kind}"):
                bounces[kind] += count
    yield _labelled(CounterMetricFamily(
        "pbem_mails_in", "Mails received and taken, by outcome (a mail refused at RCPT or "
        "answered 4xx/5xx is not taken)", labels=["outcome"]), outcomes)
    yield _labelled(CounterMetricFamily(
        "pbem_bounces", "Delivery reports of our mails, counted against their address",
        labels=["kind"]), bounces)


def _outbox(now: datetime, unsent: tuple, due: tuple) -> Iterator[Metric]:
    yield _gauge("pbem_outbox_unsent", "Mails not sent yet (some wait on purpose: quiet "
                 "hours, a merge, a daily cap)", unsent[0])
    yield _gauge("pbem_outbox_oldest_unsent_seconds", "Age of the oldest unsent mail",
                 _age(now, unsent[1]))
    yield _gauge("pbem_outbox_due", "Mails due to be sent now", due[0])
    yield _gauge("pbem_outbox_due_lag_seconds", "How long the most overdue mail has been due "
                 "(0: none)", _age(now, due[1]))


def _labelled(family: CounterMetricFamily, counts: Counter[str]) -> CounterMetricFamily:
    for label, value in sorted(counts.items()):
        family.add_metric([label], value)
    return family


def _gauge(name: str, text: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, text, value=value)


def _age(now: datetime, then: datetime | None) -> float:
    """Seconds from `then` to `now`, 0 for none (SQLite gives naive UTC back from MIN)."""
    if then is None:
        return 0.0
    if then.tzinfo is None:
        then = then.replace(tzinfo=now.tzinfo)
    return max((now - then).total_seconds(), 0.0)


def text(sources: Sources) -> tuple[bytes, str]:
    """The exposition of this scrape (a registry of its own: no figure of another
    process, or of a test, mixes in) and its content type."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Figures(sources))
    return generate_latest(registry), CONTENT_TYPE_LATEST
