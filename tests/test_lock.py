"""The pinned dependencies: pyproject.toml's bounds, requirements.lock, and what is installed."""

import re
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
# data, not an API: a new release only adds time zones
UNBOUNDED = {"tzdata"}
PIN = re.compile(r"^([A-Za-z0-9._-]+)==(\S+)")


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["test"]
    return [Requirement(r) for r in wanted]


def _lock() -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes), read from the lock's `name==version \\ --hash=...` entries."""
    pins: dict[str, tuple[str, list[str]]] = {}
    for entry in re.split(r"\n(?=\S)", LOCK.read_text()):
        if found := PIN.match(entry):
            hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", entry)
            pins[canonicalize_name(found[1])] = (found[2], hashes)
    return pins


def test_every_library_we_build_on_has_an_upper_bound():
    unbounded = [str(r) for r in _requirements()
                 if r.name not in UNBOUNDED and not any(s.operator in ("<", "<=", "==", "~=")
                                                        for s in r.specifier)]
    assert unbounded == []


def test_the_lock_pins_every_dependency_within_its_bounds_with_hashes():
    pins = _lock()
    for req in _requirements():
        wanted = [canonicalize_name(req.name)] + [f"{req.name}-{x}" for x in req.extras]
        for name in map(canonicalize_name, wanted):
            assert name in pins, f"{name} is not in requirements.lock: run scripts/lock"
        assert req.specifier.contains(Version(pins[canonicalize_name(req.name)][0])), req
    assert all(hashes for _, hashes in pins.values())
    # every line is a pin, a hash, or a comment: nothing installs unchecked (an -e or a URL)
    for line in LOCK.read_text().splitlines():
        assert PIN.match(line) or line.lstrip().startswith(("--hash=", "#")) or not line.strip()


def test_the_installed_libraries_are_the_locked_ones():
    """scripts/bootstrap installs from the lock: the tests run on what it names."""
    drift = {}
    for name, (pinned, _) in _lock().items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = None
        if installed is None or Version(installed) != Version(pinned):
            drift[name] = (pinned, installed)
    assert drift == {}, "the venv differs from requirements.lock: run scripts/bootstrap"


def test_bootstrap_installs_from_the_lock_by_hash():
    script = (ROOT / "scripts" / "bootstrap").read_text()
    assert "--require-hashes -r requirements.lock" in script
    assert "--no-deps -e ." in script
