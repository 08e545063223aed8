"""A gateway that drains (issue 13, item 1), with real processes: SIGTERM to `uno-arena serve` tells its bots to
move (Goodbye), deletes its sessions from Redis, hands relayed decisions over to the bot's new gateway and exits
(code 0) within 10 s; a second `serve` on the same port (both started with --reuse-port) takes the bots over. And
the smaller fixes around it (item 6): `serve` needs REDIS_URL or --embedded-redis, a bad database index is an error
at once, relay queues expire."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.engine import Rules
from arena.relay import RelaySeat
from arena.runner import LocalSeat, MatchConfig, MatchRecord, run_match
from arena.store import Store
from arena.store.relay import QUEUE_TTL_S
from bots import make_bot
from tests.support import LoopThread, free_port, wait_until
from tests.support.bots import ThreadBot, process_bot, stop_process
from tests.support.cli import spawn_cli
from tests.support.gateway import running_gateway
from tests.support.redis_server import PrivateRedis

pytestmark = pytest.mark.integration


class Output:
    """The lines a process writes to one of its pipes, read by a thread (a test waits on them)."""

    def __init__(self, stream: object) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.append(line)

    def has(self, text: str) -> bool:
        return any(text in line for line in self.lines)

    def text(self) -> str:
        return "".join(self.lines)


def serve(redis_url: str, *args: str) -> subprocess.Popen[str]:
    return spawn_cli("serve", "--metrics-port", "-1", "--heartbeat", "1", "--insecure-no-admin-token", *args,
                     env_extra={"REDIS_URL": redis_url})


def start_gateway(redis_url: str, port: int, gateway_id: str,
                  *more: str) -> tuple[subprocess.Popen[str], Output, Output]:
    process = serve(redis_url, "--address", f"127.0.0.1:{port}", "--gateway-id", gateway_id, *more)
    out, err = Output(process.stdout), Output(process.stderr)

    def listening() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"serve {gateway_id} exited ({process.returncode}): {err.text()}")
        return out.has("listening on")

    wait_until(listening, 30, f"serve {gateway_id} to listen on port {port}")
    return process, out, err


def gateways_of(store: Store, bot: str) -> list[str]:
    return [session.gateway for session in store.sessions.for_bot(bot)]


def test_sigterm_drains_the_gateway_and_its_bot_moves_to_the_next_one_on_the_same_port(
        redis_server: PrivateRedis) -> None:
    url, port = redis_server.url, free_port()
    store = Store.from_url(url)
    _record, token = store.bots.register("mover")
    first, first_out, first_err = start_gateway(url, port, "gw-first", "--reuse-port")
    bot = second = None
    loop = LoopThread("drain-matches")
    records: list[MatchRecord] = []
    playing = threading.Event()
    playing.set()
    try:
        bot = process_bot(f"127.0.0.1:{port}", token, "heuristic")
        wait_until(lambda: gateways_of(store, "mover") == ["gw-first"], 30, "the bot's session on the first gateway")
        (old_session,) = store.sessions.for_bot("mover")
        # The replacement starts on the same port while the first still runs: both asked for port sharing.
        second, _second_out, second_err = start_gateway(url, port, "gw-second", "--reuse-port")

        async def play() -> None:  # matches over the relay, one after the other, all through the drain
            number = 0
            while playing.is_set():
                number += 1
                config = MatchConfig(match_id=f"drain-{number}", seed=number, rules=Rules(), decision_deadline_s=2.0)
                seats = [RelaySeat(store, "mover"), LocalSeat(make_bot("random", seed=number))]
                records.append(await run_match(config, seats))

        done = loop.submit(play())
        wait_until(lambda: len(records) >= 2 or done.done(), 60, "two matches played through the first gateway")
        first.send_signal(signal.SIGTERM)
        first.wait(60)
        assert first.returncode == 0, first_err.text()  # drained and exited by itself, not killed
        assert first_out.has("draining") and first_out.has("drained"), first_out.text()
        assert store.sessions.get(old_session.session_id) is None  # deleted, not left to expire
        wait_until(lambda: gateways_of(store, "mover") == ["gw-second"], 10, "the bot's session on the second gateway",
                   details=second_err.text)
        ttl = store.redis.ttl(store.keys.relay_queue("gw-first"))
        assert ttl == -2 or 0 < ttl <= QUEUE_TTL_S  # gone, or going: never kept forever
        played = len(records)
        wait_until(lambda: len(records) >= played + 2 or done.done(), 60, "two matches through the second gateway")
        playing.clear()
        done.result(60)
    finally:
        playing.clear()
        loop.close()
        for process in (bot, second, first):
            if process is not None:
                stop_process(process)
        store.close()
    assert bot.returncode == 0
    assert all(not record.forfeits for record in records), [record.detail for record in records]
    strikes = sum(record.strikes[0] for record in records)
    assert strikes == 0, [(record.match_id, record.strikes, record.detail) for record in records]


def test_serve_needs_redis_url_or_embedded_redis(tmp_path: Path) -> None:
    refused = serve("", "--address", f"127.0.0.1:{free_port()}")
    _out, err = refused.communicate(timeout=60)
    assert refused.returncode == 2 and "REDIS_URL" in err and "--embedded-redis" in err, err
    embedded = serve("", "--address", f"127.0.0.1:{free_port()}", "--embedded-redis")
    out = Output(embedded.stdout)
    try:
        wait_until(lambda: out.has("listening on") or embedded.poll() is not None, 60, "serve --embedded-redis")
        assert embedded.poll() is None
        embedded.send_signal(signal.SIGTERM)
        embedded.wait(60)
        assert embedded.returncode == 0
    finally:
        stop_process(embedded)


def test_serve_refuses_a_database_index_redis_does_not_have(redis_server: PrivateRedis) -> None:
    url = redis_server.url.rsplit("/", 1)[0] + "/99"
    process = serve(url, "--address", f"127.0.0.1:{free_port()}")
    _out, err = process.communicate(timeout=60)  # an error at once: no retry, no "listening"
    assert process.returncode == 2, err
    assert "refused database 99" in err and "databases" in err, err
    assert "listening" not in _out, _out


@pytest.mark.parametrize("refresh", [False, True])
def test_relay_queues_expire_unless_their_gateway_keeps_them(redis_server: PrivateRedis, refresh: bool) -> None:
    store = Store.from_url(redis_server.url)
    key = store.keys.relay_queue("gw-x")

    async def push_twice() -> None:
        relay = store.relay()
        try:
            await relay.push("gw-x", b"one")
            store.redis.expire(key, 5)  # as if most of its life had passed
            await relay.push("gw-x", b"two")  # a push does not extend it: only the gateway does
            if refresh:
                await relay.keep_queue("gw-x")
        finally:
            await relay.close()

    try:
        asyncio.run(push_twice())
        ttl = store.redis.ttl(key)
        assert store.redis.llen(key) == 2
        assert (QUEUE_TTL_S - 5 < ttl <= QUEUE_TTL_S) if refresh else (0 < ttl <= 5), ttl
    finally:
        store.close()


@contextmanager
def stranded_bot(redis_url: str, name: str) -> Iterator[tuple[Store, subprocess.Popen[str], Output, Output]]:
    """`serve` alone on its port with one kit bot connected to it: a drain has nowhere to send the bot."""
    port = free_port()
    store = Store.from_url(redis_url)
    _record, token = store.bots.register(name)
    gateway, out, err = start_gateway(redis_url, port, f"gw-{name}")
    bot = None
    try:
        bot = process_bot(f"127.0.0.1:{port}", token, "random")
        wait_until(lambda: gateways_of(store, name) == [f"gw-{name}"], 30, "the bot's session")
        yield store, gateway, out, err
        assert bot.poll() is None  # the bot keeps trying to reconnect
    finally:
        if bot is not None:
            stop_process(bot)
        stop_process(gateway)
        store.close()


def test_sigterm_with_nowhere_to_move_still_exits_in_time_and_leaves_no_session(redis_server: PrivateRedis) -> None:
    with stranded_bot(redis_server.url, "stranded") as (store, gateway, out, err):
        gateway.send_signal(signal.SIGTERM)
        gateway.wait(60)  # the drain ends at its --drain-timeout even with nowhere for the bot to move
        assert gateway.returncode == 0, err.text()
        assert out.has("drained: exiting"), out.text()
        assert gateways_of(store, "stranded") == []  # its session was deleted on the way out


def test_the_kit_moves_at_once_and_a_pending_decision_is_handed_over(redis_server: PrivateRedis) -> None:
    """A decision pending at the bot when its gateway drains is answered through the gateway it moved to, within
    its deadline: the relay seat gets the answer (no strike) and uses the new gateway from then on."""
    url = redis_server.url
    answering = threading.Event()

    def slow(_observation: object, _legal: object) -> int:
        if not answering.is_set():
            answering.set()
            time.sleep(0.4)  # the drain happens while this first decision is pending
        return 0

    with running_gateway(url, reuse_port=True) as first:
        token = first.register_bot("slowpoke")
        with ThreadBot(first.address, token, slow, threaded=True) as bot:
            first.wait_for_bot("slowpoke")
            with running_gateway(url, address=f"127.0.0.1:{first.port}", reuse_port=True) as second:
                loop = LoopThread("relay-seat")
                try:
                    seat = RelaySeat(Store.from_url(url), "slowpoke")
                    config = MatchConfig(match_id="handover-1", seed=4, rules=Rules(), decision_deadline_s=3.0)
                    done = loop.submit(run_match(config, [seat, LocalSeat(make_bot("random", seed=1))]))
                    wait_until(answering.is_set, 30, "a decision pending at the bot")
                    first.run(first.server.drain(0.5), timeout=60)
                    second.wait_for_bot("slowpoke", 5.0)
                    assert bot.stats.goodbyes == 1
                    record = done.result(120)
                finally:
                    loop.close()
    assert record.end_reason == "target", record.detail
    assert record.strikes[0] == 0 and record.timeouts[0] == 0, record.detail
    assert not record.forfeits


def test_a_second_sigterm_while_draining_exits_at_once(redis_server: PrivateRedis) -> None:
    """An operator who does not want to wait for the drain signals again: `serve` exits at once (code 1)."""
    with stranded_bot(redis_server.url, "waiter") as (_store, gateway, out, err):
        gateway.send_signal(signal.SIGTERM)
        # With nowhere for its bot to move, the drain waits the whole --drain-timeout (5 s).
        wait_until(lambda: out.has("draining:"), 10, "serve to start draining")
        gateway.send_signal(signal.SIGTERM)
        gateway.wait(60)
        assert gateway.returncode == 1  # forced: a drain that ran out its time exits with 0, saying "drained"
        wait_until(lambda: err.has("second SIGTERM while stopping: exiting now"), 5, "the forced exit's line")
        assert not out.has("drained: exiting")
