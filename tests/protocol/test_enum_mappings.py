"""Every word-valued enum of the arena maps onto its proto enum by name, both ways, with nothing left over."""

from __future__ import annotations

from enum import StrEnum

import pytest
from google.protobuf.descriptor import EnumDescriptor

from arena.engine import Pairing, Scoring, StartFlip, UnoPenalty, Variant
from arena.protocol import arena_pb2, game_pb2
from arena.tournament.status import CompetitionStatus, GauntletStatus, TournamentStatus

CASES = [
    (Variant, game_pb2.Variant.DESCRIPTOR, "VARIANT_"),
    (UnoPenalty, game_pb2.UnoPenalty.DESCRIPTOR, "UNO_PENALTY_"),
    (Scoring, game_pb2.Scoring.DESCRIPTOR, "SCORING_"),
    (StartFlip, game_pb2.StartFlip.DESCRIPTOR, "START_FLIP_"),
    (Pairing, game_pb2.Pairing.DESCRIPTOR, "PAIRING_"),
    (TournamentStatus, arena_pb2.TournamentState.DESCRIPTOR, "TOURNAMENT_STATE_"),
    (CompetitionStatus, arena_pb2.CompetitionState.DESCRIPTOR, "COMPETITION_STATE_"),
    (GauntletStatus, arena_pb2.GauntletState.DESCRIPTOR, "GAUNTLET_STATE_"),
]


@pytest.mark.parametrize(("enum", "descriptor", "prefix"), CASES, ids=[case[0].__name__ for case in CASES])
def test_words_and_proto_names_are_the_same_set(enum: type[StrEnum], descriptor: EnumDescriptor, prefix: str) -> None:
    proto = {value.name.removeprefix(prefix).lower() for value in descriptor.values} - {"unspecified"}
    assert proto == {member.value for member in enum}
