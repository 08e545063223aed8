"""The engine's error type: an illegal action, with the id of the rule it breaks and a link to that rule (each id an
anchor in `docs/rules.md`).
"""

from __future__ import annotations

import re

RULES_REFERENCE = "docs/rules.md"  # relative to the repository root

_RULE_ID = re.compile(r"[A-Z][0-9]{1,2}")


def rule_link(rule_id: str) -> str:
    """Where a rule is explained: ``rule_link("A7") == "docs/rules.md#A7"``; ValueError for a malformed id."""
    if not isinstance(rule_id, str) or not _RULE_ID.fullmatch(rule_id):
        raise ValueError(f"malformed rule id {rule_id!r}: expected a capital letter and a number, such as 'A7'")
    return f"{RULES_REFERENCE}#{rule_id}"


class IllegalAction(ValueError):
    """An action the rules refuse. `rule` is the rule's id; the message says why and where the rule is explained
    (``"T1: seat 3 does not hold red-9/purple-5 (see docs/rules.md#T1)"``). State is unchanged."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{rule}: {reason} (see {rule_link(rule)})")
        self.rule = rule
        self.reason = reason
