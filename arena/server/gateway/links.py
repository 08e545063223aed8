"""One bot on this gateway (:class:`BotLink`): it outlives the bot's sessions, since the matches the bot sits in and
its pending decisions belong to it, so a bot that reconnects gets ``MatchStarted`` again for its running matches and
every decision still pending (with the time left), and can answer them."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, deque

import grpc

from arena.players import DecideStatus
from arena.protocol.encoding import request_bytes
from arena.server.gateway.records import MatchSlot, PendingDecision, WaitingStart
from arena.server.gateway.stream import BotSession


class BotLink:
    """Everything this gateway holds for one bot name: its session (if connected), matches, pending decisions."""

    RETIRED_MAX = 20_000
    EVICTED_MAX = 1_000

    def __init__(self, name: str) -> None:
        self.name = name
        self.session: BotSession | None = None
        self.version = ""
        self.pending: dict[str, PendingDecision] = {}
        self.retired: OrderedDict[str, tuple[str, int, DecideStatus | None]] = OrderedDict()
        """Request ids that are no longer pending (newest last, at most ``RETIRED_MAX``), with their match, seat
        and how they ended: what an answer to one is refused as (a duplicate or late)."""
        self.matches: dict[tuple[str, int], MatchSlot] = {}
        self.connected = asyncio.Event()
        self.capacity = 0
        """Matches at once the bot's latest Hello offered (0: it never connected here)."""
        self.waiting: deque[WaitingStart] = deque()
        """Match starts waiting for a free slot, first come first served."""
        self.evicted: OrderedDict[tuple[str, int], bool] = OrderedDict()
        """Casual matches (by match and seat) whose slot went to a rated match, newest last (at most
        ``EVICTED_MAX``), and whether the bot was told (MatchEnded) then: what still comes for them is dropped."""

    def open_matches(self) -> set[str]:
        return {match_id for match_id, _seat in self.matches}

    def casual_matches(self) -> set[str]:
        return {match_id for (match_id, _seat), slot in self.matches.items() if slot.casual}

    def note_evicted(self, key: tuple[str, int], told: bool) -> None:
        self.evicted[key] = told
        if len(self.evicted) > self.EVICTED_MAX:
            self.evicted.popitem(last=False)

    def retire(self, request_id: str, match_id: str, seat: int, status: DecideStatus | None) -> None:
        self.retired[request_id] = (match_id, seat, status)
        if len(self.retired) > self.RETIRED_MAX:
            self.retired.popitem(last=False)

    def attach(self, session: BotSession) -> None:
        """A new session takes over the bot: an older one is closed; running matches and pending
        decisions are sent again (with the time each has left)."""
        old = self.session
        if old is not None and old is not session:
            old.kill(grpc.StatusCode.ABORTED, "replaced by a newer session of the same bot")
        self.session = session
        self.version = session.version
        self.capacity = session.capacity
        self.connected.set()
        for slot in self.matches.values():
            session.send(slot.started)
        now_mono, now_ms = time.monotonic(), int(time.time() * 1000)
        for pending in self.pending.values():
            left_ms = max(1, int((pending.deadline_at - now_mono) * 1000))
            session.send(request_bytes(pending.body, pending.request_id, left_ms, now_ms + left_ms), pending)

    def detach(self, session: BotSession) -> None:
        if self.session is session:
            self.session = None
            self.connected.clear()
