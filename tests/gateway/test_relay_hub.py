"""The relay keeps up (issue 22, item 4): every RelaySeat of one event loop shares that loop's hub, one Redis
client (two connections: batched commands, the blocking pop) and one reader of the answers, routed to the waiting
seat by id; an answer nobody waits for is dropped harmlessly, a lost one is still SeatUnreachable (the arena's
fault: no strike), and the hub rides over a Redis restart."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from arena.engine import Match, Rules
from arena.players import DecideStatus
from arena.protocol import relay_pb2
from arena.protocol.encoding import request_body
from arena.relay import RelaySeat
from arena.relay import hub as hub_module
from arena.relay.envelope import reply_address, wire_status
from arena.relay.hub import HUB_CLIENT_NAME, loop_hubs, relay_hub
from arena.runner import (
    DecisionOutcome,
    EndReason,
    LocalSeat,
    MatchConfig,
    MatchRecord,
    Seat,
    SeatRequest,
    SeatUnreachable,
    run_match,
)
from arena.store import RelayChannel, RelayHub, ReplyAddress, Store
from bots import make_bot
from tests.support.bots import ThreadBot
from tests.support.gateway import GatewayHarness, running_gateway
from tests.support.loop_thread import LoopThread
from tests.support.redis_server import PrivateRedis
from tests.support.seats import RestartAt
from tests.support.waiting import wait_until, wait_until_async

pytestmark = pytest.mark.integration


def hub_connections(store: Store) -> int:
    """Connections to Redis that relay hubs opened (by their client name)."""
    return sum(1 for client in store.redis.client_list() if client.get("name") == HUB_CLIENT_NAME)


def hubs_of(loop: LoopThread) -> list[RelayHub]:
    async def look() -> list[RelayHub]:
        return loop_hubs()

    return loop.run(look(), 10)


def test_many_seats_of_one_loop_share_one_client_and_one_reader(gateway: GatewayHarness) -> None:
    names = ["hub-a", "hub-b"]
    bots = [ThreadBot(gateway.address, gateway.register_bot(name)) for name in names]
    worker = LoopThread("worker")
    store = Store.from_url(gateway.redis_url)
    try:
        for name in names:
            gateway.wait_for_bot(name, 10)
        matches = 12  # 24 relay seats at once, within the 16 matches each kit bot offers
        futures = [worker.submit(run_match(
            MatchConfig(f"hub-{n}", n, Rules(variant="classic", target=50), decision_deadline_s=5.0),
            [RelaySeat(store, names[0]), RelaySeat(store, names[1]), LocalSeat(make_bot("random", n))]))
            for n in range(matches)]
        counts: list[int] = []

        def finished() -> bool:
            counts.append(hub_connections(store))
            return all(future.done() for future in futures)

        wait_until(finished, 180, f"{matches} matches over the relay")
        records: list[MatchRecord] = [future.result() for future in futures]
        assert all(r.end_reason is not EndReason.ABORTED and r.strikes == [0, 0, 0] for r in records)
        assert max(counts) <= 2, counts  # however many seats: the batched commands' and the reader's
        (hub,) = hubs_of(worker)
        assert hub.dropped == 0 and hub.waiting == 0
    finally:
        worker.close()  # the loop's shutdown closes its hub
        for bot in bots:
            bot.stop()
    try:
        wait_until(lambda: hub_connections(store) == 0, 10, "the hub's connections to close with its loop")
    finally:
        store.close()


class FakeGateway:
    """A gateway that listens on its channel and answers each decision with index 0 while ``answering``, else
    never (its answers are lost)."""

    def __init__(self, store: Store, gateway_id: str) -> None:
        self.store, self.gateway_id = store, gateway_id
        self.answering = False
        self.decisions: list[relay_pb2.Decide] = []
        self.raw: list[bytes] = []
        self.relay: RelayChannel | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[FakeGateway]:
        relay = self.relay = self.store.relay()
        listening = asyncio.Event()

        async def serve() -> None:
            async with relay.listen(self.gateway_id) as messages:
                listening.set()
                async for raw in messages:
                    request = relay_pb2.RelayRequest.FromString(raw)
                    if request.WhichOneof("op") != "decide":
                        continue
                    self.raw.append(raw)
                    self.decisions.append(request.decide)
                    if self.answering:
                        await relay.reply(reply_address(request.decide.reply_to), ANSWER)

        task = asyncio.create_task(serve())
        await asyncio.wait_for(listening.wait(), 10)
        try:
            yield self
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await relay.close()


ANSWER = relay_pb2.DecideReply(status=wire_status(DecideStatus.ANSWERED), index=0, wire_s=0.001,
                                version="1").SerializeToString()


def first_request(match_id: str = "lost-1") -> SeatRequest:
    match = Match(players=2, seed=3, rules=Rules())
    seat = match.current or 0
    return SeatRequest(match_id, seat, 1, match.observation(seat), match.legal_actions(), 0.3)


def test_an_answer_nobody_waits_for_is_dropped_and_a_lost_one_is_the_arenas_fault(store: Store) -> None:
    store.bots.register("quiet")
    store.sessions.open("quiet", "gw-quiet")

    async def scenario() -> None:
        async with FakeGateway(store, "gw-quiet").running() as fake:
            seat = RelaySeat(store, "quiet", margin_s=0.2)
            with pytest.raises(SeatUnreachable, match="did not answer"):  # the answer is lost
                await seat.decide(first_request())
            (hub,) = loop_hubs()
            assert hub.waiting == 0
            # Late, it comes after all, with two more for ids nobody ever asked for, and one unframed.
            assert fake.relay is not None
            late = fake.decisions[-1]
            await fake.relay.reply(reply_address(late.reply_to), ANSWER)
            await fake.relay.reply(ReplyAddress(hub.key, "no-such-id"), ANSWER)
            await fake.relay.reply(ReplyAddress(hub.key, "zz"), b"not a reply at all")
            fake.store.redis.rpush(hub.key, b"unframed")  # not even framed with an id
            await wait_until_async(lambda: hub.dropped == 4, 10, "the four answers to be dropped")
            # The hub goes on: the next decision is answered.
            fake.answering = True
            assert await seat.decide(first_request()) == 0
            assert loop_hubs() == [hub] and hub.dropped == 4

    asyncio.run(scenario())


def test_a_decision_is_encoded_once_each_way(store: Store) -> None:
    """The seat's request is one RelayRequest, the observation inside it the very bytes protocol/encoding made
    (never re-encoded); the answer is one DecideReply behind its id, read once by the seat."""
    store.bots.register("once")
    store.sessions.open("once", "gw-once")
    request = first_request("once-1")

    async def scenario() -> int:
        async with FakeGateway(store, "gw-once").running() as fake:
            fake.answering = True
            index = await RelaySeat(store, "once").decide(request)
            (raw,) = fake.raw
            body = request_body(request.match_id, request.decision_number, request.observation, request.legal, 0)
            (decide,) = fake.decisions
            assert decide.request == body and body in raw  # the observation rides inside as it was encoded
            assert relay_pb2.RelayRequest(decide=decide).SerializeToString() == raw  # one protobuf, no header
            assert decide.legal_count == len(request.legal) and decide.seat.bot == "once"
            assert decide.reply_to.key == loop_hubs()[0].key and decide.reply_to.rid
            return index

    assert asyncio.run(scenario()) == 0


def test_a_match_whose_answers_are_lost_is_aborted_without_a_strike(store: Store) -> None:
    store.bots.register("quiet")
    store.sessions.open("quiet", "gw-quiet")

    async def scenario() -> MatchRecord:
        async with FakeGateway(store, "gw-quiet").running():  # hears everything, answers nothing
            config = MatchConfig("lost-2", 5, Rules(), decision_deadline_s=0.3, infra_grace_s=1.0)
            seats: list[Seat] = [RelaySeat(store, "quiet", margin_s=0.2), LocalSeat(make_bot("random", 1))]
            return await run_match(config, seats)

    record = asyncio.run(scenario())
    assert record.end_reason is EndReason.ABORTED and "infrastructure fault" in record.detail
    assert record.strikes == [0, 0] and record.timeouts == [0, 0] and record.forfeits == []


def test_the_hub_rides_over_a_redis_restart(fresh_redis_server: PrivateRedis) -> None:
    worker = LoopThread("worker")
    store = Store.from_url(fresh_redis_server.url)
    with running_gateway(fresh_redis_server.url) as gateway:
        bot = ThreadBot(gateway.address, gateway.register_bot("steady"))
        try:
            gateway.wait_for_bot("steady", 10)

            def play(match_id: str, restart_at: int | None) -> MatchRecord:
                seat: Seat = RelaySeat(store, "steady")
                if restart_at is not None:
                    seat = RestartAt(seat, restart_at, fresh_redis_server.restart)  # type: ignore[arg-type]
                config = MatchConfig(match_id, 9, Rules(variant="classic", target=50), decision_deadline_s=2.0,
                                     infra_grace_s=30.0)
                return worker.run(run_match(config, [seat, LocalSeat(make_bot("random", 2))]), 120)

            clean = play("restart-0", None)
            (hub,) = hubs_of(worker)
            restarted = play("restart-1", 5)
            assert clean.strikes == restarted.strikes == [0, 0]
            assert restarted.end_reason is not EndReason.ABORTED and restarted.timeouts == [0, 0]
            assert hubs_of(worker) == [hub] and not hub.closed  # the same hub, its reader reconnected
            assert {d.outcome for d in restarted.decisions} <= {DecisionOutcome.ANSWERED, DecisionOutcome.UNREACHABLE}
            again = play("restart-2", None)  # and it keeps working
            assert again.strikes == [0, 0] and again.end_reason is not EndReason.ABORTED
        finally:
            bot.stop()
            worker.close()
            store.close()


def test_one_hub_per_loop_and_process(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    other = Store.from_url(store.url)  # another Store object on the same Redis: the same hub

    async def hubs_of_one_loop() -> tuple[RelayHub, RelayHub, RelayHub]:
        first, same = await relay_hub(store), await relay_hub(other)
        monkeypatch.setattr(hub_module.os, "getpid", lambda: -1)  # as in a forked child
        return first, same, await relay_hub(store)

    try:
        first, same, forked = asyncio.run(hubs_of_one_loop())
        assert first is same and forked is not first
        assert first.closed and forked.closed  # closed with their loop
        (next_loop, _same, _forked) = asyncio.run(hubs_of_one_loop())
        assert next_loop not in (first, forked)
    finally:
        other.close()
