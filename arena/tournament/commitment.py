"""The seed commitment of a tournament (commit and reveal).

At creation the arena publishes ``seed_commitment = hex(SHA-256(salt || seed))`` where ``salt`` is 32
random bytes and ``seed`` the tournament seed as an 8-byte big-endian unsigned integer. While the
tournament is pending or running the seed and the salt are secret (only an admin may read them); when
it ends both are revealed and anyone can recompute the commitment (:func:`check_commitment`) and, from the
seed, every match's deal seed (:func:`arena.tournament.schedule`).
"""

from __future__ import annotations

import hashlib

SALT_BYTES = 32
SEED_BYTES = 8
MAX_SEED = 2 ** (8 * SEED_BYTES) - 1
"""Seeds are unsigned 64-bit integers (the protocol's ``uint64``)."""


def seed_commitment(seed: int, salt: bytes) -> str:
    """``hex(SHA-256(salt || seed as 8-byte big-endian))``: 64 lowercase hex digits."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a seed must be an integer between 0 and {MAX_SEED}")
    if len(salt) != SALT_BYTES:
        raise ValueError(f"a salt must be {SALT_BYTES} bytes, got {len(salt)}")
    return hashlib.sha256(bytes(salt) + seed.to_bytes(SEED_BYTES, "big")).hexdigest()


def check_commitment(commitment: str, seed: int, salt_hex: str) -> bool:
    """Whether ``commitment`` is the commitment of ``seed`` with the salt ``salt_hex`` (64 hex digits)."""
    try:
        salt = bytes.fromhex(salt_hex)
        return seed_commitment(seed, salt) == commitment.strip().lower()
    except ValueError:
        return False
