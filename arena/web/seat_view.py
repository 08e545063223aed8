"""The one JSON shape of what a seat sees, for the play page and the replay viewer alike: the engine's
:class:`arena.engine.Observation` (and a legal :class:`arena.engine.Action`) as the protocol encodes it for a bot
(:mod:`arena.protocol.convert`), as plain data with its enums in the engine's words (``flip``, ``dark``, ``ccw``,
``play``). A card is ``{"light", "dark", "text"}``, a face ``{"color", "kind", "text"}``, as ``templates/cards.html``
and ``static/play.js`` draw them."""

from __future__ import annotations

from typing import Any

from arena.client import plain
from arena.engine import Action, Observation
from arena.protocol.convert import action_to_proto, observation_to_proto


def observation_data(observation: Observation) -> dict[str, Any]:
    """Everything in the seat's observation, field by field, and nothing else."""
    data = plain(observation_to_proto(observation))
    data.update(variant=observation.variant, side=observation.side, direction=observation.direction,
                decision=observation.decision)
    return data


def action_data(action: Action, index: int) -> dict[str, Any]:
    """A legal action with the index an answer names."""
    return plain(action_to_proto(action)) | {"kind": action.kind, "index": index}
