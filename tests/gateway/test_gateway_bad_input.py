"""Bad input, one test each: a clear error, the match finishes, and a control match played at the same time by a
well-behaved bot finishes with no timeout (counts and outcomes only, never wall-clock thresholds)."""

from __future__ import annotations

import concurrent.futures
import os
import queue
import signal
import threading
import time
from collections.abc import Iterator

import grpc
import pytest

from arena.engine import Rules
from arena.protocol import PROTOCOL_VERSION, bot_pb2
from arena.runner import MatchConfig, MatchRecord, run_match
from tests.support import wait_until
from tests.support.bots import CONNECT, RawBot, ThreadBot, play_raw, process_bot, stop_process
from tests.support.gateway import GatewayHarness, running_gateway
from tests.support.redis_server import PrivateRedis

FAST = 0.3  # deadline of the misbehaving seat's decisions (seconds)


@pytest.fixture
def control(gateway: GatewayHarness) -> Iterator[ThreadBot]:
    """A well-behaved kit bot, connected, for the control match."""
    token = gateway.register_bot("good")
    bot = ThreadBot(gateway.address, token)
    gateway.wait_for_bot("good")
    yield bot
    bot.stop()


def control_config(seed: int = 77) -> tuple[MatchConfig, list[str]]:
    return MatchConfig(f"control-{seed}", seed, Rules(), decision_deadline_s=5.0), ["good", "random", "heuristic"]


def assert_clean(record: MatchRecord) -> None:
    assert record.end_reason == "target", record.detail
    assert record.timeouts == [0, 0, 0]
    assert record.strikes == [0, 0, 0]


def play_with_control(gateway: GatewayHarness, bad: tuple[MatchConfig, list[str]]) -> tuple[MatchRecord, MatchRecord]:
    bad_record, control_record = gateway.run_matches([bad, control_config()])
    assert_clean(control_record)
    return bad_record, control_record


# -- authentication and the opening -------------------------------------------------------------------------


def test_wrong_token_is_unauthenticated(gateway: GatewayHarness) -> None:
    gateway.register_bot("victim")
    bot = RawBot(gateway.address, "victim.not-the-secret")
    bot.hello()
    code, details = bot.wait_end()
    bot.close()
    assert code == grpc.StatusCode.UNAUTHENTICATED
    assert "invalid token" in details
    assert not gateway.is_connected("victim")


def test_missing_token_is_unauthenticated(gateway: GatewayHarness) -> None:
    bot = RawBot(gateway.address, None)
    bot.hello()
    code, details = bot.wait_end()
    bot.close()
    assert code == grpc.StatusCode.UNAUTHENTICATED
    assert "authorization" in details


def test_no_hello_first_is_refused(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("rude")
    bot = RawBot(gateway.address, token)
    bot.decide("m", "r1", 0)
    message = bot.recv()
    code, details = bot.wait_end()
    bot.close()
    assert message is not None and message.WhichOneof("payload") == "error"
    assert "must be Hello" in message.error.status.message
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "must be Hello" in details
    assert not gateway.is_connected("rude")


def test_silence_instead_of_hello_times_out(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("mute")
    bot = RawBot(gateway.address, token)
    code, details = bot.wait_end(timeout=20)
    bot.close()
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert "no Hello" in details


def test_wrong_protocol_version_is_refused(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("future")
    bot = RawBot(gateway.address, token)
    bot.hello(version=7)
    message = bot.recv()
    code, details = bot.wait_end()
    bot.close()
    assert message is not None and message.error.status.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "unsupported protocol version 7" in details


# -- answers ------------------------------------------------------------------------------------------------


def test_unknown_stale_and_overlong_request_ids_are_refused(gateway: GatewayHarness, control: ThreadBot) -> None:
    token = gateway.register_bot("confused")
    bot = RawBot(gateway.address, token)
    bot.hello()
    bot.welcome()
    answered: list[bot_pb2.DecisionRequest] = []

    def answer(request: bot_pb2.DecisionRequest) -> list[int]:
        if len(answered) == 2:
            bot.decide(request.match_id, "no-such-request", 0)  # unknown
            bot.decide(request.match_id, "x" * 5000, 0)  # overlong: refused, never echoed
            bot.decide(answered[0].match_id, answered[0].request_id, 0)  # stale: answered already
        answered.append(request)
        return [0]

    stop = threading.Event()
    thread = play_raw(bot, answer, stop)
    bad = (MatchConfig("stale-1", 5, Rules(), decision_deadline_s=5.0), ["confused", "random", "heuristic"])
    record, _ = play_with_control(gateway, bad)
    stop.set()
    thread.join(5)
    bot.close()
    errors = thread.errors  # type: ignore[attr-defined]
    codes = {e.status.code for e in errors}
    assert grpc.StatusCode.NOT_FOUND.value[0] in codes
    assert grpc.StatusCode.ALREADY_EXISTS.value[0] in codes
    assert any("unknown request id 'no-such-request'" in e.status.message for e in errors)
    overlong = [e for e in errors if e.status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]]
    assert overlong and all("longer than 200 characters" in e.status.message and "xxxx" not in e.status.message
                            and e.request_id == "" and len(e.status.message) < 200 for e in overlong)
    assert any("already answered" in e.status.message and e.request_id == answered[0].request_id for e in errors)
    assert record.end_reason == "target"
    assert record.timeouts[0] == 0
    assert record.refusals[0] >= 1  # the stale answer is charged to the seat; the unknown one to nobody


def test_out_of_range_index_is_refused_and_may_be_answered_again(gateway: GatewayHarness, control: ThreadBot) -> None:
    token = gateway.register_bot("clumsy")
    bot = RawBot(gateway.address, token)
    bot.hello()
    bot.welcome()
    stop = threading.Event()
    thread = play_raw(bot, lambda request: [len(request.legal_actions) + 5, 0], stop)
    bad = (MatchConfig("index-1", 8, Rules(), decision_deadline_s=5.0), ["clumsy", "random"])
    record, _ = play_with_control(gateway, bad)
    stop.set()
    thread.join(5)
    bot.close()
    errors = thread.errors  # type: ignore[attr-defined]
    mine = [d for d in record.decisions if d.seat == 0]
    assert record.end_reason == "target"
    assert all(d.outcome == "answered" and d.refusals == 1 for d in mine)
    assert record.refusals[0] == len(mine)
    assert record.timeouts[0] == 0 and record.strikes[0] == 0
    assert all(e.status.code == grpc.StatusCode.OUT_OF_RANGE.value[0] for e in errors)
    assert "is out of range" in errors[0].status.message and "legal actions" in errors[0].status.message
    assert "out_of_range: match index-1, decision" in mine[0].reasons[0]


def test_malformed_message_gets_an_in_band_error_and_the_stream_stays(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("garbled")
    bot = RawBot(gateway.address, token)
    bot.hello()
    bot.welcome()
    bot.send(b"\xff\xff\xff")
    bot.send(bot_pb2.BotMessage())  # empty envelope
    first, second = bot.recv(), bot.recv()
    assert first is not None and second is not None
    assert "malformed message" in first.error.status.message
    assert "empty message" in second.error.status.message
    assert gateway.is_connected("garbled")
    bot.close()


def test_flood_of_answers_without_requests_is_refused_then_disconnected(gateway: GatewayHarness,
                                                                        control: ThreadBot) -> None:
    token = gateway.register_bot("flooder")
    bot = RawBot(gateway.address, token)
    bot.hello()
    bot.welcome()

    def answer(request: bot_pb2.DecisionRequest) -> list[int]:
        for n in range(200):
            bot.decide(request.match_id, f"bogus-{n}", 0)
        return None  # type: ignore[return-value]

    stop = threading.Event()
    thread = play_raw(bot, answer, stop)
    bad = (MatchConfig("flood-1", 6, Rules(), decision_deadline_s=FAST), ["flooder", "random"])
    record, _ = play_with_control(gateway, bad)
    code, details = bot.wait_end()
    stop.set()
    thread.join(5)
    bot.close()
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "flood" in details
    assert any(e.status.code == grpc.StatusCode.NOT_FOUND.value[0] for e in thread.errors)  # type: ignore[attr-defined]
    assert record.end_reason == "forfeit" and record.forfeits == [0]


def test_oversized_message_is_refused_by_grpc(gateway: GatewayHarness, control: ThreadBot) -> None:
    token = gateway.register_bot("bloated")
    bot = RawBot(gateway.address, token)
    bot.hello()
    bot.welcome()

    def answer(request: bot_pb2.DecisionRequest) -> list[int]:
        bot.decide("x" * (100 * 1024), request.request_id, 0)
        return None  # type: ignore[return-value]

    stop = threading.Event()
    thread = play_raw(bot, answer, stop)
    bad = (MatchConfig("big-1", 4, Rules(), decision_deadline_s=FAST), ["bloated", "random"])
    record, _ = play_with_control(gateway, bad)
    code, details = bot.wait_end()
    stop.set()
    thread.join(5)
    bot.close()
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "larger than max" in details or "message" in details.lower()
    assert record.end_reason == "forfeit" and record.forfeits == [0]


def test_bot_that_never_answers_times_out_and_forfeits(gateway: GatewayHarness, control: ThreadBot) -> None:
    token = gateway.register_bot("sleepy")
    bot = RawBot(gateway.address, token)
    bot.hello()
    bot.welcome()
    stop = threading.Event()
    thread = play_raw(bot, lambda request: None, stop)  # answers Pings, never a decision
    bad = (MatchConfig("silent-1", 3, Rules(), decision_deadline_s=FAST, max_strikes=3), ["sleepy", "random",
                                                                                          "heuristic"])
    record, _ = play_with_control(gateway, bad)
    stop.set()
    thread.join(5)
    bot.close()
    mine = [d.outcome for d in record.decisions if d.seat == 0]
    assert mine[:3] == ["timeout"] * 3 and set(mine[3:]) == {"forfeited"}
    assert record.timeouts[0] == 3 and record.strikes[0] == 3
    assert record.end_reason == "forfeit" and record.forfeits == [0]
    assert "seat 0 (sleepy) forfeited: 3 strikes (3 timeouts)" in record.detail
    assert record.winner != 0
    timed_out = [e for e in thread.errors if e.status.code == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]]  # type: ignore[attr-defined]
    assert len(timed_out) == 3 and "the fallback action was played" in timed_out[0].status.message


def test_late_answer_is_refused_and_counted(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("slowpoke")
    bot = RawBot(gateway.address, token)
    bot.hello()
    bot.welcome()
    missed: list[bot_pb2.DecisionRequest] = []

    def answer(request: bot_pb2.DecisionRequest) -> list[int]:
        if not missed:
            missed.append(request)  # let the first one time out...
            return []
        if len(missed) == 1:
            missed.append(request)
            bot.decide(missed[0].match_id, missed[0].request_id, 0)  # ...and answer it late
        return [0]

    stop = threading.Event()
    thread = play_raw(bot, answer, stop)
    record = gateway.run_match(["slowpoke", "random"], seed=4, decision_deadline_s=FAST, match_id="late-1")
    stop.set()
    thread.join(5)
    bot.close()
    errors = thread.errors  # type: ignore[attr-defined]
    assert any(e.status.code == grpc.StatusCode.DEADLINE_EXCEEDED.value[0] and "after the deadline" in e.status.message
               for e in errors)
    assert record.timeouts[0] == 1 and record.strikes[0] == 1
    assert record.refusals[0] == 1
    assert record.end_reason == "target"


# -- connection loss ----------------------------------------------------------------------------------------


def _start(gateway: GatewayHarness, config: MatchConfig, names: list[str]) -> concurrent.futures.Future[MatchRecord]:
    return gateway.submit(run_match(config, gateway.seats(names, config.seed)))


def test_bot_killed_mid_match_forfeits_and_the_match_finishes(gateway: GatewayHarness, control: ThreadBot) -> None:
    token = gateway.register_bot("doomed")
    proc = process_bot(gateway.address, token)
    try:
        gateway.wait_for_bot("doomed", 30)
        link = gateway.server.gateway.registry.link("doomed")
        bad = _start(gateway, MatchConfig("killed-1", 13, Rules(), decision_deadline_s=FAST), ["doomed", "random"])
        ctl_config, ctl_names = control_config()
        ctl = _start(gateway, ctl_config, ctl_names)
        wait_until(lambda: len(link.retired) >= 10, what="ten answered decisions")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        record, control_record = bad.result(120), ctl.result(120)
    finally:
        stop_process(proc)
    assert_clean(control_record)
    mine = [d for d in record.decisions if d.seat == 0]
    assert sum(d.outcome == "answered" for d in mine) >= 5
    assert record.end_reason == "forfeit" and record.forfeits == [0]
    assert record.strikes[0] == 3
    assert sum(d.outcome in ("fallback", "timeout") for d in mine) == 3
    assert "forfeited" in record.detail


def test_bot_that_reconnects_picks_up_its_pending_decision(gateway: GatewayHarness, control: ThreadBot) -> None:
    token = gateway.register_bot("phoenix")
    with ThreadBot(gateway.address, token) as bot:
        gateway.wait_for_bot("phoenix")
        link = gateway.server.gateway.registry.link("phoenix")
        bad = _start(gateway, MatchConfig("phoenix-1", 17, Rules(), decision_deadline_s=10.0), ["phoenix", "random"])
        ctl_config, ctl_names = control_config()
        ctl = _start(gateway, ctl_config, ctl_names)
        wait_until(lambda: len(link.retired) >= 5, what="five answered decisions")
        bot.disconnect()
        wait_until(lambda: bot.stats.sessions >= 2, what="the bot to reconnect")
        record, control_record = bad.result(120), ctl.result(120)
    assert_clean(control_record)
    assert record.end_reason == "target"
    assert record.timeouts[0] == 0 and record.strikes[0] == 0
    assert all(d.outcome == "answered" for d in record.decisions if d.seat == 0)
    assert bot.stats.sessions >= 2


def test_arena_side_drop_is_survived_by_the_kit(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("dropped")
    with ThreadBot(gateway.address, token) as bot:
        gateway.wait_for_bot("dropped")
        link = gateway.server.gateway.registry.link("dropped")
        fut = _start(gateway, MatchConfig("drop-1", 19, Rules(), decision_deadline_s=10.0), ["dropped", "heuristic"])
        wait_until(lambda: len(link.retired) >= 3, what="three answered decisions")
        assert gateway.run(_drop(gateway, "dropped"))
        record = fut.result(120)
    assert record.end_reason == "target"
    assert record.timeouts[0] == 0
    assert bot.stats.sessions >= 2
    assert any("reconnect" in e for e in bot.stats.errors)


async def _drop(gateway: GatewayHarness, name: str) -> bool:
    return gateway.server.gateway.registry.drop_session(name)


def test_bot_that_stops_reading_is_cleaned_up_after_its_session_ends(redis_server: PrivateRedis) -> None:
    """A bot that keeps its connection but never reads: the gateway's writes wait on HTTP/2 flow control.
    Once the session has ended (here: closed by the arena), the heartbeat cancels the stuck RPC, so the bot
    is no longer counted as connected and its session leaves Redis."""
    with running_gateway(redis_server.url, hello_timeout_s=2.0, heartbeat_interval_s=0.5,
                         max_outgoing=100_000) as harness:
        token = harness.register_bot("deaf")
        channel = grpc.insecure_channel(harness.address)
        outbox: queue.Queue[bytes | None] = queue.Queue()
        outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(
            protocol_version=PROTOCOL_VERSION, max_concurrent_matches=1)).SerializeToString())  # type: ignore[arg-type]
        connect = channel.stream_stream(CONNECT, request_serializer=lambda b: b, response_deserializer=lambda b: b)
        call = connect(iter(outbox.get, None), metadata=[("authorization", f"Bearer {token}")])  # never read
        try:
            harness.wait_for_bot("deaf")
            filler = bot_pb2.ArenaMessage(error=bot_pb2.Error(match_id="x" * 8000)).SerializeToString()

            async def fill() -> None:  # 40 MB: far more than flow control lets through to a reader that is idle
                session = harness.server.gateway.registry.link("deaf").session
                assert session is not None
                for _ in range(5000):
                    session.send(filler)

            harness.run(fill())
            session = harness.server.gateway.registry.link("deaf").session
            assert session is not None

            def stuck() -> bool:  # messages still waiting, and none taken for half a second
                before = session.queue.qsize()
                time.sleep(0.5)  # behaviour under test: no progress over a stretch of time
                return 0 < session.queue.qsize() == before

            wait_until(stuck, what="the writer to wait on the bot")
            assert harness.server.gateway.registry.drop_session("deaf")
            wait_until(lambda: not harness.is_connected("deaf"), what="the stuck session to be cleaned up")
            wait_until(lambda: not harness.store.sessions.for_bot("deaf"), what="the session to leave Redis")
        finally:
            outbox.put(None)
            call.cancel()
            channel.close()
