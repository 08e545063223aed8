"""Gauntlets in Redis: one record per gauntlet (what it tests, its status) and the list of its blocks (the sequential
test's state is the one their scores give), so a gauntlet can be listed, shown and followed while it runs.

A gauntlet's record is a hash (``uno:gauntlet:{gid}``), its blocks a list (``uno:gauntlet:{gid}:blocks``, one
JSON object per block, in order), and ``uno:gauntlets`` a sorted set of the ids by creation time. A block and
the status after it are written in one transaction, and a block is written only when its number is the next one
(a repeated write of the same block, say after a retried command, is a no-op). The gauntlet's seed and secret (from
which every deal derives) and the salt of the commitment to both are kept in the hash (``seed``, ``secret``,
``salt``) so that a worker can resume the gauntlet, but they stay out of :class:`GauntletRecord`:
:meth:`GauntletStore.seed_material` reads them, for the runner and for whoever may see them (the admin, and everyone
once the gauntlet ended); the commitment is in the record (``seed_commitment``). A gauntlet created with an
idempotency key keeps it (``idempotency_key``), so that a retried start finds it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import redis

from arena.tournament.status import GauntletStatus

from ._codec import dumps, loads, text_hash
from .keys import Keys
from .store_errors import StoreError

_ADD_BLOCK = """
local n = redis.call('LLEN', KEYS[2])
if n ~= tonumber(ARGV[1]) then return n end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'updated_at', ARGV[4])
return n + 1
"""


@dataclass(frozen=True)
class StoredBlock:
    """One scored block of a gauntlet as stored: its number (from 0), its score, the test's LLR after it, the
    attempts it took, and per match the points of the tested seat."""

    block: int
    score: float
    llr: float
    attempts: int = 1
    matches: Mapping[str, float] = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict[str, Any]:
        return {"block": self.block, "score": self.score, "llr": self.llr, "attempts": self.attempts,
                "matches": dict(self.matches)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StoredBlock:
        return cls(int(data["block"]), float(data["score"]), float(data.get("llr", 0.0)),
                   int(data.get("attempts", 1)), {str(k): float(v) for k, v in (data.get("matches") or {}).items()})


@dataclass(frozen=True)
class GauntletSeed:
    """What the deals of a gauntlet derive from, kept secret until it ends: the seed, the secret (64 hex digits), the
    salt of the commitment (64 hex digits) and the commitment (published)."""

    seed: int
    salt: str
    secret: str
    commitment: str


class UnknownGauntlet(StoreError):
    """No gauntlet has this id."""


class DuplicateGauntlet(StoreError):
    """A gauntlet with this id exists already."""


@dataclass(frozen=True)
class GauntletRecord:
    """A stored gauntlet: ``spec`` (what it tests, as :meth:`arena.service.gauntlet_runs.GauntletSpec.to_dict` wrote it,
    which alone reads it back), ``status``, ``detail`` (why it failed), and times."""

    id: str
    spec: Mapping[str, Any]
    status: GauntletStatus
    created_at: float
    updated_at: float
    detail: str = ""
    blocks: int = field(default=0, compare=False)
    idempotency_key: str = ""
    seed_commitment: str = ""

    @property
    def ended(self) -> bool:
        """Whether the gauntlet has its final status."""
        return self.status is not GauntletStatus.RUNNING

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "spec": dict(self.spec), "status": self.status,
                "created_at": self.created_at, "updated_at": self.updated_at, "detail": self.detail,
                "blocks": self.blocks}


class GauntletStore:
    """Create, follow and list gauntlets."""

    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self._r = client
        self._k = keys
        self._add_block = client.register_script(_ADD_BLOCK)

    def create(self, gauntlet_id: str, spec: Mapping[str, Any], *, seed: GauntletSeed,
               idempotency_key: str = "") -> GauntletRecord:
        """Store a new running gauntlet with its secret ``seed``; :class:`DuplicateGauntlet` when the id is taken."""
        key = self._k.gauntlet(gauntlet_id)
        now = time.time()
        fields: dict[str | bytes, bytes | float | int | str] = {
            "id": gauntlet_id, "spec": dumps(dict(spec)),
            "status": GauntletStatus.RUNNING.value, "created_at": repr(now), "updated_at": repr(now), "detail": "",
            "seed": str(seed.seed), "salt": seed.salt, "secret": seed.secret, "seed_commitment": seed.commitment,
            "idempotency_key": idempotency_key}
        if not self._r.hsetnx(key, "id", gauntlet_id):
            raise DuplicateGauntlet(f"gauntlet {gauntlet_id!r} exists already: choose another name")
        with self._r.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping=fields)
            pipe.zadd(self._k.gauntlets(), {gauntlet_id: now})
            pipe.execute()
        return GauntletRecord(gauntlet_id, dict(spec), GauntletStatus.RUNNING, now, now,
                              idempotency_key=idempotency_key, seed_commitment=seed.commitment)

    def seed_material(self, gauntlet_id: str) -> GauntletSeed:
        """The gauntlet's seed, secret, salt and commitment (for the runner, and for whoever may see them: the admin,
        and everyone once the gauntlet ended); :class:`UnknownGauntlet` when there is no such gauntlet."""
        raw = text_hash(self._r.hgetall(self._k.gauntlet(gauntlet_id)))
        if not raw:
            raise UnknownGauntlet(f"no gauntlet {gauntlet_id!r}")
        return GauntletSeed(int(raw.get("seed") or 0), raw.get("salt", ""), raw.get("secret", ""),
                            raw.get("seed_commitment", ""))

    def add_block(self, gauntlet_id: str, number: int, block: StoredBlock, status: GauntletStatus) -> bool:
        """Append block ``number`` (counted from 0) and the status after it; ``False`` when that block was written
        already (nothing changes)."""
        word = _checked(status)
        if not self._r.exists(self._k.gauntlet(gauntlet_id)):
            raise UnknownGauntlet(f"no gauntlet {gauntlet_id!r}")
        written = int(self._add_block(
            keys=[self._k.gauntlet(gauntlet_id), self._k.gauntlet_blocks(gauntlet_id)],
            args=[int(number), dumps(block.to_dict()), word, repr(time.time())]))
        return written == number + 1

    def finish(self, gauntlet_id: str, status: GauntletStatus, detail: str = "") -> None:
        """Set the final status (and why, for a failure)."""
        word = _checked(status)
        key = self._k.gauntlet(gauntlet_id)
        if not self._r.exists(key):
            raise UnknownGauntlet(f"no gauntlet {gauntlet_id!r}")
        self._r.hset(key, mapping={"status": word, "detail": detail[:500], "updated_at": repr(time.time())})

    def get(self, gauntlet_id: str) -> GauntletRecord:
        """The gauntlet's record; :class:`UnknownGauntlet` when there is none."""
        key = self._k.gauntlet(gauntlet_id)
        with self._r.pipeline(transaction=False) as pipe:
            pipe.hgetall(key)
            pipe.llen(self._k.gauntlet_blocks(gauntlet_id))
            raw, blocks = pipe.execute()
        if not raw:
            raise UnknownGauntlet(f"no gauntlet {gauntlet_id!r}")
        return _record(text_hash(raw), int(blocks))

    def blocks(self, gauntlet_id: str) -> list[StoredBlock]:
        """The gauntlet's blocks, in order."""
        raws = self._r.lrange(self._k.gauntlet_blocks(gauntlet_id), 0, -1)
        return [StoredBlock.from_dict(loads(raw)) for raw in raws]

    def recent(self, limit: int = 50) -> list[GauntletRecord]:
        """The newest ``limit`` gauntlets, newest first."""
        ids = [raw.decode() if isinstance(raw, bytes) else str(raw)
               for raw in self._r.zrevrange(self._k.gauntlets(), 0, max(1, int(limit)) - 1)]
        records = []
        for gauntlet_id in ids:
            try:
                records.append(self.get(gauntlet_id))
            except UnknownGauntlet:
                continue
        return records


def _checked(status: str) -> str:
    """The word stored for a status; ValueError naming the known ones."""
    try:
        return GauntletStatus(status).value
    except ValueError:
        raise ValueError(f"unknown gauntlet status {status!r}; expected one of {', '.join(GauntletStatus)}") from None


def _record(fields: Mapping[str, str], blocks: int) -> GauntletRecord:
    return GauntletRecord(id=fields["id"], spec=loads(fields.get("spec", "{}")),
                          status=GauntletStatus(fields.get("status", GauntletStatus.RUNNING)),
                          created_at=float(fields.get("created_at", 0.0)),
                          updated_at=float(fields.get("updated_at", 0.0)), detail=fields.get("detail", ""),
                          blocks=blocks, idempotency_key=fields.get("idempotency_key", ""),
                          seed_commitment=fields.get("seed_commitment", ""))
