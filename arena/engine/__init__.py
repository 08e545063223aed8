"""The UNO Flip / classic UNO rules engine: pure, deterministic, no I/O (RULES.md is its contract).

The same source may run compiled (mypyc, :mod:`arena.engine.build`): :data:`COMPILED` says which engine this process
loaded, and ``UNO_ARENA_ENGINE=pure`` in the environment loads the Python sources even where a compiled engine is
built (the reference, and how the engine benchmark measures both: docs/benchmarks.md).
"""

import os as _os

from ._loading import ENGINE_VARIABLE, is_compiled, prefer_sources

if _os.environ.get(ENGINE_VARIABLE, "") not in ("", "pure"):
    raise ImportError(f"{ENGINE_VARIABLE}={_os.environ[ENGINE_VARIABLE]!r}: expected 'pure' or nothing "
                      "(unset it to load the compiled engine where one is built)")
if _os.environ.get(ENGINE_VARIABLE) == "pure":
    prefer_sources(__name__, __path__)

from . import match as _match
from .actions import ACTION_KINDS, Action, parse_action
from .cards import (
    ALL_COLORS,
    DARK_COLORS,
    LIGHT_COLORS,
    Card,
    Face,
    classic_deck,
    parse_card,
    parse_face,
    physical_flip_deck,
)
from .errors import IllegalAction
from .events import Event
from .match import DECISIONS, Match
from .observation import Observation, OpponentView
from .rules import Pairing, Rules, Scoring, StartFlip, UnoPenalty, Variant

COMPILED: bool = is_compiled(_match)  # whether this process runs the compiled engine (mypyc) or the sources

__all__ = [
    "ACTION_KINDS",
    "ALL_COLORS",
    "COMPILED",
    "DARK_COLORS",
    "DECISIONS",
    "ENGINE_VARIABLE",
    "LIGHT_COLORS",
    "Action",
    "Card",
    "Event",
    "Face",
    "IllegalAction",
    "Match",
    "Observation",
    "OpponentView",
    "Pairing",
    "Rules",
    "Scoring",
    "StartFlip",
    "UnoPenalty",
    "Variant",
    "classic_deck",
    "parse_action",
    "parse_card",
    "parse_face",
    "physical_flip_deck",
]
