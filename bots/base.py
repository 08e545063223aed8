"""The interface every bot implements, local or behind the Python kit: observation + legal actions in, index out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from arena.engine import Action, Observation


class Bot(ABC):
    """A bot decides from what its seat sees (`observation`) and the legal actions, never from the rules."""

    name = "bot"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    @abstractmethod
    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        """Return the index of the chosen action in `legal`."""
