"""Rendered score pads, kept per game, seq and what else the page shows (the seats' names,
and whether the reader is signed in, which changes its header): a pad only changes when its
game moves, and a finished game's never does. Each pad goes out under an ETag, so a browser
that has it is answered 304 with no work but three small reads."""

import hashlib
import threading
from collections import OrderedDict

from .. import __version__

MAX_PADS = 128  # rendered pages kept per process (a long game's is some 50 kB)

_pads: OrderedDict[tuple, tuple[str, bytes]] = OrderedDict()  # key: (html, its UTF-8)
_lock = threading.Lock()


def key(db: str, game_id: int, seq: int, names: list[str], signed_in: bool) -> tuple:
    """What a rendered pad depends on (`db`: the database's URL, whose game it is)."""
    return (game_id, seq, tuple(names), signed_in, db)


def etag(k: tuple) -> str:
    """The page's ETag (unquoted): a new version of pbem (its templates) makes new tags."""
    digest = hashlib.sha256(repr((__version__, k)).encode()).hexdigest()[:20]
    return f"pad-{k[0]}-{k[1]}-{digest}"


def get(k: tuple) -> str | None:
    page = _page(k)
    return page[0] if page is not None else None


def body(k: tuple) -> bytes | None:
    """The page as it goes out (encoded once, for pbem.web.fastpad)."""
    page = _page(k)
    return page[1] if page is not None else None


def _page(k: tuple) -> tuple[str, bytes] | None:
    with _lock:
        page = _pads.get(k)
        if page is not None:
            _pads.move_to_end(k)
        return page


def put(k: tuple, html: str) -> None:
    with _lock:
        _pads[k] = (html, html.encode())
        _pads.move_to_end(k)
        while len(_pads) > MAX_PADS:
            _pads.popitem(last=False)  # the least recently shown


def clear() -> None:
    with _lock:
        _pads.clear()
