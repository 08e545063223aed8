"""The bot gateway: a ``grpc.aio`` server that holds bot streams and multiplexes every match of a bot on it.

One :class:`~arena.server.gateway.stream.BotSession` per open ``BotService/Connect`` stream; one
:class:`~arena.server.gateway.links.BotLink` per bot name on this gateway, which outlives its sessions: the matches
the bot sits in and its pending decisions belong to the link, so a bot that reconnects gets ``MatchStarted`` again
for its running matches and every decision still pending (with the time left), and can answer them.

The conversation (see ``proto/uno_arena/v1/bot.proto``):

1. the token (``authorization: Bearer …``) is checked before the handler runs (:mod:`arena.server.auth`);
2. the first message must be ``Hello`` within ``hello_timeout_s`` with protocol version 1, else an in-band
   ``Error`` and the call ends (``FAILED_PRECONDITION``, or ``DEADLINE_EXCEEDED`` when nothing came);
3. ``Welcome``, the session is recorded in Redis (``uno:session:{id}``, TTL refreshed by the heartbeat), so
   workers find which gateway holds which bot (:mod:`arena.relay`);
4. decision requests go out (full observation, legal actions, ``request_id``, ``time_limit_ms``); a
   ``Decision`` is matched by request id. Refused, each with an in-band ``Error`` naming the problem:
   unknown request id (``NOT_FOUND``), late answer (``DEADLINE_EXCEEDED``), duplicate (``ALREADY_EXISTS``),
   ``action_index`` out of range (``OUT_OF_RANGE``), wrong match id, a malformed or empty message, a second
   Hello (``INVALID_ARGUMENT``/``FAILED_PRECONDITION``). A refused answer to a pending request leaves it
   pending: the bot may answer again until the deadline. A request left unanswered at its deadline gets a
   ``DEADLINE_EXCEEDED`` Error (the runner plays the fallback and counts a strike);
5. every refused message (but the first ``RETRIES_PER_REQUEST`` refused answers to a pending request) counts
   toward a flood limit (``flood_limit`` in ``flood_window_s``): past it the session is closed with
   ``RESOURCE_EXHAUSTED``. Messages larger than ``max_message_bytes`` (64 KiB) are
   refused by gRPC itself (``grpc.max_receive_message_length``): the call ends with ``RESOURCE_EXHAUSTED``;
   Before anything else, every stream has a token bucket (``message_rate`` messages/s, ``message_burst`` at
   once; a batch counts each inner message): messages over it are refused with one ``RESOURCE_EXHAUSTED``
   Error for the lot (which counts toward the flood limit), unparsed. New streams are limited per token
   (``new_streams_per_token`` in ``new_streams_window_s``, checked by the interceptor before the token is):
   past it the call ends ``RESOURCE_EXHAUSTED`` with a retry hint (``grpc-retry-pushback-ms``);
6. ``Ping`` every ``heartbeat_interval_s``; a ``Pong`` must echo the nonce of a Ping sent on its stream (once;
   ``INVALID_ARGUMENT`` otherwise); a session silent for ``heartbeat_misses`` intervals is closed; a
   session that ended while its writer waits on a bot that stopped reading (HTTP/2 flow control) has its RPC
   cancelled after as long, so the bot stops counting as connected and its record leaves Redis. Lag compensation
   (a longer wait for a remote bot's answers) comes from the kernel's round trip of the stream's TCP connection
   (:mod:`~arena.server.gateway.transport`), read on Hello and with each Ping, never from the Pongs' timing;
7. batches: a bot whose Hello sets ``accepts_batches`` gets every message waiting when the writer wakes up in one
   ``ArenaBatch`` (``Welcome.batches`` says so); any bot may answer with a ``BotBatch``, whose messages are
   handled one by one as if each had come alone (a refused one is refused alone; a nested batch, a Hello or an
   empty message inside is refused). With many matches in flight on a stream this saves most of gRPC's and the
   event loop's per-message work on both sides (measured with and without in docs/benchmarks.md).

One session per bot and gateway: a new Hello of the same bot takes over (the older stream ends with
``ABORTED``; the kit then stops that older process). ``Hello.max_concurrent_matches`` is honoured
(:mod:`~arena.server.gateway.admission`). A bot that reconnects to *another* gateway loses the decisions pending on
the first one (they time out there, and the relay then finds the new session), unless the first one drains
(:meth:`GatewayServer.drain`, SIGTERM of ``serve``): it says Goodbye to every bot and hands its relayed decisions
over to the bot's new gateway (:mod:`~arena.server.gateway.drain`).

Per-decision deadlines are the application's: a gRPC deadline would cover the whole stream. Nothing here blocks
the event loop on Redis (sessions are written from a thread), and a slow or hostile bot only ever delays its own
decisions: every match waits on its own futures, bounded by its own deadline.

The modules, lowest first: :mod:`~arena.server.gateway.config` (settings), :mod:`~arena.server.gateway.stream_limits`
(token bucket, new streams per token, flood window), :mod:`~arena.server.gateway.records` (pending decisions,
match slots, waiting starts), :mod:`~arena.server.gateway.transport` (the kernel's round trips),
:mod:`~arena.server.gateway.stream` (one stream: queue, writer, refusals),
:mod:`~arena.server.gateway.links` (one bot), :mod:`~arena.server.gateway.bot_sessions` (the session registry, in
memory and in Redis), :mod:`~arena.server.gateway.admission` (capacity and match slots),
:mod:`~arena.server.gateway.decisions` (requests and answers), :mod:`~arena.server.gateway.inbound` (reading a
stream), :mod:`~arena.server.gateway.drain` (Goodbye and hand-over), :mod:`~arena.server.gateway.service` (the
:class:`Gateway` that puts them together, the Connect handler, the heartbeat) and
:mod:`~arena.server.gateway.server` (the gRPC server and its startup). Callers of the match side depend on
:class:`arena.server.match_api.MatchApi` only.
"""

from __future__ import annotations

from arena.server.gateway.config import (
    ADDRESS_ENV,
    DEFAULT_ADDRESS,
    DRAIN_TIMEOUT_S,
    GATEWAY_ID_ENV,
    MAX_MESSAGE_BYTES,
    GatewayConfig,
    grpc_address,
    new_gateway_id,
)
from arena.server.gateway.links import BotLink
from arena.server.gateway.records import Drained, MatchSlot, PendingDecision, Superseded, WaitingStart
from arena.server.gateway.server import GatewayServer, server_credentials, server_options
from arena.server.gateway.service import Gateway
from arena.server.gateway.stream import BotSession
from arena.server.gateway.stream_limits import RETRIES_PER_REQUEST, FloodWindow, StreamLimiter, TokenBucket
from arena.server.match_api import DecideOutcome, MatchApi

__all__ = [
    "ADDRESS_ENV",
    "DEFAULT_ADDRESS",
    "DRAIN_TIMEOUT_S",
    "GATEWAY_ID_ENV",
    "MAX_MESSAGE_BYTES",
    "RETRIES_PER_REQUEST",
    "BotLink",
    "BotSession",
    "DecideOutcome",
    "Drained",
    "FloodWindow",
    "Gateway",
    "GatewayConfig",
    "GatewayServer",
    "MatchApi",
    "MatchSlot",
    "PendingDecision",
    "StreamLimiter",
    "Superseded",
    "TokenBucket",
    "WaitingStart",
    "grpc_address",
    "new_gateway_id",
    "server_credentials",
    "server_options",
]
