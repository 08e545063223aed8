"""Decisions (:class:`Decisions`): a decision request out to the bot's stream, its answer back to the match that asked.

A request is pending on the bot's link (a reconnect sends it again, with the time left) until a valid answer, its
deadline (one event-loop timer for all, :mod:`arena.server.deadlines`), a newer attempt of its match, the drain or,
for a casual match, its slot given to a rated match; an answer is matched by request id, and refused in-band naming
the problem otherwise (the codes: docs/architecture.md, "The bot gateway").
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import Callable

import grpc

from arena.players import DecideStatus
from arena.protocol import bot_pb2
from arena.protocol.encoding import request_bytes
from arena.server.deadlines import Deadlines
from arena.server.gateway.admission import Admissions
from arena.server.gateway.bot_sessions import SessionRegistry
from arena.server.gateway.links import BotLink
from arena.server.gateway.records import Drained, Evicted, PendingDecision, Superseded
from arena.server.gateway.stream import BotSession, error_bytes
from arena.server.gateway.stream_limits import RETRIES_PER_REQUEST
from arena.server.match_api import DecideOutcome

MAX_ANSWER_ID = 200
"""The longest request or match id an answer may carry (the arena's are far shorter: a match id is at most 200
characters, ``arena.store.keys.ID_RE``); a longer one is refused and never echoed."""


class Decisions:
    """The decision requests pending on this gateway, by request id, and the answers to them."""

    def __init__(self, registry: SessionRegistry, admissions: Admissions) -> None:
        self.registry = registry
        self.admissions = admissions
        self._link, self._stale = registry.link, admissions.stale  # bound once: called for every decision
        self._ids = itertools.count(1)
        self._prefix = uuid.uuid4().hex[:4]
        self._deadlines = Deadlines()
        self.on_code_error: Callable[[BotLink, PendingDecision, bot_pb2.BotError], None] | None = None
        """Called with an accepted answer's ``bot_error`` (the bot's code failed and it answered the safe action)."""

    async def decide(self, bot: str, match_id: str, seat: int, decision_number: int, body: bytes, legal_count: int,
                     decision_deadline_s: float, attempt: int = 0,
                     lag_compensation_cap_s: float = 0.0) -> DecideOutcome:
        """Send the DecisionRequest ``body`` (:func:`arena.protocol.encoding.request_body`) to the bot, connected now
        or not (a reconnect picks it up), and wait for a valid answer. ``gone`` with ``moved`` on a draining gateway
        (the relay hands it over), ``gone`` for an older ``attempt`` than the bot's newest start of the match,
        ``evicted`` for a casual match that gave its slot up. The wait is ``decision_deadline_s`` (what the bot is
        told) plus the stream's kernel round trip (:attr:`BotSession.lag_s`) up to ``lag_compensation_cap_s``."""
        t_start = time.perf_counter()
        link = self._link(bot)
        if self.registry.draining:
            return DecideOutcome(DecideStatus.GONE, None, 0, [], None,
                                 self.admissions.late_refusals(bot, match_id, seat), link.version, moved=True)
        if self._stale(link, match_id, seat, attempt):
            return DecideOutcome(DecideStatus.GONE, None, 0, [], None, 0, link.version)
        if (match_id, seat) in link.evicted:
            return DecideOutcome(DecideStatus.EVICTED, None, 0, [], None, 0, link.version)
        request_id = f"{self._prefix}-{next(self._ids)}"
        limit_ms = max(1, int(decision_deadline_s * 1000))
        session = link.session
        lag = min(lag_compensation_cap_s, session.lag_s) if session is not None and lag_compensation_cap_s > 0 else 0.0
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        pending = PendingDecision(request_id, match_id, seat, decision_number, body, legal_count, future,
                                  self._deadlines.add(future, decision_deadline_s + lag), attempt=attempt)
        link.pending[request_id] = pending
        slot = link.matches.get((match_id, seat))
        if slot is not None:
            slot.last_used = pending.deadline_at
        if session is not None:
            session.send(request_bytes(body, request_id, limit_ms, int(time.time() * 1000) + limit_ms), pending)
        pending.arena_s += time.perf_counter() - t_start
        index: int | None = None
        status: DecideStatus | None = None  # None: this coroutine was cancelled
        moved = False
        try:
            index = await future
            status = DecideStatus.ANSWERED
        except Drained:
            status, moved = DecideStatus.GONE, True
        except Superseded:
            status = DecideStatus.GONE
        except Evicted:
            status = DecideStatus.EVICTED
        except TimeoutError:
            status = DecideStatus.TIMEOUT if link.session is not None else DecideStatus.GONE
            if link.session is not None:
                link.session.send(error_bytes(
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                    f"match {match_id}, decision {decision_number}: no valid answer within {limit_ms} ms; "
                    "the fallback action was played", match_id, request_id))
        finally:
            if not future.done():  # cancelled: the deadline queue drops it
                future.cancel()
            link.pending.pop(request_id, None)
            link.retire(request_id, match_id, seat, status)
        wire = None
        if pending.t_answer is not None and pending.t_written is not None:
            wire = pending.t_answer - pending.t_written
        assert status is not None  # a cancellation propagates
        return DecideOutcome(status, index, pending.refusals, pending.reasons, wire,
                             slot.late_refusals if slot is not None else 0, link.version, pending.arena_s, moved, lag)

    def answer(self, session: BotSession, link: BotLink, decision: bot_pb2.Decision) -> None:
        """A Decision came on ``session``: the answer to its pending request, or refused in-band (an overlong
        request or match id refused without echoing it)."""
        request_id = decision.request_id
        if len(request_id) > MAX_ANSWER_ID or len(decision.match_id) > MAX_ANSWER_ID:
            session.refuse(grpc.StatusCode.INVALID_ARGUMENT, "unknown_request",
                           f"request_id or match_id longer than {MAX_ANSWER_ID} characters: answer with the ids of "
                           "the DecisionRequest as they came")
            return
        pending = link.pending.get(request_id)
        if pending is None:
            self._refuse_unknown(session, link, decision)
            return
        if decision.match_id != pending.match_id:
            self._refuse_pending(session, pending, grpc.StatusCode.INVALID_ARGUMENT, "wrong_match",
                                 f"request {request_id} belongs to match {pending.match_id}, "
                                 f"not {decision.match_id!r}")
            return
        index = decision.action_index
        if index >= pending.legal_count:
            self._refuse_pending(session, pending, grpc.StatusCode.OUT_OF_RANGE, "out_of_range",
                                 f"match {pending.match_id}, decision {pending.decision_number}: action_index "
                                 f"{index} is out of range ({pending.legal_count} legal actions)")
            return
        pending.t_answer = time.perf_counter()
        if not pending.future.done():
            pending.future.set_result(index)
            pending.arena_s += time.perf_counter() - session.t_read
            if self.on_code_error is not None and decision.HasField("bot_error"):
                self.on_code_error(link, pending, decision.bot_error)

    def _refuse_unknown(self, session: BotSession, link: BotLink, decision: bot_pb2.Decision) -> None:
        """An answer to no pending request: a duplicate or late one of a retired request (counted in its match
        while that is not over), else an unknown request id."""
        request_id = decision.request_id
        retired = link.retired.get(request_id)
        if retired is None:
            session.refuse(grpc.StatusCode.NOT_FOUND, "unknown_request",
                           f"unknown request id {request_id!r}: no decision is pending with that id",
                           decision.match_id, request_id)
            return
        match_id, seat, status = retired
        if status == DecideStatus.EVICTED:  # its match gave way and the bot was told so: an answer is no fault
            return
        slot = link.matches.get((match_id, seat))
        if status == DecideStatus.ANSWERED:
            code, reason = grpc.StatusCode.ALREADY_EXISTS, "duplicate"
            text = f"match {match_id}, request {request_id}: already answered; a duplicate answer is refused"
        else:
            code, reason = grpc.StatusCode.DEADLINE_EXCEEDED, "late"
            text = (f"match {match_id}, request {request_id}: the answer came after the deadline; "
                    "the fallback action was played")
        if slot is not None and slot.closed:
            slot = None  # the match is over: refused, but no longer counted in it
        if slot is not None:
            slot.late_refusals += 1
        session.refuse(code, reason, text, match_id, request_id, counted=slot is not None)

    @staticmethod
    def _refuse_pending(session: BotSession, pending: PendingDecision, code: grpc.StatusCode, reason: str,
                        text: str) -> None:
        pending.refusals += 1
        pending.reasons.append(f"{reason}: {text}")
        # A bot may correct itself: the first few refusals of a pending request do not count as flooding.
        session.refuse(code, reason, text, pending.match_id, pending.request_id, counted=True,
                       flood=pending.refusals > RETRIES_PER_REQUEST)
