"""Which uid a hosted bot's sandbox runs as (a root host): the operator's range setting and the store's uids.

``UNO_ARENA_UID_BASE`` (optional) names the first uid of the arena's range; without it the arena's Redis keeps the
range the first host chose at random. Every host of one arena must agree (one that names another base stops).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from arena.store import Store
from arena.store.identities import IdentityStore, UidRange, UidRangeConflict, check_base

UID_BASE_ENV = "UNO_ARENA_UID_BASE"


def requested_base(environ: Mapping[str, str] = os.environ) -> int | None:
    """The operator's first uid, None when not set; :class:`UidRangeConflict` when it is not a usable number."""
    raw = environ.get(UID_BASE_ENV, "").strip()
    if not raw:
        return None
    try:
        base = int(raw)
    except ValueError:
        raise UidRangeConflict(f"{UID_BASE_ENV}={raw[:40]!r} is not a number: set it to the first uid of this "
                               "arena's sandbox uids (or unset it for a range of the arena's own)") from None
    return check_base(base)


def uid_range(store: Store) -> UidRange:
    """The arena's range (checks the operator's setting against the arena's: call it when the host starts)."""
    return IdentityStore(store.redis, store.keys).uid_range(requested_base())


def sandbox_uid(store: Store, name: str, fresh: bool) -> int:
    """The uid for a sandbox of ``name``: a new one for a fresh sandbox, else the bot's own."""
    identities = IdentityStore(store.redis, store.keys)
    return identities.fresh_uid(requested_base()) if fresh else identities.bot_uid(name, requested_base())
