"""Shared builders for the tournament tests (synthetic results from a hidden strength model)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from arena.tournament import MatchResult, MatchSpec


def play(matches: Sequence[MatchSpec], strength: Mapping[str, float], seed: int = 0) -> list[MatchResult]:
    """A result for every match: the winner is drawn with probability proportional to strength."""
    rng = random.Random(seed)
    results = []
    for m in matches:
        weights = [strength[b] for b in m.seats]
        winner = rng.choices(range(len(m.seats)), weights=weights)[0]
        scores = [rng.randint(0, 300) for _ in m.seats]
        scores[winner] = 500 + rng.randint(0, 80)
        results.append(
            MatchResult(
                match_id=m.match_id,
                seats=m.seats,
                scores=tuple(scores),
                winner=winner,
                rounds=rng.randint(1, 8),
                group=m.group,
            )
        )
    return results
