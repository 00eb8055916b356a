"""The shunt: a mail whose processing failed by a bug (not the database away, not a mail we
cannot read) is kept to be replayed once the bug is fixed, as Mailman's shunt queue keeps it.

`var/shunt/` (under PBEM_VAR_DIR) is a Maildir: `new/ID` holds the mail as received, and
`err/ID.json` beside it the envelope sender, the recipient, when it failed first and last,
how often, and the last traceback (keys masked). ID is a hash of the recipient and the mail's
bytes, so a sending server that retries a mail which fails again keeps one copy. At most
MAX_MAILS mails of MAX_BYTES in all are kept: past that a failing mail is refused with 554,
as before the shunt, and the log says the shunt is full. `pbem mail shunt list|retry|drop`
reads it; a retry goes through `Processor.process` again, whose keys (the Inbound row, each
seat line's ref, each account line's row: pbem.mail.once) apply nothing twice.
"""

import hashlib
import json
import logging
import os
import re
import traceback
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from ..store.masking import MaskKeys, mask

log = logging.getLogger(__name__)
log.addFilter(MaskKeys())

MAX_MAILS = 1000
MAX_BYTES = 100_000_000  # a mail is at most 1 MB (pbem.mail.inbound.MAX_SIZE)
ID = re.compile(r"[0-9a-f]{20}")
KEPT = "451 4.3.0 This mail could not be processed now: try again later"
REFUSED = "554 5.3.0 This mail could not be processed"


@dataclass
class Entry:
    """One kept mail, as its sidecar tells it."""

    id: str
    mail_from: str
    rcpt: str
    first: str  # ISO times, UTC
    last: str
    tries: int
    error: str  # the traceback, keys masked

    @property
    def last_line(self) -> str:
        lines = [x for x in self.error.splitlines() if x.strip()]
        return lines[-1].strip() if lines else ""


def mail_id(rcpt: str, raw: bytes) -> str:
    return hashlib.sha256(rcpt.lower().encode() + b"\0" + raw).hexdigest()[:20]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Processes(Protocol):
    """What the shunt needs of pbem.mail.inbound.Processor (which imports this module)."""

    cfg: Any

    def process(self, envelope_from: str, rcpt: str, raw: bytes) -> str: ...


class Shunt:
    """The shunt's folder: its mails, their sidecars, and the bound."""

    def __init__(self, root: Path):
        self.root = root

    @classmethod
    def of(cls, cfg: Any) -> "Shunt":
        return cls(Path(cfg.var_dir) / "shunt")

    def _mail(self, id_: str) -> Path:
        return self.root / "new" / id_

    def _sidecar(self, id_: str) -> Path:
        return self.root / "err" / f"{id_}.json"

    def ids(self) -> list[str]:
        """The kept mails' ids (a Maildir lists in no order: sorted by name here)."""
        folder = self.root / "new"
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if ID.fullmatch(p.name))

    def has(self, id_: str) -> bool:
        return bool(ID.fullmatch(id_)) and self._mail(id_).is_file()

    def raw(self, id_: str) -> bytes:
        return self._mail(id_).read_bytes()

    def entry(self, id_: str) -> Entry:
        try:
            data = json.loads(self._sidecar(id_).read_text())
        except (OSError, ValueError):  # its sidecar lost: the mail stays, to be dropped
            data = {"mail_from": "", "rcpt": "", "first": "", "last": "", "tries": 0,
                    "error": "(no error kept beside this mail)"}
        return Entry(id_, **data)

    def entries(self) -> list[Entry]:
        """Every kept mail, oldest failure first."""
        return sorted((self.entry(i) for i in self.ids()), key=lambda e: (e.first, e.id))

    def _full(self, size: int) -> bool:
        paths = [self._mail(i) for i in self.ids()]
        return len(paths) >= MAX_MAILS or sum(p.stat().st_size for p in paths) + size > MAX_BYTES

    def keep(self, mail_from: str, rcpt: str, raw: bytes, error: str) -> str | None:
        """Keep the mail (once per recipient and content) with `error`; its id, or None if
        the shunt is full."""
        id_ = mail_id(rcpt, raw)
        if self.has(id_):
            self.note(id_, error)
            return id_
        if self._full(len(raw)):
            return None
        for sub in ("tmp", "new", "cur", "err"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        now = _now()
        _write(self._sidecar(id_), json.dumps({
            "mail_from": mail_from, "rcpt": rcpt, "first": now, "last": now, "tries": 1,
            "error": mask(error)}).encode())
        # Maildir delivery: written in tmp/, then renamed into new/ whole
        tmp = self.root / "tmp" / f"{id_}.{os.getpid()}"
        tmp.write_bytes(raw)
        os.replace(tmp, self._mail(id_))
        return id_

    def note(self, id_: str, error: str) -> None:
        """The mail failed again: its sidecar keeps the new error."""
        e = self.entry(id_)
        _write(self._sidecar(id_), json.dumps({
            "mail_from": e.mail_from, "rcpt": e.rcpt, "first": e.first or _now(),
            "last": _now(), "tries": e.tries + 1, "error": mask(error)}).encode())

    def drop(self, id_: str) -> bool:
        if not self.has(id_):
            return False
        self._mail(id_).unlink(missing_ok=True)
        self._sidecar(id_).unlink(missing_ok=True)
        return True

    def forget(self, rcpt: str, raw: bytes) -> None:
        """The mail was taken (the sender's retry, once the bug was fixed): no copy stays."""
        if (self.root / "new").is_dir():
            self.drop(mail_id(rcpt, raw))


def _write(path: Path, data: bytes) -> None:
    """`path` replaced whole: a reader never sees half of it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def taken(processor: Processes, mail_from: str, rcpt: str, raw: bytes) -> str:
    """`processor.process`, and any copy of the mail the shunt kept dropped once it went
    through."""
    outcome = processor.process(mail_from, rcpt, raw)
    Shunt.of(processor.cfg).forget(rcpt, raw)
    return outcome


def shunted(cfg: Any, mail_from: str, rcpt: str, raw: bytes, error: str) -> str:
    """The SMTP answer to a mail that failed by a bug: 451 once it is kept (the sender
    retries it; `pbem mail shunt retry` replays it), 554 as before if it cannot be."""
    try:
        id_ = Shunt.of(cfg).keep(mail_from, rcpt, raw, error)
    except Exception as e:  # the disk full or unwritable: nothing kept (never a 500)
        log.error("could not keep a failed mail for %s in the shunt (%s: %s): refused with "
                  "554", rcpt, type(e).__name__, e)
        return REFUSED
    if id_ is None:
        log.error("the shunt is full (%d mails, %d bytes at most): refused a failed mail "
                  "for %s with 554", MAX_MAILS, MAX_BYTES, rcpt)
        return REFUSED
    log.warning("kept a failed mail for %s in the shunt as %s: answered 451", rcpt, id_)
    return KEPT


def retry(processor: Processes, id_: str) -> tuple[bool, str]:
    """Feed one kept mail through the processing again: (done, what happened). Done, it
    leaves the shunt; failed again, it stays with the new error."""
    shunt = Shunt.of(processor.cfg)
    e = shunt.entry(id_)
    if not e.rcpt:
        return False, "no recipient kept beside it: drop it"
    try:
        outcome = processor.process(e.mail_from, e.rcpt, shunt.raw(id_))
    except Exception:  # any failure, as the first: kept, with this error
        shunt.note(id_, traceback.format_exc())
        return False, shunt.entry(id_).last_line
    shunt.drop(id_)
    return True, outcome
