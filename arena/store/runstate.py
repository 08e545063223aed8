"""Run state of tournaments kept by the workers: batches, their heartbeats, attempts, the feed.

The store (:mod:`arena.store`) holds what a tournament *is* and what it produced (spec, status,
scheduled match ids, results written once, replays, standings, ratings). This module adds what
the workers need to *run* one, under the same prefix (``uno:`` by default; the keys are built by
:meth:`arena.store.keys.Keys.tournament_run`, listed with every other key in :mod:`arena.store.keys`):

=========================================  ======  ===================================================
key                                        type    contents
=========================================  ======  ===================================================
``uno:tournament:{tid}:run``               hash    ``started_at finished_at batch_size enqueued prior
                                                   check_token checked_at last_recorded_at
                                                   last_resent_at rescues detail schedule_id
                                                   cleaned_at``;
                                                   ``prior`` is the JSON rating
                                                   pool of the participants when the tournament started
                                                   (its standings are computed on top of it)
``uno:tournament:{tid}:batches``           hash    ``{bid}`` -> JSON list of the batch's match ids
``uno:tournament:{tid}:batch_state``       hash    ``{bid}`` -> ``"queued:{ts}"``, ``"running:{ts}"`` or
                                                   ``"adopted:{ts}"`` (played by a child besides its own
                                                   batch; ``ts`` is the last heartbeat), ``"done:{ts}"`` or
                                                   ``"stopped:{ts}"`` (soft time limit, cancelled)
``uno:tournament:{tid}:attempts``          hash    ``{mid}`` -> times a worker started the match
``uno:tournament:{tid}:feed``              list    match ids in the order their results were written
                                                   (appended by the script that writes a result)
``uno:tournament:{tid}:check_lock``        string  short lock (``SET NX EX``) of one completeness check
``uno:tournament:{tid}:claim:{mid}``       string  the attempt of ``{mid}`` in flight (``SET NX PX``,
                                                   renewed by the heartbeat; :meth:`RunState.claim`)
=========================================  ======  ===================================================

Everything here is advisory bookkeeping: losing any of it never loses or double-counts a result
(results are written once, by match id, by :meth:`arena.store.ResultStore.record`). At worst a
lost batch is noticed later (by the stall rule of the completeness check) or a match is played
twice and its second result ignored.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import redis

from arena.store import Store
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
    """One batch's state and the time it was last written (heartbeat while running)."""

    state: BatchStatus
    ts: float


def _text(raw: bytes | str | None) -> str | None:
    if raw is None:
        return None
    return raw.decode("utf-8") if isinstance(raw, bytes) else raw


def _batch_status(word: str) -> BatchStatus:
    """A stored batch state word; an unreadable one counts as stopped (the batch is re-sent, never lost)."""
    try:
        return BatchStatus(word)
    except ValueError:
        return BatchStatus.STOPPED


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

# KEYS[1]: a match claim; ARGV[1]: its token. Deleted only by its holder.
_RELEASE_CLAIM = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


class RunState:
    """The run bookkeeping of one tournament (see the module docstring for the keys)."""

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
        self._release = self.r.register_script(_RELEASE_CLAIM)

    # -- the run hash --------------------------------------------------------------------------
    def fields(self) -> dict[str, str]:
        raw = self.r.hgetall(self.run_key)
        return {str(_text(k)): str(_text(v)) for k, v in raw.items()}

    def get(self, name: str) -> str | None:
        return _text(self.r.hget(self.run_key, name))

    def set(self, **values: object) -> None:
        self.r.hset(self.run_key, mapping={k: str(v) for k, v in values.items()})

    def set_once(self, name: str, value: object) -> bool:
        """Write a field only if it is absent; ``True`` if this call wrote it."""
        return bool(self.r.hsetnx(self.run_key, name, str(value)))

    def incr(self, name: str, amount: int = 1) -> int:
        """Add to a counter field of the run hash; the new value."""
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
        """Write a batch's state (and heartbeat time); ``False`` (nothing written) after :meth:`cleanup`."""
        try:
            word = BatchStatus(state).value
        except ValueError:
            raise ValueError(f"unknown batch state {state!r}") from None
        stamp = time.time() if now is None else now
        return bool(self._mark(keys=[self.run_key, self.batch_state_key], args=[batch_id, f"{word}:{stamp!r}"]))

    def take(self, batch_id: str, fresh_s: float, now: float | None = None) -> bool:
        """The batch's message was delivered: ``True`` (and the batch marked running) unless another worker child
        adopted it and its heartbeat is younger than ``fresh_s`` (or the bookkeeping was cleaned up)."""
        stamp = time.time() if now is None else now
        return bool(self._take(keys=[self.run_key, self.batch_state_key], args=[batch_id, repr(stamp), fresh_s]))

    def adopt(self, now: float | None = None) -> tuple[str, list[str]] | None:
        """Take the first batch still queued for this worker child (marked adopted): its id and match ids; None
        when no batch is queued."""
        stamp = time.time() if now is None else now
        found = self._adopt(keys=[self.run_key, self.batch_state_key, self.batches_key], args=[repr(stamp)])
        if not found:
            return None
        bid, raw = found
        return str(_text(bid)), list(json.loads(raw or "[]"))

    def batch_states(self) -> dict[str, BatchState]:
        out: dict[str, BatchState] = {}
        for bid, raw in self.r.hgetall(self.batch_state_key).items():
            word, _, stamp = (_text(raw) or "").partition(":")
            try:
                ts = float(stamp)
            except ValueError:
                ts = 0.0
            out[str(_text(bid))] = BatchState(_batch_status(word), ts)
        return out

    def batch_matches(self, batch_ids: Iterable[str] | None = None) -> dict[str, list[str]]:
        """Match ids per batch: of ``batch_ids`` (those that exist), or of every batch."""
        if batch_ids is None:
            return {str(_text(b)): list(json.loads(raw)) for b, raw in self.r.hgetall(self.batches_key).items()}
        wanted = list(batch_ids)
        if not wanted:
            return {}
        raws = self.r.hmget(self.batches_key, wanted)
        return {bid: list(json.loads(raw)) for bid, raw in zip(wanted, raws, strict=True) if raw is not None}

    # -- attempts and feed ----------------------------------------------------------------------
    def attempt(self, match_id: str) -> int:
        """Count one more start of ``match_id``; returns the count including this one."""
        return int(self.r.hincrby(self.attempts_key, match_id, 1))

    def started(self) -> dict[str, int]:
        """Every match started at least once (until :meth:`cleanup`), with its number of starts."""
        return {str(_text(mid)): int(count) for mid, count in self.r.hgetall(self.attempts_key).items()}

    def begin(self, match_id: str) -> tuple[bool, int]:
        """Before playing a match (one round trip): whether it has a result, and the number of
        this start (:meth:`attempt`); the number is 0 (nothing counted) after :meth:`cleanup`."""
        recorded, attempts = self._begin(
            keys=[self.store.keys.results(self.tid), self.run_key, self.attempts_key], args=[match_id]
        )
        return bool(recorded), int(attempts)

    def after(self, match_id: str | None, wrote: bool) -> tuple[int, int, TournamentStatus | None]:
        """After recording (one round trip): note the time of the last result if this call wrote one;
        returns ``(scheduled, done, status)`` of the tournament (status ``None`` when it is gone). (The feed is
        appended by :meth:`arena.store.ResultStore.record` itself, in the script that writes the result.)"""
        pipe = self.r.pipeline(transaction=False)
        if wrote and match_id is not None:
            pipe.hset(self.run_key, "last_recorded_at", repr(time.time()))
        pipe.hmget(self.store.keys.progress(self.tid), ["scheduled", "done"])
        pipe.hget(self.store.keys.tournament(self.tid), "status")
        *_, (scheduled, done), status = pipe.execute()
        word = _text(status)
        return int(scheduled or 0), int(done or 0), None if word is None else TournamentStatus(word)

    def feed(self, start: int = 0) -> list[str]:
        return [str(_text(m)) for m in self.r.lrange(self.feed_key, start, -1)]

    # -- the completeness-check lock ------------------------------------------------------------
    def lock(self, ttl: float) -> str | None:
        token = uuid.uuid4().hex
        ok = self.r.set(self.lock_key, token, nx=True, px=max(1, int(ttl * 1000)))
        return token if ok else None

    def unlock(self, token: str) -> None:
        # Only the holder deletes the lock (a compare-and-delete in one script).
        self.r.eval(
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
            1,
            self.lock_key,
            token,
        )

    # -- one attempt of a match at a time ----------------------------------------------------------
    def claim(self, match_id: str, ttl: float) -> str | None:
        """Take the lock of ``match_id``'s attempt in flight for ``ttl`` seconds (renew it with :meth:`renew`);
        a token to release it with, or ``None`` while another attempt holds it. A duplicated batch message
        thus never plays a match concurrently with the attempt in flight; a dead worker's lock expires."""
        token = uuid.uuid4().hex
        ok = self.r.set(self.store.keys.match_claim(self.tid, match_id), token, nx=True, px=max(1, int(ttl * 1000)))
        return token if ok else None

    def renew(self, match_id: str, token: str, ttl: float) -> bool:
        """Extend a held claim; ``False`` if it is not (or no longer) held with ``token``."""
        return self.renew_all([(match_id, token)], ttl) == 1

    def renew_all(self, claims: Sequence[tuple[str, str]], ttl: float) -> int:
        """Extend every held claim of ``(match_id, token)`` in one round trip; how many were still held."""
        if not claims:
            return 0
        keys = [self.store.keys.match_claim(self.tid, match_id) for match_id, _token in claims]
        return int(self._renew(keys=keys, args=[max(1, int(ttl * 1000)), *(token for _id, token in claims)]))

    def release(self, match_id: str, token: str) -> None:
        self._release(keys=[self.store.keys.match_claim(self.tid, match_id)], args=[token])

    def cleanup(self) -> None:
        """Drop the batch bookkeeping of a finished tournament (the run hash and feed stay); ``cleaned_at`` in the
        run hash keeps :meth:`mark` and :meth:`begin` (a late redelivery) from re-creating it."""
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(self.run_key, "cleaned_at", repr(time.time()))
        pipe.delete(self.batches_key, self.batch_state_key, self.attempts_key, self.lock_key)
        pipe.execute()

    def prior(self) -> RatingPool | None:
        """The participants' ratings before the tournament, as :meth:`keep_prior` kept them (None before)."""
        raw = self.get("prior")
        return None if not raw else RatingPool.from_dict(json.loads(raw))

    def keep_prior(self, pool: RatingPool) -> None:
        """Keep the participants' ratings before the tournament, once (a later call changes nothing)."""
        self.set_once("prior", json.dumps(pool.to_dict(), sort_keys=True))
