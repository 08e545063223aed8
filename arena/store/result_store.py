"""Match results, written exactly once per deterministic match id, and tournament progress.

:meth:`ResultStore.record` is one Lua script: ``HSETNX`` of the result and, only if that write was the first,
``done += 1``, the feed, the bot versions' match counts and the replay (``SET NX``). However often a match is
re-run, its first result is kept and counted once. Each call carries an attempt id stored with the result, so a
redis-py retry after a lost reply still answers ``True`` for the call that wrote it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import redis

from arena.tournament import EndReason, MatchResult

from ._codec import RecordStore, dumps, loads, ms, text
from .keys import InvalidName, Keys, check_id
from .replay_store import Replay, compress
from .store_errors import StoreError, UnknownTournament

RESERVED_COUNTERS = ("scheduled", "done")
BUILTIN_VERSION = "builtin"
"""The version of a built-in bot's seat: not counted per version."""

_RECORD = """
if ARGV[6] == '1' and redis.call('SISMEMBER', KEYS[4], ARGV[1]) == 0 then
  if redis.call('EXISTS', KEYS[5]) == 0 then return -2 end
  return -1
end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'done', 1)
  redis.call('RPUSH', KEYS[6], ARGV[1])
  for i = 7, #KEYS do
    redis.call('HINCRBY', KEYS[i], ARGV[i], 1)
  end
  if ARGV[4] ~= '' then
    if tonumber(ARGV[5]) > 0 then
      redis.call('SET', KEYS[3], ARGV[4], 'NX', 'PX', ARGV[5])
    else
      redis.call('SET', KEYS[3], ARGV[4], 'NX')
    end
  end
  return 1
end
local ok, stored = pcall(cjson.decode, redis.call('HGET', KEYS[1], ARGV[1]))
if ok and type(stored) == 'table' and stored['attempt'] == ARGV[3] then return 1 end
return 0
"""


class UnscheduledMatch(StoreError):
    """A result was offered for a match id that the tournament never scheduled."""


@dataclass(frozen=True)
class StoredResult:
    """The stored result of one match: the :class:`~arena.tournament.MatchResult` standings count, plus the
    per-seat counters and bookkeeping the API shows (one flat JSON object)."""

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
    def match_id(self) -> str:
        return self.result.match_id

    @property
    def seats(self) -> tuple[str, ...]:
        return self.result.seats

    @property
    def end_reason(self) -> EndReason:
        return self.result.end_reason

    @property
    def scored(self) -> bool:
        return self.result.end_reason.scored

    def counter(self, name: str) -> tuple[int, ...]:
        """One per-seat counter by name, padded with 0 to every seat."""
        values: tuple[int, ...] = getattr(self, name)
        return (values + (0,) * len(self.seats))[: len(self.seats)]

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

    @classmethod
    def from_replay(cls, replay: Replay) -> StoredResult:
        """The result a stored replay carries (a match whose result is not kept, such as a person's game)."""
        result = MatchResult(match_id=replay.match_id, seats=replay.seats, scores=replay.scores, winner=replay.winner,
                             rounds=replay.rounds, end_reason=replay.end_reason, forfeits=replay.forfeits,
                             strikes=replay.strikes, group=replay.group)
        return cls(result, replay.tournament_id, replay.seed, replay.timeouts or (0,) * len(replay.seats),
                   replay.refusals or (0,) * len(replay.seats), replay.bot_versions, replay.duration_s, 0.0,
                   replay.detail)


@dataclass(frozen=True)
class Progress:
    scheduled: int
    done: int
    counters: dict[str, int] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.scheduled > 0 and self.done >= self.scheduled


class ResultStore(RecordStore):
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        super().__init__(client, keys)
        self._record = client.register_script(_RECORD)

    def record(
        self,
        tournament_id: str,
        match_id: str,
        result: StoredResult,
        *,
        replay: Replay | None = None,
        replay_ttl: float | None = None,
        require_scheduled: bool = True,
        attempt: str | None = None,
    ) -> bool:
        """Store the match's result (and ``replay``) if none is stored yet; ``True`` if this call wrote it. With
        ``require_scheduled`` the match id must have been added with ``add_matches`` (:class:`UnscheduledMatch`).
        The first write appends the match id to the tournament's feed in the same script, so the feed lists exactly
        the recorded results, in order. A caller that retries a failed call passes the same ``attempt``."""
        check_id(match_id, "match id")
        attempt = attempt or uuid.uuid4().hex
        envelope = dumps({"result": result.to_dict(), "attempt": attempt, "recorded_at": time.time()})
        blob = compress(replay) if replay is not None else b""
        ttl_ms = 0 if replay_ttl is None else ms(replay_ttl)
        versions = self._version_counts(result)
        code = int(
            self._record(
                keys=[
                    self._k.tournament(tournament_id, "results"),
                    self._k.tournament(tournament_id, "progress"),
                    self._k.replay(match_id),
                    self._k.tournament(tournament_id, "matches"),
                    self._k.tournament(tournament_id),
                    self._k.tournament_run(tournament_id, "feed"),
                    *versions,
                ],
                args=[match_id, envelope, attempt, blob, ttl_ms, "1" if require_scheduled else "0",
                      *versions.values()],
            )
        )
        if code == -2:
            raise UnknownTournament(tournament_id)
        if code == -1:
            raise UnscheduledMatch(f"match {match_id!r} is not scheduled in tournament {tournament_id!r}")
        return code == 1

    def _version_counts(self, result: StoredResult) -> dict[str, str]:
        """The version counters a first recording adds one to: key -> version, once per registered bot seated."""
        counts: dict[str, str] = {}
        for name, version in zip(result.seats, result.bot_versions, strict=False):
            if not version or version == BUILTIN_VERSION:
                continue
            try:
                counts.setdefault(self._k.bot(name, "version-matches"), version)
            except InvalidName:  # not a registered bot's name
                continue
        return counts

    def get(self, tournament_id: str, match_id: str) -> StoredResult | None:
        raw = self._r.hget(self._k.tournament(tournament_id, "results"), check_id(match_id, "match id"))
        return None if raw is None else _result(raw)

    def all(self, tournament_id: str) -> dict[str, StoredResult]:
        results = self._r.hscan_iter(self._k.tournament(tournament_id, "results"), count=1000)
        return {str(text(mid)): _result(raw) for mid, raw in results}

    def recorded(self, tournament_id: str) -> set[str]:
        return {m.decode("utf-8") for m in self._r.hkeys(self._k.tournament(tournament_id, "results"))}

    def without_result(self, tournament_id: str, match_ids: Iterable[str]) -> set[str]:
        ids = list(match_ids)
        pipe = self._r.pipeline(transaction=False)
        for mid in ids:
            pipe.hexists(self._k.tournament(tournament_id, "results"), mid)
        return {mid for mid, there in zip(ids, pipe.execute(), strict=True) if not there}

    def missing(self, tournament_id: str) -> set[str]:
        """Scheduled match ids without a result: the completeness check of a tournament."""
        scheduled = {m.decode("utf-8") for m in self._r.smembers(self._k.tournament(tournament_id, "matches"))}
        return scheduled - self.recorded(tournament_id)

    def progress(self, tournament_id: str) -> Progress:
        raw = self._r.hgetall(self._k.tournament(tournament_id, "progress"))
        counters = {str(text(k)): int(v) for k, v in raw.items()}
        return Progress(counters.pop("scheduled", 0), counters.pop("done", 0), counters)

    def incr(self, tournament_id: str, counter: str, amount: int = 1) -> int:
        """Bump a free-form progress counter (e.g. ``timeouts``); its new value."""
        check_id(counter, "counter name")
        if counter in RESERVED_COUNTERS:
            raise ValueError(f"counter {counter!r} is kept by the store; choose another name")
        return int(self._r.hincrby(self._k.tournament(tournament_id, "progress"), counter, amount))


def _result(raw: bytes) -> StoredResult:
    """The result of a stored envelope (``{"result", "attempt", "recorded_at"}``, see :meth:`ResultStore.record`)."""
    return StoredResult.from_dict(loads(raw)["result"])
