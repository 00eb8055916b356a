"""Settings: each from the environment, else the settings file, else an embedded default
(docs/settings.md lists them all; docs/design.md "Settings").

The settings file is TOML (stdlib `tomllib`), named by PBEM_CONFIG; its keys are the
variables' names without `PBEM_`, in lower case (`web_port = 8000`, `database_url = ...`).
The environment wins over the file. A key the file may not hold is an error, not a
setting quietly ignored.

The data directory (PBEM_VAR_DIR) is always absolute here: a relative value is taken from
the working directory (from the environment) or from the file's folder (from the file).
Nothing here creates a site's database or keys unasked: `require_site` refuses a missing
one, saying where it looked; `ensure_data_dir` is for `pbem init` and a restore.
"""

import os
import secrets
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import make_url

from .i18n import N_

MAX_SMTP_PROCESSES = 64  # receiving processes: well past any machine's cores

# Every setting, by its environment variable (docs/settings.md lists each, tested).
NAMES = frozenset({
    "DATABASE_URL", "PBEM_CONFIG", "PBEM_VAR_DIR", "PBEM_MAILDIR", "PBEM_MAIL_DOMAIN",
    "PBEM_BASE_URL", "PBEM_SECRET_KEY", "PBEM_SMTP_HOST", "PBEM_SMTP_PORT",
    "PBEM_SMTP_PROCESSES", "PBEM_SMTP_URL", "PBEM_WEB_HOST", "PBEM_WEB_PORT",
    "PBEM_FROM_NAME", "PBEM_DKIM_KEY", "PBEM_DKIM_SELECTOR", "PBEM_AUTHSERV_ID",
    "PBEM_DB_CONNECT_TIMEOUT", "PBEM_DB_NETWORK_TIMEOUT", "PBEM_DB_STATEMENT_TIMEOUT",
    "PBEM_DB_IDLE_TIMEOUT", "PBEM_LOG_LEVEL", "PBEM_LOG_FORMAT", "PBEM_METRICS_TOKEN",
    "PBEM_PRIVACY_URL", "PBEM_TERMS_URL", "PBEM_VAPID_KEY", "PBEM_VAPID_SUBJECT",
    "PBEM_PUSH_HOSTS", "PBEM_PUSH_LOOPBACK", "PBEM_WEBHOOK_TIMEOUT", "PBEM_WEBHOOK_LOOPBACK",
})
# push services a browser's subscription may name (pbem.store.push): Chrome's, Firefox's,
# Apple's, Edge's; a host ending in one of these, over https
PUSH_HOSTS = ("fcm.googleapis.com,updates.push.services.mozilla.com,push.apple.com,"
              "notify.windows.com")
NOT_IN_FILE = frozenset({"PBEM_CONFIG"})  # the file cannot name itself
KEY_FILE = "secret_key"  # under the data directory, unless PBEM_SECRET_KEY is set
DB_FILE = "pbem.db"  # the SQLite file under the data directory, unless DATABASE_URL is set


class SettingError(ValueError):
    """A setting that cannot be used: the message says which and why."""


class SiteMissing(SettingError):
    """The site's database or key is not where the settings say: nothing is made unasked."""


def file_key(name: str) -> str:
    """A variable's key in the settings file: PBEM_WEB_PORT -> web_port."""
    return name.removeprefix("PBEM_").lower()


_FILE_KEYS = {file_key(n): n for n in NAMES - NOT_IN_FILE}
_files: dict[str, tuple[tuple[int, int], dict[str, str]]] = {}  # path -> (stamp, values)


def _settings_file() -> dict[str, str]:
    """The settings file's values by variable name ({} without PBEM_CONFIG), read again
    only when the file changed (a stat a call)."""
    path = os.environ.get("PBEM_CONFIG")
    if not path:
        return {}
    try:
        st = os.stat(path)
    except OSError as e:
        raise SettingError(f"PBEM_CONFIG: cannot read {os.path.abspath(path)}: "
                           f"{e.strerror}") from None
    stamp = (st.st_mtime_ns, st.st_size)
    known = _files.get(path)
    if known is None or known[0] != stamp:
        known = (stamp, _parse(Path(path)))
        _files[path] = known
    return known[1]


def _parse(path: Path) -> dict[str, str]:
    try:
        raw = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise SettingError(f"{path.absolute()}: not a TOML settings file ({e})") from None
    out = {}
    for key, value in raw.items():
        name = _FILE_KEYS.get(key)
        if name is None:
            raise SettingError(f"{path.absolute()}: unknown setting {key!r} "
                               "(docs/settings.md lists them)")
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise SettingError(f"{path.absolute()}: {key} must be a string or a number")
        out[name] = str(value)
    if "PBEM_VAR_DIR" in out:  # relative to the file, never to where a command runs
        out["PBEM_VAR_DIR"] = str(path.absolute().parent / out["PBEM_VAR_DIR"])
    return out


def _env(name: str, default: str) -> str:
    """The environment's value, else the settings file's, else the default."""
    return os.environ.get(name) or _settings_file().get(name) or default


def _env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    raw = _env(name, default).strip().lower()
    if raw not in choices:
        raise SettingError(f"{name} must be one of {', '.join(choices)}, not {raw!r}")
    return raw


def env_int(name: str, default: int, low: int, high: int) -> int:
    """The whole number the variable `name` holds (`default` if unset), from `low` to
    `high`; else SettingError naming the variable (the settings here, and the database's
    limits in pbem.store.db)."""
    raw = _env(name, str(default)).strip()
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise SettingError(f"{name} must be a whole number from {low} to {high}, not {raw!r}")
    return int(raw)


def _data_dir() -> Path:
    return Path(os.path.abspath(_env("PBEM_VAR_DIR", "var")))


def database_url(url: str) -> str:
    """The URL as SQLAlchemy takes it: `postgres://` and `postgresql://` (what hosts and
    guides give) mean PostgreSQL through psycopg 3, the driver we ship."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def _env_url(name: str) -> str:
    """A link shown on pages and in mails: none, or an http(s) URL (never javascript:)."""
    raw = _env(name, "").strip()
    if (raw and not raw.lower().startswith(("https://", "http://"))) or any(
            c.isspace() or c in "<>\"" for c in raw):
        raise SettingError(f"{name} must be an http:// or https:// address, not {raw[:80]!r}")
    return raw


@dataclass(frozen=True)
class Settings:
    var_dir: Path = field(default_factory=_data_dir)
    database_url: str = ""
    mail_domain: str = field(default_factory=lambda: _env("PBEM_MAIL_DOMAIN", "pbem.localhost"))
    base_url: str = field(default_factory=lambda: _env("PBEM_BASE_URL", "http://127.0.0.1:5000"))
    secret_key: str = field(default_factory=lambda: _env("PBEM_SECRET_KEY", ""))

    def __post_init__(self) -> None:
        url = self.database_url or _env("DATABASE_URL", f"sqlite:///{self.var_dir / DB_FILE}")
        object.__setattr__(self, "database_url", database_url(url))

    smtp_host: str = field(default_factory=lambda: _env("PBEM_SMTP_HOST", "127.0.0.1"))
    smtp_port: int = field(default_factory=lambda: env_int("PBEM_SMTP_PORT", 2525, 0, 65535))
    # processes receiving mail on that port (pbem.mail.workers); 1: the serving process itself
    smtp_processes: int = field(default_factory=lambda: env_int(
        "PBEM_SMTP_PROCESSES", 1, 1, MAX_SMTP_PROCESSES))
    smtp_url: str = field(default_factory=lambda: _env("PBEM_SMTP_URL", ""))
    web_host: str = field(default_factory=lambda: _env("PBEM_WEB_HOST", "127.0.0.1"))
    web_port: int = field(default_factory=lambda: env_int("PBEM_WEB_PORT", 5000, 0, 65535))
    dkim_selector: str = field(default_factory=lambda: _env("PBEM_DKIM_SELECTOR", "pbem"))
    from_name: str = field(default_factory=lambda: _env("PBEM_FROM_NAME", "Spades by email"))
    # the MTA in front of us (Postfix with OpenDMARC, say): its Authentication-Results count
    authserv_id: str = field(default_factory=lambda: _env("PBEM_AUTHSERV_ID", ""))
    # the operator's log (pbem.logs): its least level, and text or JSON lines
    log_level: str = field(default_factory=lambda: _env_choice(
        "PBEM_LOG_LEVEL", "info", ("debug", "info", "warning", "error")).upper())
    log_format: str = field(default_factory=lambda: _env_choice(
        "PBEM_LOG_FORMAT", "text", ("text", "json")))
    # GET /metrics from other than loopback needs `Authorization: Bearer <this>` (none: never)
    metrics_token: str = field(default_factory=lambda: _env("PBEM_METRICS_TOKEN", ""))
    # the site's privacy notice and terms: linked in every page's and player mail's footer
    privacy_url: str = field(default_factory=lambda: _env_url("PBEM_PRIVACY_URL"))
    terms_url: str = field(default_factory=lambda: _env_url("PBEM_TERMS_URL"))
    # web push (pbem.store.push): who runs the site, for the push services (VAPID's `sub`)
    vapid_subject: str = field(default_factory=lambda: _env("PBEM_VAPID_SUBJECT", ""))
    push_hosts: tuple[str, ...] = field(default_factory=lambda: tuple(
        h.strip().lower() for h in _env("PBEM_PUSH_HOSTS", PUSH_HOSTS).split(",") if h.strip()))
    # tests only: a subscription may name http://127.0.0.1:PORT/ (a push service of theirs)
    push_loopback: bool = field(default_factory=lambda: _env_choice(
        "PBEM_PUSH_LOOPBACK", "off", ("off", "on")) == "on")
    # a league webhook's POST, connect to last byte, ends within this many seconds
    webhook_timeout: int = field(default_factory=lambda: env_int(
        "PBEM_WEBHOOK_TIMEOUT", 10, 1, 60))
    # tests only: webhooks may be http://127.0.0.1 (a loopback address); never in production
    webhook_loopback: bool = field(default_factory=lambda: _env_choice(
        "PBEM_WEBHOOK_LOOPBACK", "off", ("off", "on")) == "on")

    @property
    def vapid_key(self) -> Path:
        """The site's VAPID private key (PEM): PBEM_VAPID_KEY, else var/vapid.key, which
        `pbem init` makes. Without the file, the site offers no push."""
        return Path(_env("PBEM_VAPID_KEY", "") or self.var_dir / "vapid.key")

    @property
    def vapid_sub(self) -> str:
        return self.vapid_subject or f"mailto:postmaster@{self.mail_domain}"

    @property
    def dkim_key(self) -> str:
        """The DKIM private key: PBEM_DKIM_KEY, else var/dkim.key once `pbem dkim keygen`
        wrote it; '' (no signing) without either."""
        default = self.var_dir / "dkim.key"
        return _env("PBEM_DKIM_KEY", "") or (str(default) if default.exists() else "")

    @property
    def site_links(self) -> list[tuple[str, str]]:
        """(words, URL) of the privacy notice and terms that are set, for the footers."""
        # the words marked for the catalogue, translated where the footer is made
        return [(words, url) for words, url in ((N_("Privacy"), self.privacy_url),
                                                 (N_("Terms"), self.terms_url)) if url]

    @property
    def maildir(self) -> Path:
        return Path(_env("PBEM_MAILDIR", str(self.var_dir / "mail")))

    @property
    def key_file(self) -> Path:
        return self.var_dir / KEY_FILE

    @property
    def sqlite_file(self) -> Path | None:
        """The SQLite database's file, or None (PostgreSQL, or SQLite in memory)."""
        url = make_url(self.database_url)
        if not url.drivername.startswith("sqlite") or url.database in (None, "", ":memory:"):
            return None
        return Path(os.path.abspath(url.database))


def load() -> Settings:
    return Settings()


def require_site(cfg: Settings) -> Settings:
    """`cfg`, if its site is there: the SQLite file (PostgreSQL is checked on connecting),
    the secret key (unless PBEM_SECRET_KEY gives it) and a named DKIM key. Else SiteMissing
    saying where it looked: a command run from the wrong folder, or with a setting missing,
    must not start a new, empty site whose keys break every link mailed before."""
    db = cfg.sqlite_file
    if db is not None and not db.exists():
        raise SiteMissing(f"no database at {db} (data directory {cfg.var_dir}): run "
                          "`pbem init` to make a new site there, or set PBEM_VAR_DIR or "
                          "DATABASE_URL")
    if not cfg.secret_key and not cfg.key_file.exists():
        raise SiteMissing(f"no secret key at {cfg.key_file}: restore the site's key (or "
                          "set PBEM_SECRET_KEY), or run `pbem init` to make a new site")
    dkim = _env("PBEM_DKIM_KEY", "")
    if dkim and not os.path.exists(dkim):
        raise SiteMissing(f"no DKIM key at {os.path.abspath(dkim)} (PBEM_DKIM_KEY)")
    return cfg


def ensure_data_dir(cfg: Settings, new_key: bool = True) -> list[str]:
    """Make the data directory (private to its owner) and, with `new_key`, a new secret key
    there unless PBEM_SECRET_KEY is set or one exists: for `pbem init`, and for a restore
    (new_key=False: it brings the site's own key). Returns what it made, for the operator."""
    made = []
    if not cfg.var_dir.is_dir():
        cfg.var_dir.mkdir(mode=0o700, parents=True)
        made.append(f"the data directory {cfg.var_dir}")
    if new_key and not cfg.secret_key and not cfg.key_file.exists():
        fd = os.open(cfg.key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(32))
        made.append(f"a new secret key {cfg.key_file}")
    return made
