"""The seed commitment of a tournament (commit and reveal) and the secret its deals derive from.

The secret goes into every deal seed with the tournament seed, so that no seed an operator passes lets a bot predict
a deal from its first hand. ``seed_commitment = hex(SHA-256(salt || seed as 8 bytes big-endian || secret))`` is
published at creation; seed, salt and secret are revealed when the tournament ends (docs/organizers.md, seeds).
"""

from __future__ import annotations

import hashlib
import re

SALT_BYTES = 32
SECRET_BYTES = 32
SEED_BYTES = 8
MAX_SEED = 2 ** (8 * SEED_BYTES) - 1
"""Seeds are unsigned 64-bit integers (the protocol's ``uint64``)."""
_SECRET_RE = re.compile(f"^[0-9a-f]{{{2 * SECRET_BYTES}}}$")


def check_secret(secret_hex: str) -> None:
    """``ValueError`` unless ``secret_hex`` is empty (no secret) or 64 lowercase hex digits."""
    if not isinstance(secret_hex, str) or (secret_hex and not _SECRET_RE.match(secret_hex)):
        raise ValueError(f"a seed secret must be {2 * SECRET_BYTES} lowercase hex digits or empty, got {secret_hex!r}")


def seed_commitment(seed: int, salt: bytes, secret: bytes) -> str:
    """``hex(SHA-256(salt || seed as 8-byte big-endian || secret))``: 64 lowercase hex digits."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a seed must be an integer between 0 and {MAX_SEED}")
    if len(salt) != SALT_BYTES:
        raise ValueError(f"a salt must be {SALT_BYTES} bytes, got {len(salt)}")
    if len(secret) != SECRET_BYTES:
        raise ValueError(f"a seed secret must be {SECRET_BYTES} bytes, got {len(secret)}")
    return hashlib.sha256(bytes(salt) + seed.to_bytes(SEED_BYTES, "big") + bytes(secret)).hexdigest()


def check_commitment(commitment: str, seed: int, salt_hex: str, secret_hex: str) -> bool:
    """Whether ``commitment`` is that of ``seed`` with ``salt_hex`` and ``secret_hex`` (64 hex digits each)."""
    try:
        salt = bytes.fromhex(salt_hex)
        secret = bytes.fromhex(secret_hex)
        return seed_commitment(seed, salt, secret) == commitment.strip().lower()
    except ValueError:
        return False
