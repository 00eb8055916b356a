"""Signed links (itsdangerous): moves, league joins and partners, the care of a stuck table,
new games and leagues confirmed by their creators; a salt per purpose, and a list of secrets
so keys can rotate (the newest signs, every one still verifies)."""

import secrets as _secrets
from pathlib import Path

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

MOVE = "pbem.move"
UNSUBSCRIBE = "pbem.unsubscribe"  # a one-click unsubscribe link (RFC 8058)
CARE = "pbem.care"  # a stuck table: the organiser lets the robot move, or gives more time
NEW_GAME, NEW_LEAGUE = "pbem.new-game", "pbem.new-league"  # the creator confirms (pbem.asks)
SIGN_IN = "pbem.sign-in"  # a player's mailed link to their home page (pbem.web.signin)
MAX_AGE = 14 * 24 * 3600  # a move link lives as long as the longest deadline


def secret_keys(cfg) -> list[str]:
    """PBEM_SECRET_KEY (comma separated, oldest first), else a key kept in var/secret_key."""
    if cfg.secret_key:
        return [k.strip() for k in cfg.secret_key.split(",") if k.strip()]
    path = Path(cfg.var_dir) / "secret_key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_secrets.token_urlsafe(32))
        path.chmod(0o600)
    return [path.read_text().strip()]


class Signer:
    def __init__(self, keys: list[str], purpose: str = MOVE):
        self.s = URLSafeTimedSerializer(keys, salt=purpose)

    def dumps(self, data: dict) -> str:
        return self.s.dumps(dict(data, n=_secrets.token_hex(6)))  # n: this link's own id

    def loads(self, token: str, max_age: int = MAX_AGE) -> dict:
        """The data, or ValueError saying why the link is no good."""
        try:
            return self.s.loads(token, max_age=max_age)
        except SignatureExpired:
            raise ValueError("this link has expired") from None
        except BadSignature:
            raise ValueError("this link is not valid") from None
