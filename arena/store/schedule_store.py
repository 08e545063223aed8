"""Scheduled (cron) tournaments and their fire-once claims.

:meth:`ScheduleStore.claim` is one Lua script that ``SET NX PX``-es the lock of ``(schedule, due time)`` and moves
the schedule's ``last_due`` forward, refusing a due time at or before it: however many schedulers run, each due
time fires once, and never again after its lock expires. :meth:`ScheduleStore.release` undoes a failed firing.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import redis

from ._codec import RecordStore, dumps, loads, ms, text_hash
from .keys import Keys, check_id
from .store_errors import DuplicateSchedule, UnknownSchedule

DEFAULT_LOCK_TTL = 7 * 24 * 3600.0
"""Seconds a fire-once lock is kept (``last_due`` keeps refusing older due times after that)."""

_ADD = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'cron', ARGV[2], 'spec', ARGV[3], 'enabled', ARGV[4],
           'created_at', ARGV[5])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
"""

_CLAIM = """
local enabled = redis.call('HGET', KEYS[1], 'enabled')
if not enabled then return -1 end
if enabled ~= '1' then return 0 end
local last = redis.call('HGET', KEYS[1], 'last_due')
if last and tonumber(last) >= tonumber(ARGV[1]) then return 0 end
local value = cjson.encode({holder = ARGV[2], at = ARGV[4], prev = last or ''})
if not redis.call('SET', KEYS[2], value, 'NX', 'PX', ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], 'last_due', ARGV[1])
return 1
"""

_RELEASE = """
local raw = redis.call('GET', KEYS[2])
if not raw then return 0 end
local lock = cjson.decode(raw)
if lock['holder'] ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[2])
if redis.call('HGET', KEYS[1], 'last_due') == ARGV[1] then
  if lock['prev'] == '' then
    redis.call('HDEL', KEYS[1], 'last_due')
  else
    redis.call('HSET', KEYS[1], 'last_due', lock['prev'])
  end
end
return 1
"""


@dataclass(frozen=True)
class Schedule:
    """A stored schedule. ``last_due``: the latest due time (epoch seconds) claimed, if any."""

    schedule_id: str
    cron: str
    spec: dict[str, Any]
    enabled: bool
    created_at: float
    last_due: int | None


class ScheduleStore(RecordStore):
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        super().__init__(client, keys)
        self._add = client.register_script(_ADD)
        self._claim = client.register_script(_CLAIM)
        self._release = client.register_script(_RELEASE)

    def add(
        self,
        schedule_id: str,
        cron: str,
        spec: Mapping[str, Any],
        *,
        enabled: bool = True,
        created_at: float | None = None,
    ) -> Schedule:
        """Store a new schedule (its cron expression checked by the caller); due times at or before
        ``created_at`` (default: now) never fire."""
        check_id(schedule_id, "schedule id")
        if not isinstance(cron, str) or not cron.strip():
            raise ValueError("a schedule needs a cron expression")
        created = time.time() if created_at is None else float(created_at)
        ok = self._add(
            keys=[self._k.schedule(schedule_id), self._k.schedules()],
            args=[schedule_id, cron.strip(), dumps(dict(spec)), "1" if enabled else "0", repr(created)],
        )
        if not ok:
            raise DuplicateSchedule(schedule_id)
        return Schedule(schedule_id, cron.strip(), dict(spec), enabled, created, None)

    def get(self, schedule_id: str) -> Schedule:
        raw = self._r.hgetall(self._k.schedule(schedule_id))
        if not raw:
            raise UnknownSchedule(schedule_id)
        return _schedule(text_hash(raw))

    def all(self) -> list[Schedule]:
        ids = sorted(m.decode("utf-8") for m in self._r.smembers(self._k.schedules()))
        raws = [self._r.hgetall(self._k.schedule(sid)) for sid in ids]
        return [_schedule(text_hash(raw)) for raw in raws if raw]

    def remove(self, schedule_id: str) -> bool:
        pipe = self._r.pipeline(transaction=True)
        pipe.delete(self._k.schedule(schedule_id))
        pipe.srem(self._k.schedules(), schedule_id)
        return bool(pipe.execute()[0])

    def claim(self, schedule_id: str, due: int, *, holder: str, ttl: float = DEFAULT_LOCK_TTL) -> bool:
        """Claim the firing of ``due`` (epoch seconds); ``True`` for exactly one caller, ``False`` too when the
        schedule is disabled."""
        code = self._claim(
            keys=[self._k.schedule(schedule_id), self._k.schedule_fired(schedule_id, due)],
            args=[int(due), holder, ms(ttl), repr(time.time())],
        )
        if code == -1:
            raise UnknownSchedule(schedule_id)
        return code == 1

    def release(self, schedule_id: str, due: int, *, holder: str) -> bool:
        """Undo ``holder``'s claim of ``due`` (after a failed firing) so it can be claimed again."""
        keys = [self._k.schedule(schedule_id), self._k.schedule_fired(schedule_id, due)]
        return bool(self._release(keys=keys, args=[int(due), holder]))


def _schedule(f: dict[str, str]) -> Schedule:
    last = f.get("last_due")
    return Schedule(
        schedule_id=f["id"],
        cron=f["cron"],
        spec=dict(loads(f["spec"])),
        enabled=f.get("enabled") == "1",
        created_at=float(f["created_at"]),
        last_due=int(last) if last else None,
    )
