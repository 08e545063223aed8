"""What the gateway holds for a bot's matches and decisions, as plain records (a pending decision, a match slot, a
match start waiting for a slot), and the three ways a wait on one ends early (:class:`Drained`, :class:`Superseded`,
:class:`Evicted`)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from arena.protocol import bot_pb2


class Drained(Exception):
    """The gateway drains: a pending decision or a waiting match start is handed over to another gateway."""


class Superseded(Exception):
    """A newer attempt of the match started: a pending decision of an older attempt is dropped (never sent again)."""


class Evicted(Exception):
    """The casual match (a game against a person) gave its slot to a tournament, ladder or gauntlet match: a pending
    decision of it is dropped."""


@dataclass(eq=False)
class PendingDecision:
    """A decision request sent (or to be sent, once the bot connects) and not yet answered, timed out or dropped."""

    request_id: str
    match_id: str
    seat: int
    decision_number: int
    body: bytes
    legal_count: int
    future: asyncio.Future[int]
    deadline_at: float
    refusals: int = 0
    reasons: list[str] = field(default_factory=list)
    t_written: float | None = None
    t_answer: float | None = None
    arena_s: float = 0.0
    attempt: int = 0


@dataclass(eq=False)
class MatchSlot:
    """A match the bot sits in (one per match and seat, holding the newest attempt seen): what to tell it again
    after a reconnect."""

    started: bytes
    attempt: int = 0
    """``MatchStarted.attempt``: a start, request, event or end of an older attempt is stale (that attempt was
    aborted and its runner is gone or stopping)."""
    late_refusals: int = 0
    last_used: float = field(default_factory=time.monotonic)
    idle_limit_s: float = 600.0
    closed: bool = False
    """The match is over: late answers are refused but no longer counted in it (see Gateway.close_match)."""
    casual: bool = False
    """A game against a person (the start said ``casual``): it gives its slot up to a rated match that needs it."""
    order: int = 0
    """When the slot was opened, counted per gateway (the newest casual match is the first to give way)."""


@dataclass(eq=False)
class WaitingStart:
    """A match start waiting for the bot to have a free match slot (Admissions.admit)."""

    match_id: str
    seat: int
    started: bot_pb2.MatchStarted
    idle_limit_s: float
    future: asyncio.Future[None]


@dataclass(eq=False)
class FreshSandbox:
    """A session of a fresh sandbox (a bot host's process for a bot without memory): it is seated in one match
    only, and its token is spent at that match's end, so nothing it learnt reaches another match."""

    token_id: str
    """Its host token's id (:attr:`arena.store.BotRecord.host_token_id`)."""
    match_id: str = ""
    """The one match it plays ("" before it is seated)."""
