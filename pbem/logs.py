"""The operator's log: one line per mail in, mail out, move and timeout, at a level the
settings choose (PBEM_LOG_LEVEL), as text or JSON lines (PBEM_LOG_FORMAT=json), on stderr.

    setup(cfg)                        # once a process: `pbem ...`, wsgi.py, a mail worker
    event("mail.in", "text", **fields)   # a line of logger pbem.mail.in, with its fields

Every line any logger writes through this handler is redacted first (`Redact`): the keys in
paths, links and "+" addresses (pbem.store.masking), and the local part of every mail
address but our own (play@, pbem@ ...), so no token, key, signed link or player's address
reaches a log line, whoever wrote it (our lines, Flask's, aiosmtpd's, a traceback's).
"""

import json
import logging
import re
import sys
import time
from typing import Any

from .config import Settings
from .store.masking import MaskKeys, mask

OURS = {"play", "pbem", "organiser", "bounce"}  # our addresses' local parts stay readable
# a mail address (or a URL's user:password@host): its local part goes, its domain stays
ADDRESS = re.compile(r"([A-Za-z0-9!#$%&'*=?^_`{|}~.+\-:]+)@([A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)")
FIELDS = "pbem"  # the LogRecord attribute holding an event's fields
ACCESS = "pbem.web.access"  # pbem.web.server's logger
# libraries that write a line per SMTP command (aiosmtpd), per clock tick (APScheduler) or per
# look at the schema (alembic) at INFO: theirs only from WARNING up, unless the level is DEBUG
CHATTY = ("mail.log", "apscheduler", "alembic")


def redact(text: str, domain: str = "") -> str:
    """`text` with its keys masked and every address's local part as "...", but ours (in
    `domain`, PBEM_MAIL_DOMAIN)."""
    if "@" not in text and "/" not in text and "token=" not in text:
        return text  # nothing either pattern could match: most fields, most lines
    ours = domain.lower()

    def local(found: re.Match[str]) -> str:
        base, plus, rest = found[1].partition("+")
        if found[2].lower() == ours and base.lower() in OURS and (not plus or rest == "..."):
            return found[0]
        return f"...@{found[2]}"

    return ADDRESS.sub(local, mask(text))


def domain_of(address: str) -> str:
    """The domain of an address (what a line may name of a sender), lowercase."""
    return address.rpartition("@")[2].lower()[:100] or "-"


class Redact(MaskKeys):
    """pbem.store.masking's filter, with addresses' local parts and the event's fields
    redacted too: on the handler, so it sees every line, whichever logger wrote it."""

    def __init__(self, domain: str):
        super().__init__()
        self.domain = domain

    def filter(self, record: logging.LogRecord) -> bool:
        super().filter(record)
        record.msg = redact(str(record.msg), self.domain)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.domain)
        fields = getattr(record, FIELDS, None)
        if isinstance(fields, dict):
            setattr(record, FIELDS, {k: redact(v, self.domain) if isinstance(v, str) else v
                                     for k, v in fields.items()})
        return True


class JsonLines(logging.Formatter):
    """One JSON object a line: time (UTC), level, logger, message, the event's fields, and
    a traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname, "logger": record.name, "message": record.getMessage()}
        out.update(getattr(record, FIELDS, None) or {})
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            out["traceback"] = record.exc_text
        return json.dumps(out, ensure_ascii=False, default=str)


TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class _Ours(logging.StreamHandler):  # type: ignore[type-arg]
    """The handler setup() installs (found again, so a second setup replaces it)."""


def setup(cfg: Settings, stream: Any = None) -> logging.Handler:
    """Lines at `cfg.log_level` and above, as `cfg.log_format`, to `stream` (stderr) through
    one redacting handler on the root logger; returns it. Called again, it replaces its
    own handler, so a test (or a second call) never writes a line twice."""
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _Ours)]:
        root.removeHandler(old)
    handler = _Ours(stream or sys.stderr)
    handler.addFilter(Redact(cfg.mail_domain))
    handler.setFormatter(JsonLines() if cfg.log_format == "json" else
                         logging.Formatter(TEXT))
    root.addHandler(handler)
    root.setLevel(cfg.log_level)
    for name in CHATTY:
        logging.getLogger(name).setLevel(
            logging.NOTSET if cfg.log_level == "DEBUG" else logging.WARNING)
    # the access log of `pbem serve` (pbem.web.server) has a handler of its own only where
    # this handler was not installed first: its lines come here too
    access = logging.getLogger(ACCESS)
    access.handlers, access.propagate = [], True
    access.setLevel(logging.NOTSET)
    return handler


def configured() -> bool:
    """Has setup() installed its handler in this process?"""
    return any(isinstance(h, _Ours) for h in logging.getLogger().handlers)


def event(name: str, text: str, **fields: Any) -> None:
    """A line of logger `pbem.<name>` at INFO: `text`, and `fields` for JSON lines."""
    logging.getLogger(f"pbem.{name}").info("%s", text, extra={FIELDS: fields})


def ms_since(start: float) -> int:
    """Milliseconds since `start` (time.perf_counter())."""
    return round((time.perf_counter() - start) * 1000)


class MailIn:
    """`with MailIn(envelope_from) as line:` one mail's handling; its line at the end:
    the sender's domain, the game, the outcome (or the error's type) and the time taken."""

    def __init__(self, sender: str):
        self.sender, self.outcome = sender, ""
        self.game: int | None = None
        self.started = time.perf_counter()

    def __enter__(self) -> "MailIn":
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        outcome = self.outcome if kind is None else f"failed: {kind.__name__}"
        domain, ms = domain_of(self.sender), ms_since(self.started)
        game = f"game {self.game}" if self.game is not None else "no game"
        event("mail.in", f"mail in from {domain}, {game}: {outcome} ({ms} ms)",
              sender_domain=domain, game=self.game, outcome=outcome, ms=ms)


def mail_out(row_id: int | None, game: int | None, to: str, answer: str, ms: int) -> None:
    """A mail handed to the relay (its answer code), the Maildir, or failing."""
    domain = domain_of(to)
    event("mail.out", f"mail out {row_id} to {domain}, game {game}: {answer} ({ms} ms)",
          row=row_id, game=game, to_domain=domain, answer=answer, ms=ms)


def move(game: int, seat: int | None, source: str, seq: int, events: int, ms: int) -> None:
    """A write through the door: the game, who, from where, the events it appended (none:
    a repeat) and the game's move number after it."""
    who = f"seat {seat}" if seat is not None else "the server"
    event("move", f"move in game {game} by {who} from {source}: {events} events, "
          f"now at {seq} ({ms} ms)", game=game, seat=seat, source=source, events=events,
          seq=seq, ms=ms)


def timeout(game: int, seat: int, late: float, result: str) -> None:
    """A timeout the clock handled: how late it fired, and what it did."""
    event("timeout", f"timeout in game {game} for seat {seat}, {late:.0f} s after it fell "
          f"due: {result}", game=game, seat=seat, late_seconds=round(late, 1), result=result)
