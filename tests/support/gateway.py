"""Start a real uno-arena gateway on a free port, with a real Redis store, for tests (Python or not).

Stable API (other test suites, e.g. the Node.js bot's, may rely on it; only additions, no changes):

    from tests.support.gateway import GatewayHarness, running_gateway

    with running_gateway() as gw:                 # its own private redis-server unless redis_url= is given
        token = gw.register_bot("mybot")          # registers in the store, returns the bearer token
        ...start a bot with target=gw.address (e.g. "127.0.0.1:PORT") and that token...
        gw.wait_for_bot("mybot", timeout=10)      # until its session is open (Hello answered)
        record = gw.run_match(["mybot", "random", "heuristic"], seed=3)   # arena.runner.MatchRecord
        gw.connected_bots()                       # names with an open stream on this gateway

`GatewayHarness(redis_url=None, **gateway_options)`: the gateway runs on its own asyncio loop in a
daemon thread (:class:`tests.support.loop_thread.LoopThread`), so synchronous tests drive it;
`gateway_options` are fields of `arena.server.gateway.GatewayConfig` (e.g. `hello_timeout_s=1.0`,
`flood_limit=20`). Seat names in `run_match` are built-in bots played in process (`random`, `heuristic`)
or registered bot names played over gRPC. `gw.run(coro)` runs any coroutine on the gateway's loop and
returns its result; `gw.submit(coro)` starts one there and returns its concurrent Future.

From another language, run it as a process:

    python -m tests.support.gateway --bots jsbot,other [--redis-url URL]

It prints one JSON line `{"address": "127.0.0.1:PORT", "redis_url": ..., "tokens": {"jsbot": "..."}}`,
then reads JSON commands, one per line, on stdin and answers each with one JSON line:
`{"cmd": "wait", "bot": "jsbot", "timeout": 10}` -> `{"ok": true}`;
`{"cmd": "match", "seats": ["jsbot", "random"], "seed": 1, "deadline_ms": 1000, "max_strikes": 3,
"variant": "flip"}` -> `{"ok": true, "record": {...MatchRecord.to_dict()...}}`;
`{"cmd": "register", "bot": "name"}` -> `{"ok": true, "token": "..."}`; errors give
`{"ok": false, "error": "..."}`. End of stdin (or SIGTERM) stops the gateway.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import signal
import sys
import uuid
from collections.abc import Awaitable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from arena.engine import Rules
from arena.relay import RelaySeat
from arena.runner import LocalSeat, MatchConfig, MatchRecord, Seat, run_match
from arena.server.gateway import GatewayConfig, GatewayServer
from arena.store import Store
from arena.store.embedded import RedisServer
from bots import BUILTIN_BOTS, make_bot
from tests.support.loop_thread import LoopThread

T = TypeVar("T")

STOP_TIMEOUT_S = 15.0
"""How long :meth:`GatewayHarness.close` waits for the gateway to stop (sessions closed, tasks ended)."""


class GatewayHarness:
    """A real gateway (grpc.aio, health, reflection, relay consumer) on 127.0.0.1:<free port>."""

    def __init__(self, redis_url: str | None = None, **gateway_options: Any) -> None:
        self._own_redis: RedisServer | None = None
        if redis_url is None:
            self._own_redis = RedisServer()
            self._own_redis.start()
            redis_url = self._own_redis.url
        self.redis_url: str = redis_url
        self.store = Store.from_url(redis_url)
        options = {"address": "127.0.0.1:0", **gateway_options}
        self.config = GatewayConfig(**options)
        self.loop_thread = LoopThread("gateway-harness")
        self.loop = self.loop_thread.loop
        self.server = GatewayServer(self.store, self.config)
        try:
            self.run(self.server.start())
        except BaseException as error:
            try:
                self.close()
            except Exception as close_error:
                error.add_note(f"closing the gateway that did not start failed too: {close_error!r}")
            raise
        self.port: int = self.server.port
        self.address: str = f"127.0.0.1:{self.port}"

    # -- driving the loop ------------------------------------------------------------------------
    def run(self, coro: Awaitable[T], timeout: float | None = None) -> T:
        """Run a coroutine on the gateway's loop and wait for its result."""
        return self.loop_thread.run(coro, timeout)

    def submit(self, coro: Awaitable[T]) -> concurrent.futures.Future[T]:
        """Start a coroutine on the gateway's loop; its concurrent Future."""
        return self.loop_thread.submit(coro)

    # -- bots ------------------------------------------------------------------------------------
    def register_bot(self, name: str, owner: str = "", version: str = "1") -> str:
        """Register `name` in the store and return its token (shown once)."""
        _record, token = self.store.bots.register(name, owner=owner, version=version)
        return token

    def wait_for_bot(self, name: str, timeout: float = 10.0) -> None:
        """Block until `name` has an open session on this gateway; TimeoutError otherwise."""
        self.run(self.server.gateway.registry.wait_for_bot(name, timeout))

    def is_connected(self, name: str) -> bool:
        return self.server.gateway.registry.is_connected(name)

    def connected_bots(self) -> list[str]:
        return self.server.gateway.registry.connected_bots()

    # -- matches ---------------------------------------------------------------------------------
    def seats(self, names: Sequence[str], seed: int = 1) -> list[Seat]:
        """Seats for `names`: built-in bot names play in process, other names as in production (through Redis and
        the gateway holding them: :class:`arena.relay.RelaySeat`)."""
        seats: list[Seat] = []
        for index, name in enumerate(names):
            if name in BUILTIN_BOTS:
                seats.append(LocalSeat(make_bot(name, seed=seed * 1000 + index)))
            else:
                seats.append(RelaySeat(self.store, name))
        return seats

    def run_match(
        self,
        seats: Sequence[str],
        *,
        seed: int = 1,
        rules: Rules | None = None,
        decision_deadline_s: float = 1.0,
        max_strikes: int = 3,
        match_id: str | None = None,
        wait_s: float = 10.0,
        timeout_s: float | None = None,
    ) -> MatchRecord:
        """Play one match to the end (waiting up to `wait_s` for each remote bot to be connected)."""
        for name in seats:
            if name not in BUILTIN_BOTS:
                self.wait_for_bot(name, wait_s)
        config = MatchConfig(
            match_id=match_id or f"h-{uuid.uuid4().hex[:12]}",
            seed=seed,
            rules=rules or Rules(),
            decision_deadline_s=decision_deadline_s,
            max_strikes=max_strikes,
        )
        return self.run(run_match(config, self.seats(seats, seed)), timeout_s)

    def run_matches(self, configs: Sequence[tuple[MatchConfig, Sequence[str]]],
                    timeout_s: float | None = None) -> list[MatchRecord]:
        """Play several matches at once (each (config, seat names)); records in the same order."""

        async def play_all() -> list[MatchRecord]:
            return list(await asyncio.gather(*(run_match(c, self.seats(n, c.seed)) for c, n in configs)))

        return self.run(play_all(), timeout_s)

    # -- shutdown --------------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the gateway, its loop and thread, the store, and the private redis-server if any.

        A gateway that does not stop within :data:`STOP_TIMEOUT_S` is an error, raised once everything else is
        closed: its gRPC server would still be running when the garbage collector finds it after its loop
        closed (an "Event loop is closed" warning in some later test)."""
        stop_error: BaseException | None = None
        try:
            if self.loop_thread.running:
                server = getattr(self, "server", None)
                if server is not None:
                    try:
                        self.run(server.stop(0.5), timeout=STOP_TIMEOUT_S)
                    except Exception as error:
                        stop_error = error
                self.loop_thread.close()
        finally:
            self.store.close()
            if self._own_redis is not None:
                self._own_redis.close()
                self._own_redis = None
        if stop_error is not None:
            raise RuntimeError(f"the gateway at {getattr(self, 'address', '?')} did not stop within "
                               f"{STOP_TIMEOUT_S} s: {stop_error!r}") from stop_error

    def __enter__(self) -> GatewayHarness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def running_gateway(redis_url: str | None = None, **gateway_options: Any) -> Iterator[GatewayHarness]:
    """A started :class:`GatewayHarness`, closed on exit."""
    harness = GatewayHarness(redis_url, **gateway_options)
    try:
        yield harness
    finally:
        harness.close()


# ------------------------------------------------------------------------------------------------
# As a process, for test suites in other languages
# ------------------------------------------------------------------------------------------------


def _command(gw: GatewayHarness, line: str) -> dict[str, Any]:
    request = json.loads(line)
    cmd = request.get("cmd")
    if cmd == "wait":
        gw.wait_for_bot(request["bot"], float(request.get("timeout", 10.0)))
        return {"ok": True}
    if cmd == "register":
        return {"ok": True, "token": gw.register_bot(request["bot"])}
    if cmd == "match":
        rules = Rules(variant=request.get("variant", "flip"), target=int(request.get("target", 500)))
        record = gw.run_match(
            request["seats"],
            seed=int(request.get("seed", 1)),
            rules=rules,
            decision_deadline_s=float(request.get("deadline_ms", 1000)) / 1000.0,
            max_strikes=int(request.get("max_strikes", 3)),
            wait_s=float(request.get("wait", 10.0)),
        )
        return {"ok": True, "record": record.to_dict()}
    if cmd == "connected":
        return {"ok": True, "bots": gw.connected_bots()}
    raise ValueError(f"unknown command {cmd!r} (known: wait, register, match, connected)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="", help="comma-separated bot names to register (tokens printed)")
    parser.add_argument("--redis-url", default=None, help="default: a private redis-server")
    parser.add_argument("--deadline-ms", type=int, default=None, help="(unused; per match in commands)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with running_gateway(args.redis_url) as gw:
        tokens = {name: gw.register_bot(name) for name in args.bots.split(",") if name}
        print(json.dumps({"address": gw.address, "redis_url": gw.redis_url, "tokens": tokens}), flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                answer = _command(gw, line)
            except Exception as error:
                answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
            print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
