"""Tournaments: spec, status, idempotent creation, and the set of scheduled match ids.

:meth:`TournamentStore.create` is one Lua script: a retried create with the same idempotency key creates nothing
and returns the first tournament's id; the key reused with another spec (a top-level ``tournament_id`` aside, which
a client may make fresh for each try) raises :class:`IdempotencyConflict`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import redis

from arena.tournament.status import TournamentStatus

from ._codec import RecordStore, digest, dumps, enum_member, loads, text, text_hash
from .keys import Keys, check_id
from .store_errors import DuplicateTournament, IdempotencyConflict, UnknownTournament

_CREATE = """
local has_key = #KEYS >= 3
if has_key then
  local existing = redis.call('GET', KEYS[3])
  if existing then
    if redis.call('HGET', KEYS[1], 'attempt') == ARGV[6] then return {1, existing} end
    return {0, existing}
  end
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'attempt') == ARGV[6] then return {1, ARGV[1]} end
  return {-1, ARGV[1]}
end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'spec', ARGV[2], 'spec_digest', ARGV[3], 'status', 'pending',
           'idempotency_key', ARGV[5], 'created_at', ARGV[4], 'updated_at', ARGV[4], 'attempt', ARGV[6])
for i = 7, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
if has_key then redis.call('SET', KEYS[3], ARGV[1]) end
return {1, ARGV[1]}
"""

_SET_STATUS = """
local cur = redis.call('HGET', KEYS[1], 'status')
if not cur then return -1 end
if #ARGV > 2 then
  local allowed = false
  for i = 3, #ARGV do
    if ARGV[i] == cur then allowed = true end
  end
  if not allowed then return 0 end
end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated_at', ARGV[2])
return 1
"""

_ADD_MATCHES = """
if redis.call('EXISTS', KEYS[3]) == 0 then return -1 end
local added = 0
for i = 1, #ARGV do
  added = added + redis.call('SADD', KEYS[1], ARGV[i])
end
if added > 0 then redis.call('HINCRBY', KEYS[2], 'scheduled', added) end
return added
"""

_CHUNK = 1000
_BASE_FIELDS = frozenset({"id", "spec", "spec_digest", "status", "idempotency_key", "created_at", "updated_at",
                          "attempt"})


@dataclass(frozen=True)
class TournamentRecord:
    tournament_id: str
    spec: dict[str, Any]
    status: TournamentStatus
    idempotency_key: str | None
    created_at: float
    updated_at: float
    extra: dict[str, str] = field(default_factory=dict)
    """The ``extra`` fields given at creation (``seed_salt``, ``seed_commitment``, ``matches_total``)."""


@dataclass(frozen=True)
class CreateResult:
    """What :meth:`TournamentStore.create` did: ``created`` is ``False`` for a retry."""

    tournament_id: str
    created: bool


def new_tournament_id(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def spec_digest(spec: Mapping[str, Any]) -> str:
    """The digest used to tell a retry from a conflicting reuse of an idempotency key."""
    return digest({k: v for k, v in spec.items() if k != "tournament_id"})


class TournamentStore(RecordStore):
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        super().__init__(client, keys)
        self._create = client.register_script(_CREATE)
        self._set_status = client.register_script(_SET_STATUS)
        self._add_matches = client.register_script(_ADD_MATCHES)

    def create(
        self,
        tournament_id: str,
        spec: Mapping[str, Any],
        *,
        idempotency_key: str | None = None,
        requested: Mapping[str, Any] | None = None,
        extra: Mapping[str, str] | None = None,
    ) -> CreateResult:
        """Create a tournament with status ``pending``, at most once per idempotency key (a key already used
        answers the first id with ``created=False``). ``requested``: the spec a retry is compared with (it differs
        from ``spec`` when the arena chose the seed); ``extra``: more fields of the hash, written in the script."""
        if not isinstance(spec, Mapping):
            raise ValueError("a tournament spec must be a mapping (a JSON object)")
        extras = dict(extra or {})
        clash = sorted(set(extras) & _BASE_FIELDS)
        if clash:
            raise ValueError(f"extra tournament fields may not replace {', '.join(clash)}")
        keys = [self._k.tournament(tournament_id), self._k.tournaments()]
        if idempotency_key is not None:
            keys.append(self._k.idempotency(idempotency_key))
        wanted = spec_digest(spec if requested is None else requested)
        code, tid_raw = self._create(
            keys=keys,
            args=[
                tournament_id,
                dumps(dict(spec)),
                wanted,
                repr(time.time()),
                idempotency_key or "",
                uuid.uuid4().hex,  # lets a redis-py retry after a lost reply recognise its own write
                *(item for pair in sorted(extras.items()) for item in (pair[0], str(pair[1]))),
            ],
        )
        tid = str(text(tid_raw))
        if code == 1:
            return CreateResult(tid, True)
        if code == -1:
            raise DuplicateTournament(tid)
        stored = self._r.hget(self._k.tournament(tid), "spec_digest")
        if stored is not None and stored.decode("utf-8") != wanted:
            raise IdempotencyConflict(
                f"idempotency key {idempotency_key!r} was already used for tournament {tid!r} "
                "with a different spec"
            )
        return CreateResult(tid, False)

    def get(self, tournament_id: str) -> TournamentRecord:
        raw = self._r.hgetall(self._k.tournament(tournament_id))
        if not raw:
            raise UnknownTournament(tournament_id)
        f = text_hash(raw)
        return TournamentRecord(
            tournament_id=f["id"],
            spec=loads(f["spec"]),
            status=TournamentStatus(f["status"]),
            idempotency_key=f.get("idempotency_key") or None,
            created_at=float(f["created_at"]),
            updated_at=float(f["updated_at"]),
            extra={k: v for k, v in f.items() if k not in _BASE_FIELDS},
        )

    def exists(self, tournament_id: str) -> bool:
        return bool(self._r.exists(self._k.tournament(tournament_id)))

    def ids(self) -> list[str]:
        return [m.decode("utf-8") for m in self._r.zrange(self._k.tournaments(), 0, -1)]

    def page(self, *, after: str | None = None, statuses: Collection[TournamentStatus] | None = None,
             limit: int = 100) -> tuple[list[str], bool]:
        """Tournament ids newest first, at most ``limit``: those after ``after`` (the last id of the previous page)
        and, with ``statuses``, only those in one of them; and whether more follow."""
        wanted = None if statuses is None else {enum_member(TournamentStatus, s, "tournament status") for s in statuses}
        start = 0
        if after:
            rank = self._r.zrevrank(self._k.tournaments(), after)
            if rank is None:
                raise UnknownTournament(after)
            start = int(rank) + 1
        found: list[str] = []
        while True:
            chunk = [m.decode("utf-8") for m in self._r.zrevrange(self._k.tournaments(), start, start + _CHUNK - 1)]
            if not chunk:
                return found, False
            start += len(chunk)
            if wanted is not None:
                states = self.status_and_created(chunk)
                chunk = [tid for tid in chunk if states[tid][0] in wanted]
            if len(found) + len(chunk) > limit:
                return found + chunk[:limit - len(found)], True
            found += chunk

    def idempotent_id(self, idempotency_key: str) -> str | None:
        """The id of the tournament created under ``idempotency_key``, or ``None`` when the key is unused."""
        raw = self._r.get(self._k.idempotency(idempotency_key))
        return None if raw is None else raw.decode("utf-8")

    def status(self, tournament_id: str) -> TournamentStatus:
        raw = self._r.hget(self._k.tournament(tournament_id), "status")
        if raw is None:
            raise UnknownTournament(tournament_id)
        return TournamentStatus(raw.decode("utf-8"))

    def status_and_created(self, tournament_ids: Iterable[str]) -> dict[str, tuple[TournamentStatus | None, float]]:
        """``(status, created_at)`` of each tournament in one round trip; status ``None`` for an unknown id."""
        ids = list(tournament_ids)
        pipe = self._r.pipeline(transaction=False)
        for tid in ids:
            pipe.hmget(self._k.tournament(tid), ["status", "created_at"])
        return {tid: (None if status is None else TournamentStatus(status.decode()), float(created or 0))
                for tid, (status, created) in zip(ids, pipe.execute(), strict=True)}

    def set_status(self, tournament_id: str, status: TournamentStatus, *,
                   expected: Collection[TournamentStatus] | None = None) -> bool:
        """Set the status (with ``expected``, only if the current status is one of those); whether it was
        written."""
        words = [enum_member(TournamentStatus, s, "tournament status").value for s in (status, *(expected or ()))]
        if expected is not None and not expected:
            raise ValueError("expected must name at least one status")
        code = self._set_status(keys=[self._k.tournament(tournament_id)],
                                args=[words[0], repr(time.time()), *words[1:]])
        if code == -1:
            raise UnknownTournament(tournament_id)
        return bool(code)

    def add_matches(self, tournament_id: str, match_ids: Iterable[str]) -> int:
        """Add scheduled match ids (idempotent); how many were new, by which the ``scheduled`` counter grows."""
        ids = [check_id(m, "match id") for m in match_ids]
        keys = [
            self._k.tournament(tournament_id, "matches"),
            self._k.tournament(tournament_id, "progress"),
            self._k.tournament(tournament_id),
        ]
        added = 0
        for start in range(0, max(len(ids), 1), _CHUNK):
            code = int(self._add_matches(keys=keys, args=ids[start : start + _CHUNK]))
            if code == -1:
                raise UnknownTournament(tournament_id)
            added += code
        return added

    def matches(self, tournament_id: str) -> set[str]:
        return {m.decode("utf-8") for m in self._r.smembers(self._k.tournament(tournament_id, "matches"))}

    def match_count(self, tournament_id: str) -> int:
        return int(self._r.scard(self._k.tournament(tournament_id, "matches")))
