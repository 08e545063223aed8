"""The engine's error type: an illegal action, with the RULES.md id it breaks."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the rules refuse. `rule` is the RULES.md id; the message says why. State is unchanged."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{rule}: {reason}")
        self.rule = rule
        self.reason = reason
