"""docs/settings.md lists every setting the code reads, and nothing else; every setting can
be given in the settings file as in the environment."""

import re
from pathlib import Path

from pbem.config import NAMES, NOT_IN_FILE, file_key

ROOT = Path(__file__).resolve().parent.parent
QUOTED = re.compile(r"(config\[)?[\"'](PBEM_[A-Z0-9_]+|DATABASE_URL)[\"']")
APP_KEYS = {"PBEM_SETTINGS", "PBEM_KEYS", "PBEM_STORE"}  # the Flask app's config, not settings


def read_by_code() -> set[str]:
    """Every name the package quotes, but the Flask app's config keys."""
    found = set()
    for path in (ROOT / "pbem").rglob("*.py"):
        for app_key, name in QUOTED.findall(path.read_text()):
            if not app_key and name not in APP_KEYS:
                found.add(name)
    return found


def documented() -> set[str]:
    text = (ROOT / "docs" / "settings.md").read_text()
    table = text.split("\n## Every setting", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([A-Z0-9_]+)`", row)}


def test_the_doc_lists_every_setting_the_code_reads_and_no_other():
    code, doc = read_by_code(), documented()
    assert len(code) > 15
    assert code - doc == set(), "read by the code, missing from docs/settings.md"
    assert doc - code == set(), "in docs/settings.md, read by no code"


def test_every_setting_the_code_reads_is_known_to_the_settings_file():
    assert read_by_code() == set(NAMES)
    keys = [file_key(n) for n in NAMES - NOT_IN_FILE]
    assert len(keys) == len(set(keys)) and "web_port" in keys and "database_url" in keys


def test_the_design_names_every_setting_of_the_doc():
    design = (ROOT / "docs" / "design.md").read_text().split("\n## Settings", 1)[1]
    assert [n for n in documented() if f"`{n}`" not in design.split("\n## ", 1)[0]] == []
