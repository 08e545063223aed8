"""Gauntlets in Redis: one record per gauntlet (what it tests, its status) and the list of its blocks.

A block and the status after it are written in one script, and only when its number is the next one (a repeated
write is a no-op). The seed, secret and salt stay in the hash for a resuming worker but out of
:class:`GauntletRecord`: :meth:`GauntletStore.seed_material` reads them for whoever may see them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import redis

from arena.tournament.status import GauntletStatus

from ._codec import RecordStore, dumps, enum_member, loads, text_hash
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
    """One scored block of a gauntlet: its number (from 0), its score, the test's LLR after it, the attempts it
    took, and per match the points of the tested seat."""

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
    """What the deals of a gauntlet derive from, secret until it ends, and the commitment to it (published)."""

    seed: int
    salt: str
    secret: str
    commitment: str


class UnknownGauntlet(StoreError):
    pass


class DuplicateGauntlet(StoreError):
    pass


@dataclass(frozen=True)
class GauntletRecord:
    """A stored gauntlet: ``spec`` (as :meth:`arena.service.gauntlet_runs.GauntletSpec.to_dict` wrote it),
    ``status``, ``detail`` (why it failed), and times."""

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
        return self.status is not GauntletStatus.RUNNING


class GauntletStore(RecordStore):
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        super().__init__(client, keys)
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
        """The gauntlet's seed, secret, salt and commitment (for the runner, the admin, and everyone once it ended)."""
        raw = text_hash(self._r.hgetall(self._k.gauntlet(gauntlet_id)))
        if not raw:
            raise UnknownGauntlet(f"no gauntlet {gauntlet_id!r}")
        return GauntletSeed(int(raw.get("seed") or 0), raw.get("salt", ""), raw.get("secret", ""),
                            raw.get("seed_commitment", ""))

    def add_block(self, gauntlet_id: str, number: int, block: StoredBlock, status: GauntletStatus) -> bool:
        """Append block ``number`` and the status after it; ``False`` when that block was written already."""
        word = enum_member(GauntletStatus, status, "gauntlet status").value
        if not self._r.exists(self._k.gauntlet(gauntlet_id)):
            raise UnknownGauntlet(f"no gauntlet {gauntlet_id!r}")
        written = int(self._add_block(
            keys=[self._k.gauntlet(gauntlet_id), self._k.gauntlet_blocks(gauntlet_id)],
            args=[int(number), dumps(block.to_dict()), word, repr(time.time())]))
        return written == number + 1

    def finish(self, gauntlet_id: str, status: GauntletStatus, detail: str = "") -> None:
        word = enum_member(GauntletStatus, status, "gauntlet status").value
        key = self._k.gauntlet(gauntlet_id)
        if not self._r.exists(key):
            raise UnknownGauntlet(f"no gauntlet {gauntlet_id!r}")
        self._r.hset(key, mapping={"status": word, "detail": detail[:500], "updated_at": repr(time.time())})

    def get(self, gauntlet_id: str) -> GauntletRecord:
        with self._r.pipeline(transaction=False) as pipe:
            pipe.hgetall(self._k.gauntlet(gauntlet_id))
            pipe.llen(self._k.gauntlet_blocks(gauntlet_id))
            raw, blocks = pipe.execute()
        if not raw:
            raise UnknownGauntlet(f"no gauntlet {gauntlet_id!r}")
        f = text_hash(raw)
        return GauntletRecord(id=f["id"], spec=loads(f.get("spec", "{}")),
                              status=GauntletStatus(f.get("status", GauntletStatus.RUNNING)),
                              created_at=float(f.get("created_at", 0.0)), updated_at=float(f.get("updated_at", 0.0)),
                              detail=f.get("detail", ""), blocks=int(blocks),
                              idempotency_key=f.get("idempotency_key", ""),
                              seed_commitment=f.get("seed_commitment", ""))

    def blocks(self, gauntlet_id: str) -> list[StoredBlock]:
        raws = self._r.lrange(self._k.gauntlet_blocks(gauntlet_id), 0, -1)
        return [StoredBlock.from_dict(loads(raw)) for raw in raws]

    def recent(self, limit: int = 50) -> list[GauntletRecord]:
        ids = self._r.zrevrange(self._k.gauntlets(), 0, max(1, int(limit)) - 1)
        return [self.get(raw.decode()) for raw in ids]  # a gauntlet's hash is written before its id is listed

