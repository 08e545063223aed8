"""Run state of tournaments kept by the workers: batches, their heartbeats, attempts, the feed, match claims.

The store holds what a tournament *is* and what it produced; this is what the workers need to *run* one (the keys
are listed in docs/operations.md, "Redis keys"). It is advisory bookkeeping: losing any of it never loses or
double-counts a result, since results are written once by match id
(:meth:`arena.store.result_store.ResultStore.record`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import redis

from arena.store import Store
from arena.store._codec import enum_member, ms, release_lock, take_lock, text, text_hash
from arena.tournament.stats.ratings import RatingPool
from arena.tournament.status import BatchStatus, TournamentStatus

# Write a batch's state unless the tournament's bookkeeping was cleaned up (``cleaned_at`` in the run hash): a
# late redelivery or a heartbeat of a duplicate never re-creates what :meth:`RunState.cleanup` dropped.
_MARK = """
if redis.call('HEXISTS', KEYS[1], 'cleaned_at') == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""

# Before a match starts: whether it has a result, and the number of this start (counted only until the
# cleanup, for the same reason).
_BEGIN = """
local recorded = redis.call('HEXISTS', KEYS[1], ARGV[1])
if redis.call('HEXISTS', KEYS[2], 'cleaned_at') == 1 then return {recorded, 0} end
return {recorded, redis.call('HINCRBY', KEYS[3], ARGV[1], 1)}
"""

# A batch's message is delivered: play it unless another child adopted it and beats for it (fresh within ARGV[3]
# seconds of ARGV[2]); then mark it running.
_TAKE = """
if redis.call('HEXISTS', KEYS[1], 'cleaned_at') == 1 then return 0 end
local state = redis.call('HGET', KEYS[2], ARGV[1])
if state then
  local word, ts = string.match(state, '^(%a+):(.*)$')
  if word == 'adopted' and tonumber(ARGV[2]) - (tonumber(ts) or 0) <= tonumber(ARGV[3]) then return 0 end
end
redis.call('HSET', KEYS[2], ARGV[1], 'running:' .. ARGV[2])
return 1
"""
# A child with room takes the first batch still queued (its message not yet taken): {bid, match ids JSON} or nil.
_ADOPT = """
if redis.call('HEXISTS', KEYS[1], 'cleaned_at') == 1 then return nil end
local states = redis.call('HGETALL', KEYS[2])
local first = nil
for i = 1, #states, 2 do
  if string.sub(states[i + 1], 1, 7) == 'queued:' and (first == nil or states[i] < first) then first = states[i] end
end
if first == nil then return nil end
redis.call('HSET', KEYS[2], first, 'adopted:' .. ARGV[1])
return {first, redis.call('HGET', KEYS[3], first)}
"""


@dataclass(frozen=True)
class BatchState:
    state: BatchStatus
    ts: float


# KEYS: match claims; ARGV[1]: the claim lifetime in ms; ARGV[2..]: each claim's token. Renews the ones still held.
_RENEW_CLAIMS = """
local renewed = 0
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1 + i] then
    renewed = renewed + redis.call('PEXPIRE', key, ARGV[1])
  end
end
return renewed
"""


class RunState:
    def __init__(self, store: Store, tournament_id: str) -> None:
        self.store = store
        self.r: redis.Redis = store.redis
        self.tid = tournament_id
        key = store.keys.tournament_run
        self.run_key = key(tournament_id, "run")
        self.batches_key = key(tournament_id, "batches")
        self.batch_state_key = key(tournament_id, "batch_state")
        self.attempts_key = key(tournament_id, "attempts")
        self.feed_key = key(tournament_id, "feed")
        self.lock_key = key(tournament_id, "check_lock")
        self._mark = self.r.register_script(_MARK)
        self._begin = self.r.register_script(_BEGIN)
        self._take = self.r.register_script(_TAKE)
        self._adopt = self.r.register_script(_ADOPT)
        self._renew = self.r.register_script(_RENEW_CLAIMS)

    # -- the run hash --------------------------------------------------------------------------
    def fields(self) -> dict[str, str]:
        return text_hash(self.r.hgetall(self.run_key))

    def get(self, name: str) -> str | None:
        return text(self.r.hget(self.run_key, name))

    def set(self, **values: object) -> None:
        self.r.hset(self.run_key, mapping={k: str(v) for k, v in values.items()})

    def set_once(self, name: str, value: object) -> bool:
        return bool(self.r.hsetnx(self.run_key, name, str(value)))

    def incr(self, name: str, amount: int = 1) -> int:
        return int(self.r.hincrby(self.run_key, name, amount))

    # -- batches ------------------------------------------------------------------------------
    def add_batches(self, batches: Mapping[str, Iterable[str]], now: float | None = None) -> None:
        """Record batches (id -> match ids) as queued, before their messages are sent."""
        if not batches:
            return
        stamp = time.time() if now is None else now
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(self.batches_key, mapping={bid: json.dumps(list(ids)) for bid, ids in batches.items()})
        pipe.hset(self.batch_state_key, mapping=dict.fromkeys(batches, f"{BatchStatus.QUEUED.value}:{stamp!r}"))
        pipe.execute()

    def mark(self, batch_id: str, state: BatchStatus, now: float | None = None) -> bool:
        """Write a batch's state and heartbeat time; ``False`` (nothing written) after :meth:`cleanup`."""
        word = enum_member(BatchStatus, state, "batch state").value
        stamp = time.time() if now is None else now
        return bool(self._mark(keys=[self.run_key, self.batch_state_key], args=[batch_id, f"{word}:{stamp!r}"]))

    def take(self, batch_id: str, fresh_s: float, now: float | None = None) -> bool:
        """The batch's message was delivered: ``True`` (and the batch marked running) unless another worker child
        adopted it and beats for it (heartbeat younger than ``fresh_s``)."""
        stamp = time.time() if now is None else now
        return bool(self._take(keys=[self.run_key, self.batch_state_key], args=[batch_id, repr(stamp), fresh_s]))

    def adopt(self, now: float | None = None) -> tuple[str, list[str]] | None:
        """Take the first batch still queued for this worker child: its id and match ids, or None."""
        stamp = time.time() if now is None else now
        found = self._adopt(keys=[self.run_key, self.batch_state_key, self.batches_key], args=[repr(stamp)])
        if not found:
            return None
        bid, raw = found
        return str(text(bid)), list(json.loads(raw or "[]"))

    def batch_states(self) -> dict[str, BatchState]:
        out: dict[str, BatchState] = {}
        for bid, raw in self.r.hgetall(self.batch_state_key).items():
            word, _, stamp = (text(raw) or "").partition(":")
            try:
                out[str(text(bid))] = BatchState(BatchStatus(word), float(stamp))
            except ValueError:  # an unreadable state counts as stopped: the batch is re-sent, never lost
                out[str(text(bid))] = BatchState(BatchStatus.STOPPED, 0.0)
        return out

    def batch_matches(self, batch_ids: Iterable[str] | None = None) -> dict[str, list[str]]:
        """Match ids per batch: of ``batch_ids`` (those that exist), or of every batch."""
        if batch_ids is None:
            return {str(text(b)): list(json.loads(raw)) for b, raw in self.r.hgetall(self.batches_key).items()}
        wanted = list(batch_ids)
        if not wanted:
            return {}
        raws = self.r.hmget(self.batches_key, wanted)
        return {bid: list(json.loads(raw)) for bid, raw in zip(wanted, raws, strict=True) if raw is not None}

    # -- attempts and feed ----------------------------------------------------------------------
    def started(self) -> dict[str, int]:
        """Every match started at least once, with its number of starts."""
        return {str(text(mid)): int(count) for mid, count in self.r.hgetall(self.attempts_key).items()}

    def begin(self, match_id: str) -> tuple[bool, int]:
        """Before playing a match (one round trip): whether it has a result, and the number of this start (0,
        nothing counted, after :meth:`cleanup`)."""
        recorded, attempts = self._begin(
            keys=[self.store.keys.tournament(self.tid, "results"), self.run_key, self.attempts_key], args=[match_id]
        )
        return bool(recorded), int(attempts)

    def after(self, match_id: str | None, wrote: bool) -> tuple[int, int, TournamentStatus | None]:
        """After recording (one round trip): note the time of the last result if this call wrote one; the
        tournament's ``(scheduled, done, status)`` (status ``None`` when it is gone)."""
        pipe = self.r.pipeline(transaction=False)
        if wrote and match_id is not None:
            pipe.hset(self.run_key, "last_recorded_at", repr(time.time()))
        pipe.hmget(self.store.keys.tournament(self.tid, "progress"), ["scheduled", "done"])
        pipe.hget(self.store.keys.tournament(self.tid), "status")
        *_, (scheduled, done), status = pipe.execute()
        word = text(status)
        return int(scheduled or 0), int(done or 0), None if word is None else TournamentStatus(word)

    def feed(self, start: int = 0) -> list[str]:
        return [str(text(m)) for m in self.r.lrange(self.feed_key, start, -1)]

    # -- the completeness-check lock ------------------------------------------------------------
    def lock(self, ttl: float) -> str | None:
        return take_lock(self.r, self.lock_key, ttl)

    def unlock(self, token: str) -> None:
        release_lock(self.r, self.lock_key, token)

    # -- one attempt of a match at a time ----------------------------------------------------------
    def claim(self, match_id: str, ttl: float) -> str | None:
        """Take the lock of ``match_id``'s attempt in flight for ``ttl`` seconds: its token, or ``None`` while
        another attempt holds it (a duplicated batch message never plays a match at once with it)."""
        return take_lock(self.r, self.store.keys.match_claim(self.tid, match_id), ttl)

    def renew_all(self, claims: Sequence[tuple[str, str]], ttl: float) -> int:
        """Extend every held claim of ``(match_id, token)`` in one round trip; how many were still held."""
        if not claims:
            return 0
        keys = [self.store.keys.match_claim(self.tid, match_id) for match_id, _token in claims]
        return int(self._renew(keys=keys, args=[ms(ttl), *(token for _id, token in claims)]))

    def release(self, match_id: str, token: str) -> None:
        release_lock(self.r, self.store.keys.match_claim(self.tid, match_id), token)

    def cleanup(self) -> None:
        """Drop the batch bookkeeping of a finished tournament (the run hash and feed stay) for good."""
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(self.run_key, "cleaned_at", repr(time.time()))
        pipe.delete(self.batches_key, self.batch_state_key, self.attempts_key, self.lock_key)
        pipe.execute()

    def prior(self) -> RatingPool | None:
        """The participants' ratings before the tournament, as :meth:`keep_prior` kept them."""
        raw = self.get("prior")
        return None if not raw else RatingPool.from_dict(json.loads(raw))

    def keep_prior(self, pool: RatingPool) -> None:
        """Keep the participants' ratings before the tournament, once (a later call changes nothing)."""
        self.set_once("prior", json.dumps(pool.to_dict(), sort_keys=True))
