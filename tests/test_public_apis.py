"""pbem reaches other packages only through their public APIs (issue 30): no import of a
private module or name (`from pkg._mod import x`, `from pkg import _x`), and no `x._name`
that is another package's. A private name is renamed or dropped in any release, and nothing
pins our dependencies above.

Which `x._name` is whose is read from the source: it is another package's when `x` is a
name imported from another package (`random.Random._randbelow`), or when no module of pbem
defines `_name` at all (`type(rng)._randbelow`, `conn._rset`). Our own `_names`, across our
own modules, are not this test's business.

Issue 30 removed the last of them: nothing is allowed."""

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pbem

ROOT = Path(pbem.__file__).parent

# Underscore names that are documented public APIs, so that they cannot clash with a field
# name: namedtuple's and SQLAlchemy Row's (`_mapping`, `_asdict`, `_fields`, `_t`, `_tuple`),
# and os._exit (the documented exit without cleanup).
PUBLIC = {"_asdict", "_fields", "_field_defaults", "_make", "_replace", "_mapping", "_t",
          "_tuple", "os._exit"}

# Other packages' internals not spelt with an underscore: waitress's parts under its
# `create_server`, SQLAlchemy's event dispatcher and a mapper's instrumentation.
INTERNAL = {"waitress.channel", "waitress.parser", "waitress.server.TcpWSGIServer",
            "dispatch", "class_manager"}


def _private(name: str) -> bool:
    return name in INTERNAL or (
        name.startswith("_") and not (name.startswith("__") and name.endswith("__")))


def _hidden(dotted: str) -> bool:
    """A module or name with a private part, or inside one of INTERNAL."""
    parts = dotted.split(".")
    return any(map(_private, parts)) or any(
        ".".join(parts[:i]) in INTERNAL for i in range(2, len(parts) + 1))


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(ROOT.rglob("*.py")):
        yield path.relative_to(ROOT.parent).as_posix(), ast.parse(path.read_text(), str(path))


def _ours(module: str | None, level: int) -> bool:
    return level > 0 or module == "pbem" or (module or "").startswith("pbem.")


def _defined(tree: ast.Module) -> Iterator[str]:
    """Every name this module defines: functions, classes, parameters, assigned names and
    attributes, imported aliases."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, ast.arg):
            yield node.arg
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            yield node.attr
        elif isinstance(node, ast.alias):
            yield node.asname or node.name.split(".")[0]
        elif isinstance(node, ast.keyword) and node.arg:
            yield node.arg  # a field set by name (a model's constructor, dict(...))


def _foreign(tree: ast.Module) -> dict[str, str]:
    """The names this module binds by importing another package: name -> its module."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if not _ours(a.name, 0):
                    bound[a.asname or a.name.split(".")[0]] = a.name
        elif isinstance(node, ast.ImportFrom) and not _ours(node.module, node.level):
            for a in node.names:
                bound[a.asname or a.name] = f"{node.module}.{a.name}"
    return bound


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _imports(tree: ast.Module) -> Iterator[str]:
    """Private modules or names imported from another package."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if not _ours(a.name, 0) and _hidden(a.name))
        elif isinstance(node, ast.ImportFrom) and not _ours(node.module, node.level):
            names = [f"{node.module}.{a.name}" for a in node.names]
            yield from (n for n in names if _hidden(n))


def _attributes(tree: ast.Module, ours: set[str]) -> Iterator[str]:
    """`x._name` where x is imported from another package, or `_name` is none of ours;
    getattr(x, "_name") likewise."""
    foreign = _foreign(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            name, base = node.attr, _root(node.value)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str)):
            name, base = node.args[1].value, _root(node.args[0])
        else:
            continue
        if not _private(name) or name in PUBLIC or f"{base}.{name}" in PUBLIC:
            continue
        if base in foreign or name not in ours:
            yield name


def _loaded(dotted: str) -> object:
    """The imported object `dotted` names (pkg.mod.Name), or None."""
    module, _, name = dotted.rpartition(".")
    if not module:
        return None  # a module, not a class
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def _overrides(tree: ast.Module) -> Iterator[str]:
    """A private method of another package's class defined again in a subclass (or in a
    mixin of one), or called there through super()."""
    foreign = _foreign(tree)
    classes = [c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)]
    theirs = {c.name: [_loaded(foreign[b.id]) for b in c.bases
                       if isinstance(b, ast.Name) and b.id in foreign] for c in classes}
    for c in classes:  # a mixin of ours takes the other package's bases of its users
        for b in c.bases:
            if isinstance(b, ast.Name) and b.id in theirs and b.id != c.name:
                theirs[b.id] = theirs[b.id] + theirs[c.name]
    for c in classes:
        for node in ast.walk(c):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = node.name
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call)
                  and isinstance(node.value.func, ast.Name) and node.value.func.id == "super"):
                name = node.attr
            else:
                continue
            if _private(name) and any(hasattr(t, name) for t in theirs[c.name]):
                yield name


def found() -> set[str]:
    """Every private name of another package that pbem reaches, as "file: name"."""
    modules = list(_modules())
    ours = {n for _, tree in modules for n in _defined(tree)}
    out = set()
    for path, tree in modules:
        out |= {f"{path}: {n}" for n in _imports(tree)}
        out |= {f"{path}: {n}" for n in _attributes(tree, ours)}
        out |= {f"{path}: {n}" for n in _overrides(tree)}
    return out


def test_pbem_reaches_no_private_name_of_another_package():
    assert sorted(found()) == []


def test_the_check_sees_each_kind_of_private_reach():
    """It would catch what issue 30 removed (they are gone from pbem now)."""
    tree = ast.parse(
        "import random\nfrom aiosmtpd.smtp import SMTP\nfrom sqlalchemy.engine import _x\n"
        "from itsdangerous._json import y\nimport waitress._z\n"
        "from waitress.channel import HTTPChannel\nfrom waitress.server import create_server\n"
        "random.Random._randbelow_with_getrandbits\nSMTP._getaddr\n"
        "def send(conn):\n    conn._rset()\n    getattr(conn, '_sock')\n"
        "    self._ours = 1\n    self._ours\n    row._mapping\n")
    assert sorted(_imports(tree)) == ["itsdangerous._json.y", "sqlalchemy.engine._x",
                                      "waitress._z", "waitress.channel.HTTPChannel"]
    assert sorted(_attributes(tree, {"_ours"})) == [
        "_getaddr", "_randbelow_with_getrandbits", "_rset", "_sock"]


def test_the_check_sees_a_private_method_overridden():
    tree = ast.parse(
        "from aiosmtpd.smtp import SMTP\nfrom aiosmtpd.controller import Controller\n"
        "class Plain:\n    def _getaddr(self, arg):\n        return super()._getaddr(arg)\n"
        "class Ours(Plain, SMTP):\n    pass\n"
        "class Other:\n    def _thread(self):\n        pass\n"  # not a Controller's
        "class Ctl(Controller):\n    def _helper(self):\n        pass\n")  # not theirs
    assert list(_overrides(tree)) == ["_getaddr", "_getaddr"]
