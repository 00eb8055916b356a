"""docs/rules.md must cover every catalogue ID, and every test it names must exist; and the
README, docs and code point at nothing outside the repository (issue 30)."""

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


# The catalogue's IDs (docs/rules.md): a rule's row may change, none may go
CATALOGUE = set("""T1 T2 T3 T4 T5 T6 T7 D1 D2 D3 D4 D5 D6 D7 L1 L2 L3 P1 P2 P3 P4 B1 B2 B3 B4
B5 B6 B7 B8 B9 B10 B11 B12 B13 B14 B15 Y1 Y2 Y3 Y4 Y5 Y6 Y7 S1 S2 S3 S4 S5 S6 S7 S8 S9 E1 E2
E3 E4""".split())
# what a clone does not have: the founders' notes beside the repository (DESIGN, RULES and
# PITFALLS, the rule texts in seeds/), any path above it, and the machine it was written on
OUTSIDE = re.compile(r"\.\./|(?<![\w/])/work/|\bshared/|\b(?:DESIGN|RULES|PITFALLS)\.md\b|"
                     r"\bseeds/")


def test_every_catalogue_id_has_a_row():
    assert CATALOGUE <= {r[0] for r in rows()}


def _ours() -> list[Path]:
    """The README, the docs, the code and its templates: what the next maintainer reads."""
    code = (".py", ".js", ".css", ".html", ".txt")
    return [ROOT / "README.md", ROOT / "pyproject.toml", *sorted((ROOT / "docs").rglob("*.md")),
            *sorted(p for folder in ("pbem", "templates") for p in (ROOT / folder).rglob("*")
                    if p.suffix in code)]


def test_nothing_points_outside_the_repository():
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in _ours()
             for n, line in enumerate(p.read_text().splitlines(), 1) if OUTSIDE.search(line)]
    assert not found


def test_every_doc_a_file_names_is_in_the_repository():
    named = {m for p in _ours() for m in re.findall(r"\bdocs/[\w-]+\.md", p.read_text())}
    assert named and not [d for d in named if not (ROOT / d).is_file()]


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


def _section(doc: str, title: str) -> str:
    return doc.split(f"\n## {title}", 1)[1].split("\n## ", 1)[0]


def test_the_design_names_every_setting_the_code_reads():
    design = _section((ROOT / "docs" / "design.md").read_text(), "Settings")
    read = {m for p in (ROOT / "pbem").rglob("*.py")
            for m in re.findall(r"[\"'](PBEM_[A-Z_]+|DATABASE_URL)[\"']", p.read_text())}
    assert read and not [v for v in read if f"`{v}`" not in design]


def test_the_design_names_every_command():
    import click

    from pbem.cli import main

    design = _section((ROOT / "docs" / "design.md").read_text(), "The command line")

    def names(group: click.Group, path: str) -> list[str]:
        out = []
        for name, cmd in group.commands.items():
            out += names(cmd, f"{path} {name}") if isinstance(cmd, click.Group) else [
                f"{path} {name}"]
        return out

    missing = [n for n in names(main, "pbem") if n.split()[-1] not in design.split()
               or f"pbem {n.split()[1]} " not in design]
    assert len(names(main, "pbem")) > 30 and not missing
