"""The package's import graph has no circle, type-only and function-level imports included.

``lint-imports`` checks the layers the design states; this walks every import statement of
every module (at module level, under ``if TYPE_CHECKING:`` and inside functions alike) and
fails on any circle, so two modules that need each other cannot hide behind a lazy import.
A package's ``__init__`` counts as a module: ``import docsapi`` from inside the package
depends on it like any other import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "docsapi"


def _modules() -> dict[str, Path]:
    modules = {}
    for file in PACKAGE.rglob("*.py"):
        parts = list(file.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = file
    return modules


def _imports(name: str, file: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports (the nearest module of each dotted name)."""
    package = name if file.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(dotted: str) -> None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        if dotted and dotted != name:
            found.add(dotted)

    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                # `from pkg import sub` imports the module pkg.sub; `from mod import name`, mod.
                add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {target for target in found if target.startswith("docsapi")}


def graph() -> dict[str, set[str]]:
    """Module name → the package's modules it imports."""
    modules = _modules()
    return {name: _imports(name, file, modules) for name, file in modules.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_the_finder_sees_a_circle():
    """A circle through a lazy import is found (the check can fail)."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(edges) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_every_kind_of_import():
    """Type-only and function-level imports are edges too."""
    edges = graph()
    # docsapi/__init__ imports DocsClient under TYPE_CHECKING; the facade imports the
    # report inside a method.
    assert "docsapi.client" in edges["docsapi"]
    assert "docsapi.audit.report.html" in edges["docsapi.audit.facade"]


def test_docsapi_has_no_import_circle():
    found = circles(graph())
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize("module", ["docsapi.audit.facade"])
def test_no_step_below_the_facade_imports_it(module):
    """The audit's steps and outputs never import PermissionAudit's module."""
    importers = sorted(name for name, targets in graph().items() if module in targets)
    assert importers == ["docsapi.audit"], importers


def test_the_top_level_stays_small():
    """At most 12 modules directly in docsapi/: the folders show the layers."""
    top = sorted(file.name for file in PACKAGE.glob("*.py"))
    assert len(top) <= 12, top
