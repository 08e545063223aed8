"""Small encoding helpers shared by the store modules (canonical JSON, bytes to str)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


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
    out: dict[str, str] = {}
    for k, v in raw.items():
        out[k.decode("utf-8") if isinstance(k, bytes) else str(k)] = (
            v.decode("utf-8") if isinstance(v, bytes) else str(v)
        )
    return out
