"""A bot the arena runs from its source (the demo submits this folder): it plays a card whenever it can, the
highest-scoring one, calling UNO when it may; otherwise it takes the first legal action.

The bot host starts it in its sandbox with the gateway's address in ``$UNO_ARENA_TARGET`` and the bot's token in
``$UNO_ARENA_BOT_TOKEN`` (which the kit reads by itself).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from arena.engine import Action, Observation
from bots.kit import play


def points(observation: Observation, action: Action) -> int:
    """What the card of a play would count in the hand at the round's end (its face up now)."""
    if action.card is None:
        return 0
    face = action.card.dark if observation.side == "dark" and action.card.dark is not None else action.card.light
    return face.value(observation.variant)


def choose(observation: Observation, legal: Sequence[Action]) -> int:
    plays = [i for i, action in enumerate(legal) if action.kind == "play"]
    if not plays:
        return 0
    return max(plays, key=lambda i: (legal[i].uno, points(observation, legal[i])))


if __name__ == "__main__":
    print("hosted example bot starting", flush=True)
    play(choose, target=os.environ["UNO_ARENA_TARGET"])
