"""The rule options of a match (RULES.md options: bluffing, uno_penalty, target, scoring, start_flip, ...)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

_CHOICES = {
    "variant": ("flip", "classic"),
    "uno_penalty": ("auto", "catch"),
    "scoring": ("winner", "lowest"),
    "start_flip": ("replace", "flip"),
    "pairing": ("physical", "shuffled"),
}


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of RULES.md with its default; invalid values raise ValueError at construction."""

    variant: str = "flip"
    bluffing: bool = True
    uno_penalty: str = "auto"
    target: int = 500
    scoring: str = "winner"
    start_flip: str = "replace"
    pairing: str = "physical"
    max_decisions_per_round: int = 10_000
    stacking: bool = False

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"rule option {name}={value!r} is not one of {', '.join(allowed)}")
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
