"""The optional compiled engine: the engine's hot modules compiled from the same source with mypyc.

``python -m arena.engine.build`` (or ``uno-arena engine compile``) builds C extension modules next to the ``.py``
files, which Python then imports instead; ``--remove`` deletes them. The pure-Python engine stays the default and the
reference. Nothing here runs while a match is played, and no engine module imports it; the build loads this module
on its own before the package is installed, so it needs only the standard library.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Mapping
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

# Every module a match runs on its hot path; the rest run once per match or never while one is played.
COMPILED_MODULES = ("cards", "actions", "events", "observation", "errors", "match")
# mypyc's shared library of the compiled modules (calls between them stay native), inside the package.
GROUP = "arena.engine._mypyc"

ENGINE_DIR = Path(__file__).resolve().parent

COMPILE_VARIABLE = "UNO_ARENA_COMPILE"  # ``UNO_ARENA_COMPILE=1 pip install .`` compiles the engine at install


def compile_requested(environ: Mapping[str, str]) -> bool:
    """Whether ``environ`` asks the build (``_backend/``) to compile the engine; ValueError for a value not 1 or 0."""
    value = environ.get(COMPILE_VARIABLE, "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(f"{COMPILE_VARIABLE}={value!r}: expected 1 (compile the engine with mypyc at install) or 0 "
                         "(the pure-Python engine, the default)")
    return value == "1"


def source_paths() -> list[str]:
    """The sources of :data:`COMPILED_MODULES`, relative to the checkout's root (what mypyc is given)."""
    return [f"arena/engine/{name}.py" for name in COMPILED_MODULES]


def build_problem() -> str | None:
    """Why the engine cannot be compiled here (a missing tool, named with the fix), or None when it can."""
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (it ships with mypy: pip install mypy)"
    if importlib.util.find_spec("setuptools") is None:
        return "setuptools is not installed (pip install setuptools)"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler: {compiler!r} is not on PATH (install gcc, e.g. apt-get install gcc)"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.exists():
        return f"no Python headers: {headers} is missing (install python3-dev)"
    return None


def compiled_files(engine_dir: Path = ENGINE_DIR) -> list[Path]:
    """The extension modules of a compiled engine in ``engine_dir`` (none for a pure one)."""
    return sorted(path for path in engine_dir.iterdir() if path.name.endswith(tuple(EXTENSION_SUFFIXES)))


def remove_compiled(engine_dir: Path = ENGINE_DIR) -> list[Path]:
    """Delete the compiled engine's extension modules: the sources are imported again. Returns what was deleted."""
    removed = compiled_files(engine_dir)
    for path in removed:
        path.unlink()
    return removed


def compile_engine(engine_dir: Path = ENGINE_DIR, verbose: bool = False) -> list[Path]:
    """Compile the engine beside its sources in a child process; RuntimeError with the compiler's output."""
    problem = build_problem()
    if problem is not None:
        raise RuntimeError(f"cannot compile the engine: {problem}")
    root = engine_dir.parent.parent
    remove_compiled(engine_dir)  # a stale extension of an older source must never shadow the new one
    with tempfile.TemporaryDirectory(prefix="uno-arena-mypyc-") as temp:
        script = _SETUP_SCRIPT.format(paths=source_paths(), group=GROUP, temp=temp)
        result = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True,
                                check=False)
    if verbose or result.returncode != 0:
        output = result.stdout + result.stderr
        if result.returncode != 0:
            raise RuntimeError(f"mypyc could not compile the engine (exit {result.returncode}):\n{output}")
        print(output, file=sys.stderr)
    return compiled_files(engine_dir)


_SETUP_SCRIPT = """
from setuptools import setup
from mypyc.build import mypycify

extensions = mypycify({paths!r}, group_name={group!r}, target_dir={temp!r} + "/c")
setup(name="uno-arena-engine", ext_modules=extensions, script_args=["-q", "build_ext", "--inplace", "--build-temp",
      {temp!r} + "/build", "--build-lib", {temp!r} + "/lib"])
"""


def run(*, remove: bool, verbose: bool) -> int:
    """`uno-arena engine compile`: compile the engine in place (or remove it), say what was done; 1 when it cannot."""
    if remove:
        removed = remove_compiled()
        print(f"removed {len(removed)} compiled module(s) from {ENGINE_DIR}: the pure-Python engine is loaded")
        return 0
    try:
        built = compile_engine(verbose=verbose)
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"compiled {', '.join(COMPILED_MODULES)} into {len(built)} extension module(s) in {ENGINE_DIR}; "
          "`uno-arena --version` names the engine loaded")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.engine.build", description=__doc__.splitlines()[0])
    parser.add_argument("--remove", action="store_true", help="delete the compiled modules: back to the pure engine")
    parser.add_argument("--verbose", action="store_true", help="show mypyc's and the compiler's output")
    args = parser.parse_args(argv)
    return run(remove=args.remove, verbose=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
