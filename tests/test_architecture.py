"""The layout's promises that import-linter's contracts do not cover: no module imports another in a cycle and no
package another (function-level and type-only imports included), every module sits in a layer of the layers
contract, and every module of the arena has a docstring saying what it is for."""

from __future__ import annotations

import ast
import importlib
import pathlib
import re
import tomllib
from typing import Any

import grimp

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "workers", "bots")


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert config["exclude_type_checking_imports"] is False  # a type-only import is a dependency too
    contracts: list[dict[str, Any]] = config["contracts"]
    return contracts


def _graph() -> grimp.ImportGraph:
    """Every import of the project's modules, type-only ones included, less the edges the acyclic contract
    ignores (each with its reason in pyproject.toml)."""
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=False)
    for contract in _contracts():
        if contract["type"] == "acyclic_siblings":
            for edge in contract.get("ignore_imports", []):
                importer, imported = (part.strip() for part in edge.split("->"))
                assert graph.direct_import_exists(importer=importer, imported=imported), f"stale ignore: {edge}"
                graph.remove_import(importer=importer, imported=imported)
    return graph


def _modules(graph: grimp.ImportGraph) -> set[str]:
    return {m for m in graph.modules if not m.startswith("arena.protocol._gen")}


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


def _component(module: str) -> str:
    """The package a module counts in for package cycles: ``arena.X`` (a package or a module of the arena),
    ``workers``, ``bots``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "arena" and len(parts) > 1 else parts[0]


def _package_graph(graph: grimp.ImportGraph, modules: set[str]) -> grimp.ImportGraph:
    packages = grimp.ImportGraph()
    for module in modules:
        packages.add_module(_component(module))
    for module in modules:
        for imported in graph.find_modules_directly_imported_by(module) & modules:
            if _component(module) != _component(imported):
                packages.add_import(importer=_component(module), imported=_component(imported))
    return packages


def test_no_module_imports_another_in_a_cycle() -> None:
    graph = _graph()
    modules = _modules(graph)
    assert len(modules) > 50
    assert _cycles(graph, modules) == []


def test_no_package_imports_another_in_a_cycle() -> None:
    """Between the arena's packages, the workers and the built-in bots (``arena.runner`` -> ``bots`` ->
    ``arena.runner`` was one), type-only and function-level imports included."""
    graph = _graph()
    modules = {m for m in _modules(graph) if m != "arena"}
    packages = _package_graph(graph, modules)
    assert {"arena.engine", "arena.players", "arena.runner", "bots", "workers"} <= packages.modules
    assert _cycles(packages, set(packages.modules)) == []


def test_the_package_cycle_finder_finds_a_cycle_through_modules() -> None:
    graph = grimp.ImportGraph()
    for name in ("arena.runner.seats", "bots.kit", "arena.engine.match"):
        graph.add_module(name)
    graph.add_import(importer="arena.runner.seats", imported="bots.kit")
    graph.add_import(importer="bots.kit", imported="arena.runner.seats")
    graph.add_import(importer="bots.kit", imported="arena.engine.match")
    packages = _package_graph(graph, set(graph.modules))
    assert _cycles(packages, set(packages.modules)) == [["arena.runner", "bots"]]


def _layers() -> list[str]:
    (contract,) = [c for c in _contracts() if c["type"] == "layers"]
    return [name.strip() for layer in contract["layers"] for name in re.split(r"[|:]", layer)]


def test_every_module_sits_in_a_layer() -> None:
    """Each module of arena/, workers/ and bots/ is a layer of the layers contract or inside one (the root
    ``arena`` package holds only the version)."""
    layers = _layers()
    modules = _modules(grimp.build_graph(*PACKAGES)) - {"arena"}
    assert len(modules) > 50
    outside = sorted(m for m in modules if not any(m == layer or m.startswith(layer + ".") for layer in layers))
    assert outside == []
    assert len(layers) == len(set(layers))


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
