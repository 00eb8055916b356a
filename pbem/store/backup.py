"""Backup and restore of a whole site: the database and the keys that sign its mailed links
(without them every link in every mail already sent dies), in one tar archive.

An archive (docs/backup.md) holds `database.*`, `secret_keys` (one key a line, oldest
first), `dkim.key` (if the site signs mail) and, last, `manifest.json`: the format, pbem's
version, the database's alembic revision, the time, the backend, the kind of dump, where the
keys came from, and a SHA-256 of every other member, so a mangled archive is refused before
anything is written. The database is a consistent snapshot taken while the site serves
(pbem.store.dumps: SQLite's online backup, pg_dump, or the rows through SQLAlchemy).

A restore goes into an empty site only: no player or game rows, no key files."""

import hashlib
import io
import json
import os
import shutil
import tarfile
import tempfile
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import IO

from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from ..config import Settings, ensure_data_dir
from .db import engine_for, upgrade
from .dumps import KINDS as DUMPS
from .dumps import BackupError, dump, first_line, load_into, migrations, sqlite_restore

FORMAT = "pbem-backup/1"
MANIFEST = "manifest.json"
KEYS = "secret_keys"
DKIM = "dkim.key"
MAX_SMALL = 1 << 20  # the manifest and keys: a bigger member is not ours

__all__ = ["BackupError", "backup", "restore"]


# -- the data directory: the one place to switch to pbem.config's when "ops" merges ----------


def key_paths(cfg: Settings) -> tuple[Path, Path]:
    """Where this site keeps its signing key and DKIM key (if not in the environment)."""
    dkim = os.environ.get("PBEM_DKIM_KEY")
    return cfg.key_file, Path(dkim) if dkim else cfg.var_dir / "dkim.key"


# -- backup -----------------------------------------------------------------------------------


@dataclass
class _Archive:
    """The members written so far and their digests (the manifest lists them)."""

    tar: tarfile.TarFile
    digests: dict[str, str] = field(default_factory=dict)

    def add(self, name: str, data: IO[bytes], size: int) -> None:
        info = tarfile.TarInfo(name)
        info.size, info.mode, info.mtime = size, 0o600, int(datetime.now(UTC).timestamp())
        digest = _Digesting(data)
        self.tar.addfile(info, digest)
        self.digests[name] = digest.sha.hexdigest()

    def add_bytes(self, name: str, data: bytes) -> None:
        self.add(name, io.BytesIO(data), len(data))

    def add_file(self, name: str, path: Path) -> None:
        with open(path, "rb") as f:
            self.add(name, f, path.stat().st_size)


class _Digesting(io.RawIOBase):
    """A file read through, its SHA-256 kept."""

    def __init__(self, inner: IO[bytes]):
        self.inner, self.sha = inner, hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        chunk = self.inner.read(size)
        self.sha.update(chunk)
        return chunk


def backup(cfg: Settings, target: Path, logical: bool = False) -> dict:
    """Write the archive to `target` (0600, through a temporary file renamed over it);
    returns its manifest."""
    target = Path(target)
    if target.is_dir() or not target.parent.is_dir():
        raise BackupError(f"cannot write {target}: not a file in an existing directory")
    keys, keys_from = _site_keys(cfg)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as raw, tempfile.TemporaryDirectory() as scratch:
            with tarfile.open(fileobj=raw, mode="w:gz", compresslevel=6) as tar:
                archive = _Archive(tar)
                kind, revision, made = dump(cfg.database_url, Path(scratch), logical)
                archive.add_file(DUMPS[kind], made)
                archive.add_bytes(KEYS, "".join(k + "\n" for k in keys).encode())
                dkim = _dkim_key(cfg)
                if dkim is not None:
                    archive.add_bytes(DKIM, dkim)
                manifest = {
                    "format": FORMAT, "pbem": version("pbem"), "revision": revision,
                    "time": datetime.now(UTC).isoformat(timespec="seconds"),
                    "backend": make_url(cfg.database_url).get_backend_name(),
                    "database": DUMPS[kind], "kind": kind, "keys_from": keys_from,
                    "dkim": dkim is not None, "sha256": archive.digests}
                archive.add_bytes(MANIFEST, json.dumps(manifest, indent=1).encode())
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return manifest


def _site_keys(cfg: Settings) -> tuple[list[str], str]:
    """The signing keys, read as pbem.signing reads them but never made: a backup run in
    the wrong directory must not invent a key."""
    if cfg.secret_key:
        return [k.strip() for k in cfg.secret_key.split(",") if k.strip()], "env"
    path = key_paths(cfg)[0]
    if not path.is_file():
        raise BackupError(f"no signing key at {path} (nor PBEM_SECRET_KEY): is this the "
                          "site's data directory?")
    return [path.read_text().strip()], "file"


def _dkim_key(cfg: Settings) -> bytes | None:
    path = cfg.dkim_key
    return Path(path).read_bytes() if path else None






















# -- restore ----------------------------------------------------------------------------------


@dataclass
class _Opened:
    """A checked archive, its database dump in a scratch file."""

    manifest: dict
    keys: list[str]
    dkim: bytes | None
    dump: Path


def restore(cfg: Settings, source: Path) -> dict:
    """Restore the archive at `source` into this empty site; returns its manifest."""
    with tempfile.TemporaryDirectory() as scratch:
        opened = _open(Path(source), Path(scratch))
        if opened.manifest["revision"] not in migrations(cfg.database_url):
            raise BackupError(f"{source} is of a newer pbem (revision "
                              f"{opened.manifest['revision']}): upgrade pbem first")
        _check_keys(cfg, opened)
        url = cfg.database_url
        kind, backend = opened.manifest["kind"], make_url(url).get_backend_name()
        if kind == "pg_dump" and backend != "postgresql":
            raise BackupError(f"{source} is a pg_dump: it restores into PostgreSQL only (a "
                              "backup taken with --logical restores anywhere)")
        _check_empty(url)
        try:
            if kind == "sqlite" and backend == "sqlite":
                sqlite_restore(url, opened.dump)
            else:
                load_into(url, kind, opened.manifest["revision"], opened.dump)
            upgrade(url)
        except SQLAlchemyError as e:
            raise BackupError(f"the restore failed: {first_line(e)}") from e
        except (ValueError, KeyError, TypeError) as e:  # rows that are not a dump's
            raise BackupError(f"the backup's rows are damaged: {first_line(e)}") from e
        _write_keys(cfg, opened)
    return opened.manifest


def _open(source: Path, scratch: Path) -> _Opened:
    """Read and check the whole archive before anything is written."""
    if not source.is_file():
        raise BackupError(f"no such file: {source}")
    try:
        tar = tarfile.open(source, mode="r:*")
    except (tarfile.TarError, OSError) as e:
        raise BackupError(f"{source} is not a pbem backup, or is damaged (not a tar "
                          "archive we can read)") from e
    try:
        with tar:
            got = _members(tar, scratch)
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        raise BackupError(f"{source} is not a pbem backup, or is damaged "
                          f"({first_line(e)})") from e
    manifest = _manifest(source, got)
    return _Opened(manifest, got[KEYS].read_text().splitlines(), got[DKIM].read_bytes()
                   if DKIM in got else None, got[manifest["database"]])


def _members(tar: tarfile.TarFile, scratch: Path) -> dict[str, Path]:
    """Every regular member we know, each into a scratch file (never by its own path)."""
    known = {MANIFEST, KEYS, DKIM, *DUMPS.values()}
    got: dict[str, Path] = {}
    for member in tar:
        if member.name not in known or not member.isfile() or member.name in got:
            raise BackupError(f"unexpected member {member.name!r}")
        if member.name not in DUMPS.values() and member.size > MAX_SMALL:
            raise BackupError(f"member {member.name} is too large")
        data = tar.extractfile(member)
        assert data is not None  # a regular file
        got[member.name] = scratch / member.name
        with open(got[member.name], "wb") as out:
            shutil.copyfileobj(data, out)
    return got


def _manifest(source: Path, got: dict[str, Path]) -> dict:
    if MANIFEST not in got:
        raise BackupError(f"{source} is not a pbem backup (no manifest)")
    try:
        manifest = json.loads(got[MANIFEST].read_text())
    except ValueError as e:
        raise BackupError(f"{source} has a damaged manifest") from e
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"{source} is not a pbem backup of a format this pbem reads")
    sums = manifest.get("sha256")
    if (not isinstance(sums, dict) or manifest.get("kind") not in DUMPS
            or not all(isinstance(manifest.get(k), str) for k in ("revision", "time"))
            or manifest.get("keys_from") not in ("file", "env")
            or manifest.get("database") != DUMPS[manifest["kind"]]
            or set(sums) != set(got) - {MANIFEST} or KEYS not in sums
            or manifest["database"] not in sums):
        raise BackupError(f"{source} is not a whole pbem backup")
    for name, digest in sums.items():
        if _sha256(got[name]) != digest:
            raise BackupError(f"{source} is damaged: {name} does not match its checksum")
    return manifest


def _sha256(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            sha.update(chunk)
    return sha.hexdigest()


def _check_keys(cfg: Settings, opened: _Opened) -> None:
    """The archive's keys must be this site's from now on: refuse where they could not be."""
    secret, dkim = key_paths(cfg)
    if cfg.secret_key:
        here = [k.strip() for k in cfg.secret_key.split(",")]
        if not set(opened.keys) <= set(here):
            raise BackupError("PBEM_SECRET_KEY is set here without the backup's signing "
                              "keys: mailed links would stop working")
    elif opened.manifest["keys_from"] == "env":
        raise BackupError("the backup's signing keys came from PBEM_SECRET_KEY: set it here "
                          f"as it was (`tar -xzOf BACKUP {KEYS}` prints them, oldest first)")
    elif secret.exists():
        raise BackupError(f"{secret} exists: restore into an empty site")
    if opened.dkim is not None and dkim.exists() and dkim.read_bytes() != opened.dkim:
        raise BackupError(f"{dkim} exists: restore into an empty site")


def _check_empty(url: str) -> None:
    path = make_url(url).database
    if url.startswith("sqlite") and path and not Path(path).exists():
        return  # not made before it is restored
    try:
        with engine_for(url).connect() as c:
            tables = set(inspect(c).get_table_names())
            for name in ("player", "game"):
                if name in tables and c.execute(text(f"SELECT 1 FROM {name} LIMIT 1")).first():
                    raise BackupError(f"the database at {_where(url)} has {name}s: "
                                      "restore into an empty site")
    except SQLAlchemyError as e:
        raise BackupError(f"cannot reach the database at {_where(url)}: "
                          f"{first_line(e)}") from e


def _where(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


















def _write_keys(cfg: Settings, opened: _Opened) -> None:
    """The keys, each 0600 through a temporary file (unless the environment holds them)."""
    secret, dkim = key_paths(cfg)
    ensure_data_dir(cfg, new_key=False)  # as `pbem init` makes it: private to its owner
    if not cfg.secret_key and opened.keys:
        _write_secret(secret, opened.keys[-1].encode())
    if opened.dkim is not None and not dkim.exists():
        _write_secret(dkim, opened.dkim)


def _write_secret(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
