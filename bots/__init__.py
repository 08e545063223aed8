"""The built-in bots and :func:`make_bot`, the :data:`arena.players.BotFactory` the arena's outer layers pass in to
seat one by name (this package depends on the arena, never the reverse). The Python kit is :mod:`bots.kit`."""

from arena.players import Bot

from .heuristic import HeuristicBot
from .ismcts import LEVELS, IsmctsBot, ismcts_spec
from .random_bot import RandomBot
from .weakened import WeakenedHeuristicBot

BUILTIN_BOTS: dict[str, type[Bot]] = {"random": RandomBot, "heuristic": HeuristicBot,
                                      "weakened": WeakenedHeuristicBot, **LEVELS}


def make_bot(name: str, seed: int = 0) -> Bot:
    """A built-in bot by name (also ``ismcts:N``); ValueError names the known ones."""
    search = ismcts_spec(name, seed)
    if search is not None:
        return search
    try:
        return BUILTIN_BOTS[name](seed=seed)
    except KeyError:
        raise ValueError(f"unknown built-in bot {name!r} (known: {', '.join(sorted(BUILTIN_BOTS))})") from None


__all__ = ["BUILTIN_BOTS", "Bot", "HeuristicBot", "IsmctsBot", "RandomBot", "WeakenedHeuristicBot", "make_bot"]
