"""Signed links (itsdangerous): moves, league joins and partners, the care of a stuck table,
new games and leagues confirmed by their creators; a salt per purpose, and a list of secrets
so keys can rotate (the newest signs, every one still verifies).

A link is itsdangerous's URLSafeTimedSerializer token, made and read by its public API: a
link mailed by the hand-made signer of before issue 30 verifies as it did (tests/data/
links_v1.json). A link costs about 70 us this way (6 us by hand): under 1 ms a turn mail."""

import os
import secrets as _secrets
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from .config import Settings

MOVE = "pbem.move"
UNSUBSCRIBE = "pbem.unsubscribe"  # a one-click unsubscribe link (RFC 8058)
CARE = "pbem.care"  # a stuck table: the organiser lets the robot move, or gives more time
NEW_GAME, NEW_LEAGUE = "pbem.new-game", "pbem.new-league"  # the creator confirms (pbem.asks)
SIGN_IN = "pbem.sign-in"  # a player's mailed link to their home page (pbem.web.signin)
COMMANDS = "pbem.commands"  # a mail to plain pbem@, done by its owner's click (pbem.mail.plain)
ORDER_FORM = "pbem.order-form"  # a table page's order form, kept once (pbem.web.tables)
MAX_AGE = 14 * 24 * 3600  # a move link lives as long as the longest deadline

_key_file: dict[str, tuple[tuple[int, int, int], str]] = {}  # path -> ((inode, mtime, size), key)
_key_lock = threading.Lock()


def secret_keys(cfg: Settings) -> list[str]:
    """PBEM_SECRET_KEY (comma separated, oldest first), else a key kept in var/secret_key."""
    if cfg.secret_key:
        return [k.strip() for k in cfg.secret_key.split(",") if k.strip()]
    path = os.path.join(cfg.var_dir, "secret_key")  # a str: a Path costs more than the stat
    try:
        return [_read_key(path)]  # its one stat says whether it exists too
    except FileNotFoundError:
        made = Path(path)
        made.parent.mkdir(parents=True, exist_ok=True)
        made.write_text(_secrets.token_urlsafe(32))
        made.chmod(0o600)
    return [_read_key(path)]


def _read_key(path: str) -> str:
    """The file's key, read again only when the file changed: one stat a call, not an open
    and a read (a turn mail asks for it). A key file replaced (renamed over: a new inode) or
    rewritten (a new mtime or size) while we run signs the next link."""
    st = os.stat(path)
    stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
    with _key_lock:
        known = _key_file.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
    with open(path) as f:
        key = f.read().strip()
    with _key_lock:
        _key_file[path] = (stamp, key)
    return key


class Signer:
    def __init__(self, keys: list[str], purpose: str = MOVE):
        self.s = URLSafeTimedSerializer(keys, salt=purpose)  # keys oldest first: the last signs

    def dumps(self, data: dict) -> str:
        """A token with its own id (`n`), so that no two links are the same."""
        return self.s.dumps(dict(data, n=_secrets.token_hex(6)))

    def move_links(self, game_id: int, seat: int, seq: int) -> Callable[[Any], str]:
        """A turn mail's links, as a function of the action."""

        def sign(action: Any) -> str:
            return self.dumps({"g": game_id, "s": seat, "a": action, "q": seq})

        return sign

    def loads(self, token: str, max_age: int = MAX_AGE) -> dict:
        """The data, or ValueError saying why the link is no good."""
        try:
            return self.s.loads(token, max_age=max_age)
        except SignatureExpired:
            raise ValueError("this link has expired") from None
        except BadSignature:
            raise ValueError("this link is not valid") from None


@lru_cache(maxsize=16)
def signer(keys: tuple[str, ...], purpose: str = MOVE) -> Signer:
    """A Signer made once a key set and purpose, shared by threads (itsdangerous's
    serializer keeps no state between calls)."""
    return Signer(list(keys), purpose)
