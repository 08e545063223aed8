"""The gateway's match side as the relay consumer sees it: :class:`MatchApi` and what one decision request gives back
(:class:`DecideOutcome`). :class:`arena.server.gateway.Gateway` is the one implementation; the relay consumer depends
on this module, not on the gateway (which starts the consumer), so no import goes both ways.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import grpc

from arena.players import DecideStatus
from arena.protocol import bot_pb2


@dataclass(slots=True)
class DecideOutcome:
    """How one decision request ended on the gateway."""

    status: DecideStatus
    index: int | None
    refusals: int
    reasons: list[str]
    wire_s: float | None
    late_refusals: int
    version: str
    arena_s: float = 0.0
    """Time the gateway's code ran for this request (sending it, reading and checking the answer)."""
    moved: bool = False
    """``gone`` because this gateway drains: the relay hands the request over to the bot's new gateway."""
    lag_s: float = 0.0
    """Lag compensation granted: the stream's round trip as the kernel measured it (:attr:`BotSession.lag_s`), at most
    the caller's cap."""


class SessionsApi(Protocol):
    """The gateway's sessions (:class:`arena.server.gateway.bot_sessions.SessionRegistry`), as the relay sees them."""

    @property
    def draining(self) -> bool: ...

    def end_session(self, session_id: str, code: grpc.StatusCode, details: str) -> bool: ...


class AdmissionsApi(Protocol):
    """Who plays which match (:class:`arena.server.gateway.admission.Admissions`)."""

    async def admit(self, bot: str, match_id: str, seat: int, started: bot_pb2.MatchStarted,
                    timeout_s: float, casual: bool = False) -> bool: ...

    def start_match(self, bot: str, match_id: str, seat: int, started: bot_pb2.MatchStarted,
                    casual: bool = False) -> None: ...

    def is_casual(self, bot: str, match_id: str, seat: int) -> bool: ...

    def started_body(self, bot: str, match_id: str, seat: int) -> bytes | None: ...

    def send_events(self, bot: str, match_id: str, seat: int, events: bot_pb2.MatchEvents,
                    attempt: int = 0) -> None: ...

    def close_match(self, bot: str, match_id: str, seat: int, attempt: int = 0) -> int: ...

    def end_match(self, bot: str, match_id: str, seat: int, ended: bot_pb2.MatchEnded | None,
                  attempt: int = 0) -> int: ...

    def late_refusals(self, bot: str, match_id: str, seat: int) -> int: ...


class DecisionsApi(Protocol):
    """Decision requests and their answers (:class:`arena.server.gateway.decisions.Decisions`)."""

    async def decide(self, bot: str, match_id: str, seat: int, decision_number: int, body: bytes, legal_count: int,
                     decision_deadline_s: float, attempt: int = 0,
                     lag_compensation_cap_s: float = 0.0) -> DecideOutcome: ...


class MatchApi(Protocol):
    """What the relay, for a seat on a worker, asks of the gateway holding its bot: its parts, each called directly
    (see :class:`arena.server.gateway.Gateway`)."""

    @property
    def gateway_id(self) -> str: ...

    @property
    def registry(self) -> SessionsApi: ...

    @property
    def admissions(self) -> AdmissionsApi: ...

    @property
    def decisions(self) -> DecisionsApi: ...
