"""docs/rules.md must cover every catalogue ID, and every test it names must exist."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHORT = {"T": "test_rules_table.py", "B": "test_rules_bidding.py", "Y": "test_rules_play.py",
         "S": "test_rules_scoring.py", "P": "test_presets.py"}


def rows():
    for line in (ROOT / "docs" / "rules.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"[TDLPBYSE]\d+[a-c]?", cells[0]):
            yield cells


def test_every_catalogue_id_has_a_row():
    rules = (ROOT.parent / "shared" / "RULES.md")
    if not rules.exists():
        rules = Path("/work/shared/RULES.md")
    ids = set(re.findall(r"^- ([TDLPBYSE]\d+) ", rules.read_text(), re.M))
    assert ids, "no IDs found in RULES.md"
    assert ids <= {r[0] for r in rows()}


def _tests_named(ref):
    if "::" not in ref:
        return []
    file, name = ref.split("::")
    path = ROOT / "tests" / (SHORT.get(file, file.removeprefix("tests/")))
    defs = re.findall(r"^def (test_\w+)", path.read_text(), re.M)
    if name.endswith("*"):
        return [d for d in defs if d.startswith(name[:-1])]
    return [d for d in defs if d == name]


def test_every_test_named_in_the_table_exists():
    missing = []
    for rid, _rule, _option, tests, status in rows():
        if status.startswith("played"):
            refs = [t.strip() for t in tests.split(",")]
            assert refs and refs != ["none"], f"{rid} is played but names no test"
            missing += [f"{rid}: {ref}" for ref in refs if not _tests_named(ref)]
    assert not missing
