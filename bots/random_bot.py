"""The random bot: a uniformly random legal action (seeded, so matches replay identically)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.engine import Action, Observation
from arena.players import Bot


class RandomBot(Bot):
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._rng = random.Random(seed)

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        return self._rng.randrange(len(legal))
