"""Small helpers shared by the store modules: the record stores' base, canonical JSON, bytes to str, milliseconds,
token locks, enum words."""

from __future__ import annotations

import enum
import hashlib
import json
import uuid
from collections.abc import Mapping
from typing import Any, TypeVar

import redis

from .keys import Keys

E = TypeVar("E", bound=enum.Enum)
_RELEASE_LOCK = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


class RecordStore:
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self._r = client
        self._k = keys


def dumps(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def loads(raw: bytes | str) -> Any:
    return json.loads(raw)


def digest(value: Any) -> str:
    """SHA-256 hex digest of the canonical JSON of ``value``."""
    return hashlib.sha256(dumps(value).encode("utf-8")).hexdigest()


def text(raw: bytes | str | None) -> str | None:
    if raw is None:
        return None
    return raw.decode("utf-8") if isinstance(raw, bytes) else raw


def text_hash(raw: Mapping[Any, Any]) -> dict[str, str]:
    """Decode a ``HGETALL`` answer (bytes keys and values) to ``str``."""
    return {str(text(k)): str(text(v)) for k, v in raw.items()}


def ms(seconds: float) -> int:
    """Seconds as the whole milliseconds of a ``PX`` (at least 1: 0 would mean no expiry or an error)."""
    return max(1, int(seconds * 1000))


def take_lock(client: redis.Redis, key: str, ttl_s: float) -> str | None:
    """Take the lock ``key`` for ``ttl_s`` seconds: its token, or None while another holds it."""
    token = uuid.uuid4().hex
    return token if client.set(key, token, nx=True, px=ms(ttl_s)) else None


def release_lock(client: redis.Redis, key: str, token: str) -> None:
    """Delete the lock ``key`` if ``token`` still holds it (only the holder releases it)."""
    client.eval(_RELEASE_LOCK, 1, key, token)


def enum_member(kind: type[E], word: object, what: str) -> E:
    """``word`` as a member of ``kind``; ValueError naming the known ones."""
    try:
        return kind(word)
    except ValueError:
        raise ValueError(f"unknown {what} {word!r}; expected one of {', '.join(m.value for m in kind)}") from None
