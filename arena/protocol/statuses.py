"""The organizer API's state enums and the arena's statuses (:mod:`arena.tournament.status`), mapped by name in one
place (``TOURNAMENT_STATE_RUNNING`` <-> ``running``; UNSPECIFIED maps to nothing); tests/protocol/test_enum_mappings.py
checks that each pair names the same set. Apart from :mod:`arena.protocol.convert` so that a bot's kit, which loads
``convert``, does not load the tournament package.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, TypeVar

from google.protobuf.descriptor import EnumDescriptor

from arena.protocol._gen import arena_pb2
from arena.protocol.convert import enum_maps
from arena.tournament.status import CompetitionStatus, GauntletStatus, TournamentStatus

S = TypeVar("S", bound=StrEnum)


def _status_maps(enum: type[S], descriptor: EnumDescriptor, prefix: str) -> tuple[dict[S, Any], dict[int, S]]:
    """{status: enum number} and back; RuntimeError when the two do not name the same set."""
    to_number, _ = enum_maps(descriptor, prefix)
    if set(to_number) != {member.value for member in enum}:
        raise RuntimeError(f"{descriptor.name} and {enum.__name__} do not name the same states")
    forward = {member: to_number[member.value] for member in enum}
    return forward, {number: member for member, number in forward.items()}


TOURNAMENT_STATE_OF, TOURNAMENT_STATUS_OF = _status_maps(
    TournamentStatus, arena_pb2.TournamentState.DESCRIPTOR, "TOURNAMENT_STATE_")
COMPETITION_STATE_OF, COMPETITION_STATUS_OF = _status_maps(
    CompetitionStatus, arena_pb2.CompetitionState.DESCRIPTOR, "COMPETITION_STATE_")
GAUNTLET_STATE_OF, GAUNTLET_STATUS_OF = _status_maps(
    GauntletStatus, arena_pb2.GauntletState.DESCRIPTOR, "GAUNTLET_STATE_")
ENDED_TOURNAMENT_STATES = frozenset(TOURNAMENT_STATE_OF[status] for status in TournamentStatus if status.ended)
"""The ``TournamentState`` numbers of an ended tournament."""

tournament_status = TOURNAMENT_STATUS_OF.get
"""The status of a ``TournamentState`` number; None for UNSPECIFIED or an unknown number (likewise the two below)."""
competition_status = COMPETITION_STATUS_OF.get
gauntlet_status = GAUNTLET_STATUS_OF.get
