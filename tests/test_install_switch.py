"""The install-time switch for the compiled engine (`UNO_ARENA_COMPILE=1 pip install .`): the project's build
backend (_backend/uno_arena_backend.py) asks for mypy and setup.py gets the engine's extension modules only when the
switch is on; without it the build is setuptools' own, pure Python. (The real compiled install, which takes minutes,
is measured by hand: docs/getting-started.md.)"""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from arena.engine import build

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def backend() -> ModuleType:
    spec = importlib.util.spec_from_file_location("uno_arena_backend_under_test",
                                                  ROOT / "_backend" / "uno_arena_backend.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pyproject_builds_through_the_backend() -> None:
    system = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    assert system["build-backend"] == "uno_arena_backend" and system["backend-path"] == ["_backend"]
    assert not any("mypy" in requirement for requirement in system["requires"]), "the default build needs no mypy"


def test_the_switch_reads_one_and_zero_and_names_anything_else() -> None:
    assert not build.compile_requested({})
    assert not build.compile_requested({build.COMPILE_VARIABLE: "0"})
    assert build.compile_requested({build.COMPILE_VARIABLE: "1"})
    with pytest.raises(ValueError, match="UNO_ARENA_COMPILE='yes': expected 1"):
        build.compile_requested({build.COMPILE_VARIABLE: "yes"})
    assert all((ROOT / path).is_file() for path in build.source_paths())


def test_without_the_switch_nothing_is_compiled(backend: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(build.COMPILE_VARIABLE, raising=False)
    assert backend._compiling() == []
    assert backend.engine_extensions() == []


def test_with_the_switch_the_build_asks_for_mypyc(backend: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(build.COMPILE_VARIABLE, "1")
    assert backend._compiling() == [backend.MYPYC_REQUIREMENT]
    # While setuptools only reads the requirements or the metadata, no extension is built (mypy is not there yet).
    assert backend._without_extensions(backend.engine_extensions) == []
    monkeypatch.setenv(build.COMPILE_VARIABLE, "yes")
    with pytest.raises(SystemExit, match="UNO_ARENA_COMPILE='yes'"):
        backend.engine_extensions()
