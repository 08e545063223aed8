"""Full matches over real gRPC: kit bots in subprocesses and threads, several matches on one stream, the Redis
relay, sessions in Redis, health, reflection and the Prometheus metrics."""

from __future__ import annotations

import threading
import urllib.request

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.engine import Rules
from arena.metrics import start_metrics_server
from arena.relay import RelaySeat
from arena.runner import LocalSeat, MatchConfig, run_match_sync
from arena.store import Store
from bots import HeuristicBot, make_bot
from tests.support import wait_until
from tests.support.bots import ThreadBot, process_bot, stop_process
from tests.support.gateway import GatewayHarness, running_gateway
from tests.support.redis_server import PrivateRedis


def test_full_match_with_two_remote_bots_in_subprocesses(gateway: GatewayHarness) -> None:
    tokens = {name: gateway.register_bot(name) for name in ("alpha", "beta")}
    procs = [process_bot(gateway.address, tokens["alpha"], "heuristic"),
             process_bot(gateway.address, tokens["beta"], "random")]
    try:
        record = gateway.run_match(["alpha", "random", "beta", "heuristic"], seed=5, wait_s=30)
    finally:
        for proc in procs:
            stop_process(proc)
    assert record.end_reason == "target"
    assert record.winner is not None and max(record.scores) >= 500
    assert record.timeouts == [0, 0, 0, 0]
    assert record.refusals == [0, 0, 0, 0]
    assert record.strikes == [0, 0, 0, 0]
    assert record.bot_versions[0] == "heuristic (python kit)"
    remote = [d for d in record.decisions if d.seat in (0, 2)]
    assert remote and all(d.outcome == "answered" for d in remote)
    assert len(record.replay["actions"]) > len(record.decisions) - 1
    # the replay rebuilds the same match
    from arena.engine import Match

    replayed = Match.from_replay(record.replay)
    assert replayed.scores == record.scores


def test_one_stream_plays_several_matches_at_once(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("multi")
    with ThreadBot(gateway.address, token) as bot:
        gateway.wait_for_bot("multi")
        configs = [(MatchConfig(f"multi-{i}", 40 + i, Rules(), decision_deadline_s=5.0), ["multi", "random",
                                                                                          "heuristic"])
                   for i in range(6)]
        records = gateway.run_matches(configs)
        assert bot.stats.sessions == 1
    assert [r.end_reason for r in records] == ["target"] * 6
    assert all(r.timeouts[0] == 0 and r.refusals[0] == 0 for r in records)
    assert bot.stats.matches_started >= 6


def test_same_bot_in_two_seats_of_one_match(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("twin")
    with ThreadBot(gateway.address, token, HeuristicBot):
        record = gateway.run_match(["twin", "random", "twin"], seed=9, decision_deadline_s=5.0)
    assert record.end_reason == "target"
    assert record.timeouts == [0, 0, 0]


def test_session_is_recorded_in_redis_and_closed_on_disconnect(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("sessioned")
    bot = ThreadBot(gateway.address, token)
    try:
        gateway.wait_for_bot("sessioned")
        sessions = gateway.store.sessions.for_bot("sessioned")
        assert [s.gateway for s in sessions] == [gateway.server.gateway.gateway_id]
        assert sessions[0].capacity >= 1
    finally:
        bot.stop()
    wait_until(lambda: not gateway.store.sessions.for_bot("sessioned"), what="the session to close")
    assert not gateway.is_connected("sessioned")


def test_relay_seat_plays_through_redis_like_a_worker(gateway: GatewayHarness) -> None:
    """A match run elsewhere (its own event loop and Redis client, as in a Celery worker) reaches the bot
    through the gateway's relay queue."""
    token = gateway.register_bot("relayed")
    with ThreadBot(gateway.address, token):
        gateway.wait_for_bot("relayed")
        worker_store = Store.from_url(gateway.redis_url)
        try:
            seats = [RelaySeat(worker_store, "relayed"), LocalSeat(make_bot("random", 1)),
                     LocalSeat(make_bot("heuristic", 2))]
            record = run_match_sync(MatchConfig("relay-1", 21, Rules(variant="classic"), decision_deadline_s=5.0),
                                    seats)
        finally:
            worker_store.close()
    assert record.end_reason == "target"
    assert record.timeouts[0] == 0 and record.refusals[0] == 0
    assert record.bot_versions[0] == "python-kit"
    assert any(d.seat == 0 and d.outcome == "answered" for d in record.decisions)


def test_relay_seat_without_a_session_falls_back_and_forfeits(gateway: GatewayHarness) -> None:
    gateway.register_bot("nobody")
    worker_store = Store.from_url(gateway.redis_url)
    try:
        seats = [RelaySeat(worker_store, "nobody"), LocalSeat(make_bot("random", 1))]
        record = run_match_sync(MatchConfig("relay-2", 3, Rules(), max_strikes=2), seats)
    finally:
        worker_store.close()
    assert record.end_reason == "forfeit"
    assert record.forfeits == [0]
    assert record.winner != 0
    assert [d.outcome for d in record.decisions if d.seat == 0][:3] == ["fallback", "fallback", "forfeited"]
    assert "disconnects" in record.detail


def test_health_and_reflection(gateway: GatewayHarness) -> None:
    with grpc.insecure_channel(gateway.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "uno_arena.v1.BotService"):
            answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        responses = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                              timeout=5)
        names = {s.name for r in responses for s in r.list_services_response.service}
    assert {"uno_arena.v1.BotService", "grpc.health.v1.Health"} <= names


def test_metrics_endpoint_shows_decisions_latency_bots_and_matches(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("measured")
    server = start_metrics_server(0, addr="127.0.0.1")
    try:
        with ThreadBot(gateway.address, token):
            gateway.wait_for_bot("measured")
            text = urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=5).read().decode()
            assert "uno_arena_connected_bots" in text
            gateway.run_match(["measured", "random"], seed=2, decision_deadline_s=5.0)
        text = urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=5).read().decode()
    finally:
        server.close()
    assert 'uno_arena_decisions_total{bot="measured",outcome="answered"}' in text
    assert 'uno_arena_decision_latency_seconds_bucket{bot="measured",le="0.001"}' in text
    assert 'uno_arena_matches_total{reason="target",variant="flip"}' in text
    assert "uno_arena_match_duration_seconds_count" in text
    assert "uno_arena_gateway_up 1.0" in text


@pytest.mark.parametrize("variant", ["flip", "classic"])
def test_local_only_match_needs_no_gateway(variant: str) -> None:
    seats = [LocalSeat(make_bot("heuristic", 1)), LocalSeat(make_bot("random", 2)), LocalSeat(make_bot("random", 3))]
    record = run_match_sync(MatchConfig("local-1", 12, Rules(variant=variant)), seats)
    assert record.end_reason == "target"
    assert record.bot_versions == ["builtin"] * 3
    assert all(d.outcome == "answered" for d in record.decisions)


def test_matches_on_other_threads_do_not_share_state(gateway: GatewayHarness) -> None:
    """Two bots, each in its own match, played at the same time from two threads."""
    tokens = [gateway.register_bot(f"par{i}") for i in range(2)]
    bots = [ThreadBot(gateway.address, token) for token in tokens]
    try:
        results: list[object] = []

        def play(i: int) -> None:
            results.append(gateway.run_match([f"par{i}", "heuristic"], seed=60 + i, decision_deadline_s=5.0))

        threads = [threading.Thread(target=play, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    finally:
        for bot in bots:
            bot.stop()
    assert len(results) == 2
    assert all(r.end_reason == "target" and r.timeouts == [0, 0] for r in results)  # type: ignore[attr-defined]


def test_a_second_process_of_the_same_bot_takes_over_and_the_first_stops(gateway: GatewayHarness) -> None:
    from bots.kit import KitError

    token = gateway.register_bot("twice")
    first = ThreadBot(gateway.address, token)
    try:
        wait_until(lambda: first.stats.sessions == 1, what="the first session")
        with ThreadBot(gateway.address, token) as second:
            wait_until(lambda: second.stats.sessions == 1, what="the second session")
            assert first.wait_stopped(20), "the first bot kept running after it was replaced"
            assert isinstance(first.error, KitError) and "replaced" in str(first.error)
            record = gateway.run_match(["twice", "random"], seed=31, decision_deadline_s=5.0)
            assert record.timeouts == [0, 0]
            assert second.stats.decisions > 0
    finally:
        first.stop()


def test_a_heartbeat_running_while_a_session_closes_does_not_bring_it_back(
    redis_server: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The heartbeat refreshes sessions from a thread: one that closed meanwhile (its Redis record already
    deleted) must not be re-created, or it would outlive its stream in Redis for a whole TTL; one that Redis
    lost (a restart) while its stream is still open is re-created."""
    with running_gateway(redis_server.url, heartbeat_interval_s=0.2) as harness:
        store = harness.store
        tokens = {name: harness.register_bot(name) for name in ("alive", "ghost")}
        with ThreadBot(harness.address, tokens["alive"]), ThreadBot(harness.address, tokens["ghost"]):
            harness.wait_for_bot("alive")
            harness.wait_for_bot("ghost")
            (alive_session,) = [s.session_id for s in store.sessions.for_bot("alive")]
            (ghost_session,) = [s.session_id for s in store.sessions.for_bot("ghost")]
            refresh = store.sessions.heartbeat_many
            closed_during_refresh = threading.Event()

            def heartbeat_many(session_ids: list[str], ttl: float) -> list[bool]:
                if ghost_session in session_ids and not closed_during_refresh.is_set():
                    # The refresh has taken the session as live; now it ends: the arena closes its stream
                    # and its record leaves Redis before the refresh goes on (the kit reconnects later,
                    # with a new session id).
                    harness.loop_thread.call_soon(harness.server.gateway.registry.drop_session, "ghost")
                    wait_until(lambda: store.sessions.get(ghost_session) is None, 10, "the ghost session to close")
                    closed_during_refresh.set()
                return refresh(session_ids, ttl)

            monkeypatch.setattr(store.sessions, "heartbeat_many", heartbeat_many)
            wait_until(closed_during_refresh.is_set, 10, "a heartbeat refresh while the ghost session closed")
            store.redis.delete(store.keys.session(alive_session))  # lost (a Redis restart): re-created
            wait_until(lambda: store.sessions.get(alive_session) is not None, 10, "the lost session to come back")
            assert store.sessions.get(ghost_session) is None
            assert ghost_session not in [s.session_id for s in store.sessions.for_bot("ghost")]


def test_the_gateway_records_every_version_a_bot_connects_with(redis_server: PrivateRedis) -> None:
    from tests.support.bots import RawBot

    with running_gateway(redis_server.url) as harness:
        token = harness.register_bot("versions")
        for version in ("2.0", "2.1"):
            raw = RawBot(harness.address, token)
            raw.hello(bot_version=version)
            raw.welcome()
            raw.close()
        wait_until(lambda: [v.version for v in harness.store.bots.versions("versions")] == ["2.0", "2.1"], 10,
                   "both versions in the bot's history")
        assert harness.store.bots.get("versions").version == "2.1"


def test_a_bot_opts_in_to_human_games_with_its_hello(redis_server: PrivateRedis) -> None:
    from arena.protocol import PROTOCOL_VERSION, bot_pb2
    from tests.support.bots import RawBot

    with running_gateway(redis_server.url) as harness:
        token = harness.register_bot("sociable")
        for accepts in (True, False):
            raw = RawBot(harness.address, token)
            raw.send(bot_pb2.BotMessage(hello=bot_pb2.Hello(
                protocol_version=PROTOCOL_VERSION, bot_version="1", max_concurrent_matches=2,  # type: ignore[arg-type]
                accepts_human_games=accepts)))
            raw.welcome()
            wait_until(lambda: harness.store.bots.get("sociable").human_games is accepts, 10,  # noqa: B023
                       f"the bot's record to say human games {accepts}")
            raw.close()
