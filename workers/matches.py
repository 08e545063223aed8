"""Playing one scheduled match in a worker: seats for the participants, the runner, the result.

Participants are either *built-in* bots, played in the worker process through
:class:`arena.match.LocalSeat`, or *registered* bots, reached through the gateway that holds
their stream with :class:`arena.relay.RelaySeat`.

A built-in participant is named after a built-in bot (``random``, ``heuristic``), optionally
with a tag after ``#`` so that one tournament can field several of them: ``random#2``,
``heuristic#b``. Registered bot names cannot contain ``#`` (see :data:`arena.store.keys.BOT_NAME_RE`),
so the two never collide; the organizer API refuses to register a bare built-in name.

A built-in bot gets a fresh object per match, seeded from the match id and its name, so the same
match always plays out the same way (the fault tests compare standings with a clean run).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence
from typing import Any

from arena.engine import Rules
from arena.match import LocalSeat, MatchConfig, MatchRecord, Seat
from arena.store import Store
from arena.tournament import MatchSpec
from bots import BUILTIN_BOTS, make_bot

BUILTIN_RE = re.compile(r"^(?P<kind>[a-z]+)(?:#(?P<tag>[A-Za-z0-9_-]{1,16}))?$")
"""A built-in participant: a built-in bot's name, optionally ``#tag``."""

ABORTED = "aborted"
"""End reason of a match the arena gave up on (it is recorded, but not scored)."""

UNSCORED_REASONS = frozenset({ABORTED, "cancelled"})


def builtin_kind(name: str) -> str | None:
    """The built-in bot behind a participant name (``"random#2"`` -> ``"random"``), or ``None``."""
    m = BUILTIN_RE.match(name)
    if m is None or m.group("kind") not in BUILTIN_BOTS:
        return None
    return m.group("kind")


def is_builtin(name: str) -> bool:
    return builtin_kind(name) is not None


def bot_seed(match_id: str, name: str) -> int:
    """The seed of a built-in bot's object in one match (stable across processes)."""
    digest = hashlib.sha256(f"uno-arena/bot/{match_id}/{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def make_seat(store: Store, name: str, match_id: str) -> Seat:
    """The seat of participant ``name`` in match ``match_id``: local for built-ins, relayed otherwise."""
    kind = builtin_kind(name)
    if kind is not None:
        # The participant name (with its tag) is what the record and the standings count.
        return LocalSeat(make_bot(kind, bot_seed(match_id, name)), name=name)
    from arena.relay import RelaySeat  # only workers that play remote bots need the relay

    return RelaySeat(store, name)


def match_config(spec: MatchSpec) -> MatchConfig:
    return MatchConfig(
        match_id=spec.match_id,
        seed=spec.seed,
        rules=Rules.from_dict(dict(spec.rules)),
        deadline_s=spec.deadline_ms / 1000.0,
        tournament_id=spec.tournament_id,
        group=spec.group,
    )


def seats_for(store: Store, spec: MatchSpec) -> list[Seat]:
    return [make_seat(store, name, spec.match_id) for name in spec.seats]


def result_of(record: MatchRecord, spec: MatchSpec) -> dict[str, Any]:
    """The stored result of a played match: ``MatchResult`` fields plus per-seat counters."""
    result = record.to_result().to_dict()
    # Standings count participants, so the names are the schedule's (never a seat's own idea).
    result["seats"] = list(spec.seats)
    result.update(
        {
            "tournament_id": spec.tournament_id,
            "seed": spec.seed,
            "timeouts": list(record.timeouts),
            "refusals": list(record.refusals),
            "bot_versions": list(record.bot_versions),
            "duration_s": record.duration_s,
            "finished_at": time.time(),
            "detail": record.detail,
        }
    )
    return result


def aborted_result(spec: MatchSpec, reason: str) -> dict[str, Any]:
    """The stored result of a match the arena gave up on (not scored)."""
    k = len(spec.seats)
    scoring = str(dict(spec.rules).get("scoring", "winner"))
    return {
        "match_id": spec.match_id,
        "seats": list(spec.seats),
        "scores": [0] * k,
        "winner": None,
        "rounds": 0,
        "end_reason": ABORTED,
        "forfeits": [],
        "strikes": [],
        "group": spec.group,
        "scoring": scoring,
        "tournament_id": spec.tournament_id,
        "seed": spec.seed,
        "timeouts": [0] * k,
        "refusals": [0] * k,
        "bot_versions": [],
        "duration_s": 0.0,
        "finished_at": time.time(),
        "detail": reason[:500],
    }


def is_scored(result: dict[str, Any]) -> bool:
    return str(result.get("end_reason", "")) not in UNSCORED_REASONS


def spec_to_wire(spec: MatchSpec) -> list[Any]:
    """The compact form of a match in a batch message: ``[id, table, deal, rotation, seats, seed]``."""
    return [spec.match_id, spec.table, spec.deal, spec.rotation, list(spec.seats), spec.seed]


def spec_from_wire(wire: Sequence[Any], tournament_id: str, rules: dict[str, Any], deadline_ms: int) -> MatchSpec:
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
    )
