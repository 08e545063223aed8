"""The package's build backend: setuptools' own, plus the compiled engine when the install asks for it.

``UNO_ARENA_COMPILE=1 pip install .`` (or ``pip install -e .``) builds the engine's hot modules with mypyc into C
extension modules inside the package (``setup.py`` gives setuptools :func:`engine_extensions`), and this backend
adds mypy (which ships mypyc) to the build's requirements so that pip installs it into the isolated build
environment. Without the switch every hook is setuptools' unchanged: the default install needs no compiler and
builds the same pure-Python wheel as before. The switch's name, its values and the modules compiled are
``arena/engine/build.py``'s (loaded here from its file: nothing of the package is installed while it builds).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from setuptools import build_meta as _setuptools

# setuptools' hooks, unchanged: setup.py gives them the extensions when the build asks for them.
build_wheel = _setuptools.build_wheel
build_editable = _setuptools.build_editable
build_sdist = _setuptools.build_sdist
get_requires_for_build_sdist = _setuptools.get_requires_for_build_sdist

ROOT = Path(__file__).resolve().parent.parent
MYPYC_REQUIREMENT = "mypy>=1.11"
"""What the build installs to compile the engine (mypyc ships with mypy)."""


def engine_build() -> ModuleType:
    """``arena/engine/build.py`` as a module of its own (it needs only the standard library)."""
    spec = importlib.util.spec_from_file_location("uno_arena_engine_build", ROOT / "arena" / "engine" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_requested() -> bool:
    """Whether this build compiles the engine (``UNO_ARENA_COMPILE=1``); SystemExit with one line for a bad value."""
    try:
        return bool(engine_build().compile_requested(os.environ))
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None


_metadata_only = False
"""True while a hook runs ``setup.py`` for the build's requirements or metadata only (before pip has installed mypy
into the build environment): no extension is wanted then."""


def engine_extensions() -> list[Any]:
    """The compiled engine's extension modules for setuptools (none unless the build asks for them, nor while only
    the requirements or the metadata are asked for); SystemExit naming what is missing (mypyc, a C compiler, the
    Python headers) when they cannot be built."""
    if _metadata_only or not compile_requested():
        return []
    build = engine_build()
    problem = build.build_problem()
    if problem is not None:
        raise SystemExit(f"error: {build.COMPILE_VARIABLE}=1 but the engine cannot be compiled here: {problem}")
    from mypyc.build import mypycify

    return list(mypycify(build.source_paths(), group_name=build.GROUP))


def _compiling() -> list[str]:
    return [MYPYC_REQUIREMENT] if compile_requested() else []


def _without_extensions(hook: Callable[..., Any], *args: Any) -> Any:
    """setuptools' ``hook`` run with :func:`engine_extensions` giving none (the hook only reads the metadata)."""
    global _metadata_only
    _metadata_only = True
    try:
        return hook(*args)
    finally:
        _metadata_only = False


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return [*_without_extensions(_setuptools.get_requires_for_build_wheel, config_settings), *_compiling()]


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    return [*_without_extensions(_setuptools.get_requires_for_build_editable, config_settings), *_compiling()]


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    return str(_without_extensions(_setuptools.prepare_metadata_for_build_wheel, metadata_directory, config_settings))


def prepare_metadata_for_build_editable(metadata_directory: str,
                                        config_settings: dict[str, Any] | None = None) -> str:
    return str(_without_extensions(_setuptools.prepare_metadata_for_build_editable, metadata_directory,
                                   config_settings))
