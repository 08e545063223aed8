"""The interface every bot implements, local or behind the Python kit: observation + legal actions in, index out.
The built-in bots (``bots``) sit above the arena's core: the outer layers pass in a :data:`BotFactory`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from arena.engine import Action, Observation

BUILTIN_NAMES: tuple[str, ...] = ("heuristic", "ismcts", "ismctsfast", "ismctsstrong", "random", "weakened")
"""The participant names reserved for the built-in bots (a participant ``random#2`` is the random bot); a
:data:`BotFactory` passed to the arena makes a bot for each of them."""


class Bot(ABC):
    """A bot decides from what its seat sees (`observation`) and the legal actions, never from the rules."""

    name = "bot"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    @abstractmethod
    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        """Return the index of the chosen action in `legal`."""


BotFactory = Callable[[str, int], Bot]
"""A built-in bot by name (one of :data:`BUILTIN_NAMES`) and seed; ``ValueError`` naming the known ones for any
other name (``bots.make_bot`` is the one the arena's commands pass in)."""
