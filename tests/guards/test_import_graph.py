"""The shape of the house, read from the source with ``ast`` (nothing is imported): no
import cycle between workbench's modules, none between its packages, and no arrow pointing
back up the floors. Every pair of packages has a rule: ``ALLOWED`` names what each package
may import (besides itself and workbench.errors); every other package is refused.

Every import counts, a function's lazy ones included; those under ``if TYPE_CHECKING:``
count for the floors and for the packages' cycles, but not for the modules' cycles (they
never run, yet a type that needs one to close a loop belongs lower down).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "workbench"

_MIDDLE = {"core", "check", "export", "diagnosis", "lanes", "capture", "rustfe", "runs"}
# package -> the packages it may import; every pair not named here is refused. Floors, low to high:
# core; engine, pages; check; export; diagnosis (`workbench doctor`'s); lanes, capture; rustfe; runs; corpus; conformance;
# ui; cli.
ALLOWED = {
    "core": set(),  # widget-free, imports only itself
    "engine": {"core"},
    "pages": {"core"},  # widget-free HTML over core
    "check": {"core"},  # the properties of one stream
    "export": {"core", "check"},  # the pytest file of a finding
    "diagnosis": {"core", "check", "export"},  # evidence -> causes; needs the check, never the reverse
    "lanes": {"core", "check", "diagnosis"},  # other vLLM versions; its worker runs check and doctor there
    "capture": {"core", "engine", "check", "export", "diagnosis"},  # a server that differs is a diagnosis
    "rustfe": {"core", "check", "diagnosis", "lanes"},  # vllm-rs from a lane's wheel
    "runs": _MIDDLE - {"runs"} | {"engine"},  # where a RunSpec runs: here, a lane's vLLM, vllm-rs
    "corpus": _MIDDLE | {"engine", "pages"},  # it calls the core (prepare, check), never the command line
    "conformance": _MIDDLE | {"engine", "pages", "corpus"},  # cases and their cells, on the corpus's pool
    "ui": _MIDDLE | {"engine", "pages", "conformance"},
    "cli": _MIDDLE | {"engine", "pages", "corpus", "conformance", "ui"},  # the top: the command line may use every floor
}
# not packages: the public API (workbench/__init__.py), errors, and `python -m workbench`
TOP_LEVEL = {"", "errors", "__main__"}


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(name: str, path: Path) -> list[tuple[str, int, bool]]:
    """(imported name, line, only for type checking) for every import in the module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, typing_only)
            return
        if isinstance(node, ast.Import):
            found.extend((a.name, node.lineno, typing_only) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            found.extend((f"{base}.{a.name}", node.lineno, typing_only) for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child, typing_only)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


@functools.cache
def graph() -> dict[str, dict[str, tuple[int, bool]]]:
    """module -> {workbench module it imports: (first line, only for type checking)}."""
    mods = modules()
    out: dict[str, dict[str, tuple[int, bool]]] = {m: {} for m in mods}
    for name, path in mods.items():
        for target, line, typing_only in imports(name, path):
            while target and target not in mods:  # `from pkg.mod import func` -> pkg.mod
                target = target.rpartition(".")[0]
            if not target or target == name:
                continue
            seen = out[name].get(target)
            out[name][target] = (min(line, seen[0]) if seen else line, typing_only and (seen[1] if seen else True))
    return out


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def back_arrows(g: dict[str, dict[str, tuple[int, bool]]]) -> list[str]:
    bad = []
    for name, targets in g.items():
        mine = layer(name)
        if mine not in ALLOWED:
            continue
        for target, (line, _) in sorted(targets.items()):
            theirs = layer(target)
            if theirs not in ALLOWED[mine] | {mine, "errors"} | TOP_LEVEL - {""}:
                bad.append(f"{name} -> {target} ({modules()[name].relative_to(ROOT.parent)}:{line})")
    return bad


def test_the_scan_sees_the_workbench():
    g = graph()
    assert len(g) > 80 and "workbench.core.parsers" in g
    # one lazy import inside a function, one `from pkg import module` and one plain import are all seen
    assert "workbench.core.trust" in g["workbench.core.parsers"]
    assert "workbench.core.recording" in g["workbench.ui.recordings"]
    assert "workbench.core.env" in g["workbench.cli"]


def test_no_import_cycles():
    g = graph()
    runtime = {m: {t for t, (_, typing_only) in ts.items() if not typing_only} for m, ts in g.items()}
    found = cycles(runtime)
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def packages() -> set[str]:
    return {layer(m) for m in modules()} - TOP_LEVEL


def package_graph(g: dict[str, dict[str, tuple[int, bool]]]) -> dict[str, set[str]]:
    """package -> the other packages it imports (type-checking imports too)."""
    out: dict[str, set[str]] = {p: set() for p in packages()}
    for name, targets in g.items():
        mine = layer(name)
        if mine in out:
            out[mine] |= {layer(t) for t in targets if layer(t) in out and layer(t) != mine}
    return out


def test_every_pair_of_packages_has_a_rule():
    found = packages()
    assert found == set(ALLOWED), f"packages without a rule: {sorted(found - set(ALLOWED))}; " \
                                  f"rules for no package: {sorted(set(ALLOWED) - found)}"
    assert all(allowed <= found - {p} for p, allowed in ALLOWED.items())
    assert cycles(ALLOWED) == [], "the rules themselves loop"


@pytest.mark.parametrize("package, refused", [
    ("check", {"diagnosis", "export", "lanes", "rustfe", "capture", "runs"}),
    ("diagnosis", {"lanes", "rustfe", "capture", "runs"}),
    ("lanes", {"runs"}), ("rustfe", {"runs"}),
    ("core", packages() - {"core"}),
    ("engine", {"check", "lanes", "capture", "corpus", "ui", "cli"}),
    ("corpus", {"ui", "cli"}), ("ui", {"cli", "corpus"}),
])
def test_the_floors_refuse(package, refused):
    assert not ALLOWED[package] & refused


def test_no_package_cycles():
    found = cycles(package_graph(graph()))
    assert not found, "package cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_back_arrows():
    found = back_arrows(graph())
    assert not found, "imports against the layers:\n" + "\n".join(found)


@pytest.mark.parametrize("edges, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_cycle_finder_finds_a_planted_cycle(edges, expected):
    assert cycles(edges) == expected


def test_back_arrow_rule_catches_a_planted_one():
    planted = {"workbench.core.x": {"workbench.ui.y": (3, False), "workbench.errors": (4, False)},
               "workbench.lanes.z": {"workbench.cli": (5, True), "workbench.core.x": (6, False)},
               "workbench.ui.y": {"workbench.cli.common": (7, False)}}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(f"{__name__}.modules", lambda: {m: ROOT / "x.py" for m in planted})
        found = back_arrows(planted)
    assert [f.split(" (")[0] for f in found] == [
        "workbench.core.x -> workbench.ui.y", "workbench.lanes.z -> workbench.cli", "workbench.ui.y -> workbench.cli.common"]
