"""Playing one scheduled match in a worker: its seats (:mod:`arena.service.seating`: built-in bots in process,
registered ones through the relay), its runner configuration and its stored result."""

from __future__ import annotations

import time
from dataclasses import replace

from arena.players import BotFactory
from arena.runner import DEFAULT_INFRA_GRACE_S, MatchConfig, MatchRecord, Seat
from arena.store import Store, StoredResult
from arena.tournament import EndReason, MatchResult, MatchSpec

from .seating import bot_seed, builtin_kind, is_builtin, make_seat

__all__ = ["StoredResult", "aborted_result", "bot_seed", "builtin_kind", "is_builtin", "make_seat", "match_config",
           "result_of", "seats_for"]


def match_config(spec: MatchSpec, *, infra_grace_s: float = DEFAULT_INFRA_GRACE_S) -> MatchConfig:
    return MatchConfig(
        match_id=spec.match_id,
        seed=spec.seed,
        rules=spec.rules,
        decision_deadline_s=spec.decision_deadline_ms / 1000.0,
        tournament_id=spec.tournament_id,
        group=spec.group,
        attempt=spec.attempt,
        infra_grace_s=infra_grace_s,
        time_bank_s=spec.time_bank_ms / 1000.0,
        lag_compensation_cap_s=spec.lag_compensation_cap_ms / 1000.0,
    )


def seats_for(store: Store, spec: MatchSpec, make_bot: BotFactory) -> list[Seat]:
    return [make_seat(store, name, spec.match_id, make_bot) for name in spec.seats]


def result_of(record: MatchRecord, spec: MatchSpec) -> StoredResult:
    """The stored result of a played match. Standings count participants, so the names are the schedule's
    (never a seat's own idea)."""
    result = replace(record.to_result(), seats=tuple(spec.seats))
    asked = [0] * len(spec.seats)
    for decision in record.decisions:
        if decision.outcome != "forfeited":  # played for a seat that had forfeited: nothing was asked
            asked[decision.seat] += 1
    return StoredResult(result, spec.tournament_id, spec.seed, tuple(record.timeouts), tuple(record.refusals),
                        tuple(record.bot_versions), record.duration_s, time.time(), record.detail, tuple(asked))


def aborted_result(spec: MatchSpec, reason: str) -> StoredResult:
    """The stored result of a match the arena gave up on (not scored)."""
    k = len(spec.seats)
    result = MatchResult(match_id=spec.match_id, seats=tuple(spec.seats), scores=(0,) * k, winner=None, rounds=0,
                         end_reason=EndReason.ABORTED, group=spec.group,
                         scoring=spec.rules.scoring)
    return StoredResult(result, spec.tournament_id, spec.seed, (0,) * k, (0,) * k, (), 0.0, time.time(), reason[:500])
