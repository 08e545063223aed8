"""Which build of the engine a process imports: the compiled extension modules where they are built, or the Python
sources when ``UNO_ARENA_ENGINE=pure`` asks for them (see :mod:`arena.engine.build`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import EXTENSION_SUFFIXES, SOURCE_SUFFIXES, FileFinder, ModuleSpec, SourceFileLoader
from types import ModuleType

ENGINE_VARIABLE = "UNO_ARENA_ENGINE"  # ``pure``: load the engine's Python sources even where it is compiled


class _SourcesFirst(MetaPathFinder):
    """Finds the modules of one package in its ``.py`` files only, ahead of the extension modules beside them."""

    def __init__(self, package: str, directory: str) -> None:
        self.package = package
        self.finder = FileFinder(directory, (SourceFileLoader, SOURCE_SUFFIXES))

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname.rpartition(".")[0] != self.package:
            return None
        return self.finder.find_spec(fullname)


def prefer_sources(package: str, path: Sequence[str]) -> None:
    """From now on, import ``package``'s modules from their ``.py`` files."""
    if not any(isinstance(finder, _SourcesFirst) and finder.package == package for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourcesFirst(package, path[0]))


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from an extension module (compiled) rather than its source."""
    return (module.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))
