"""The relay's message format: one line of JSON (the header), a newline, then protobuf bytes; and the JSON
reply to a relayed decision (see :mod:`arena.relay` for the operations)."""

from __future__ import annotations

import json
from typing import Any

from arena.store import ReplyAddress

_COMPACT = json.JSONEncoder(separators=(",", ":"))
"""One encoder for every header: ``json.dumps`` with arguments would build a new one per message (per decision)."""


def encode(header: dict[str, Any], body: bytes) -> bytes:
    return _COMPACT.encode(header).encode() + b"\n" + body


def decode(raw: bytes) -> tuple[dict[str, Any], bytes]:
    head, _, body = raw.partition(b"\n")
    return json.loads(head), body


def reply_fields(address: ReplyAddress) -> dict[str, str]:
    """The header fields that tell the gateway where to answer: ``reply`` (the list) and, for a worker process's
    shared list, ``rid`` (the id its answer is framed with)."""
    return {"reply": address.key, "rid": address.rid} if address.rid else {"reply": address.key}


def reply_address(header: dict[str, Any]) -> ReplyAddress:
    """Where to answer the message of ``header`` (:func:`reply_fields`)."""
    return ReplyAddress(str(header["reply"]), str(header.get("rid") or ""))


def readdressed(header: dict[str, Any], address: ReplyAddress) -> dict[str, Any]:
    """``header`` with its answer going to ``address`` instead (a draining gateway passing a message on)."""
    return {**{k: v for k, v in header.items() if k not in ("reply", "rid")}, **reply_fields(address)}


def decide_reply(status: str, index: int | None, refusals: int, reasons: list[str], wire_s: float | None, late: int,
                 version: str, lag_s: float = 0.0) -> str:
    """The JSON reply to a ``decide`` message (``lag_s``: the lag compensation the gateway granted)."""
    return json.dumps({"status": status, "index": index, "refusals": refusals, "reasons": reasons, "wire_s": wire_s,
                       "late": late, "version": version, "lag_s": lag_s})


def drop_message(bot: str, sessions: list[str], reason: str) -> bytes:
    """The relay's ``drop`` message: the gateway closes these sessions of the bot (``UNAUTHENTICATED``,
    ``reason``), and no later one (a stream opened with a new token stays)."""
    return encode({"op": "drop", "bot": bot, "sessions": sessions, "reason": reason}, b"")
