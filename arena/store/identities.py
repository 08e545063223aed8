"""Sandbox identities: the uids hosted bots run as, from a range that is the arena's alone.

A uid is what the kernel counts per user across namespaces (the process limit, keyrings, inotify instances): two
sandboxes with one uid share them. So every arena takes its uids from a range of :data:`UID_RANGE_SIZE` uids of
its own (``uno:identity:range``, its first uid, set once by the first host to ask: the operator's
``UNO_ARENA_UID_BASE``, else a random block of the uid space, so two arenas on one machine do not meet unless an
operator says so), and hands them out from one counter (``uno:identity:next``):

- a bot with memory gets one uid, kept (``uno:identity:bots``): its processes share its process limit;
- a fresh sandbox (a bot without memory) gets a uid no earlier sandbox had (:meth:`IdentityStore.fresh_uid`).

The counter goes round the range after :data:`UID_RANGE_SIZE` uids (a million sandboxes): the oldest uids come
again, long after their sandboxes ended.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import redis

from .keys import Keys, bot_key
from .store_errors import StoreError

UID_RANGE_SIZE = 1 << 20
"""Uids of one arena's range."""
MIN_UID_BASE = 100_000
"""The lowest first uid an operator may name: above the system's and its users' (65534 is ``nobody``)."""
RANDOM_BASE_LOW = 1 << 24
"""Random ranges start here: above the subordinate uid ranges of a machine's users (``/etc/subuid``)."""
MAX_UID = (1 << 32) - 3
"""The highest uid handed out: (uid_t)-1 and -2 mean "no uid" to some calls."""


class UidRangeConflict(StoreError):
    """The uid range asked for is not the arena's (or not a usable range): the message names both and the fix."""


@dataclass(frozen=True)
class UidRange:
    base: int
    size: int = UID_RANGE_SIZE

    def uid(self, n: int) -> int:
        """The ``n``-th uid handed out (from 1), round the range."""
        return self.base + (n - 1) % self.size


def check_base(base: int) -> int:
    """``base`` as the first uid of a range, or :class:`UidRangeConflict` saying what is allowed."""
    if not MIN_UID_BASE <= base <= MAX_UID + 1 - UID_RANGE_SIZE:
        raise UidRangeConflict(f"uid range base {base} is out of bounds: it must be between {MIN_UID_BASE} and "
                               f"{MAX_UID + 1 - UID_RANGE_SIZE} (the range holds {UID_RANGE_SIZE} uids)")
    return base


def random_base() -> int:
    blocks = (MAX_UID + 1 - RANDOM_BASE_LOW) // UID_RANGE_SIZE
    return RANDOM_BASE_LOW + secrets.randbelow(blocks) * UID_RANGE_SIZE


class IdentityStore:
    """The arena's uid range and the uids handed out in it (see the module docstring)."""

    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self._r = client
        self._k = keys

    def uid_range(self, requested_base: int | None = None) -> UidRange:
        """The arena's range: set at the first call (``requested_base``, else a random one), the same ever after;
        :class:`UidRangeConflict` when ``requested_base`` is not the arena's."""
        if requested_base is not None:
            check_base(requested_base)
        key = self._k.uid_range()
        self._r.set(key, requested_base if requested_base is not None else random_base(), nx=True)
        recorded = int(self._r.get(key) or 0)
        if requested_base is not None and recorded != requested_base:
            raise UidRangeConflict(f"this arena's sandbox uids start at {recorded} (recorded in its Redis at "
                                   f"{key}); UNO_ARENA_UID_BASE asks for {requested_base}: unset it, or set it to "
                                   f"{recorded}")
        return UidRange(check_base(recorded))

    def bot_uid(self, name: str, requested_base: int | None = None) -> int:
        """The uid of the bot's sandboxes (a bot with memory): handed out once, never another bot's."""
        key = self._k.bot_uids()
        field = bot_key(name)
        known = self._r.hget(key, field)
        if known is not None:
            return int(known)
        candidate = self.fresh_uid(requested_base)
        self._r.hsetnx(key, field, candidate)  # a racing host's choice wins; this one's uid is not used
        return int(self._r.hget(key, field) or candidate)

    def fresh_uid(self, requested_base: int | None = None) -> int:
        """A uid no earlier sandbox of the arena had (until the counter has gone round the range)."""
        uids = self.uid_range(requested_base)
        return uids.uid(int(self._r.incr(self._k.uid_counter())))
