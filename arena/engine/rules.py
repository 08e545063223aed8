"""The rule options of a match (RULES.md options: bluffing, uno_penalty, target, scoring, start_flip, ...)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import StrEnum
from typing import Any


class Variant(StrEnum):
    """D1-D5, C1-C5: UNO Flip or classic UNO."""

    FLIP = "flip"
    CLASSIC = "classic"


class UnoPenalty(StrEnum):
    """U1: the two-card penalty of a missed UNO call is applied at once, or only when another seat catches it."""

    AUTO = "auto"
    CATCH = "catch"


class Scoring(StrEnum):
    """E2, E5: the round's winner scores the others' cards, or every seat scores its own and the lowest wins."""

    WINNER = "winner"
    LOWEST = "lowest"


class StartFlip(StrEnum):
    """S4: a Flip card turned up to start is replaced, or flips the deck."""

    REPLACE = "replace"
    FLIP = "flip"


class Pairing(StrEnum):
    """D5: the light and dark faces as the physical deck pairs them, or shuffled pairs."""

    PHYSICAL = "physical"
    SHUFFLED = "shuffled"


# The rule options that take one of a few words, by name: their enums (argparse choices and proto enums derive them).
RULE_CHOICES: dict[str, type[StrEnum]] = {
    "variant": Variant, "uno_penalty": UnoPenalty, "scoring": Scoring, "start_flip": StartFlip, "pairing": Pairing,
}


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of RULES.md with its default; invalid values raise ValueError at construction."""

    variant: Variant = Variant.FLIP
    bluffing: bool = True
    uno_penalty: UnoPenalty = UnoPenalty.AUTO
    target: int = 500
    scoring: Scoring = Scoring.WINNER
    start_flip: StartFlip = StartFlip.REPLACE
    pairing: Pairing = Pairing.PHYSICAL
    max_decisions_per_round: int = 10_000
    stacking: bool = False

    def __post_init__(self) -> None:
        for name, choices in RULE_CHOICES.items():
            value = getattr(self, name)
            try:
                object.__setattr__(self, name, choices(value))  # a plain word becomes its enum member
            except ValueError:
                raise ValueError(f"rule option {name}={value!r} is not one of "
                                 f"{', '.join(choices.__members__.values())}") from None
        for name in ("bluffing", "stacking"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"rule option {name} must be true or false, got {getattr(self, name)!r}")
        for name in ("target", "max_decisions_per_round"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"rule option {name} must be a positive integer, got {value!r}")
        if self.stacking:
            raise ValueError("rule option stacking=true is a house rule this arena does not play (T7)")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown rule option(s): {', '.join(unknown)}")
        return cls(**data)
