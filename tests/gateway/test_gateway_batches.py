"""Batches (bot.proto, "Batches"): a bot that asks for them gets every waiting message in one ArenaBatch and may
answer in one BotBatch; a bot that does not ask never gets one; each message inside a batch is handled (and
refused) exactly as if it had come alone."""

from __future__ import annotations

import asyncio
import concurrent.futures

import grpc

from arena.engine import Match, Rules
from arena.protocol import bot_pb2
from arena.protocol.encoding import request_body
from arena.runner import MatchConfig
from arena.server.match_api import DecideOutcome
from tests.support.bots import RawBot, ThreadBot
from tests.support.gateway import GatewayHarness


def send_requests(gateway: GatewayHarness, bot: str, count: int) -> concurrent.futures.Future[list[DecideOutcome]]:
    """``count`` decision requests to ``bot``, all sent in the same turn of the gateway's event loop."""
    match = Match(players=2, seed=3, rules=Rules())
    legal = match.legal_actions()
    observation = match.observation(match.current or 0)
    gw = gateway.server.gateway

    async def requests() -> list[DecideOutcome]:
        return await asyncio.gather(*(
            gw.decisions.decide(bot, f"m{i}", 0, 1, request_body(f"m{i}", 1, observation, legal), len(legal), 20.0)
            for i in range(count)))

    return gateway.submit(requests())


def connect(gateway: GatewayHarness, name: str, *, batches: bool) -> RawBot:
    bot = RawBot(gateway.address, gateway.register_bot(name))
    bot.hello(batches=batches)
    welcome = bot.welcome()
    assert welcome.batches is batches
    gateway.wait_for_bot(name)
    return bot


def decision(request: bot_pb2.DecisionRequest, index: int) -> bot_pb2.BotMessage:
    return bot_pb2.BotMessage(decision=bot_pb2.Decision(match_id=request.match_id, request_id=request.request_id,
                                                        action_index=index))


def test_waiting_messages_go_out_in_one_batch_and_one_batch_answers_them(gateway: GatewayHarness) -> None:
    bot = connect(gateway, "batcher", batches=True)
    outcomes = send_requests(gateway, "batcher", 3)
    message = bot.recv()
    assert message is not None and message.WhichOneof("payload") == "batch"
    inner = list(message.batch.messages)
    assert [m.WhichOneof("payload") for m in inner] == ["decision_request"] * 3
    requests = [m.decision_request for m in inner]
    assert sorted(r.match_id for r in requests) == ["m0", "m1", "m2"]
    assert len({r.request_id for r in requests}) == 3
    bot.send(bot_pb2.BotMessage(batch=bot_pb2.BotBatch(messages=[decision(r, i) for i, r in enumerate(requests)])))
    answered = outcomes.result(10)
    assert [o.status for o in answered] == ["answered"] * 3
    by_match = {r.match_id: i for i, r in enumerate(requests)}
    assert [o.index for o in answered] == [by_match[f"m{i}"] for i in range(3)]
    assert all(o.refusals == 0 for o in answered)
    bot.close()


def test_a_bot_that_does_not_ask_gets_one_message_at_a_time(gateway: GatewayHarness) -> None:
    bot = connect(gateway, "single", batches=False)
    outcomes = send_requests(gateway, "single", 3)
    requests = []
    for _ in range(3):
        message = bot.recv()
        assert message is not None and message.WhichOneof("payload") == "decision_request"
        requests.append(message.decision_request)
    # It may still answer in a batch (any bot may send a BotBatch).
    bot.send(bot_pb2.BotMessage(batch=bot_pb2.BotBatch(messages=[decision(r, 0) for r in requests])))
    assert [o.status for o in outcomes.result(10)] == ["answered"] * 3
    bot.close()


def test_each_message_of_a_batch_is_refused_or_taken_on_its_own(gateway: GatewayHarness) -> None:
    bot = connect(gateway, "mixed", batches=True)
    outcomes = send_requests(gateway, "mixed", 1)
    message = bot.recv()
    assert message is not None and message.WhichOneof("payload") == "decision_request"
    request = message.decision_request
    nested = bot_pb2.BotMessage(batch=bot_pb2.BotBatch(messages=[decision(request, 0)]))
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=1))  # type: ignore[arg-type]
    bad_index = decision(request, len(request.legal_actions))
    bot.send(bot_pb2.BotMessage(batch=bot_pb2.BotBatch(messages=[
        nested, bot_pb2.BotMessage(), hello, bad_index, decision(request, 0),
        bot_pb2.BotMessage(pong=bot_pb2.Pong(nonce=1))])))
    (outcome,) = outcomes.result(10)
    assert outcome.status == "answered" and outcome.index == 0
    assert outcome.refusals == 1 and "out of range" in outcome.reasons[0]
    errors: list[bot_pb2.Error] = []
    while len(errors) < 5:  # the five errors were waiting together: they come in a batch
        received = bot.recv()
        assert received is not None, ([str(e) for e in errors], bot.code, bot.details)
        inner = received.batch.messages if received.WhichOneof("payload") == "batch" else [received]
        errors.extend(m.error for m in inner if m.WhichOneof("payload") == "error")
    codes = [grpc.StatusCode(next(c for c in grpc.StatusCode if c.value[0] == e.status.code)) for e in errors]
    assert codes == [grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.INVALID_ARGUMENT,
                     grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.OUT_OF_RANGE,
                     grpc.StatusCode.INVALID_ARGUMENT]
    assert "a batch inside a batch" in errors[0].status.message
    assert "pong nonce 1 does not echo a Ping" in errors[4].status.message  # no Ping was sent yet
    assert "an empty message in a batch" in errors[1].status.message
    assert "Hello is only allowed as the first message" in errors[2].status.message
    assert gateway.is_connected("mixed")
    bot.close()


def test_the_kit_asks_for_batches_and_plays_through_them(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("kitbatch")
    bot = ThreadBot(gateway.address, token)
    try:
        gateway.wait_for_bot("kitbatch")
        # Two seats of the same bot: both MatchStarted messages wait together, so at least one batch goes out.
        configs = [(MatchConfig(f"kb-{seed}", seed, Rules(), decision_deadline_s=5.0), ["kitbatch", "kitbatch",
                                                                                        "random"])
                   for seed in (1, 2, 3)]
        records = gateway.run_matches(configs)
        assert bot.stats.welcome is not None and bot.stats.welcome.batches
        assert bot.stats.batches >= 1
        for record in records:
            assert record.end_reason == "target", record.detail
            assert record.timeouts == [0, 0, 0] and record.refusals == [0, 0, 0]
        assert not bot.stats.errors
    finally:
        bot.stop()
