"""The gateway's seat: :class:`RemoteSeat`, a bot on a gateway running in this process's event loop.

``RemoteSeat`` turns the runner's request into a ``DecisionRequest`` (full observation, legal actions in the
engine's order) and hands it to :meth:`arena.server.gateway.Gateway.decide`, which sends it on the bot's
stream, refuses bad answers in-band and waits up to the deadline. A bot that is not connected at the moment
is waited for until the deadline (a reconnect picks the request up); without a session at the deadline the
seat raises :class:`~arena.runner.SeatGone`, otherwise :class:`~arena.runner.SeatTimeout`.

For seats on another machine, see :class:`arena.relay.RelaySeat` (same interface, through Redis).
"""

from __future__ import annotations

from time import perf_counter
from typing import TYPE_CHECKING

from arena.engine import Observation
from arena.protocol.encoding import request_body
from arena.protocol.messages import match_ended, match_events, match_started
from arena.runner import MatchSummary, Seat, SeatRequest, SeatStart, settle

if TYPE_CHECKING:
    from arena.server.gateway import DecideOutcome, Gateway


class RemoteSeat(Seat):
    """A bot connected to ``gateway`` (an :class:`arena.server.gateway.Gateway` on this event loop)."""

    wants_events = True

    def __init__(self, gateway: Gateway, bot_name: str) -> None:
        self.gateway = gateway
        self.name = bot_name
        self.version = gateway.link(bot_name).version or "unknown"
        self._match_id = ""
        self._seat = -1
        self._late = 0

    async def start(self, info: SeatStart) -> None:
        self._match_id, self._seat = info.match_id, info.seat
        link = self.gateway.link(self.name)
        self.version = link.version or self.version
        self.gateway.start_match(self.name, info.match_id, info.seat, match_started(info))

    async def decide(self, request: SeatRequest) -> int:
        t_start = perf_counter()
        body = request_body(request.match_id, request.decision_number, request.observation, request.legal)
        built = perf_counter() - t_start
        outcome: DecideOutcome = await self.gateway.decide(self.name, request.match_id, request.seat,
                                                           request.decision_number, body, len(request.legal),
                                                           request.deadline_s)
        request.arena_s = built + outcome.arena_s
        self._late = outcome.late_refusals
        if outcome.version:
            self.version = outcome.version
        return settle(request, outcome.status, outcome.index, outcome.refusals, outcome.reasons, outcome.wire_s)

    async def events(self, match_id: str, observation: Observation) -> None:
        self.gateway.send_events(self.name, match_id, observation.seat, match_events(match_id, observation))

    async def end(self, match_id: str, summary: MatchSummary) -> None:
        self._late = self.gateway.end_match(self.name, match_id, self._seat, match_ended(match_id, summary))

    def late_refusals(self) -> int:
        return self._late
