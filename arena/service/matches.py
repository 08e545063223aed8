"""Playing one scheduled match in a worker: seats for the participants, the runner, the result.

Participants are either *built-in* bots, played in the worker process through
:class:`arena.runner.LocalSeat`, or *registered* bots, reached through the gateway that holds
their stream with :class:`arena.relay.RelaySeat`.

A built-in participant is named after a built-in bot (``random``, ``heuristic``), optionally
with a tag after ``#`` so that one tournament can field several of them: ``random#2``,
``heuristic#b``. Registered bot names cannot contain ``#`` (see :data:`arena.store.keys.BOT_NAME_RE`),
so the two never collide; the organizer API refuses to register a bare built-in name in any case.

A built-in bot gets a fresh object per match, seeded from the match id and its name, so the same
match always plays out the same way (the fault tests compare standings with a clean run).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from arena.engine import Rules
from arena.players import BUILTIN_NAMES, BotFactory
from arena.relay import RelaySeat
from arena.runner import DEFAULT_INFRA_GRACE_S, LocalSeat, MatchConfig, MatchRecord, Seat
from arena.store import Store
from arena.tournament import EndReason, MatchResult, MatchSpec

BUILTIN_RE = re.compile(r"^(?P<kind>[A-Za-z]+)(?:#(?P<tag>[A-Za-z0-9_-]{1,16}))?$")
"""A built-in participant: a built-in bot's name (in any case), optionally ``#tag``."""


def builtin_kind(name: str) -> str | None:
    """The built-in bot behind a participant name (``"random#2"`` -> ``"random"``), or ``None``. Names are
    compared without case, as bot names are: ``Random`` and ``HEURISTIC`` are the built-ins too."""
    m = BUILTIN_RE.match(name)
    kind = None if m is None else m.group("kind").lower()
    return kind if kind in BUILTIN_NAMES else None


def is_builtin(name: str) -> bool:
    return builtin_kind(name) is not None


def bot_seed(match_id: str, name: str) -> int:
    """The seed of a built-in bot's object in one match (stable across processes)."""
    digest = hashlib.sha256(f"uno-arena/bot/{match_id}/{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def make_seat(store: Store, name: str, match_id: str, make_bot: BotFactory) -> Seat:
    """The seat of participant ``name`` in match ``match_id``: local for built-ins (made by ``make_bot``), relayed
    otherwise."""
    kind = builtin_kind(name)
    if kind is not None:
        # The participant name (with its tag) is what the record and the standings count.
        return LocalSeat(make_bot(kind, bot_seed(match_id, name)), name=name)
    return RelaySeat(store, name)


def match_config(spec: MatchSpec, *, infra_grace_s: float = DEFAULT_INFRA_GRACE_S) -> MatchConfig:
    return MatchConfig(
        match_id=spec.match_id,
        seed=spec.seed,
        rules=Rules.from_dict(dict(spec.rules)),
        deadline_s=spec.deadline_ms / 1000.0,
        tournament_id=spec.tournament_id,
        group=spec.group,
        attempt=spec.attempt,
        infra_grace_s=infra_grace_s,
        time_bank_s=spec.time_bank_ms / 1000.0,
        lag_cap_s=spec.lag_cap_ms / 1000.0,
    )


def seats_for(store: Store, spec: MatchSpec, make_bot: BotFactory) -> list[Seat]:
    return [make_seat(store, name, spec.match_id, make_bot) for name in spec.seats]


@dataclass(frozen=True)
class StoredResult:
    """The stored result of one match: the :class:`~arena.tournament.MatchResult` standings count, plus the
    per-seat counters and bookkeeping the API shows. JSON-ready through :meth:`to_dict` (one flat object, the
    ``MatchResult`` fields first), read back by :meth:`from_dict`."""

    result: MatchResult
    tournament_id: str
    seed: int
    timeouts: tuple[int, ...]
    refusals: tuple[int, ...]
    bot_versions: tuple[str, ...] = ()
    duration_s: float = 0.0
    finished_at: float = 0.0
    detail: str = ""
    decisions: tuple[int, ...] = ()
    """Decisions asked of each seat (empty in results stored before they were counted)."""

    @property
    def scored(self) -> bool:
        """Whether the match counts in standings and ratings (not aborted, not cancelled)."""
        return self.result.end_reason.scored

    def to_dict(self) -> dict[str, Any]:
        data = self.result.to_dict()
        data.update(
            tournament_id=self.tournament_id, seed=self.seed, timeouts=list(self.timeouts),
            refusals=list(self.refusals), bot_versions=list(self.bot_versions), duration_s=self.duration_s,
            finished_at=self.finished_at, detail=self.detail, decisions=list(self.decisions),
        )
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StoredResult:
        k = len(data.get("seats", ()))
        return cls(
            result=MatchResult.from_dict(data),
            tournament_id=str(data.get("tournament_id", "")),
            seed=int(data.get("seed", 0)),
            timeouts=tuple(int(v) for v in data.get("timeouts") or [0] * k),
            refusals=tuple(int(v) for v in data.get("refusals") or [0] * k),
            bot_versions=tuple(str(v) for v in data.get("bot_versions") or ()),
            duration_s=float(data.get("duration_s", 0.0)),
            finished_at=float(data.get("finished_at") or 0.0),
            detail=str(data.get("detail", "")),
            decisions=tuple(int(v) for v in data.get("decisions") or ()),
        )


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


def is_scored(result: Mapping[str, Any]) -> bool:
    """Whether a stored result (as read from the store) counts in standings and ratings."""
    return EndReason.parse(result.get("end_reason", EndReason.TARGET)).scored


def spec_to_wire(spec: MatchSpec) -> list[Any]:
    """The compact form of a match in a batch message: ``[id, table, deal, rotation, seats, seed]``."""
    return [spec.match_id, spec.table, spec.deal, spec.rotation, list(spec.seats), spec.seed]


def spec_from_wire(wire: Sequence[Any], tournament_id: str, rules: dict[str, Any], deadline_ms: int,
                   time_bank_ms: int = 0, lag_cap_ms: int = 250) -> MatchSpec:
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
        deadline_ms=deadline_ms,
        time_bank_ms=time_bank_ms,
        lag_cap_ms=lag_cap_ms,
    )
