"""The tier rule: which pairs of entrants the data tells apart (each pair's p-value under Holm's control over all
the pairs) and where a new tier opens; the standings, the batch fit and the leaderboards all decide their tiers
here."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from statistics import NormalDist
from typing import TypeVar

from .intervals import holm

PSEUDO_GROUPS = 1
"""Pseudo-groups at each extreme a table's groups could reach, in :func:`rate_difference_p_value`'s spread."""


_Row = TypeVar("_Row")


def ratings_p_value(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float) -> float:
    """The rating measure's two-sided p-value that two skills are equal: ``mu_a - mu_b`` against a normal with
    standard error ``sqrt(sigma_a**2 + sigma_b**2)``."""
    return normal_p_value(mu_a - mu_b, math.sqrt(sigma_a * sigma_a + sigma_b * sigma_b))


def normal_p_value(gap: float, se: float) -> float:
    """The two-sided p-value of a difference ``gap`` with standard error ``se`` under a normal (1 for no gap and no
    error, 0 for a gap without error)."""
    if se <= 0.0:
        return 1.0 if gap == 0.0 else 0.0
    return min(1.0, 2.0 * (1.0 - NormalDist().cdf(abs(gap) / se)))


def told_apart(rows: Sequence[_Row], p_value: Callable[[_Row, _Row], float],
               confidence: float) -> list[list[bool]]:
    """Which pairs of ``rows`` the data tells apart (a symmetric matrix): ``p_value`` of every pair under Holm's
    control at ``1 - confidence`` over all the pairs."""
    pairs = [(i, j) for i in range(len(rows)) for j in range(i + 1, len(rows))]
    rejected = holm([p_value(rows[i], rows[j]) for i, j in pairs], 1.0 - confidence)
    apart = [[False] * len(rows) for _ in rows]
    for (i, j), told in zip(pairs, rejected, strict=True):
        apart[i][j] = apart[j][i] = told
    return apart


def tiers_of(apart: Sequence[Sequence[bool]]) -> list[int]:
    """Each row's tier (from 1), rows in order: a new tier opens between two neighbouring rows only when every row
    above is told apart from every row below."""
    n = len(apart)
    # first_tie[b]: the first row above b not told apart from b (n when none). A cut before row i needs
    # first_tie[b] >= i for every row b from i down.
    first_tie = [next((a for a in range(b) if not apart[a][b]), n) for b in range(n)]
    opens = [False] * n
    reach = n
    for i in range(n - 1, 0, -1):
        reach = min(reach, first_tie[i])
        opens[i] = reach >= i
    return list(itertools.accumulate(opens[1:], initial=1)) if n else []  # each tier opened adds 1


def not_told_apart(apart: Sequence[Sequence[bool]]) -> list[list[int]]:
    """For each row, the indexes of the other rows it is not told apart from (in row order)."""
    return [[j for j in range(len(apart)) if j != i and not apart[i][j]] for i in range(len(apart))]


def rate_difference_p_value(groups_a: Mapping[str, Sequence[int]], groups_b: Mapping[str, Sequence[int]],
                            table_of: Mapping[str, Hashable]) -> float:
    """The two-sided p-value that two bots have the same win rate, from their deal groups (``(matches, wins, ...)``
    by group) as clusters: the difference is a sum over independent groups, its variance the groups' spread table by
    table (``table_of``; a group where both sat counts once, so their negative correlation is in it), each table
    padded with :data:`PSEUDO_GROUPS` at each extreme (as Agresti-Coull adds pseudo-observations: a few alike groups
    are not certain; two a side cost power). Normal approximation; 1 when either bot has no match."""
    matches_a = sum(g[0] for g in groups_a.values())
    matches_b = sum(g[0] for g in groups_b.values())
    if not (matches_a and matches_b):
        return 1.0
    by_table: dict[Hashable, list[float]] = defaultdict(list)
    extremes: dict[Hashable, tuple[float, float]] = {}
    difference = 0.0
    for group in sorted(set(groups_a) | set(groups_b)):
        a, b = groups_a.get(group), groups_b.get(group)
        share_a = a[1] / matches_a if a else 0.0
        share_b = b[1] / matches_b if b else 0.0
        contribution = share_a - share_b
        difference += contribution
        table = table_of.get(group, group)
        by_table[table].append(contribution)
        extremes.setdefault(table, ((a[0] / matches_a) if a else 0.0, -(b[0] / matches_b) if b else 0.0))
    variance = 0.0
    for table, values in by_table.items():
        padded = [*values, *extremes[table] * PSEUDO_GROUPS]
        centre = math.fsum(padded) / len(padded)
        variance += len(values) * math.fsum((v - centre) ** 2 for v in padded) / (len(padded) - 1)
    return normal_p_value(difference, math.sqrt(variance))
