"""arena.tournament stays pure: no I/O, clock, randomness or process state in its imports."""

from __future__ import annotations

import ast
from pathlib import Path

import arena.tournament

FORBIDDEN = {
    "os",
    "sys",
    "time",
    "datetime",
    "random",
    "socket",
    "subprocess",
    "threading",
    "asyncio",
    "pathlib",
    "shutil",
    "tempfile",
    "logging",
    "uuid",
    "redis",
    "celery",
    "grpc",
}


# The cron parser computes on the datetimes it is given (and reads time zones from the IANA database, which
# is data, not state); it never asks the clock, checked below.
ALLOWED_IN = {"cron.py": {"datetime"}}


def test_no_impure_imports() -> None:
    package = Path(arena.tournament.__file__).resolve().parent
    files = sorted(package.glob("*.py"))
    assert files
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{path.name} has no module docstring"
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                forbidden = FORBIDDEN - ALLOWED_IN.get(path.name, set())
                assert name.split(".")[0] not in forbidden, f"{path.name} imports {name}"
            if isinstance(node, ast.Attribute):
                assert node.attr not in ("now", "utcnow", "today"), f"{path.name} reads the clock"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"open", "print", "input", "hash"}, (
                    f"{path.name} calls {node.func.id}()"
                )
            if isinstance(node, ast.Global):
                raise AssertionError(f"{path.name} uses global state")
