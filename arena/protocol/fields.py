"""Protobuf wire-format primitives: varints, field keys and encoded scalar, bytes and string fields (used by
the fast encoder, :mod:`arena.protocol.encoding`, and the card cache, :mod:`arena.protocol.card_cache`)."""

from __future__ import annotations

_VARINT, _LEN = 0, 2

_SMALL = [bytes((i,)) for i in range(128)]


def varint(value: int) -> bytes:
    """Base-128 varint; negative numbers as 64-bit two's complement (int32/int64 fields)."""
    if 0 <= value < 0x80:
        return _SMALL[value]
    if value < 0:
        value &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def key(field: int, wire_type: int) -> bytes:
    return varint((field << 3) | wire_type)


_INT_KEYS = [key(field, _VARINT) for field in range(32)]


def int_field(field: int, value: int) -> bytes:
    return _INT_KEYS[field] + (_SMALL[value] if 0 <= value < 0x80 else varint(value))


_LEN_KEYS = [key(field, _LEN) for field in range(32)]


def bytes_field(field: int, payload: bytes) -> bytes:
    size = len(payload)
    return _LEN_KEYS[field] + (_SMALL[size] if size < 0x80 else varint(size)) + payload


def str_field(field: int, text: str) -> bytes:
    return bytes_field(field, text.encode("utf-8"))
