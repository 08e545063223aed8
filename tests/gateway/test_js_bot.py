"""The Node.js example bot (bots/js) against a real gateway over real gRPC.

The bot runs as a `node` process that loads the project's .proto files with @grpc/proto-loader; the
other seats are Python bots, either playing through the Python kit over gRPC (separate processes) or
played in process by the gateway. The npm packages are installed here (`npm ci`) when missing; the
tests skip only when `node`/`npm` are absent or `npm ci` fails for lack of network.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.engine import Rules
from arena.runner import MatchConfig, MatchRecord
from tests.support import wait_until, wait_until_async
from tests.support.gateway import GatewayHarness, running_gateway
from tests.support.redis_server import PrivateRedis

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
JS_DIR = REPO / "bots" / "js"
JS_BOT = JS_DIR / "bot.js"
NETWORK_ERRORS = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH",
                  "network", "offline")
# Generous: a full match answers hundreds of requests, and a loaded CI machine must not cause strikes.
DEADLINE_S = 5.0


@pytest.fixture(scope="session")
def node_bot() -> Path:
    """bots/js with its npm packages installed; skips when node/npm are missing or npm has no network."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("the Node.js bot tests need `node` and `npm` on PATH (Node 18 or later)")
    installed = all((JS_DIR / "node_modules" / "@grpc" / pkg / "package.json").is_file()
                    for pkg in ("grpc-js", "proto-loader"))
    if not installed:
        try:
            done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=JS_DIR,
                                  capture_output=True, text=True, timeout=300, check=False)
        except subprocess.TimeoutExpired:
            pytest.skip("`npm ci` in bots/js timed out (no network to the npm registry?)")
        if done.returncode != 0:
            output = done.stdout + done.stderr
            if any(marker in output for marker in NETWORK_ERRORS):
                pytest.skip(f"`npm ci` in bots/js could not reach the npm registry:\n{output[-800:]}")
            pytest.fail(f"`npm ci` in bots/js failed ({done.returncode}):\n{output[-4000:]}")
    return JS_BOT


class Process:
    """A bot process whose output goes to a log file (read at any time, no pipe to fill)."""

    def __init__(self, argv: Sequence[str], log_path: Path, env: dict[str, str] | None = None) -> None:
        self.log_path = log_path
        self._log = log_path.open("wb")
        self.proc = subprocess.Popen(list(argv), cwd=REPO, stdout=self._log, stderr=subprocess.STDOUT,
                                     env={**os.environ, **(env or {})})

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, text: str, timeout: float = 30.0) -> None:
        def logged() -> bool:
            if text in self.log():
                return True
            if self.proc.poll() is not None:
                raise AssertionError(f"the bot exited ({self.proc.returncode}) before logging {text!r}:\n{self.log()}")
            return False

        wait_until(logged, timeout, f"the bot to log {text!r}", details=self.log)

    def terminate(self, timeout: float = 15.0) -> int:
        """SIGTERM, then wait; SIGKILL if it does not stop. Returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()
        return self.proc.returncode


@contextmanager
def js_bot(gw: GatewayHarness, name: str, tmp_path: Path, *extra: str, token: str | None = None,
           target: str | None = None) -> Iterator[Process]:
    """The Node.js bot registered as `name` and connected to `gw` (not waited for)."""
    token = token if token is not None else gw.register_bot(name)
    argv = ["node", str(JS_BOT), "--target", target or gw.address, "--token", token, "--name", name, *extra]
    bot = Process(argv, tmp_path / f"{name}.log")
    try:
        yield bot
    finally:
        bot.terminate()


@contextmanager
def python_bot(gw: GatewayHarness, name: str, kind: str, tmp_path: Path) -> Iterator[Process]:
    """A Python bot (`heuristic` or `random`) playing through the kit over gRPC, in its own process."""
    token = gw.register_bot(name)
    code = ("import sys; from bots import BUILTIN_BOTS; from bots.kit import play; "
            "play(BUILTIN_BOTS[sys.argv[1]], target=sys.argv[2], token=sys.argv[3], bot_version=sys.argv[4])")
    bot = Process([sys.executable, "-c", code, kind, gw.address, token, f"python-kit {kind}"],
                  tmp_path / f"{name}.log", env={"PYTHONPATH": str(REPO)})
    try:
        yield bot
    finally:
        bot.terminate()


def assert_clean_seat(record: MatchRecord, seat: int) -> None:
    """The seat answered every request itself: no timeout, refusal, fallback or forfeit."""
    assert record.timeouts[seat] == 0, record.detail
    assert record.refusals[seat] == 0, record.detail
    assert seat not in record.forfeits, record.detail
    outcomes = {d.outcome for d in record.decisions if d.seat == seat}
    assert outcomes == {"answered"}, outcomes


@pytest.fixture
def gateway() -> Iterator[GatewayHarness]:
    with running_gateway() as gw:
        yield gw


def test_strategy_unit_tests(node_bot: Path) -> None:
    done = subprocess.run(["node", "--test", "test/"], cwd=JS_DIR, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_full_match_against_python_bots_over_grpc(node_bot: Path, gateway: GatewayHarness, tmp_path: Path) -> None:
    with js_bot(gateway, "jsbot", tmp_path) as js, \
            python_bot(gateway, "py-heuristic", "heuristic", tmp_path), \
            python_bot(gateway, "py-random", "random", tmp_path):
        record = gateway.run_match(["jsbot", "py-heuristic", "py-random"], seed=11, decision_deadline_s=DEADLINE_S,
                                   wait_s=60.0, match_id="js-full-1")
        assert record.end_reason == "target", record.detail
        assert record.winner is not None
        assert max(record.scores) >= 500
        assert record.seats == ["jsbot", "py-heuristic", "py-random"]
        assert "uno-arena-bot-js" in record.bot_versions[0]
        for seat in range(3):
            assert_clean_seat(record, seat)
        assert sum(1 for d in record.decisions if d.seat == 0) > 10
        js.wait_for_log("match js-full-1 ended: END_REASON_COMPLETED")
        # Clean shutdown on SIGTERM: exit code 0 and a summary line.
        assert js.terminate() == 0, js.log()
        log = js.log()
        assert "welcome: session" in log
        assert "match js-full-1 started: seat 0" in log
        assert "shutting down: SIGTERM" in log
        assert "stopped: 1 matches ended" in log


def test_concurrent_matches_on_one_stream(node_bot: Path, gateway: GatewayHarness, tmp_path: Path) -> None:
    with js_bot(gateway, "jsbot", tmp_path, "--max-matches", "4") as js:
        gateway.wait_for_bot("jsbot", 60.0)
        tables = [("flip", ["heuristic", "jsbot", "random"]),
                  ("classic", ["jsbot", "heuristic", "jsbot"]),  # two seats: messages to both come batched
                  ("flip", ["random", "random", "jsbot", "heuristic"])]
        configs = [(MatchConfig(match_id=f"js-c-{i}-{variant}", seed=20 + i, rules=Rules(variant=variant),
                                decision_deadline_s=DEADLINE_S), seats)
                   for i, (variant, seats) in enumerate(tables)]
        records = gateway.run_matches(configs)
        for (config, seats), record in zip(configs, records, strict=True):
            assert record.match_id == config.match_id
            assert record.end_reason == "target", record.detail
            for seat, name in enumerate(seats):
                if name == "jsbot":
                    assert_clean_seat(record, seat)
        log = js.log()
        # All three matches were open on the one stream at the same time.
        first_end = log.index(" ended: ")
        for config, _seats in configs:
            assert f"match {config.match_id} started" in log[:first_end]
        assert log.count("welcome: session") == 1
        assert "concurrent matches, batches" in log  # it asked for ArenaBatch messages and got them
        assert js.terminate() == 0, js.log()


def test_reconnects_after_the_session_drops(node_bot: Path, gateway: GatewayHarness, tmp_path: Path) -> None:
    with js_bot(gateway, "jsbot", tmp_path) as js:
        gateway.wait_for_bot("jsbot", 60.0)

        async def drop_while_deciding() -> None:
            """Wait until the bot has a decision pending, then close its session under it."""
            link = gateway.server.gateway.registry.link("jsbot")
            await wait_until_async(lambda: link.pending, 60, "a decision pending at the bot")
            assert gateway.server.gateway.registry.drop_session("jsbot")

        with ThreadPoolExecutor(1) as pool:
            # A long match (target 2000), so it is still running when the session drops.
            future = pool.submit(gateway.run_match, ["jsbot", "heuristic", "random"], seed=5,
                                 rules=Rules(target=2000), decision_deadline_s=DEADLINE_S, match_id="js-drop-1")
            gateway.run(drop_while_deciding(), timeout=60)
            record = future.result(timeout=240)
        assert record.end_reason == "target", record.detail
        assert record.forfeits == []
        assert record.refusals[0] == 0
        js.wait_for_log("match js-drop-1 ended")
        log = js.log()
        assert "reconnecting in" in log
        assert log.count("welcome: session") >= 2
        assert js.terminate() == 0, js.log()


def test_wrong_token_is_fatal(node_bot: Path, gateway: GatewayHarness, tmp_path: Path) -> None:
    gateway.register_bot("jsbot")
    with js_bot(gateway, "jsbot", tmp_path, token="jsbot.not-the-token") as js:
        assert js.proc.wait(60) == 3, js.log()
        assert "UNAUTHENTICATED" in js.log()


def test_reconnects_when_the_gateway_comes_back(node_bot: Path, fresh_redis_server: PrivateRedis,
                                                 tmp_path: Path) -> None:
    """The gateway stops and another one starts on the same port and store: the bot finds it and plays."""
    redis_url = fresh_redis_server.url
    first = GatewayHarness(redis_url)
    port = first.port
    token = first.register_bot("jsbot")
    closed = False
    try:
        with js_bot(first, "jsbot", tmp_path, token=token) as js:
            first.wait_for_bot("jsbot", 60.0)
            first.close()
            closed = True
            js.wait_for_log("reconnecting in")
            with running_gateway(redis_url, address=f"127.0.0.1:{port}") as second:
                second.wait_for_bot("jsbot", 60.0)
                record = second.run_match(["heuristic", "jsbot"], seed=9, rules=Rules(variant="classic"),
                                          decision_deadline_s=DEADLINE_S, match_id="js-back-1")
                assert record.end_reason == "target", record.detail
                assert_clean_seat(record, 1)
            assert js.log().count("welcome: session") == 2
    finally:
        if not closed:
            first.close()


def test_moves_at_once_when_the_gateway_drains(node_bot: Path, fresh_redis_server: PrivateRedis,
                                               tmp_path: Path) -> None:
    """A draining gateway says Goodbye: the bot reconnects at once, on a fresh channel, to the same address, where
    a second gateway (bound to the same port: both share it, ``reuse_port``) takes it over."""
    redis_url = fresh_redis_server.url
    with running_gateway(redis_url, reuse_port=True) as first, js_bot(first, "jsbot", tmp_path) as js:
        first.wait_for_bot("jsbot", 60.0)
        with running_gateway(redis_url, address=f"127.0.0.1:{first.port}", reuse_port=True) as second:
            first.run(first.server.drain(0.5), timeout=15)
            second.wait_for_bot("jsbot", 5.0)  # at once: no backoff after a Goodbye
            js.wait_for_log("goodbye from the arena")
            assert js.log().count("welcome: session") == 2
            record = second.run_match(["heuristic", "jsbot"], seed=9, rules=Rules(variant="classic"),
                                      decision_deadline_s=DEADLINE_S, match_id="js-moved-1")
            assert record.end_reason == "target", record.detail
            assert_clean_seat(record, 1)
        assert js.terminate() == 0, js.log()
