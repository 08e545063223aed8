"""The UNO Flip / classic UNO rules engine: pure, deterministic, no I/O (RULES.md is its contract)."""

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
from .events import Event, event_for_seat
from .match import DECISIONS, Match
from .observation import Observation, OpponentView
from .rules import RULE_CHOICES, Pairing, Rules, Scoring, StartFlip, UnoPenalty, Variant

__all__ = [
    "ACTION_KINDS",
    "ALL_COLORS",
    "DARK_COLORS",
    "DECISIONS",
    "LIGHT_COLORS",
    "RULE_CHOICES",
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
    "event_for_seat",
    "parse_action",
    "parse_card",
    "parse_face",
    "physical_flip_deck",
]
