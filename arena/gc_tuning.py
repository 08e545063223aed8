"""Garbage-collector settings of the arena's long-running processes: a process with many matches in flight holds
hundreds of thousands of long-lived objects, which every *full* collection walks, a pause each bot's deadline pays
(docs/architecture.md, Garbage collector). ``$UNO_ARENA_GC``: ``default`` keeps CPython's settings, ``G0,G1,G2``
sets others.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Mapping

GC_ENV = "UNO_ARENA_GC"
THRESHOLDS = (2_000, 10, 200)
"""Young generation, middle generation (in young collections), full collections (in middle collections)."""


def gc_thresholds(environ: Mapping[str, str]) -> tuple[int, int, int] | None:
    """The thresholds ``$UNO_ARENA_GC`` asks for (:data:`THRESHOLDS` when unset), or None for ``default``.
    A malformed value is a ValueError naming it."""
    text = environ.get(GC_ENV, "").strip()
    if not text:
        return THRESHOLDS
    if text == "default":
        return None
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 3 or not all(part.isdigit() for part in parts) or int(parts[0]) < 1:
        raise ValueError(f"{GC_ENV}={text!r}: expected 'default' or three whole numbers G0,G1,G2 with G0 >= 1, "
                         f"e.g. {','.join(map(str, THRESHOLDS))}")
    return int(parts[0]), int(parts[1]), int(parts[2])


def configure_gc(environ: Mapping[str, str] | None = None) -> tuple[int, int, int]:
    """Freeze the objects alive now and set the thresholds of :func:`gc_thresholds`; returns those in force.
    Call it once start-up is done, at the start of a long-running command and in each forked worker child."""
    wanted = gc_thresholds(os.environ if environ is None else environ)
    if wanted is not None:
        gc.freeze()
        gc.set_threshold(*wanted)
    return gc.get_threshold()
