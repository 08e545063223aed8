"""Every word-valued enum of the arena maps onto its proto enum by name, both ways, with nothing left over; the
statuses through the one mapping of arena.protocol.statuses."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from typing import Any

import pytest
from google.protobuf.descriptor import EnumDescriptor

from arena.engine import Pairing, Scoring, StartFlip, UnoPenalty, Variant
from arena.protocol import arena_pb2, game_pb2, statuses
from arena.tournament.status import ENDED_TOURNAMENT, CompetitionStatus, GauntletStatus, TournamentStatus

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


STATUS_MAPS = [
    (TournamentStatus, statuses.TOURNAMENT_STATE_OF, statuses.TOURNAMENT_STATUS_OF, statuses.tournament_status,
     arena_pb2.TournamentState.DESCRIPTOR, "TOURNAMENT_STATE_"),
    (CompetitionStatus, statuses.COMPETITION_STATE_OF, statuses.COMPETITION_STATUS_OF, statuses.competition_status,
     arena_pb2.CompetitionState.DESCRIPTOR, "COMPETITION_STATE_"),
    (GauntletStatus, statuses.GAUNTLET_STATE_OF, statuses.GAUNTLET_STATUS_OF, statuses.gauntlet_status,
     arena_pb2.GauntletState.DESCRIPTOR, "GAUNTLET_STATE_"),
]


@pytest.mark.parametrize(("enum", "to_proto", "from_proto", "lookup", "descriptor", "prefix"), STATUS_MAPS,
                         ids=[case[0].__name__ for case in STATUS_MAPS])
def test_the_one_status_mapping_goes_both_ways_by_name(enum: type[StrEnum], to_proto: dict[Any, int],
                                                       from_proto: dict[int, Any], lookup: Callable[[int], Any],
                                                       descriptor: EnumDescriptor, prefix: str) -> None:
    assert set(to_proto) == set(enum)
    for member, number in to_proto.items():
        assert descriptor.values_by_number[number].name == prefix + member.value.upper()
        assert from_proto[number] is member and lookup(number) is member
    assert lookup(0) is None and lookup(999) is None


def test_the_ended_tournament_states_are_the_ended_statuses() -> None:
    assert {statuses.TOURNAMENT_STATUS_OF[n] for n in statuses.ENDED_TOURNAMENT_STATES} == ENDED_TOURNAMENT


def test_a_tournament_spec_goes_to_the_wire_and_back_unchanged() -> None:
    from arena.protocol.specs import tournament_spec_from_proto, tournament_spec_to_proto
    from arena.tournament import TournamentSpec

    spec = TournamentSpec(tournament_id="t-wire", participants=("alpha", "beta", "random"), variant="classic",
                          options={"target": 200, "scoring": "lowest"}, seats=3, deals=2, duplicate=True, seed=99,
                          decision_deadline_ms=700, time_bank_ms=5000, lag_compensation_cap_ms=0)
    back = tournament_spec_from_proto(tournament_spec_to_proto(spec), "t-wire")
    assert back.rules == spec.rules and back.rating_pool == spec.rating_pool  # every option spelled out on the way back
    assert replace(back, options=spec.options) == spec
    with pytest.raises(ValueError, match="circular is no longer offered"):  # the pre-release seating
        tournament_spec_from_proto(arena_pb2.TournamentSpec(participants=["a", "b"],
                                                            seating=arena_pb2.SEATING_CIRCULAR), "t")
    assert tournament_spec_to_proto(spec).seating == arena_pb2.SEATING_BALANCED  # the one seating offered
