"""Rendered score pads, kept per game, seq and what else the page shows (the seats' names,
whether the reader is signed in, which changes its header, and the page's language): a pad
only changes when its game moves, and a finished game's never does. Each pad goes out under
an ETag, so a browser that has it is answered 304 with no work but one small read.

The ETag names the code that rendered the page too (`code_digest`, taken once when the app
is made): a new version, template or source file makes new tags, so no browser keeps a page
that the code now renders otherwise."""

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path

from .. import __version__
from ..i18n import current as current_language

MAX_PADS = 128  # rendered pages kept per app (a long game's is some 50 kB)
SOURCES = ("*.py", "*.html", "*.txt", "*.css", "*.js", "*.svg")  # what renders a page


def code_digest(*folders: Path) -> str:
    """A digest of pbem's version and every source and template file under `folders`."""
    h = hashlib.sha256(__version__.encode())
    for folder in folders:
        for path in sorted(p for pattern in SOURCES for p in folder.rglob(pattern)):
            h.update(path.relative_to(folder).as_posix().encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def key(db: str, game_id: int, seq: int, names: list[str], signed_in: bool) -> tuple:
    """What a rendered pad depends on (`db`: the database's URL, whose game it is; the
    language it is shown in, the request's)."""
    return (game_id, seq, tuple(names), signed_in, db, current_language())


class Pads:
    """One app's rendered pads (the least recently shown dropped past MAX_PADS)."""

    def __init__(self, code: str) -> None:
        self.code = code  # code_digest of what renders them
        self.pages: OrderedDict[tuple, str] = OrderedDict()
        self.lock = threading.Lock()

    def etag(self, k: tuple) -> str:
        """The page's ETag (unquoted)."""
        digest = hashlib.sha256(repr((self.code, k)).encode()).hexdigest()[:20]
        return f"pad-{k[0]}-{k[1]}-{digest}"

    def get(self, k: tuple) -> str | None:
        with self.lock:
            page = self.pages.get(k)
            if page is not None:
                self.pages.move_to_end(k)
            return page

    def put(self, k: tuple, html: str) -> None:
        with self.lock:
            self.pages[k] = html
            self.pages.move_to_end(k)
            while len(self.pages) > MAX_PADS:
                self.pages.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.pages.clear()
