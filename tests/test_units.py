"""contrib/systemd's units (docs/deploy.md): each one systemd reads without a complaint, and
each ExecStart names a command and options that exist."""

import importlib
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from tests.postfix_helpers import ROOT

UNITS = sorted((ROOT / "contrib" / "systemd").glob("*.service"))
PREFIX = "/opt/pbem"  # where docs/deploy.md installs pbem
ENV_FILE = "/etc/pbem/pbem.env"


def exec_start(unit: Path) -> list[str]:
    [line] = [x for x in unit.read_text().splitlines() if x.startswith("ExecStart=")]
    return shlex.split(line.removeprefix("ExecStart="))


def test_the_units_are_the_ones_the_guide_names():
    names = {u.name for u in UNITS}
    assert names == {"pbem.service", "pbem-web.service", "pbem-mail.service",
                     "pbem-clock.service", "pbem-outbox.service"}
    guide = (ROOT / "docs" / "deploy.md").read_text()
    assert all(name in guide for name in names)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed (Debian's systemd package)")
@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_systemd_reads_the_unit_without_a_complaint(unit, tmp_path):
    """`systemd-analyze verify` on the unit as installed here: this checkout for /opt/pbem
    (so the programs it names exist), the example settings file for /etc/pbem/pbem.env."""
    here = tmp_path / unit.name
    here.write_text(unit.read_text().replace(PREFIX, str(ROOT))
                    .replace(ENV_FILE, str(ROOT / "contrib" / "systemd" / "pbem.env")))
    done = subprocess.run(["systemd-analyze", "verify", str(here)], capture_output=True,
                          text=True, timeout=60)
    said = [line for line in (done.stdout + done.stderr).splitlines() if unit.name in line]
    assert done.returncode == 0 and not said, done.stdout + done.stderr


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_the_command_each_unit_starts_exists(unit, tmp_path):
    program, *args = exec_start(unit)
    assert program.startswith(f"{PREFIX}/.venv/bin/"), program
    if program.endswith("/pbem"):  # the command and its options, parsed by pbem itself
        done = CliRunner().invoke(main, args + ["--help"])
        assert done.exit_code == 0, done.output
        return
    assert program.endswith("/gunicorn"), program
    # gunicorn loads the app (from this checkout for /opt/pbem) and checks every option
    args = [a.replace(PREFIX, str(ROOT)) for a in args]
    env = dict(os.environ, PBEM_VAR_DIR=str(tmp_path))
    env.pop("DATABASE_URL", None)
    site = {"PBEM_VAR_DIR": str(tmp_path), "DATABASE_URL": None}
    made = CliRunner().invoke(main, ["init"], env=site)
    assert made.exit_code == 0, made.output  # wsgi.py serves only a site that is there
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "gunicorn"), "--check-config", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    # ... but not the logger class, named as module.Class
    module, _, name = args[args.index("--logger-class") + 1].rpartition(".")
    assert isinstance(getattr(importlib.import_module(module), name), type)
