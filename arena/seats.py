"""Seats of the match runner: :class:`LocalSeat` (in-process bot) and :class:`RemoteSeat` (a bot on a gateway
running in this process's event loop), plus the message builders the remote seats share with the relay.

``RemoteSeat`` turns the runner's request into a ``DecisionRequest`` (full observation, legal actions in the
engine's order) and hands it to :meth:`arena.server.gateway.Gateway.decide`, which sends it on the bot's
stream, refuses bad answers in-band and waits up to the deadline. A bot that is not connected at the moment
is waited for until the deadline (a reconnect picks the request up); without a session at the deadline the
seat raises :class:`~arena.match.SeatGone`, otherwise :class:`~arena.match.SeatTimeout`.

For seats on another machine, see :class:`arena.relay.RelaySeat` (same interface, through Redis).
"""

from __future__ import annotations

from collections.abc import Sequence
from time import perf_counter
from typing import TYPE_CHECKING, Any

from arena.engine import Action, Observation
from arena.match import (
    LocalSeat,
    MatchSummary,
    Seat,
    SeatGone,
    SeatRequest,
    SeatStart,
    SeatTimeout,
    fallback_action,
)
from arena.protocol import bot_pb2, game_pb2
from arena.protocol.convert import events_to_proto, observation_to_proto, rules_to_proto
from arena.server.wire import request_body

if TYPE_CHECKING:
    from arena.server.gateway import DecideOutcome, Gateway

__all__ = [
    "LocalSeat",
    "RemoteSeat",
    "decision_body",
    "fallback_action",
    "match_ended",
    "match_events",
    "match_started",
    "settle",
]

_END_REASON: dict[str, Any] = {"target": game_pb2.END_REASON_COMPLETED, "forfeit": game_pb2.END_REASON_FORFEIT,
               "aborted": game_pb2.END_REASON_ABORTED}

def decision_body(match_id: str, decision_number: int, observation: Observation, legal: Sequence[Action]) -> bytes:
    """The serialized DecisionRequest (full observation, legal actions in the engine's order) without request id
    and times: the gateway adds them when it sends it (:mod:`arena.server.wire`)."""
    return request_body(match_id, decision_number, observation, legal)


def match_started(info: SeatStart) -> bot_pb2.MatchStarted:
    started = bot_pb2.MatchStarted(match_id=info.match_id, seat=info.seat,
                                   decision_time_limit_ms=max(1, int(info.deadline_s * 1000)),
                                   tournament_id=info.tournament_id)
    started.rules.CopyFrom(rules_to_proto(info.rules))
    for index, name in enumerate(info.seats):
        started.seats.add(seat=index, bot_id=name, bot_name=name)
    return started


def match_events(match_id: str, observation: Observation) -> bot_pb2.MatchEvents:
    events = bot_pb2.MatchEvents(match_id=match_id)
    events.events.extend(events_to_proto(observation.events))
    events.observation.CopyFrom(observation_to_proto(observation))
    return events


def match_ended(match_id: str, summary: MatchSummary) -> bot_pb2.MatchEnded:
    ended = bot_pb2.MatchEnded(match_id=match_id, reason=_END_REASON.get(summary.end_reason, 0),
                               detail=summary.detail)
    result = ended.result
    result.scores.extend(summary.scores)
    if summary.winner is not None:
        result.winner = summary.winner
    result.rounds = summary.rounds
    result.forfeited_seats.extend(summary.forfeits)
    result.timeouts.extend(summary.timeouts)
    result.refusals.extend(summary.refusals)
    return ended


def settle(request: SeatRequest, status: str, index: int | None, refusals: int, reasons: Sequence[str],
           wire_s: float | None) -> int:
    """Copy a gateway's outcome into the request; the index, or SeatTimeout / SeatGone."""
    request.refusals = refusals
    request.refusal_reasons = list(reasons)
    request.wire_s = wire_s
    if status == "answered" and index is not None:
        return index
    if status == "gone":
        raise SeatGone(f"match {request.match_id}, decision {request.decision_number}: the bot is not connected")
    raise SeatTimeout(f"match {request.match_id}, decision {request.decision_number}: no valid answer in "
                      f"{request.deadline_s:g} s")


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
