"""Shared builders for the tournament tests (synthetic results from a hidden strength model)."""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.tournament import MatchResult, MatchSpec, dedupe


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


def pair_spread(n: int, tables: Sequence[Sequence[int]]) -> tuple[int, int]:
    """(min, max) number of tables shared by a pair of ``range(n)`` over ``tables``."""
    counts: dict[tuple[int, int], int] = dict.fromkeys(itertools.combinations(range(n), 2), 0)
    for table in tables:
        for a, b in itertools.combinations(sorted(table), 2):
            counts[(a, b)] += 1
    return min(counts.values()), max(counts.values())


@dataclass(frozen=True)
class DealGroup:
    """The matches of one deal group added up per bot."""

    group: str
    matches: int
    bots: tuple[str, ...]
    wins: Mapping[str, int]


def deal_groups(results: Iterable[MatchResult]) -> list[DealGroup]:
    """Results added up per deal group (sorted by group id)."""
    acc: dict[str, list[MatchResult]] = defaultdict(list)
    for r in dedupe(results):
        acc[r.deal_group].append(r)
    out: list[DealGroup] = []
    for group in sorted(acc):
        items = acc[group]
        bots = sorted({b for r in items for b in r.seats})
        wins = dict.fromkeys(bots, 0)
        for r in items:
            if r.winner is not None:
                wins[r.seats[r.winner]] += 1
        out.append(DealGroup(group, len(items), tuple(bots), wins))
    return out
