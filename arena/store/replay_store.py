"""Replays: the :class:`Replay` record of a match, stored once per match id (``SET NX``, with its result) as
zlib-compressed canonical JSON.

The JSON is ASCII only (the encoder's fast path, twice as fast as ``ensure_ascii=False``) and zlib level 3
(measured on 2-seat flip replays of ~50 kB: level 6 is 2.4x slower for 20% smaller blobs).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from arena.players import DecisionOutcome
from arena.tournament import EndReason

from ._codec import RecordStore, loads, ms

LEVEL = 3
FORMAT = 1

OUTCOME_LETTERS = {DecisionOutcome.ANSWERED: "a", DecisionOutcome.TIMEOUT: "t", DecisionOutcome.ERROR: "e",
                   DecisionOutcome.FALLBACK: "f", DecisionOutcome.FORFEITED: "F", DecisionOutcome.UNREACHABLE: "u"}
_LETTER_OUTCOMES = {v: k for k, v in OUTCOME_LETTERS.items()}


@dataclass(frozen=True)
class EngineReplay:
    """What the engine rebuilds a match from (``Match.replay()``): rules (their JSON), players, seed, and every
    action applied as ``(seat, action text)``, seat -1 for the arena's own (``next_round``)."""

    rules: dict[str, Any]
    players: int
    seed: int
    actions: tuple[tuple[int, str], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"rules": dict(self.rules), "players": self.players, "seed": self.seed,
                "actions": [[seat, text] for seat, text in self.actions]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EngineReplay:
        return cls(dict(data["rules"]), int(data["players"]), int(data["seed"]),
                   tuple((int(seat), str(text)) for seat, text in data["actions"]))


class DecisionNote(NamedTuple):
    """How one decision went: ``applied`` is False for a declined catch offer (answered, but no action)."""

    latency_ms: float
    outcome: DecisionOutcome
    reasons: tuple[str, ...]
    applied: bool
    lag_ms: float = 0.0
    bank_ms: float = 0.0


@dataclass(frozen=True)
class Replay:
    """The stored replay of one match. The per-decision log is columns: ``latency_us``, ``outcomes`` (a letter of
    :data:`OUTCOME_LETTERS` each), ``refused`` (``{decision index: (count, reasons)}``), ``declined`` (indexes of
    declined catch offers) and ``clock_us`` (``{decision index: (lag compensation, time bank used)}``). ``hands``:
    every round's hands (:func:`arena.runner.record.hands_to_json`)."""

    match_id: str
    tournament_id: str
    group: str
    seed: int
    rules: dict[str, Any]
    players: int
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    winner: int | None
    rounds: int
    end_reason: EndReason
    engine: EngineReplay
    bot_versions: tuple[str, ...] = ()
    forfeits: tuple[int, ...] = ()
    strikes: tuple[int, ...] = ()
    timeouts: tuple[int, ...] = ()
    refusals: tuple[int, ...] = ()
    duration_s: float = 0.0
    detail: str = ""
    latency_us: tuple[int, ...] = ()
    outcomes: str = ""
    refused: dict[int, tuple[int, tuple[str, ...]]] = field(default_factory=dict)
    declined: tuple[int, ...] = ()
    clock_us: dict[int, tuple[int, int]] = field(default_factory=dict)
    hands: list[dict[str, Any]] | None = None

    def decisions(self) -> list[DecisionNote]:
        declined = set(self.declined)
        out = []
        for i, (latency, letter) in enumerate(zip(self.latency_us, self.outcomes, strict=False)):
            lag, bank = self.clock_us.get(i, (0, 0))
            reasons = self.refused[i][1] if i in self.refused else ()
            out.append(DecisionNote(latency / 1000.0, _LETTER_OUTCOMES.get(letter, DecisionOutcome.ANSWERED), reasons,
                                    i not in declined, lag / 1000.0, bank / 1000.0))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id, "tournament_id": self.tournament_id, "group": self.group, "seed": self.seed,
            "rules": dict(self.rules), "players": self.players, "seats": list(self.seats),
            "bot_versions": list(self.bot_versions), "scores": list(self.scores), "winner": self.winner,
            "rounds": self.rounds, "end_reason": str(self.end_reason), "forfeits": list(self.forfeits),
            "strikes": list(self.strikes), "timeouts": list(self.timeouts), "refusals": list(self.refusals),
            "duration_s": self.duration_s, "detail": self.detail, "format": FORMAT, "replay": self.engine.to_dict(),
            "latency_us": list(self.latency_us), "outcomes": self.outcomes,
            "refused": {str(i): [count, list(reasons)] for i, (count, reasons) in self.refused.items()},
            "declined": list(self.declined),
            "clock_us": {str(i): [lag, bank] for i, (lag, bank) in self.clock_us.items()},
            "hands": self.hands,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Replay:
        """Read the stored form back; ``ValueError`` naming what is missing or malformed."""
        try:
            engine = EngineReplay.from_dict(data["replay"])
            winner = data.get("winner")
            return cls(
                match_id=str(data.get("match_id", "")), tournament_id=str(data.get("tournament_id", "")),
                group=str(data.get("group", "")), seed=int(data.get("seed", engine.seed)),
                rules=dict(data.get("rules") or engine.rules), players=int(data.get("players") or engine.players),
                seats=_strs(data.get("seats")), scores=_ints(data.get("scores")),
                winner=None if winner is None else int(winner), rounds=int(data.get("rounds", 0)),
                end_reason=EndReason.parse(data.get("end_reason", EndReason.TARGET)), engine=engine,
                bot_versions=_strs(data.get("bot_versions")), forfeits=_ints(data.get("forfeits")),
                strikes=_ints(data.get("strikes")), timeouts=_ints(data.get("timeouts")),
                refusals=_ints(data.get("refusals")), duration_s=float(data.get("duration_s", 0.0)),
                detail=str(data.get("detail", "")), hands=data.get("hands"),
                latency_us=_ints(data.get("latency_us")), outcomes=str(data["outcomes"]),
                refused={int(i): (int(count), _strs(reasons))
                         for i, (count, reasons) in dict(data.get("refused") or {}).items()},
                declined=_ints(data.get("declined")),
                clock_us={int(i): (int(lag), int(bank)) for i, (lag, bank) in dict(data.get("clock_us") or {}).items()},
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"stored replay is malformed: {error!r}") from None


def _strs(values: Sequence[Any] | None) -> tuple[str, ...]:
    return tuple(str(v) for v in values or ())


def _ints(values: Sequence[Any] | None) -> tuple[int, ...]:
    return tuple(int(v) for v in values or ())


def compress(replay: Replay) -> bytes:
    text = json.dumps(replay.to_dict(), sort_keys=True, separators=(",", ":"))
    return zlib.compress(text.encode("ascii"), LEVEL)


def decompress(blob: bytes) -> Replay:
    """The replay back from its stored form; ``ValueError`` if the bytes are not a replay."""
    try:
        data = loads(zlib.decompress(blob).decode("utf-8"))
    except (zlib.error, UnicodeDecodeError) as exc:
        raise ValueError(f"stored replay is corrupt: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError("stored replay is not a JSON object")
    return Replay.from_dict(data)


class ReplayStore(RecordStore):
    def save(self, match_id: str, replay: Replay, *, ttl: float | None = None) -> bool:
        px = None if ttl is None else ms(ttl)
        return bool(self._r.set(self._k.replay(match_id), compress(replay), nx=True, px=px))

    def load(self, match_id: str) -> Replay | None:
        blob = self._r.get(self._k.replay(match_id))
        return None if blob is None else decompress(blob)

    def size(self, match_id: str) -> int:
        return int(self._r.strlen(self._k.replay(match_id)))
