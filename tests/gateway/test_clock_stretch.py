"""Clocks no bot can stretch (issue 23, item 5), seen from outside: a private Redis, `uno-arena serve` in a process of
its own, and raw BotService clients in this one. A bot that holds its Pongs 240 ms (so its Ping -> Pong round trip
reads 240 ms) and thinks 450 ms on a 300 ms deadline times out exactly like an honest bot that thinks as long: lag
compensation comes from the kernel's round trip of the connection (loopback here), never from the bot's Pongs."""

from __future__ import annotations

import asyncio
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest

from arena.engine import Rules
from arena.protocol import bot_pb2
from arena.relay import RelaySeat
from arena.runner import LocalSeat, MatchConfig, MatchRecord, run_match
from arena.runner.record import DEFAULT_LAG_COMPENSATION_CAP_S
from arena.store import Store
from bots import make_bot
from tests.support import free_port, wait_until
from tests.support.bots import RawBot, play_raw, stop_process
from tests.support.cli import spawn_cli
from tests.support.redis_server import PrivateRedis

pytestmark = pytest.mark.integration

HOLD_S = 0.24
"""How long the cheat holds each Pong."""
THINK_S = 0.45
"""How long both bots think over each decision: past the deadline."""
DEADLINE_S = 0.3


class PongHolder:
    """A raw bot that sends each Pong ``hold_s`` after its Ping came (0: at once) and answers each request with its
    first legal action after ``think_s``."""

    def __init__(self, address: str, token: str, *, hold_s: float, think_s: float) -> None:
        self.raw = RawBot(address, token)
        self.hold_s, self.think_s = hold_s, think_s
        self.pongs = 0
        """Pongs sent so far."""
        self._stop = threading.Event()
        self.raw.hello(capacity=2)
        play_raw(self.raw, self._answer, self._stop, send=self._send)

    def _answer(self, _request: bot_pb2.DecisionRequest) -> list[int]:
        time.sleep(self.think_s)
        return [0]

    def _send(self, message: bot_pb2.BotMessage) -> None:
        if message.WhichOneof("payload") != "pong":
            self.raw.send(message)
        elif self.hold_s:
            threading.Timer(self.hold_s, self._pong, (message,)).start()
        else:
            self._pong(message)

    def _pong(self, message: bot_pb2.BotMessage) -> None:
        self.raw.send(message)
        self.pongs += 1

    def close(self) -> None:
        self._stop.set()
        self.raw.close()


@pytest.fixture
def gateway(redis_server: PrivateRedis) -> Iterator[tuple[Store, str]]:
    """`uno-arena serve` (Pings every 0.2 s) on a private Redis: its store and address."""
    address = f"127.0.0.1:{free_port()}"
    process = spawn_cli("serve", "--address", address, "--metrics-port", "-1", "--heartbeat", "0.2",
                        "--insecure-no-admin-token", env_extra={"REDIS_URL": redis_server.url},
                        stderr=subprocess.DEVNULL)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(process.stdout or ()), daemon=True).start()
    store = Store.from_url(redis_server.url)
    try:
        wait_until(lambda: any("listening on" in line for line in lines) or process.poll() is not None, 60,
                   "serve to listen")
        assert process.poll() is None, "serve exited"
        yield store, address
    finally:
        stop_process(process)
        store.close()


def _play(store: Store, address: str, name: str, hold_s: float) -> MatchRecord:
    """A match of a bot that thinks THINK_S (holding its Pongs ``hold_s``) against a local random bot."""
    _record, token = store.bots.register(name)
    bot = PongHolder(address, token, hold_s=hold_s, think_s=THINK_S)
    try:
        wait_until(lambda: bot.pongs >= 3, 30, f"{name}: three Pongs sent")
        config = MatchConfig(f"stretch-{name}", 11, Rules(target=60), decision_deadline_s=DEADLINE_S,
                             lag_compensation_cap_s=DEFAULT_LAG_COMPENSATION_CAP_S)
        return asyncio.run(run_match(config, [RelaySeat(store, name), LocalSeat(make_bot("random", seed=3))]))
    finally:
        bot.close()


def test_holding_pongs_buys_no_time(gateway: tuple[Store, str]) -> None:
    store, address = gateway
    assert DEFAULT_LAG_COMPENSATION_CAP_S > HOLD_S  # the old rule would have granted the whole hold
    cheat = _play(store, address, "cheat", HOLD_S)
    honest = _play(store, address, "honest", 0.0)
    for record in (cheat, honest):
        asked = [d for d in record.decisions if d.seat == 0]
        assert record.timeouts[0] >= 1 and 0 in record.forfeits, record.detail
        assert asked and all(d.outcome != "answered" for d in asked), [d.outcome for d in asked]
        # Granted: the kernel's loopback round trip, a sliver of the hold.
        assert all(d.lag_ms < HOLD_S * 1000 / 10 for d in asked), [d.lag_ms for d in asked]
    assert (cheat.timeouts[0], cheat.strikes[0]) == (honest.timeouts[0], honest.strikes[0])
