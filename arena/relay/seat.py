"""The workers' side of the relay: :class:`RelaySeat`, a remote bot reached through Redis and whichever gateway
holds its stream (see :mod:`arena.relay`)."""

from __future__ import annotations

import json
import time
from typing import Any

from arena.engine import Observation
from arena.protocol.encoding import request_body
from arena.protocol.messages import match_ended, match_events, match_started
from arena.runner import MatchSummary, Seat, SeatGone, SeatRequest, SeatStart, settle
from arena.store import RelayChannel, Store, StoreFailure

from .messages import encode

DEFAULT_MARGIN_S = 2.0


class RelaySeat(Seat):
    """A remote bot reached through Redis and whichever gateway holds its stream."""

    wants_events = True

    def __init__(self, store: Store, bot_name: str, *, margin_s: float = DEFAULT_MARGIN_S) -> None:
        self.store = store
        self.name = bot_name
        self.version = "unknown"
        self.margin_s = margin_s
        self._channel: RelayChannel | None = None
        self._gateway: str | None = None
        self._started_on: str | None = None
        self._start: bytes = b""
        self._match_id = ""
        self._seat = -1
        self._late = 0

    def _relay(self) -> RelayChannel:
        if self._channel is None:
            self._channel = self.store.relay()
        return self._channel

    def _header(self, op: str, **more: Any) -> dict[str, Any]:
        return {"op": op, "bot": self.name, "match_id": self._match_id, "seat": self._seat, **more}

    async def _push(self, gateway: str, header: dict[str, Any], body: bytes) -> None:
        await self._relay().push(gateway, encode(header, body))

    async def _ensure_started(self) -> str | None:
        if self._gateway is None:
            self._gateway = await self._relay().live_gateway(self.name)
        gateway = self._gateway
        if gateway is not None and self._started_on != gateway and self._start:
            await self._push(gateway, self._header("start"), self._start)
            self._started_on = gateway
        return gateway

    async def start(self, info: SeatStart) -> None:
        self._match_id, self._seat = info.match_id, info.seat
        self._start = match_started(info).SerializeToString()
        await self._ensure_started()

    async def decide(self, request: SeatRequest) -> int:
        try:
            gateway = await self._ensure_started()
        except StoreFailure as error:
            raise SeatGone(f"cannot reach Redis: {error}") from None
        if gateway is None:
            raise SeatGone(f"bot {self.name!r} has no live session on any gateway")
        body = request_body(request.match_id, request.decision_number, request.observation, request.legal)
        relay = self._relay()
        key = relay.new_reply_key()
        header = self._header("decide", legal=len(request.legal), deadline_s=request.deadline_s, reply=key,
                              sent=time.time(), number=request.decision_number)
        try:
            await self._push(gateway, header, body)
            raw = await relay.wait_reply(key, request.deadline_s + self.margin_s)
        except StoreFailure as error:
            raise SeatGone(f"cannot reach Redis: {error}") from None
        if raw is None:
            self._gateway = None
            raise SeatGone(f"gateway {gateway} did not answer within {request.deadline_s + self.margin_s:g} s")
        reply = json.loads(raw)
        self._late = int(reply.get("late", 0))
        if reply.get("version"):
            self.version = str(reply["version"])
        if reply["status"] == "gone":
            self._gateway = None
        return settle(request, reply["status"], reply.get("index"), int(reply.get("refusals", 0)),
                      reply.get("reasons", []), reply.get("wire_s"))

    async def events(self, match_id: str, observation: Observation) -> None:
        if self._gateway is not None:
            await self._push(self._gateway, self._header("events"),
                             match_events(match_id, observation).SerializeToString())

    async def end(self, match_id: str, summary: MatchSummary) -> None:
        try:
            if self._gateway is not None:
                await self._push(self._gateway, self._header("end"), match_ended(match_id, summary).SerializeToString())
        finally:
            if self._channel is not None:
                await self._channel.close()
                self._channel = None

    def late_refusals(self) -> int:
        return self._late
