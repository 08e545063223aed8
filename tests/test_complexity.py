"""Every function of the arena, its workers, its bots and its benchmarks stays under radon's cyclomatic complexity 20
(issue 20: small functions with one job each), except the engine's per-decision core, named below."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

from radon.complexity import cc_visit
from radon.visitors import Function

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "workers", "bots", "benchmarks", "tools")
SKIPPED = ("arena/protocol/_gen",)
"""Generated code (protoc's output), not written here."""
LIMIT = 20

ALLOWED = {
    # The engine's per-decision core, on the hot path of every decision of every match: splitting them into helper
    # calls costs measurable time (`python -m benchmarks engine`), so they stay whole.
    ("arena/engine/match.py", "Match.legal_actions"),
    ("arena/engine/match.py", "Match.observation"),
}


def _modules() -> Iterator[pathlib.Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if not relative.startswith(SKIPPED):
                yield path


def _functions(blocks: list[Function]) -> Iterator[Function]:
    """Every function, method and closure among radon's blocks (classes stand for their methods)."""
    for block in blocks:
        if isinstance(block, Function):
            yield block
            yield from _functions(block.closures)
        else:
            yield from _functions(block.methods)
            yield from _functions(block.inner_classes)


def _complexities() -> dict[tuple[str, str], int]:
    found: dict[tuple[str, str], int] = {}
    for path in _modules():
        relative = path.relative_to(ROOT).as_posix()
        for function in _functions(cc_visit(path.read_text(encoding="utf-8"))):
            key = (relative, function.fullname)
            found[key] = max(found.get(key, 0), function.complexity)
    return found


def test_every_function_is_under_the_complexity_limit() -> None:
    complexities = _complexities()
    assert len(complexities) > 1000  # the walk found the code
    too_complex = sorted(f"{path}:{name} ({complexity})" for (path, name), complexity in complexities.items()
                         if complexity > LIMIT and (path, name) not in ALLOWED)
    assert not too_complex, f"cyclomatic complexity above {LIMIT}; split into named steps: {', '.join(too_complex)}"


def test_the_allowed_exceptions_still_need_to_be() -> None:
    """The allowlist names only functions that exist and are still above the limit."""
    complexities = _complexities()
    stale = sorted(f"{path}:{name}" for path, name in ALLOWED if complexities.get((path, name), 0) <= LIMIT)
    assert not stale, f"remove from ALLOWED (gone, renamed or now under {LIMIT}): {', '.join(stale)}"
