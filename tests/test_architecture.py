"""The layout's promises that import-linter's contracts do not cover: no module imports another in a cycle
(function-level imports included), and every package of the arena has a docstring saying what it is for."""

from __future__ import annotations

import ast
import importlib
import pathlib

import grimp

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root) & modules)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child) & modules))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
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
    return found


def test_no_module_imports_another_in_a_cycle() -> None:
    graph = grimp.build_graph("arena", "workers", "bots", exclude_type_checking_imports=True)
    modules = {m for m in graph.modules if not m.startswith("arena.protocol._gen")}
    assert len(modules) > 50
    assert _cycles(graph, modules) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(name)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert _cycles(graph, {"pkg.a", "pkg.b", "pkg.c"}) == [["pkg.a", "pkg.b"]]


def test_every_module_says_what_it_is_for() -> None:
    missing = []
    for folder in ("arena", "workers", "bots"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "_gen" in path.parts:
                continue
            if ast.get_docstring(ast.parse(path.read_text())) is None and path.stat().st_size > 0:
                missing.append(str(path.relative_to(ROOT)))
    assert missing == []


def test_the_service_is_imported_at_module_top_by_the_organizer_and_the_tasks() -> None:
    for name in ("arena.server.organizer", "workers.tasks"):
        module = importlib.import_module(name)
        tree = ast.parse(pathlib.Path(str(module.__file__)).read_text())
        late = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.col_offset > 0
                and (node.module or "").startswith(("arena.service", "arena.store"))]
        assert late == [], f"{name} imports {late} inside functions"
