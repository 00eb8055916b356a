"""Settings from the environment, each with an embedded default (docs/design.md "Settings")."""

import os
from dataclasses import dataclass, field
from pathlib import Path


def _env(name: str, default: str) -> str:
    return os.environ.get(name) or default


MAX_SMTP_PROCESSES = 64  # receiving processes: well past any machine's cores


class SettingError(ValueError):
    """A setting in the environment that cannot be used: the message says which and why."""


def _env_int(name: str, default: int, low: int, high: int) -> int:
    raw = _env(name, str(default)).strip()
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise SettingError(f"{name} must be a whole number from {low} to {high}, not {raw!r}")
    return int(raw)


@dataclass(frozen=True)
class Settings:
    var_dir: Path = field(default_factory=lambda: Path(_env("PBEM_VAR_DIR", "var")))
    database_url: str = ""
    mail_domain: str = field(default_factory=lambda: _env("PBEM_MAIL_DOMAIN", "pbem.localhost"))
    base_url: str = field(default_factory=lambda: _env("PBEM_BASE_URL", "http://127.0.0.1:5000"))
    secret_key: str = field(default_factory=lambda: os.environ.get("PBEM_SECRET_KEY", ""))

    def __post_init__(self) -> None:
        if not self.database_url:
            url = os.environ.get("DATABASE_URL") or f"sqlite:///{self.var_dir / 'pbem.db'}"
            object.__setattr__(self, "database_url", url)

    smtp_host: str = field(default_factory=lambda: _env("PBEM_SMTP_HOST", "127.0.0.1"))
    smtp_port: int = field(default_factory=lambda: _env_int("PBEM_SMTP_PORT", 2525, 0, 65535))
    # processes receiving mail on that port (pbem.mail.workers); 1: the serving process itself
    smtp_processes: int = field(default_factory=lambda: _env_int(
        "PBEM_SMTP_PROCESSES", 1, 1, MAX_SMTP_PROCESSES))
    smtp_url: str = field(default_factory=lambda: os.environ.get("PBEM_SMTP_URL", ""))
    web_host: str = field(default_factory=lambda: _env("PBEM_WEB_HOST", "127.0.0.1"))
    web_port: int = field(default_factory=lambda: _env_int("PBEM_WEB_PORT", 5000, 0, 65535))
    dkim_selector: str = field(default_factory=lambda: _env("PBEM_DKIM_SELECTOR", "pbem"))
    from_name: str = field(default_factory=lambda: _env("PBEM_FROM_NAME", "Spades by email"))
    # the MTA in front of us (Postfix with OpenDMARC, say): its Authentication-Results count
    authserv_id: str = field(default_factory=lambda: os.environ.get("PBEM_AUTHSERV_ID", ""))

    @property
    def dkim_key(self) -> str:
        """The DKIM private key: PBEM_DKIM_KEY, else var/dkim.key once `pbem dkim keygen`
        wrote it; '' (no signing) without either."""
        default = self.var_dir / "dkim.key"
        return os.environ.get("PBEM_DKIM_KEY") or (str(default) if default.exists() else "")

    @property
    def maildir(self) -> Path:
        return Path(_env("PBEM_MAILDIR", str(self.var_dir / "mail")))


def load() -> Settings:
    return Settings()
