"""The workers' side of the relay: :class:`RelaySeat`, a remote bot reached through Redis and whichever gateway
holds its stream, over the event loop's shared hub (:mod:`arena.relay.hub`)."""

from __future__ import annotations

import asyncio
import time

from arena.engine import Observation
from arena.players import Admission, DecideStatus
from arena.protocol import relay_pb2
from arena.protocol.encoding import request_body
from arena.protocol.messages import match_ended, match_events, match_started
from arena.runner import (
    DEFAULT_ADMIT_TIMEOUT_S,
    MatchSummary,
    Seat,
    SeatGone,
    SeatNotAdmitted,
    SeatRequest,
    SeatStart,
    SeatUnreachable,
    settle,
)
from arena.store import PendingEnd, RelayChannel, RelayHub, Replies, Store, StoreFailure

from .envelope import decide_status, read_admission, reply_to
from .hub import relay_hub

DEFAULT_MARGIN_S = 2.0
COMEBACK_POLL_S = 0.1
"""How often a decision whose bot is away looks for its new session (:meth:`RelaySeat.decide`)."""
_UNSEATED = (None, Admission.DRAINING)
"""A start's answers that leave the bot unseated by the arena's doing (no answer, a draining gateway)."""


class BotAway(SeatGone):
    """The bot has no session (or its stream broke while asked): :meth:`RelaySeat.decide` waits for it to come back
    within the decision's time before this counts."""


class RelaySeat(Seat):
    """A remote bot reached through Redis and whichever gateway holds its stream."""

    wants_events = True

    def __init__(self, store: Store, bot_name: str, *, margin_s: float = DEFAULT_MARGIN_S,
                 admit_timeout_s: float = DEFAULT_ADMIT_TIMEOUT_S, casual: bool = False) -> None:
        self.store = store
        self.casual = casual  # a game against a person: it gives way to rated matches
        self.name = bot_name
        self.version = "unknown"
        self.margin_s = margin_s
        self.admit_timeout_s = admit_timeout_s
        self._gateway: str | None = None
        self._started_on: str | None = None
        self._start: relay_pb2.Start | None = None
        self._ref = relay_pb2.SeatRef(bot=bot_name)  # the seat every message names (start fills it in)
        self._match_id = ""
        self._seat = -1
        self._attempt = 0
        self._late = 0
        self._lost = False  # no live session because the arena lost the bot's stream (no strike)
        self._hub: RelayHub | None = None  # the hub this seat used last, looked up again once it closed

    async def _relay_hub(self) -> RelayHub:
        hub = self._hub
        if hub is None or hub.closed:
            hub = self._hub = await relay_hub(self.store)
        return hub

    async def _relay(self) -> RelayChannel:
        return (await self._relay_hub()).channel

    async def _expect(self) -> Replies:
        """Wait for the answers to a message about to be sent (its ``reply_to`` is :attr:`Replies.address`)."""
        return (await self._relay_hub()).expect()

    async def _push(self, gateway: str, request: relay_pb2.RelayRequest) -> None:
        relay = await self._relay()
        await relay.push(gateway, request.SerializeToString())

    async def _ensure_started(self) -> str | None:
        if self._gateway is None:
            relay = await self._relay()
            self._gateway, self._lost = await relay.find_gateway(self.name)
        gateway = self._gateway
        if gateway is None or self._started_on == gateway or self._start is None:
            return gateway
        if self._started_on is not None:  # seated on another gateway, the bot moved here: seat it at once
            await self._push(gateway, relay_pb2.RelayRequest(start=self._start))
            self._started_on = gateway
            return gateway
        # Not connected when the match started (its fault): seated now only if it has a free slot at once.
        refused = SeatGone(f"bot {self.name!r} was not connected when match {self._match_id} started and now plays "
                           "as many matches as its Hello offered")
        return gateway if await self._seat_bot(gateway, 0.0, refused) else None

    async def _seat_bot(self, gateway: str, wait_s: float, refused: Exception) -> bool:
        """Ask ``gateway`` to seat the bot within ``wait_s``: whether it was; ``refused`` when no slot came in time,
        SeatNotAdmitted when the gateway queued the start and then went silent."""
        assert self._start is not None
        start = relay_pb2.Start()
        start.CopyFrom(self._start)
        start.wait_s = wait_s
        with await self._expect() as replies:
            start.reply_to.CopyFrom(reply_to(replies.address))
            await self._push(gateway, relay_pb2.RelayRequest(start=start))
            raw = await replies.next(self.margin_s)
            if raw is not None and read_admission(raw) == Admission.QUEUED:
                raw = await replies.next(wait_s + self.margin_s)
                if raw is None:  # the gateway went away meanwhile: release what it may have given
                    await self._push(gateway, relay_pb2.RelayRequest(release=relay_pb2.Release(seat=self._ref)))
                    raise SeatNotAdmitted(f"gateway {gateway} did not seat bot {self.name!r} within "
                                          f"{wait_s + self.margin_s:g} s")
        state = None if raw is None else read_admission(raw)
        if state in _UNSEATED:  # its gateway did not answer (died, drains, or Redis lost the message): our fault
            self._gateway, self._lost = None, True
            return False
        if state != Admission.ADMITTED:
            raise refused
        self._started_on = gateway
        return True

    async def start(self, info: SeatStart) -> None:
        """Ask the gateway holding the bot to seat it once it has a free slot (SeatNotAdmitted when none came in
        time); no live session or no answer: the first decision finds out."""
        self._match_id, self._seat, self._attempt = info.match_id, info.seat, info.attempt
        self._ref = relay_pb2.SeatRef(bot=self.name, match_id=info.match_id, seat=info.seat, attempt=info.attempt)
        self._start = relay_pb2.Start(seat=self._ref, casual=self.casual, started=match_started(info))
        refused = SeatNotAdmitted(f"bot {self.name!r} already plays as many matches as its Hello offered and none "
                                  f"ended within {self.admit_timeout_s:g} s")
        try:
            relay = await self._relay()
            gateway = self._gateway = await relay.live_gateway(self.name)
            if gateway is not None:
                await self._seat_bot(gateway, self.admit_timeout_s, refused)
        except StoreFailure:
            return

    async def decide(self, request: SeatRequest) -> int:
        """Ask the bot through its gateway. A bot away has the decision's whole time (its time bank included) to come
        back and is asked again with the time left; only a bot still away then is :class:`SeatGone`. Redis failing is
        :class:`SeatUnreachable` (the arena's fault)."""
        until = time.monotonic() + request.decision_deadline_s
        deadline_s = request.decision_deadline_s
        try:
            while True:
                try:
                    return await self._decide_once(request, deadline_s)
                except BotAway:
                    if not await self._await_comeback(until):
                        raise
                deadline_s = until - time.monotonic()
        except StoreFailure as error:
            raise SeatUnreachable(f"cannot reach Redis: {error}") from None

    async def _await_comeback(self, until: float) -> bool:
        """Wait until ``until`` (monotonic) at most for a live session of the bot; whether it came back."""
        while until - time.monotonic() > COMEBACK_POLL_S:
            await asyncio.sleep(COMEBACK_POLL_S)
            relay = await self._relay()
            gateway, _lost = await relay.find_gateway(self.name)
            if gateway is not None:
                return True
        return False

    async def _decide_once(self, request: SeatRequest, deadline_s: float) -> int:
        gateway = await self._ensure_started()
        if gateway is None and self._lost:
            raise SeatUnreachable(f"bot {self.name!r} lost its gateway (it died or drained) and has not "
                                  "reconnected yet")
        if gateway is None:
            raise BotAway(f"bot {self.name!r} has no live session on any gateway")
        t_start = time.perf_counter()
        body = request_body(request.match_id, request.decision_number, request.observation, request.legal,
                            self._attempt)
        with await self._expect() as replies:
            decide = relay_pb2.Decide(seat=self._ref, reply_to=reply_to(replies.address),
                                      decision_number=request.decision_number, legal_count=len(request.legal),
                                      deadline_s=deadline_s, lag_cap_s=request.lag_compensation_cap_s,
                                      sent_at=time.time(), request=body)
            payload = relay_pb2.RelayRequest(decide=decide).SerializeToString()
            built_s = time.perf_counter() - t_start
            heard = await (await self._relay()).publish(gateway, payload)
            wait_s = deadline_s + request.lag_compensation_cap_s + self.margin_s
            raw = await replies.next(wait_s) if heard else None
        if not heard:
            self._gateway = None
            raise SeatUnreachable(f"gateway {gateway} is not listening (gone, or reconnecting to Redis)")
        if raw is None:
            self._gateway = None
            raise SeatUnreachable(f"gateway {gateway} did not answer within {deadline_s + self.margin_s:g} s")
        t_read = time.perf_counter()
        reply = relay_pb2.DecideReply.FromString(raw)
        if reply.undelivered:
            raise SeatUnreachable(f"the request reached gateway {gateway} after its deadline (Redis was slow)")
        self._late = reply.late_refusals
        request.lag_s = reply.lag_s
        if reply.version:
            self.version = reply.version
        status = decide_status(reply.status)
        wire_s = reply.wire_s if reply.HasField("wire_s") else None
        if status == DecideStatus.GONE:
            self._gateway = None
            if reply.moved:  # its gateway drains and the bot is on no other one yet: the arena's doing
                raise SeatUnreachable(f"gateway {gateway} is draining and bot {self.name!r} has not moved yet")
            request.refusals, request.refusal_reasons, request.wire_s = reply.refusals, list(reply.reasons), wire_s
            raise BotAway(f"match {request.match_id}, decision {request.decision_number}: the bot is not connected")
        if reply.gateway:  # handed over by a draining gateway: the bot is on this one now
            self._gateway = reply.gateway
        request.arena_s = built_s + time.perf_counter() - t_read
        return settle(request, status, reply.index if reply.HasField("index") else None, reply.refusals,
                      reply.reasons, wire_s)

    async def events(self, match_id: str, observation: Observation) -> None:
        if self._gateway is not None:  # lost with a gateway: the next request's observation is complete anyway
            events = relay_pb2.Events(seat=self._ref, events=match_events(match_id, observation))
            relay = await self._relay()
            await relay.publish(self._gateway, relay_pb2.RelayRequest(events=events).SerializeToString())

    async def close_answers(self, match_id: str) -> int:
        """Ask the gateway to close the match to late answers and for the final late refusals."""
        gateway = self._started_on
        if gateway is None or self._gateway != gateway:
            return self._late
        with await self._expect() as replies:
            close = relay_pb2.Close(seat=self._ref, reply_to=reply_to(replies.address))
            await self._push(gateway, relay_pb2.RelayRequest(close=close))
            raw = await replies.next(self.margin_s)
        if raw is not None:
            self._late = relay_pb2.CloseReply.FromString(raw).late_refusals
        return self._late

    async def end(self, match_id: str, summary: MatchSummary) -> None:
        """Tell the bot its match ended. For a bot away the end is kept in Redis first (applied when its next session
        opens), then pushed to the gateway found now, if any: a session opened meanwhile sees one or the other."""
        if self._started_on is None:  # never seated: nothing to end
            return
        ended = match_ended(match_id, summary)
        gateway = self._gateway
        if gateway is None:
            relay = await self._relay()
            await relay.note_ended(self.name, PendingEnd(self._match_id, self._seat, self._attempt,
                                                         ended.SerializeToString()))
            gateway = await relay.live_gateway(self.name)
        if gateway is not None:
            await self._push(gateway, relay_pb2.RelayRequest(end=relay_pb2.End(seat=self._ref, ended=ended)))

    def late_refusals(self) -> int:
        return self._late
