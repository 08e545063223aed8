"""setuptools' build script. pyproject.toml describes the package; this only adds the compiled engine's extension
modules when the install asks for them (``UNO_ARENA_COMPILE=1 pip install .``: ``_backend/uno_arena_backend.py``)."""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent / "_backend"))
from uno_arena_backend import engine_extensions

setup(ext_modules=engine_extensions())
