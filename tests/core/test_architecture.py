"""The house rules of docs/architecture.md, checked on the package itself: every module imports,
and its imports (module level and inside functions) draw no circle between packages or between
the modules of one package, reach into no other package's private names, and never climb
into the command line from a library module."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest
import ragchunk

pytestmark = pytest.mark.single_backend

#: Private names any package may import: the compiled core, the fallback twins, the shipped
#: vocabularies and data.
SHARED_PRIVATE = {"_core", "_pure", "_vocab", "data"}

MODULES = sorted(
    ["ragchunk", *(info.name for info in pkgutil.walk_packages(ragchunk.__path__, "ragchunk."))]
)


def _source(name: str) -> Path:
    module = importlib.import_module(name)
    assert module.__file__ is not None
    return Path(module.__file__)


def _package(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "<root>"


def _is_cli(name: str) -> bool:
    parts = name.split(".")
    return (len(parts) > 1 and parts[1] in ("cli", "__main__")) or parts[-1] == "__main__"


def _imports(name: str) -> list[tuple[str, str | None, int]]:
    """``(module, imported name or None, line)`` for every ragchunk import of ``name``."""
    path = _source(name)
    if path.suffix != ".py":  # the compiled core
        return []
    is_pkg = path.name == "__init__.py"
    out: list[tuple[str, str | None, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [
                (a.name, None, node.lineno)
                for a in node.names
                if a.name.split(".")[0] == "ragchunk"
            ]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "ragchunk":
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.append(
                    (sub, None, node.lineno) if sub in KNOWN else (target, a.name, node.lineno)
                )
    return out


KNOWN = set(MODULES)


def _graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name in MODULES:
        for target, _, _ in _imports(name):
            t = target
            while t not in KNOWN and "." in t:
                t = t.rsplit(".", 1)[0]
            if t in KNOWN and t != name:
                edges.setdefault(name, set()).add(t)
    return edges


def _cycles(nodes: set[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in nodes:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


@pytest.mark.parametrize("name", MODULES)
def test_every_module_imports(name: str) -> None:
    assert importlib.import_module(name).__name__ == name


def test_no_circle_between_packages() -> None:
    # The fallback twins share core's rules and data by design, so they stay out of this graph.
    edges: dict[str, set[str]] = {}
    for a, targets in _graph().items():
        for b in targets:
            pa, pb = _package(a), _package(b)
            if pa != pb and "<root>" not in (pa, pb) and "_pure" not in (pa, pb):
                edges.setdefault(pa, set()).add(pb)
    packages = {_package(m) for m in MODULES} - {"<root>", "_pure"}
    assert _cycles(packages, edges) == []


def test_no_circle_between_the_modules_of_a_package() -> None:
    graph = _graph()
    circles = []
    for package in {_package(m) for m in MODULES}:
        members = {m for m in MODULES if _package(m) == package}
        circles += _cycles(members, graph)
    assert circles == []


def test_no_private_reach_across_packages() -> None:
    reaches = []
    for name in MODULES:
        for target, imported, line in _imports(name):
            if _package(target) == _package(name):
                continue
            segments = target.split(".")[1:] + ([imported] if imported else [])
            if any(s in SHARED_PRIVATE for s in target.split(".")[1:]):
                continue
            if any(s.startswith("_") and not s.startswith("__") for s in segments):
                reaches.append(f"{name}:{line} imports {target}.{imported or ''}")
    assert reaches == []


def test_no_library_module_imports_the_command_line() -> None:
    climbs = [
        f"{name}:{line} imports {target}"
        for name in MODULES
        if not _is_cli(name)
        for target, _, line in _imports(name)
        if _is_cli(target)
    ]
    assert climbs == []


def test_the_checks_see_a_circle_and_a_reach() -> None:
    # The checks can fail: a made-up graph with a circle gives it back.
    assert _cycles({"a", "b", "c"}, {"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert _is_cli("ragchunk.cli.chunk") and not _is_cli("ragchunk.io.files")
