"""The weakened heuristic bot: the heuristic bot that, with probability ``slip`` (one half by default), plays a
uniformly random legal action instead.

It sits between the random and the heuristic bot in strength, which makes the three a ladder of known order
for the matchmaking and gauntlet checks (``random < weakened < heuristic``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.engine import Action, Observation

from .heuristic import HeuristicBot

DEFAULT_SLIP = 0.5


class WeakenedHeuristicBot(HeuristicBot):
    name = "weakened"

    def __init__(self, seed: int = 0, slip: float = DEFAULT_SLIP) -> None:
        super().__init__(seed)
        if not 0.0 <= slip <= 1.0:
            raise ValueError(f"slip must be a probability between 0 and 1, got {slip}")
        self.slip = slip
        self._rng = random.Random(seed)

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        if self._rng.random() < self.slip:
            return self._rng.randrange(len(legal))
        return super().choose(observation, legal)
