"""A validation recording for ``python -m benchmarks intervals``: real UNO deal groups played apart from the calibration
sample (:mod:`benchmarks.tiers_sample`, on which the intervals' small-sample rules were fitted), so the intervals'
coverage can be checked on data they were not fitted to.

It differs from the calibration sample in three ways: other deal seeds (from ``seed``, far from the sample's
23,000-23,959), other bot seeds (derived from those deals), and more pairs of bots: the search bot's fastest level,
``ismctsfast``, against each of the sample's bots, besides every pair of the sample's bots (a bot with itself
included). ``ismctsfast`` plays one match in 4-15 CPU seconds (the others in a tenth of a second), so its pairs get
fewer groups (``search_groups``) and its two copies none. The groups are :class:`benchmarks.tiers_sample.DealGroup`
s and the file is a sample :func:`benchmarks.tiers_sample.load_sample` reads; ``python -m benchmarks intervals
--record-validation PATH --seed S`` writes one, ``--validation`` plays on the shipped one.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

from arena.engine import Rules

from .tiers_sample import BOTS, DealGroup, Sample, play_real

SEARCH_BOT = "ismctsfast"
VALIDATION_BOTS = (*BOTS, SEARCH_BOT)
VALIDATION_PATH = Path(__file__).parent / "data" / "intervals_validation.json"
VALIDATION_SEED = 910_000
"""The first deal seed of the shipped recording."""
GROUPS = 100
"""Deal groups per pair of the calibration sample's bots in the shipped recording."""
SEARCH_GROUPS = 8
"""Deal groups per pair with ``ismctsfast`` in the shipped recording."""


def record_validation(seed: int = VALIDATION_SEED, groups: int = GROUPS, search_groups: int = SEARCH_GROUPS,
                      progress: Callable[[str], None] = lambda _line: None) -> Sample:
    """``groups`` real deal groups of every pair of :data:`benchmarks.tiers_sample.BOTS` (with itself included) and
    ``search_groups`` of :data:`SEARCH_BOT` against each of them, deal seeds consecutive from ``seed``."""
    if seed < 0 or groups < 1 or search_groups < 0:
        raise ValueError(f"seed must be at least 0 and groups at least 1, got seed {seed}, groups {groups}, "
                         f"search groups {search_groups}")
    rules = Rules()
    pairs = [(pair, groups) for pair in itertools.combinations_with_replacement(BOTS, 2)]
    pairs += [((SEARCH_BOT, bot), search_groups) for bot in BOTS if search_groups]
    recorded: dict[tuple[str, str], tuple[DealGroup, ...]] = {}
    deal = seed
    for (a, b), count in pairs:
        played: list[DealGroup] = []
        for _ in range(count):
            # bot seeds from the deal seed, offset from the calibration sample's 2 * seed scheme
            played.append(DealGroup((a, b), deal, play_real((a, b), deal, rules, 2 * deal + 7),
                                    play_real((b, a), deal, rules, 2 * deal + 8)))
            deal += 1
        recorded[(a, b)] = tuple(played)
        progress(f"{a} vs {b}: {count} deal groups")
    made_by = (f"benchmarks.validation_sample.record_validation(seed={seed}, groups={groups}, "
               f"search_groups={search_groups}): each pair of {', '.join(BOTS)} (a bot with itself included) "
               f"{groups} deal groups, {SEARCH_BOT} against each {search_groups}; deal seeds from {seed} on, "
               f"consecutive, in both seat orders, bots seeded per match")
    return Sample(made_by, f"default rules: {rules.variant.value}, target {rules.target}", recorded)
