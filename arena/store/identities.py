"""Sandbox identities: the uids hosted bots run as, from a range that is the arena's alone.

The kernel counts some things per uid across namespaces (the process limit, keyrings), so every arena takes its
uids from a range of its own, recorded once in its Redis: a bot with memory keeps one uid, a fresh sandbox gets a
uid no earlier sandbox had (until the counter goes round the range). See docs/operations.md.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from ._codec import RecordStore
from .keys import bot_key
from .store_errors import StoreError

UID_RANGE_SIZE = 1 << 20
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
        return self.base + (n - 1) % self.size


def check_base(base: int) -> int:
    if not MIN_UID_BASE <= base <= MAX_UID + 1 - UID_RANGE_SIZE:
        raise UidRangeConflict(f"uid range base {base} is out of bounds: it must be between {MIN_UID_BASE} and "
                               f"{MAX_UID + 1 - UID_RANGE_SIZE} (the range holds {UID_RANGE_SIZE} uids)")
    return base


def random_base() -> int:
    blocks = (MAX_UID + 1 - RANDOM_BASE_LOW) // UID_RANGE_SIZE
    return RANDOM_BASE_LOW + secrets.randbelow(blocks) * UID_RANGE_SIZE


class IdentityStore(RecordStore):
    def uid_range(self, requested_base: int | None = None) -> UidRange:
        """The arena's range, set at the first call (``requested_base``, else a random one) and kept ever after."""
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
        """The uid of a bot with memory's sandboxes: handed out once, never another bot's."""
        key = self._k.bot_uids()
        field = bot_key(name)
        known = self._r.hget(key, field)
        if known is not None:
            return int(known)
        candidate = self.fresh_uid(requested_base)
        self._r.hsetnx(key, field, candidate)  # a racing host's choice wins; this one's uid is not used
        return int(self._r.hget(key, field) or candidate)

    def fresh_uid(self, requested_base: int | None = None) -> int:
        """A uid no earlier sandbox of the arena had (until the counter goes round the range)."""
        uids = self.uid_range(requested_base)
        return uids.uid(int(self._r.incr(self._k.uid_counter())))
