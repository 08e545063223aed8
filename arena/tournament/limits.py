"""Bounds on what one tournament request may ask for, checked before any costly work.

Every number of a request is bounded so that a valid request is cheap to validate and to run. A balanced design
needs a search whose cost grows with the field (256 bots at tables of 10: about 1.5 s), so the field is bounded
first (:data:`MAX_TABLE_PARTICIPANTS`) and an upper bound of the schedule's size is checked before the search runs.
:func:`quoted` keeps an error from echoing a huge input back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .design import blocks_needed

QUOTE_LIMIT = 100
"""Error messages quote at most this many characters of an input."""

MIN_DECISION_DEADLINE_MS = 10
MAX_DECISION_DEADLINE_MS = 60_000
MAX_TARGET = 5_000
"""A match target above ten times the default (500) makes matches needlessly long."""
MIN_DECISIONS_PER_ROUND = 10
MAX_DECISIONS_PER_ROUND = 10_000
MAX_DEALS = 1_000
MAX_PARTICIPANTS = 512
"""Participants of a 2-seat tournament (a round robin: no design search)."""
MAX_TABLE_PARTICIPANTS = 256
"""Participants of a tournament at tables of more than 2 seats: bounds the balanced design's search."""
MAX_MATCHES = 100_000


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` of at most ``limit`` characters of the value (with its length when cut)."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return repr(text) if isinstance(value, str) else text
    cut = repr(text[:limit]) if isinstance(value, str) else text[:limit]
    return f"{cut}... ({len(text)} characters)"


def _bounded(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {quoted(value)}")


def check_numbers(*, participants: int, seats: int, deals: int, decision_deadline_ms: int, rules: Mapping[str,
                                                                                                          Any]) -> None:
    """Bounds of the numbers of a request (``ValueError`` naming the first one out of bounds); cheap."""
    _bounded("participants", participants, 2, MAX_PARTICIPANTS)
    _bounded("seats_per_table", seats, 2, 10)
    if seats > 2 and participants > MAX_TABLE_PARTICIPANTS:
        raise ValueError(f"at tables of more than 2 seats, at most {MAX_TABLE_PARTICIPANTS} participants are "
                         f"allowed, got {participants}")
    _bounded("deals_per_table", deals, 1, MAX_DEALS)
    _bounded("decision_deadline_ms", decision_deadline_ms, MIN_DECISION_DEADLINE_MS, MAX_DECISION_DEADLINE_MS)
    if "target" in rules:
        _bounded("rules.target", int(rules["target"]), 1, MAX_TARGET)
    if "max_decisions_per_round" in rules:
        _bounded("rules.max_decisions_per_round", int(rules["max_decisions_per_round"]), MIN_DECISIONS_PER_ROUND,
                 MAX_DECISIONS_PER_ROUND)


def matches_upper_bound(n: int, k: int, deals: int, matches_per_deal: int, max_tables: int, pair_meetings: int) -> int:
    """An upper bound of the number of matches of a schedule, without building any design (exact for the
    complete design; for the balanced one, the largest number of base blocks the search may try)."""
    if k <= 2 or math.comb(n, k) <= max_tables:
        return math.comb(n, k) * deals * matches_per_deal
    m0 = blocks_needed(n, k, pair_meetings)
    step = max(1, math.ceil(0.03 * m0))
    return n * (m0 + 7 * step) * deals * matches_per_deal


def check_size(n: int, k: int, deals: int, matches_per_deal: int, max_tables: int, pair_meetings: int) -> None:
    """``ValueError`` when the schedule could exceed :data:`MAX_MATCHES` (checked before any design runs)."""
    bound = matches_upper_bound(n, k, deals, matches_per_deal, max_tables, pair_meetings)
    if bound > MAX_MATCHES:
        raise ValueError(f"the tournament would have up to {bound} matches; at most {MAX_MATCHES} are allowed")
