"""Outbound mail into a Maildir, each mail at most once, made durable a batch at a time.

    deliver = MaildirDelivery(path, domain, keys, wire)  # keys(): the signing keys now
    deliver(row)     # the mail durably in new/ when it returns
    deliver.stage(row)  # the drain's way: the mail written under tmp/ (from any of
    deliver.sync()      # `deliver.workers` threads); every mail staged so far on disk, then
                        # in new/: before their rows are marked sent (the outbox's Marks)

An fsync a mail was most of a drain's time (each forces a journal commit); one syncfs (or,
where there is none, an fsync a file) before the batch's files move into new/ costs about
what one fsync did. A mail reaches new/ only once its bytes are on disk, so a crash never
leaves an empty file there that a redo would take for the mail; the file's name comes from
the row's dedupe key, so a redo after a crash finds it and writes nothing.

A file a crash left in tmp/ is removed once it is 36 hours old (the Maildir convention: no
delivery takes that long), at the sender's start and then about daily, SWEEP_FILES at most
a pass (the rest in the next pass, a minute later): pbem.store.maildir.Sweeper.
"""

import ctypes
import ctypes.util
import hashlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from .bounces import return_path
from .models import Outbox

WORKERS = 2  # one writes a file while the other builds the next mail
STALE = 36 * 3600  # seconds: a tmp/ file older than this is a dead delivery's
SWEEP_EVERY = 24 * 3600  # seconds between passes over tmp/
SWEEP_AGAIN = 60  # seconds to the next pass when one stopped at SWEEP_FILES
SWEEP_FILES = 1000  # entries of tmp/ a pass looks at: a sync never waits long on one
RACY_NS = 2_000_000_000  # a directory changed this recently may change again unseen (mtime ticks)


def key_name(dedupe_key: str) -> str:
    """The Maildir file name (and Message-ID local part) of the row with this key."""
    return "pbem-" + hashlib.sha256(dedupe_key.encode()).hexdigest()[:40]


def _libc_syncfs() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True).syncfs
    except (OSError, AttributeError):  # not Linux: an fsync a file instead
        return None


_SYNCFS = _libc_syncfs()


class MaildirDelivery:
    def __init__(self, root: Path, domain: str, keys: Callable[[], list[str]],
                 wire: Callable[..., bytes]):
        self.root, self.domain, self.keys, self.wire = Path(root), domain, keys, wire
        for sub in ("tmp", "new", "cur"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.workers = WORKERS
        self._pending: list[tuple[Path, str]] = []  # (tmp file, name in new/)
        self._lock = threading.Lock()
        self._sync_lock = threading.Lock()
        self._read = _ReadNames(self.root / "cur")
        self.sweeper = Sweeper(self.root / "tmp")
        self.sweeper.due()  # the sender's start

    def delivered(self, name: str) -> bool:
        """Is the mail in new/ or, read by now, in cur/ (as NAME:2,FLAGS)?"""
        return (self.root / "new" / name).exists() or name in self._read.names()

    def __call__(self, row: Outbox) -> None:
        self.stage(row)
        error = self.sync().get(key_name(row.dedupe_key))
        if error:
            raise OSError(error)

    def stage(self, row: Outbox) -> None:
        name = key_name(row.dedupe_key)
        if self.delivered(name):
            return  # delivered before (a redo after a crash, or a second drainer)
        tmp = self.root / "tmp" / f"{name}.{os.getpid()}.{secrets.token_hex(4)}"
        keys = self.keys()
        with open(tmp, "wb") as f:
            if row.id is not None:  # where its bounces go, as a delivering MTA writes it
                f.write(f"Return-Path: <{return_path(keys, row, self.domain)}>\n".encode())
            f.write(self.wire(row, self.domain, linesep="\n", keys=keys))  # LF: a Maildir's
        with self._lock:
            self._pending.append((tmp, name))

    def sync(self) -> dict[str, str]:
        """Every mail staged so far durably in new/; {file name: error} of those that could
        not be put there (their rows go back to be tried again)."""
        with self._sync_lock:
            with self._lock:
                pending, self._pending = self._pending, []
            failed: dict[str, str] = {}
            if not pending:
                return failed
            try:
                self._flush([tmp for tmp, _ in pending])
            except OSError as e:
                failed = {name: f"{type(e).__name__}: {e}" for _, name in pending}
            for tmp, name in pending:
                try:
                    if name not in failed:
                        os.rename(tmp, self.root / "new" / name)  # atomic
                except OSError as e:  # the Maildir is broken: retried later, never lost
                    failed[name] = f"{type(e).__name__}: {e}"[:1000]
                if name in failed:
                    tmp.unlink(missing_ok=True)
            if len(failed) < len(pending):  # the names too, before any row says sent
                self._flush([self.root / "new"])
            self.sweeper.due()
            return failed

    def _flush(self, paths: list[Path]) -> None:
        """The files (or a directory's entries) on disk: one syncfs for all, else each."""
        if _SYNCFS is not None:
            fd = os.open(self.root, os.O_RDONLY)
            try:
                if _SYNCFS(fd) == 0:
                    return
            finally:
                os.close(fd)
        for path in paths:
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


class Listing(Iterator[os.DirEntry[str]], Protocol):
    """What os.scandir gives: its entries, and close."""

    def close(self) -> None: ...


class Sweeper:
    """Removes the files of tmp/ older than STALE: `due()` makes a pass when one is due (a
    clock read otherwise), looking at `per_pass` entries at most; a pass that stopped there
    goes on where it stopped SWEEP_AGAIN seconds later. `clock`: seconds, as time.time."""

    def __init__(self, path: Path, per_pass: int = SWEEP_FILES,
                 clock: Callable[[], float] = time.time):
        self.path, self.per_pass, self.clock = path, per_pass, clock
        self.next = float("-inf")
        self._entries: Listing | None = None  # the listing a pass goes on with

    def due(self) -> int:
        """A pass if one is due; the files removed."""
        now = self.clock()
        if now < self.next:
            return 0
        removed, looked = 0, 0
        try:
            if self._entries is None:
                self._entries = os.scandir(self.path)
            for entry in self._entries:
                removed += _remove_if_stale(entry, now - STALE)
                looked += 1
                if looked >= self.per_pass:
                    self.next = now + SWEEP_AGAIN
                    return removed
        except OSError:  # tmp/ unreadable: the deliveries will say so; try again tomorrow
            pass
        self._close()
        self.next = now + SWEEP_EVERY
        return removed

    def _close(self) -> None:
        if self._entries is not None:
            self._entries.close()
            self._entries = None


def _remove_if_stale(entry: os.DirEntry[str], before: float) -> int:
    try:
        if entry.is_file(follow_symlinks=False) and entry.stat(
                follow_symlinks=False).st_mtime < before:
            os.unlink(entry.path)
            return 1
    except OSError:  # gone meanwhile, or not ours to remove: the next one
        pass
    return 0


class _ReadNames:
    """The mail names in cur/ (a reader moves mail there as NAME:2,FLAGS), read again only
    when the directory changed: a Maildir read for months holds many thousands, and a scan
    for every mail sent would grow with them. A directory changed within RACY_NS of the
    scan is read again next time too, since a coarse mtime could hide a later change."""

    def __init__(self, path: Path):
        self.path, self._lock = path, threading.Lock()
        self._seen: tuple[int, int] | None = None
        self._names: frozenset[str] = frozenset()

    def names(self) -> frozenset[str]:
        with self._lock:
            st = os.stat(self.path)
            seen = (st.st_ino, st.st_mtime_ns)
            if seen != self._seen:
                with os.scandir(self.path) as it:
                    self._names = frozenset(e.name.partition(":")[0] for e in it)
                racy = time.time_ns() - st.st_mtime_ns < RACY_NS
                self._seen = None if racy else seen
            return self._names
