"""The Redis relay between match runners (Celery workers) and the gateway that holds a bot's stream.

A worker plays a remote bot through :class:`RelaySeat`; the gateway runs a :class:`RelayConsumer` on its
own queue. Neither the runner nor the gateway knows the relay is there: the seat has the runner's
interface, the consumer calls the same gateway methods as an in-process :class:`arena.seats.RemoteSeat`.

Keys (under the store prefix, ``uno:`` by default; built by :class:`arena.store.keys.Keys`):

=================================  ======  =================================================================
``uno:relay:{gateway}``            list    messages for the gateway ``{gateway}`` (the ``gateway`` field of
                                           the bot's session, :mod:`arena.store.sessions`); RPUSH / BLPOP
``uno:relay:reply:{id}``           list    the answer to one ``decide`` message (expires after 60 s)
=================================  ======  =================================================================

A message is one line of JSON (the header), a newline, then protobuf bytes:

- ``{"op": "start", "bot", "match_id", "seat"}`` + ``MatchStarted``;
- ``{"op": "decide", "bot", "match_id", "seat", "number", "legal", "deadline_s", "reply", "sent"}`` + a
  serialized ``DecisionRequest`` without request id and times (the gateway adds them and starts the bot's
  clock when it sends the request, :mod:`arena.server.wire`);
- ``{"op": "events", ...}`` + ``MatchEvents``; ``{"op": "end", ...}`` + ``MatchEnded``.

The reply to ``decide`` is JSON ``{"status": "answered"|"timeout"|"gone", "index", "refusals", "reasons",
"wire_s", "late", "version"}``. The seat waits ``deadline_s + margin_s`` for it; no reply (the gateway died)
or no live session of the bot (``store.sessions.for_bot``) raises :class:`~arena.match.SeatGone`, so the
runner plays the fallback, counts a strike, and a bot gone for good forfeits after ``max_strikes``. A
``decide`` message that waited in the queue longer than its deadline is answered ``timeout`` unsent.

Redis clients are made in the running event loop (never at import, never before a fork).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import redis
import redis.asyncio

from arena.engine import Observation
from arena.match import MatchSummary, Seat, SeatGone, SeatRequest, SeatStart
from arena.protocol import bot_pb2
from arena.seats import decision_body, match_ended, match_events, match_started, settle
from arena.server.gateway import Gateway
from arena.store import Store

REPLY_TTL_S = 60
DEFAULT_MARGIN_S = 2.0


def relay_queue(store: Store, gateway_id: str) -> str:
    return store.keys.relay_queue(gateway_id)


def reply_key(store: Store) -> str:
    return store.keys.relay_reply(uuid.uuid4().hex)


def async_client(store: Store) -> redis.asyncio.Redis:
    """An asyncio Redis client to the same server and database as ``store`` (create it inside the loop)."""
    pool = store.redis.connection_pool
    kwargs: dict[str, Any] = pool.connection_kwargs
    common: dict[str, Any] = {
        "db": kwargs.get("db", 0),
        "username": kwargs.get("username"),
        "password": kwargs.get("password"),
        "socket_connect_timeout": 5,
        "health_check_interval": 15,
    }
    if kwargs.get("path"):
        return redis.asyncio.Redis(unix_socket_path=kwargs["path"], **common)
    ssl = issubclass(pool.connection_class, redis.SSLConnection)
    return redis.asyncio.Redis(host=kwargs.get("host", "localhost"), port=kwargs.get("port", 6379), ssl=ssl,
                               socket_keepalive=True, **common)


def encode(header: dict[str, Any], body: bytes) -> bytes:
    return json.dumps(header, separators=(",", ":")).encode() + b"\n" + body


def decode(raw: bytes) -> tuple[dict[str, Any], bytes]:
    head, _, body = raw.partition(b"\n")
    return json.loads(head), body


async def live_gateway(client: redis.asyncio.Redis, store: Store, bot: str) -> str | None:
    """The gateway holding the bot's newest live session, or None."""
    keys = store.keys
    ids = sorted(m.decode() for m in await client.smembers(keys.bot_sessions(bot)))
    if not ids:
        return None
    raws = await client.mget([keys.session(i) for i in ids])
    best: tuple[float, str] | None = None
    for raw in raws:
        if raw is None:
            continue
        data = json.loads(raw)
        candidate = (float(data.get("started_at", 0.0)), str(data["gateway"]))
        if best is None or candidate > best:
            best = candidate
    return best[1] if best else None


class RelaySeat(Seat):
    """A remote bot reached through Redis and whichever gateway holds its stream."""

    wants_events = True

    def __init__(self, store: Store, bot_name: str, *, margin_s: float = DEFAULT_MARGIN_S) -> None:
        self.store = store
        self.name = bot_name
        self.version = "unknown"
        self.margin_s = margin_s
        self._client: redis.asyncio.Redis | None = None
        self._gateway: str | None = None
        self._started_on: str | None = None
        self._start: bytes = b""
        self._match_id = ""
        self._seat = -1
        self._late = 0

    def _redis(self) -> redis.asyncio.Redis:
        if self._client is None:
            self._client = async_client(self.store)
        return self._client

    def _header(self, op: str, **more: Any) -> dict[str, Any]:
        return {"op": op, "bot": self.name, "match_id": self._match_id, "seat": self._seat, **more}

    async def _push(self, gateway: str, header: dict[str, Any], body: bytes) -> None:
        await self._redis().rpush(relay_queue(self.store, gateway), encode(header, body))

    async def _ensure_started(self) -> str | None:
        if self._gateway is None:
            self._gateway = await live_gateway(self._redis(), self.store, self.name)
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
        except redis.RedisError as error:
            raise SeatGone(f"cannot reach Redis: {error}") from None
        if gateway is None:
            raise SeatGone(f"bot {self.name!r} has no live session on any gateway")
        body = decision_body(request.match_id, request.decision_number, request.observation, request.legal)
        key = reply_key(self.store)
        header = self._header("decide", legal=len(request.legal), deadline_s=request.deadline_s, reply=key,
                              sent=time.time(), number=request.decision_number)
        client = self._redis()
        try:
            await self._push(gateway, header, body)
            item = await client.blpop([key], timeout=request.deadline_s + self.margin_s)
        except redis.RedisError as error:
            raise SeatGone(f"cannot reach Redis: {error}") from None
        if item is None:
            self._gateway = None
            raise SeatGone(f"gateway {gateway} did not answer within {request.deadline_s + self.margin_s:g} s")
        reply = json.loads(item[1])
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
            if self._client is not None:
                await self._client.aclose()  # type: ignore[attr-defined]
                self._client = None

    def late_refusals(self) -> int:
        return self._late


class RelayConsumer:
    """The gateway's side: pops its queue and drives :class:`~arena.server.gateway.Gateway` for the workers."""

    def __init__(self, store: Store, gateway: Gateway) -> None:
        self.store = store
        self.gateway = gateway
        self.queue = relay_queue(store, gateway.gateway_id)
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        client = async_client(self.store)
        try:
            while True:
                try:
                    item = await client.blpop([self.queue], timeout=1)
                except (redis.ConnectionError, redis.TimeoutError):
                    await asyncio.sleep(0.5)
                    continue
                if item is not None:
                    try:
                        self._dispatch(client, item[1])
                    except Exception:
                        continue
        finally:
            for task in list(self._tasks):
                task.cancel()
            await client.aclose()  # type: ignore[attr-defined]

    def _dispatch(self, client: redis.asyncio.Redis, raw: bytes) -> None:
        header, body = decode(raw)
        op = header["op"]
        bot, match_id, seat = str(header["bot"]), str(header["match_id"]), int(header["seat"])
        if op == "start":
            self.gateway.start_match(bot, match_id, seat, bot_pb2.MatchStarted.FromString(body))
        elif op == "events":
            self.gateway.send_events(bot, match_id, seat, bot_pb2.MatchEvents.FromString(body))
        elif op == "end":
            self.gateway.end_match(bot, match_id, seat, bot_pb2.MatchEnded.FromString(body))
        elif op == "decide":
            task = asyncio.create_task(self._decide(client, header, body))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _decide(self, client: redis.asyncio.Redis, header: dict[str, Any], body: bytes) -> None:
        deadline_s = float(header["deadline_s"])
        bot, seat = str(header["bot"]), int(header["seat"])
        if time.time() - float(header.get("sent", time.time())) > deadline_s:
            reply: dict[str, Any] = {"status": "timeout", "index": None, "refusals": 0, "reasons": [],
                                     "wire_s": None, "late": self.gateway.late_refusals(bot, header["match_id"], seat),
                                     "version": ""}
        else:
            outcome = await self.gateway.decide(bot, str(header["match_id"]), seat, int(header.get("number", 0)), body,
                                                int(header["legal"]), deadline_s)
            reply = {"status": outcome.status, "index": outcome.index, "refusals": outcome.refusals,
                     "reasons": outcome.reasons, "wire_s": outcome.wire_s, "late": outcome.late_refusals,
                     "version": outcome.version}
        key = str(header["reply"])
        async with client.pipeline(transaction=False) as pipe:
            pipe.rpush(key, json.dumps(reply))
            pipe.expire(key, REPLY_TTL_S)
            await pipe.execute()
