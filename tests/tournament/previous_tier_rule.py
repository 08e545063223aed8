"""The previous tier rule's test of two win rates, kept for the tests that compare the arena's rule with it."""

from __future__ import annotations

import math
from statistics import NormalDist


def rates_p_value(wins_a: int, matches_a: int, groups_a: int, wins_b: int, matches_b: int, groups_b: int) -> float:
    """The pooled rates test of the previous tier rule (tiers now use
    :func:`arena.tournament.standings.rate_difference_p_value`, which accounts for two bots meeting at one table).

    Two-proportion z-test on win rates, with deal groups as the sample sizes and Yates' continuity correction:
    the two-sided p-value of ``(|p_a - p_b| - (1/g_a + 1/g_b) / 2) / sqrt(p (1 - p) (1/g_a + 1/g_b))`` with ``p``
    the pooled rate. The correction keeps the normal approximation honest with few samples, close to Fisher's exact
    test: without it, 2 wins of 2 against 0 of 2 counted as told apart at 95 % (an exact test gives p = 0.33). A bot
    without matches is never told apart from anyone (1).
    """
    if not (matches_a and matches_b and groups_a and groups_b):
        return 1.0
    p_a, p_b = wins_a / matches_a, wins_b / matches_b
    pooled = (p_a * groups_a + p_b * groups_b) / (groups_a + groups_b)
    spread = 1.0 / groups_a + 1.0 / groups_b
    se = math.sqrt(max(0.0, pooled * (1.0 - pooled)) * spread)
    gap = abs(p_a - p_b) - spread / 2.0
    if gap <= 0.0:
        return 1.0
    if se <= 0.0:
        return 0.0
    return min(1.0, 2.0 * (1.0 - NormalDist().cdf(gap / se)))


def rates_apart(
    wins_a: int, matches_a: int, groups_a: int, wins_b: int, matches_b: int, groups_b: int, z: float
) -> bool:
    """The rates test of one pair alone at critical value ``z`` (:func:`rates_p_value`)."""
    if not (matches_a and matches_b and groups_a and groups_b):
        return False
    p_a, p_b = wins_a / matches_a, wins_b / matches_b
    pooled = (p_a * groups_a + p_b * groups_b) / (groups_a + groups_b)
    spread = 1.0 / groups_a + 1.0 / groups_b
    se = math.sqrt(max(0.0, pooled * (1.0 - pooled)) * spread)
    return abs(p_a - p_b) - spread / 2.0 > z * se
