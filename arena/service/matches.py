"""Playing one scheduled match in a worker: its seats (:mod:`arena.service.seating`), its runner configuration,
its stored result (:class:`arena.store.StoredResult`) and its compact form in a batch message.

Participants are either *built-in* bots, played in the worker process, or *registered* bots, reached through the
gateway that holds their stream with :class:`arena.relay.RelaySeat`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from arena.engine import Rules
from arena.players import BotFactory
from arena.runner import DEFAULT_INFRA_GRACE_S, MatchConfig, MatchRecord, Seat
from arena.store import Store, StoredResult
from arena.tournament import EndReason, MatchResult, MatchSpec
from arena.tournament.spec import DEFAULT_LAG_COMPENSATION_CAP_MS

from .seating import bot_seed, builtin_kind, is_builtin, match_seat

__all__ = ["StoredResult", "aborted_result", "bot_seed", "builtin_kind", "is_builtin", "make_seat", "match_config",
           "result_of", "seats_for", "spec_from_wire", "spec_to_wire"]


def make_seat(store: Store, name: str, match_id: str, make_bot: BotFactory) -> Seat:
    """The seat of participant ``name`` in match ``match_id`` (:func:`arena.service.seating.match_seat`; the
    built-in bots made by ``make_bot``)."""
    return match_seat(name, match_id, store, make_bot)


def match_config(spec: MatchSpec, *, infra_grace_s: float = DEFAULT_INFRA_GRACE_S) -> MatchConfig:
    return MatchConfig(
        match_id=spec.match_id,
        seed=spec.seed,
        rules=Rules.from_dict(dict(spec.rules)),
        decision_deadline_s=spec.decision_deadline_ms / 1000.0,
        tournament_id=spec.tournament_id,
        group=spec.group,
        attempt=spec.attempt,
        infra_grace_s=infra_grace_s,
        time_bank_s=spec.time_bank_ms / 1000.0,
        lag_compensation_cap_s=spec.lag_compensation_cap_ms / 1000.0,
    )


def seats_for(store: Store, spec: MatchSpec, make_bot: BotFactory) -> list[Seat]:
    return [match_seat(name, spec.match_id, store, make_bot) for name in spec.seats]


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
                         scoring=str(dict(spec.rules).get("scoring", "winner")))
    return StoredResult(result, spec.tournament_id, spec.seed, (0,) * k, (0,) * k, (), 0.0, time.time(), reason[:500])


def spec_to_wire(spec: MatchSpec) -> list[Any]:
    """The compact form of a match in a batch message: ``[id, table, deal, rotation, seats, seed]``."""
    return [spec.match_id, spec.table, spec.deal, spec.rotation, list(spec.seats), spec.seed]


def spec_from_wire(wire: Sequence[Any], tournament_id: str, rules: dict[str, Any], decision_deadline_ms: int,
                   time_bank_ms: int = 0,
                   lag_compensation_cap_ms: int = DEFAULT_LAG_COMPENSATION_CAP_MS) -> MatchSpec:
    mid, table, deal, rotation, seats, seed = wire
    return MatchSpec(
        match_id=str(mid),
        tournament_id=tournament_id,
        table=int(table),
        deal=int(deal),
        rotation=int(rotation),
        seats=tuple(str(s) for s in seats),
        seed=int(seed),
        rules=rules,
        decision_deadline_ms=decision_deadline_ms,
        time_bank_ms=time_bank_ms,
        lag_compensation_cap_ms=lag_compensation_cap_ms,
    )
