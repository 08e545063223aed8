"""Reference bots and the bot interface: a bot maps (observation, legal actions) to the index of its choice."""

from .base import Bot
from .heuristic import HeuristicBot
from .random_bot import RandomBot
from .weakened import WeakenedHeuristicBot

BUILTIN_BOTS: dict[str, type[Bot]] = {"random": RandomBot, "heuristic": HeuristicBot,
                                      "weakened": WeakenedHeuristicBot}


def make_bot(name: str, seed: int = 0) -> Bot:
    """A built-in bot by name (`random`, `heuristic`, `weakened`); ValueError names the known ones."""
    try:
        return BUILTIN_BOTS[name](seed=seed)
    except KeyError:
        raise ValueError(f"unknown built-in bot {name!r} (known: {', '.join(sorted(BUILTIN_BOTS))})") from None


__all__ = ["BUILTIN_BOTS", "Bot", "HeuristicBot", "RandomBot", "WeakenedHeuristicBot", "make_bot"]
