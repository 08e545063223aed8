"""Tournament specs on the wire: the one mapping between a ``TournamentSpec`` message and the tournament maths' spec,
both ways.

Apart from :mod:`arena.protocol.convert` so that a bot's kit, which needs only the game's messages, does not load
the tournament maths.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.protocol._gen import arena_pb2
from arena.protocol.convert import rules_from_proto, rules_to_proto
from arena.tournament.spec import (
    DEFAULT_DECISION_DEADLINE_MS,
    DEFAULT_LAG_COMPENSATION_CAP_MS,
    TournamentSpec,
)

DEFAULT_SEATS = 2
DEFAULT_DEALS = 1


@dataclass(frozen=True)
class SpecNumbers:
    """The sizes a ``TournamentSpec`` message asks for, with the arena's defaults for what it leaves unset (an
    explicit 0 stays 0, for the bounds to refuse): what the organizer bounds before it builds the spec."""

    seats: int
    deals: int
    decision_deadline_ms: int


def spec_numbers(msg: arena_pb2.TournamentSpec) -> SpecNumbers:
    return SpecNumbers(
        seats=int(msg.seats_per_table) if msg.HasField("seats_per_table") else DEFAULT_SEATS,
        deals=int(msg.deals_per_table) if msg.HasField("deals_per_table") else DEFAULT_DEALS,
        decision_deadline_ms=int(msg.decision_deadline_ms or DEFAULT_DECISION_DEADLINE_MS),
    )


def tournament_spec_from_proto(msg: arena_pb2.TournamentSpec, tournament_id: str,
                               default_duplicate_orders: str = "rotate") -> TournamentSpec:
    """The tournament spec a ``TournamentSpec`` message describes, with the arena's defaults for what it leaves
    unset (the organizer passes its ``default_duplicate_orders`` for the participants); ValueError naming the
    problem. The one mapping: the organizer reads requests with it, and ``tournament verify`` re-derives a schedule."""
    if msg.seating == arena_pb2.SEATING_CIRCULAR:
        raise ValueError("seating: circular is no longer offered (it was the seating of pre-release tournaments): "
                         "leave seating unset (balanced)")
    rules = rules_from_proto(msg.rules)
    numbers = spec_numbers(msg)
    return TournamentSpec(
        tournament_id=tournament_id,
        participants=tuple(p.strip() for p in msg.participants),
        variant=rules.variant,
        options={k: v for k, v in rules.to_dict().items() if k != "variant"},
        seats=numbers.seats,
        deals=numbers.deals,
        duplicate=bool(msg.duplicate_deals),
        duplicate_orders=msg.duplicate_orders or default_duplicate_orders,
        seed=int(msg.seed),
        decision_deadline_ms=numbers.decision_deadline_ms,
        time_bank_ms=int(msg.time_bank_ms),
        lag_compensation_cap_ms=(int(msg.lag_compensation_cap_ms) if msg.HasField("lag_compensation_cap_ms")
                                 else DEFAULT_LAG_COMPENSATION_CAP_MS),
    )


def tournament_spec_to_proto(spec: TournamentSpec) -> arena_pb2.TournamentSpec:
    """The ``TournamentSpec`` message of a tournament's spec (its seed as given: hiding it is the caller's)."""
    return arena_pb2.TournamentSpec(
        name=spec.tournament_id,
        participants=list(spec.participants),
        rules=rules_to_proto(spec.rules),
        seats_per_table=spec.seats,
        deals_per_table=spec.deals,
        duplicate_deals=spec.duplicate,
        duplicate_orders=spec.duplicate_orders,
        seed=spec.seed,
        decision_deadline_ms=spec.decision_deadline_ms,
        time_bank_ms=spec.time_bank_ms,
        lag_compensation_cap_ms=spec.lag_compensation_cap_ms,
        seating=arena_pb2.SEATING_BALANCED,
    )
