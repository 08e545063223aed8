"""`python -m benchmarks batch`: how long the batch Plackett-Luce ratings of a rating pool take to compute
(:func:`arena.tournament.stats.plackett_luce.batch_ratings`: the fit and its 100 refits on resampled deal groups), on
seeded synthetic pools of a given number of bots, seats per table and matches.

The finishing orders are drawn from the Plackett-Luce model itself (bot ``i`` of strength ``1 + i``; each match
seats a random subset of the bots, its seats' scores in finishing order), each match its own deal group, so a
pool's size and shape are what the figures vary, not UNO's play. The time is the CPU time of one call in this
process (``time.process_time``), so other work on the machine changes it less than wall time."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from arena.tournament import MatchResult
from arena.tournament.stats.plackett_luce import BOOTSTRAP, batch_ratings

POOLS = ((6, 2, 960), (8, 4, 7000), (16, 2, 12000))
"""The default pools: bots, seats per table, matches."""


@dataclass(frozen=True)
class BatchFigures:
    """One pool: its shape and the CPU seconds its batch ratings took."""

    bots: int
    seats: int
    matches: int
    seconds: float

    def line(self) -> str:
        return (f"{self.bots:3d} bots, {self.seats} seats, {self.matches:6d} matches: batch ratings "
                f"({BOOTSTRAP} refits) in {self.seconds:.2f} s CPU")


def synthetic_pool(bots: int, seats: int, matches: int, seed: int = 1) -> list[MatchResult]:
    """``matches`` results of ``bots`` bots at tables of ``seats``, finishing orders drawn from the model."""
    if not 2 <= seats <= bots or matches < 1:
        raise ValueError(f"need 2 <= seats <= bots and at least one match, got {bots} bots, {seats} seats, "
                         f"{matches} matches")
    rng = random.Random(seed)
    names = [f"bot{i:02d}" for i in range(bots)]
    out: list[MatchResult] = []
    for number in range(matches):
        table = rng.sample(range(bots), seats)
        left, order = list(table), []
        while left:
            pick = rng.choices(left, weights=[1.0 + i for i in left])[0]
            order.append(pick)
            left.remove(pick)
        score = {bot: 500 + seats - place if place == 0 else 400 - 10 * place for place, bot in enumerate(order)}
        seated = tuple(names[i] for i in table)
        out.append(MatchResult(match_id=f"m{number:06d}", seats=seated, scores=tuple(score[i] for i in table),
                               winner=table.index(order[0])))
    return out


def run_batch_bench(pools: tuple[tuple[int, int, int], ...] = POOLS, seed: int = 1) -> list[BatchFigures]:
    """The CPU time of the batch ratings of each pool."""
    out: list[BatchFigures] = []
    for bots, seats, matches in pools:
        results = synthetic_pool(bots, seats, matches, seed)
        started = time.process_time()
        batch_ratings(results)
        out.append(BatchFigures(bots, seats, matches, time.process_time() - started))
    return out
