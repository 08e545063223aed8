"""Garbage-collector settings of the arena's long-running processes (gateway, workers, benchmarks, bots).

CPython's default thresholds (700, 10, 10) suit short scripts. A process that plays many matches at once keeps
every match's event log and actions alive for the match's whole life (hundreds of thousands of objects), and
each of CPython's *full* collections walks all of them, while a young collection walks only what is new. With
the defaults a full collection comes about whenever a quarter of the heap has been replaced; measured with 64
matches in flight in one process (docs/benchmarks.md, gateway): 23 full collections in 22 s took 8.9 s of the
event loop, up to 0.84 s each, a pause that every bot's decision deadline pays as well as a third of the
throughput. :data:`THRESHOLDS` keep the young collections short (a few milliseconds) and let a full collection
come only after 200 collections of the middle generation (in the same bench: once in 40 s, still a 0.35 s pause
there, against 35 with the defaults); :func:`configure_gc` also freezes what start-up made (modules, classes),
which no collection need ever walk again. Cycles are still collected; objects without cycles, nearly all of a
match, are freed by reference counting as always.

``$UNO_ARENA_GC`` overrides: ``default`` keeps CPython's settings, three integers ``G0,G1,G2`` set others.
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
    current: tuple[int, int, int] = gc.get_threshold()
    return current
