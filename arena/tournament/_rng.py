"""Seed derivation and a small deterministic random stream for the tournament logic: SHA-256, so the same inputs
give the same numbers in every process, machine and Python version (no ``hash()``, no ``random`` module state).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

SEED_BITS = 63
"""Derived seeds are non-negative integers below ``2**SEED_BITS`` (they fit a signed 64-bit int)."""


def _key(parts: Sequence[object]) -> bytes:
    return json.dumps(list(parts), separators=(",", ":"), sort_keys=True).encode("utf-8")


def derive_seed(*parts: object) -> int:
    """A stable 63-bit seed derived from JSON-serialisable ``parts`` (order matters)."""
    digest = hashlib.sha256(b"uno-arena/seed/" + _key(parts)).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def stable_digest(value: object, length: int = 16) -> str:
    """Hex SHA-256 of the canonical JSON of ``value``, cut to ``length`` characters."""
    return hashlib.sha256(_key([value])).hexdigest()[:length]


class SeededStream:
    """A deterministic stream of random integers keyed by JSON-serialisable parts (SHA-256 in counter mode)."""

    def __init__(self, *parts: object) -> None:
        self._key = b"uno-arena/stream/" + _key(parts)
        self._counter = 0
        self._buffer: list[int] = []

    def next64(self) -> int:
        """The next uniformly distributed integer in ``[0, 2**64)``."""
        if not self._buffer:
            digest = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._buffer = [int.from_bytes(digest[i : i + 8], "big") for i in range(24, -1, -8)]
        return self._buffer.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def sample(self, population: Sequence[T], k: int) -> list[T]:
        """``k`` distinct elements of ``population`` in random order."""
        pool = list(population)
        if not 0 <= k <= len(pool):
            raise ValueError("sample size out of range")
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]
