"""The long-running processes collect garbage at a server's pace (pbem.gc_tuning)."""

import subprocess
import sys
from pathlib import Path

from pbem import gc_tuning

ROOT = Path(__file__).resolve().parent.parent
PACE = "import gc; print(gc.get_threshold()[0], gc.get_freeze_count() > 0)"


def pace_after(code: str, tmp_path) -> str:
    env = {"PBEM_VAR_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-m", "pbem.cli", "init"], cwd=ROOT, env=env,
                   capture_output=True, check=True, timeout=120)  # wsgi serves a site
    out = subprocess.run([sys.executable, "-c", f"{code}\n{PACE}"], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True, timeout=120)
    return out.stdout.split()


def test_a_wsgi_worker_runs_at_the_servers_pace_with_startup_frozen(tmp_path):
    assert pace_after("import wsgi", tmp_path) == [str(gc_tuning.YOUNG), "True"]


def test_a_plain_import_leaves_the_collector_alone(tmp_path):
    """Only the servers' entry points change the pace: the engine, the CLI's one-shot
    commands and the tests keep CPython's."""
    young, frozen = pace_after("import pbem.cli, pbem.engine, pbem.play", tmp_path)
    assert int(young) < gc_tuning.YOUNG and frozen == "False"


def test_a_higher_pace_set_before_is_kept(tmp_path):
    code = "import gc; gc.set_threshold(50000); from pbem import gc_tuning; " \
           "gc_tuning.for_long_running()"
    assert pace_after(code, tmp_path) == ["50000", "True"]
