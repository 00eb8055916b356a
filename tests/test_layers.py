"""The house rules of pbem/__init__.py: every import points down its layer table, and no
imports go round in a circle. Imports inside functions count: hiding one there only hides
a knot."""

import ast
import re
import tomllib
from pathlib import Path

import pbem

ROOT = Path(pbem.__file__).parent


def layer_table(doc: str) -> dict[str, int]:
    """{module prefix: layer} from the docstring's table ("    3 reactions  pbem.a pbem.b",
    and lines under it that go on with more names)."""
    table, layer = {}, None
    for line in doc.splitlines():
        if m := re.match(r"^ {4}(\d) \w+ +(.+)$", line):
            layer, names = int(m.group(1)), m.group(2)
        elif layer is not None and re.match(r"^ {5,}\w+\.", line):
            names = line
        else:
            layer = None
            continue
        table.update(dict.fromkeys(names.split(), layer))
    return table


def modules(root: Path, package: str = "pbem") -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known) -> set[str]:
    """The package's modules that `name` imports anywhere in its file."""
    found = set()
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = name.split(".") if is_pkg else name.split(".")[:-1]
            if node.level:
                base = base[:len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            targets = [f"{prefix}.{a.name}" for a in node.names] + [prefix]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `from .x import name`: the module x
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def layer_of(name: str, table: dict[str, int]) -> int | None:
    best = max((p for p in table if name == p or name.startswith(p + ".")), key=len,
               default=None)
    return table[best] if best else None


def problems(root: Path, doc: str, package: str = "pbem") -> list[str]:
    table = layer_table(doc)
    known = modules(root, package)
    graph = {m: imports(m, p, known) - {package} for m, p in known.items()}
    out = [f"{m} has no layer" for m in known if m != package and layer_of(m, table) is None]
    for m, targets in sorted(graph.items()):
        mine = layer_of(m, table)
        for t in sorted(targets):
            if mine is not None and (layer_of(t, table) or 0) > mine:
                out.append(f"{m} (layer {mine}) imports {t} (layer {layer_of(t, table)})")
    return out + [" -> ".join(c) for c in cycles(graph)]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One path round each circle found by a depth-first walk."""
    state, path, found = {}, [], []

    def walk(m):
        state[m] = "open"
        path.append(m)
        for t in sorted(graph.get(m, ())):
            if state.get(t) == "open":
                found.append(path[path.index(t):] + [t])
            elif t not in state:
                walk(t)
        path.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            walk(m)
    return found


def test_every_import_points_down_and_none_goes_round():
    assert problems(ROOT, pbem.__doc__) == []


def test_the_engine_imports_nothing_else_of_pbem():
    known = modules(ROOT)
    for m, path in known.items():
        if m.startswith("pbem.engine"):
            assert {t for t in imports(m, path, known)
                    if not t.startswith("pbem.engine")} == set(), m


def test_every_layer_of_the_table_names_modules_that_exist():
    known = modules(ROOT)
    for prefix in layer_table(pbem.__doc__):
        assert any(m == prefix or m.startswith(prefix + ".") for m in known), prefix


def test_mypy_holds_layers_two_to_four_to_full_annotations():
    """pyproject.toml's strict mypy override names exactly the table's layers 2-4."""
    config = tomllib.loads((ROOT.parent / "pyproject.toml").read_text())["tool"]["mypy"]
    strict = {m.removesuffix(".*") for o in config["overrides"] for m in o["module"]
              if o.get("disallow_untyped_defs")}
    middle = {name for name, layer in layer_table(pbem.__doc__).items() if 2 <= layer <= 4}
    assert strict == middle


# -- the checker itself finds what it is for --------------------------------------------------

DOC = """
    1 low   toy.low
    2 high  toy.high toy.pkg
"""


def toy(tmp_path, files: dict[str, str]) -> Path:
    root = tmp_path / "toy"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_checker_finds_an_upward_import_hidden_in_a_function(tmp_path):
    root = toy(tmp_path, {"low.py": "def f():\n    from .high import g\n", "high.py": ""})
    assert problems(root, DOC, "toy") == ["toy.low (layer 1) imports toy.high (layer 2)"]


def test_the_checker_finds_a_circle_and_a_module_without_a_layer(tmp_path):
    root = toy(tmp_path, {"high.py": "from toy.pkg import mod\n",
                          "pkg/__init__.py": "", "pkg/mod.py": "from .. import high\n",
                          "stray.py": "import toy.low\n", "low.py": ""})
    assert problems(root, DOC, "toy") == ["toy.stray has no layer",
                                          "toy.high -> toy.pkg.mod -> toy.high"]
