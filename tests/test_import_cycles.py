"""No two modules of the project's packages import each other, directly or round a loop.

The graph is read from the source with ``ast``, so it also sees imports made inside functions:
a lazy import hides a cycle from the interpreter, not from a reader. Imports made only for the
type checker (under ``if TYPE_CHECKING:``) are left out, since they never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# compactcheck's subpackages invariants, strategies and reference_engine are symlinks to root
# folders, which rglob does not follow from compactcheck/: each is walked from its own link.
PACKAGES = (
    "compactcheck",
    "compactcheck.invariants",
    "compactcheck.strategies",
    "compactcheck.reference_engine",
)

# Cycles that were there before this test and that other work will remove: each entry is the
# set of modules of one cycle. The test fails on any cycle not listed here, and on a listed one
# that has gone (so that its entry is removed with it). Empty this list; do not grow it.
KNOWN_CYCLES: list[frozenset[str]] = []


def _module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(root: Path, packages: Sequence[str]) -> dict[str, Path]:
    return {
        _module_name(root, path): path
        for package in packages
        for path in sorted((root / package.replace(".", "/")).rglob("*.py"))
    }


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of a module, at any depth, except the type checker's own."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from _imports(child)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        else:
            yield from _imports(node)


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _targets(node: ast.Import | ast.ImportFrom, module: str, path: Path) -> list[str]:
    """The modules one import statement depends on.

    ``from pkg import sub`` where sub is a module depends on sub, not on pkg: pkg's own imports
    are pkg's edges, and counting them here would make every package that re-exports a
    submodule look cyclic with it. A name that is not a module is read from pkg itself.
    """
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = _package_of(module, path).split(".")
        anchor = ".".join(package[: len(package) - node.level + 1])
        base = f"{anchor}.{base}" if base else anchor
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def import_graph(root: Path = ROOT, packages: Sequence[str] = PACKAGES) -> dict[str, set[str]]:
    """Each module of the packages, and the modules of the packages it imports."""
    modules = _modules(root, packages)
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        edges: set[str] = set()
        for node in _imports(tree):
            base, *named = _targets(node, module, path)
            if isinstance(node, ast.Import):
                wanted = [base, *named]
            else:
                submodules = [name for name in named if name in modules]
                wanted = submodules if len(submodules) == len(named) else [base, *submodules]
            edges.update(name for name in wanted if name in modules and name != module)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _describe(component: frozenset[str], graph: dict[str, set[str]]) -> str:
    edges = sorted(
        f"{source} -> {target}"
        for source in component
        for target in graph[source]
        if target in component
    )
    return f"{{{', '.join(sorted(component))}}}: {'; '.join(edges)}"


def test_no_import_cycle() -> None:
    graph = import_graph()
    found = cycles(graph)
    new = [component for component in found if component not in KNOWN_CYCLES]
    assert not new, "import cycle(s) between modules: " + " | ".join(
        _describe(component, graph) for component in new
    )
    gone = [component for component in KNOWN_CYCLES if component not in found]
    assert not gone, "KNOWN_CYCLES lists cycles that no longer exist; remove them: " + " | ".join(
        ", ".join(sorted(component)) for component in gone
    )


def test_the_graph_reads_lazy_imports_submodules_and_skips_the_type_checkers(
    tmp_path: Path,
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg import a\nfrom pkg.b import NAME\n")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from pkg import c\n"
        "def later() -> None:\n"
        "    from . import b\n"
    )
    (package / "b.py").write_text("import pkg.c\nNAME = 1\n")
    (package / "c.py").write_text("from pkg import NAME, a\n")
    graph = import_graph(tmp_path, ["pkg"])
    assert graph == {
        "pkg": {"pkg.a", "pkg.b"},
        "pkg.a": {"pkg.b"},
        "pkg.b": {"pkg.c"},
        "pkg.c": {"pkg", "pkg.a"},
    }
    assert cycles(graph) == [frozenset({"pkg", "pkg.a", "pkg.b", "pkg.c"})]


def test_the_graph_reads_every_package() -> None:
    graph = import_graph()
    assert {".".join(module.split(".")[:2]) for module in graph} >= set(PACKAGES)


def test_cycles_finds_a_loop_of_three_and_ignores_a_chain() -> None:
    loop = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(loop) == [frozenset({"a", "b", "c"})]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
