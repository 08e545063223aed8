"""Replays: zlib-compressed canonical JSON, one key per match id, written once.

A replay (``Match.replay()``: rules, players, seed, actions; the match runner may add events and
seat names) is JSON-encoded with sorted keys, ASCII only (non-ASCII text as ``\\u`` escapes: the
encoder's fast path, twice as fast on a replay as ``ensure_ascii=False``) and compressed with zlib level 3
(measured on 2-seat flip replays of ~50 kB: level 6 is 2.4x slower for 20% smaller blobs, and
both run once per match on the worker's match thread). Writes use
``SET NX``: the first replay of a match id is the one kept, like its result (see
:meth:`arena.store.results.ResultStore.record`, which writes both together).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from typing import Any

import redis

from ._codec import loads
from .keys import Keys

LEVEL = 3


def compress(replay: Mapping[str, Any]) -> bytes:
    """The stored form of a replay."""
    text = json.dumps(dict(replay), sort_keys=True, separators=(",", ":"))
    return zlib.compress(text.encode("ascii"), LEVEL)


def decompress(blob: bytes) -> dict[str, Any]:
    """The replay back from its stored form; ``ValueError`` if the bytes are not a replay."""
    try:
        data = loads(zlib.decompress(blob).decode("utf-8"))
    except (zlib.error, UnicodeDecodeError) as exc:
        raise ValueError(f"stored replay is corrupt: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError("stored replay is not a JSON object")
    return data


class ReplayStore:
    """Save and load compressed replays by match id."""

    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self._r = client
        self._k = keys

    def save(self, match_id: str, replay: Mapping[str, Any], *, ttl: float | None = None) -> bool:
        """Store the replay unless one is stored; ``True`` if this call stored it."""
        px = None if ttl is None else max(1, int(ttl * 1000))
        return bool(self._r.set(self._k.replay(match_id), compress(replay), nx=True, px=px))

    def load(self, match_id: str) -> dict[str, Any] | None:
        """The replay, or ``None`` if there is none (never recorded, or expired)."""
        blob = self._r.get(self._k.replay(match_id))
        return None if blob is None else decompress(blob)

    def size(self, match_id: str) -> int:
        """Stored (compressed) size in bytes, 0 if absent."""
        return int(self._r.strlen(self._k.replay(match_id)))
