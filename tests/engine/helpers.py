"""Shared helpers for engine tests: random legal play and a snapshot of everything an action could change."""

from __future__ import annotations

import random
from typing import Any

from arena.engine import Match


def card_count(match: Match) -> int:
    """Cards in hands, draw pile and discard pile together (D5 conservation)."""
    return sum(len(hand) for hand in match.hands) + len(match.draw) + len(match.discard)


def snapshot(match: Match) -> tuple[Any, ...]:
    return match.snapshot()


def play_random(match: Match, rng: random.Random, max_decisions: int = 100_000, rounds: bool = True) -> int:
    """Random legal play until the match (or, with rounds=False, the round) is over; returns decisions."""
    decisions = 0
    while decisions < max_decisions:
        if match.decision == "match_over":
            break
        if match.decision == "round_over":
            if not rounds:
                break
            match.next_round()
            continue
        legal = match.legal_actions()
        match.apply(match.current, legal[rng.randrange(len(legal))])
        decisions += 1
    return decisions
