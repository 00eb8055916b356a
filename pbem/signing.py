"""Signed links (itsdangerous): moves, league joins and partners, the care of a stuck table,
new games and leagues confirmed by their creators; a salt per purpose, and a list of secrets
so keys can rotate (the newest signs, every one still verifies).

A link is itsdangerous's URLSafeTimedSerializer token, and itsdangerous verifies every one
(links mailed long ago too). Signing is ours: a turn mail signs a link per legal move, and
itsdangerous builds a signer, derives its key and tries zlib on each; here the key is
derived once per Signer, and a short payload is not compressed (zlib never pays there;
itsdangerous reads a payload either way)."""

import binascii
import hashlib
import hmac
import json
import os
import secrets as _secrets
import threading
import time
import zlib
from functools import lru_cache
from pathlib import Path

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from itsdangerous.encoding import int_to_bytes

MOVE = "pbem.move"
UNSUBSCRIBE = "pbem.unsubscribe"  # a one-click unsubscribe link (RFC 8058)
CARE = "pbem.care"  # a stuck table: the organiser lets the robot move, or gives more time
NEW_GAME, NEW_LEAGUE = "pbem.new-game", "pbem.new-league"  # the creator confirms (pbem.asks)
SIGN_IN = "pbem.sign-in"  # a player's mailed link to their home page (pbem.web.signin)
COMMANDS = "pbem.commands"  # a mail to plain pbem@, done by its owner's click (pbem.mail.plain)
ORDER_FORM = "pbem.order-form"  # a table page's order form, kept once (pbem.web.tables)
MAX_AGE = 14 * 24 * 3600  # a move link lives as long as the longest deadline
SHORT = 200  # bytes of JSON below which a payload is not worth compressing

_key_file: dict = {}  # path -> ((inode, mtime, size), key)
_key_lock = threading.Lock()


def secret_keys(cfg) -> list[str]:
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


# What itsdangerous's dumps does, in one step each: its JSON (compact, not ASCII-only) and
# its base64 (URL-safe, unpadded); hmac.digest is the one-shot C HMAC.
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_URLSAFE = bytes.maketrans(b"+/", b"-_")


def _b64(data: bytes) -> bytes:
    return binascii.b2a_base64(data, newline=False).translate(_URLSAFE).rstrip(b"=")


_stamp_now: tuple = (None, b"")  # (second, its encoded timestamp): many links a second


def _stamp() -> bytes:
    """The timestamp part of a token, encoded once a second."""
    global _stamp_now
    now, known = int(time.time()), _stamp_now  # one read: another thread may replace it
    if known[0] != now:
        known = _stamp_now = (now, _b64(int_to_bytes(now)))
    return known[1]


class Signer:
    def __init__(self, keys: list[str], purpose: str = MOVE):
        self.s = URLSafeTimedSerializer(keys, salt=purpose)
        # itsdangerous's key for the newest secret (its default "django-concat", SHA-1)
        self._key = hashlib.sha1(purpose.encode() + b"signer" + keys[-1].encode()).digest()

    def dumps(self, data: dict) -> str:
        """A token itsdangerous's `loads` reads: payload.timestamp.signature."""
        return self._seal(_JSON.encode(dict(data, n=_secrets.token_hex(6))).encode())

    def move_links(self, game_id: int, seat: int, seq: int):
        """dumps({"g": game_id, "s": seat, "a": action, "q": seq}) as a function of the
        action: a turn mail signs a link per legal move, and the JSON around the action
        is the same for all of them, so it is encoded once (the same bytes as dumps)."""
        head = f'{{"g":{_JSON.encode(game_id)},"s":{_JSON.encode(seat)},"a":'
        tail = f',"q":{_JSON.encode(seq)},"n":"'

        def sign(action) -> str:
            raw = f'{head}{_JSON.encode(action)}{tail}{_secrets.token_hex(6)}"}}'
            return self._seal(raw.encode())

        return sign

    def _seal(self, raw: bytes) -> str:
        """The JSON payload, compressed if long, its timestamp and its signature."""
        payload = _b64(raw)
        if len(raw) > SHORT:
            packed = zlib.compress(raw)
            if len(packed) < len(raw) - 1:
                payload = b"." + _b64(packed)
        value = payload + b"." + _stamp()
        return (value + b"." + _b64(hmac.digest(self._key, value, "sha1"))).decode()

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
    """A Signer made once a key set and purpose (its key derivation and itsdangerous's
    serializer cost more than a link), shared by threads: signing copies its HMAC."""
    return Signer(list(keys), purpose)
