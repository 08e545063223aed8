"""``python -m benchmarks gateway``: remote random bots over loopback gRPC, next to a bare grpc.aio echo stream.

Three measurements in the same run, on the same machine, with the same shape of traffic, repeated ``rounds``
times interleaved (the best of each is kept: other processes on the machine only ever slow one down):

1. **echo**: a ``grpc.aio`` server in this process that answers every small request on a bidirectional
   stream with a message the size of the mean DecisionRequest of a match; a client process keeps ``matches``
   round trips in flight over ``bots`` streams. Reported (counted on the server): round trips per second and
   the server process's CPU time per round trip.
2. **arena**: a real gateway (auth, Hello, sessions in a private Redis) in this process and ``matches``
   concurrent matches of ``players`` remote random bots; the bots are ``bots`` connections in one client
   process, each multiplexing its matches over its stream. The matches' remote seats are the production ones
   (:class:`arena.relay.RelaySeat`: each decision goes through Redis to the gateway, as a worker's do), so this
   process runs both ends of the relay (the seats and their hub, the gateway's relay consumer) and their Redis
   clients; the Redis server is a process of its own. By default a bot picks a random legal index straight from
   the message (the Python kit's ``raw`` mode), so the client process is not what limits the figure; ``--kit``
   makes them ``bots.RandomBot`` behind the full kit (observation converted to engine types).
   Measured twice: with batches (the kit's default: Hello sets ``accepts_batches``, so the gateway sends every
   message waiting on a stream in one ArenaBatch and the kit answers a batch in one BotBatch) and without (one
   stream message per request and per answer, as for a bot that does not ask for batches). Reported for
   each: remote decisions per second; the server process's CPU time per decision, of it the relay's share
   (:class:`RelayShare`: the main thread's stack sampled every 5 ms), and the Redis server's CPU per decision
   beside it (the server CPU without the relay is what compares with the echo's); and the arena's own overhead per
   decision (p50, p99): the time the match's code runs for one decision (runner, engine, observation, encoding,
   the seat's envelope and reading of the answer; not the gateway's share, which the relay does not report back,
   nor gRPC's own send and receive, which the echo pays too). The wall time per decision outside the bot is
   printed as well: in this closed loop the server is saturated, so it is dominated by waiting in line
   (``matches`` / throughput).

The client processes are started with this module (``python -m benchmarks.gateway echo-client|bots``),
so the server side has this process's core to itself, as a gateway would.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

import grpc
import grpc.aio

from arena.engine import Match, Rules
from arena.gc_tuning import configure_gc
from arena.metrics import create_metrics
from arena.protocol.encoding import request_body, request_bytes
from arena.relay import RelaySeat
from arena.runner import MatchConfig, TimingProbe, run_match
from arena.server.gateway import GatewayConfig, GatewayServer
from arena.store import Store
from arena.store.embedded import RedisServer
from benchmarks.procfs import process_cpu


class CollectorPauses:
    """While entered, counts the collections of each generation and their time (total and longest), from
    ``gc.callbacks``: what the collector cost a measurement, for this benchmark to print."""

    def __init__(self) -> None:
        self.counts = [0, 0, 0]
        self.total_s = [0.0, 0.0, 0.0]
        self.longest_s = [0.0, 0.0, 0.0]
        self._started = 0.0

    def _callback(self, phase: str, info: Mapping[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        took, generation = time.perf_counter() - self._started, info["generation"]
        self.counts[generation] += 1
        self.total_s[generation] += took
        self.longest_s[generation] = max(self.longest_s[generation], took)

    def __enter__(self) -> CollectorPauses:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self._callback)

    def summary(self) -> str:
        young = "/".join(str(count) for count in self.counts[:2])
        return (f"garbage collector {sum(self.total_s):.2f} s: {self.counts[2]} full collections (longest "
                f"{self.longest_s[2] * 1000:.0f} ms), {young} young (longest {max(self.longest_s[:2]) * 1000:.0f} ms)")


RELAY_CODE = ("/arena/relay/", "/arena/server/relay_consumer.py", "/arena/store/relay.py", "/arena/store/relay_hub.py",
              "/arena/store/batching.py", "/site-packages/redis/")
"""The relay's code and its Redis client: a sample whose innermost frame of the project or of redis-py is here is the
relay's (so the observation the seat encodes, the runner and the gateway's parts it calls are not)."""
PROJECT_CODE = ("/arena/", "/site-packages/redis/")
IDLE_CODE = "/selectors.py"


class RelayShare:
    """While entered, samples the main thread's stack every ``interval_s`` from a thread of its own: the share of
    the busy samples (not waiting in the event loop's ``select``) that ran the relay (:data:`RELAY_CODE`): what
    the relay's two ends and their Redis clients cost of the process's CPU, give or take a few per cent."""

    def __init__(self, interval_s: float = 0.005) -> None:
        self.interval_s = interval_s
        self.busy = 0
        self.relay = 0
        self._main = threading.main_thread().ident
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="relay-share", daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(self.interval_s):
            frame = sys._current_frames().get(self._main or 0)
            if frame is None or frame.f_code.co_filename.endswith(IDLE_CODE):
                continue
            self.busy += 1
            while frame is not None:
                name = frame.f_code.co_filename
                if any(part in name for part in PROJECT_CODE):
                    self.relay += any(part in name for part in RELAY_CODE)
                    break
                frame = frame.f_back

    def __enter__(self) -> RelayShare:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def share(self) -> float:
        return self.relay / self.busy if self.busy else float("nan")


ECHO_METHOD = "/bench.Echo/Stream"


def typical_request_size(players: int = 4) -> int:
    """Mean bytes of the DecisionRequests of a whole flip match of random play (what the echo answers with)."""
    import random

    match = Match(players=players, seed=1, rules=Rules())
    rng = random.Random(1)
    seen = [0] * players
    sizes: list[int] = []
    while match.decision != "match_over":
        if match.decision == "round_over":
            match.next_round()
            continue
        seat = match.current or 0
        legal = match.legal_actions()
        body = request_body("bench-m-0000", len(sizes) + 1, match.observation(seat, seen[seat]), legal)
        seen[seat] = len(match.events)
        sizes.append(len(request_bytes(body, "abcd-1234", 1000, 1_700_000_000_000)))
        match.apply(seat, legal[rng.randrange(len(legal))])
    return int(statistics.fmean(sizes))


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ------------------------------------------------------------------------------------------------
# Echo
# ------------------------------------------------------------------------------------------------


class _Count:
    value = 0


async def _echo_server(size: int, count: _Count) -> tuple[grpc.aio.Server, int]:
    reply = b"x" * size

    async def stream(_requests: Any, context: grpc.aio.ServicerContext) -> None:
        while True:
            data = await context.read()
            if data is grpc.aio.EOF:
                return
            await context.write(reply)
            count.value += 1

    handler = grpc.method_handlers_generic_handler("bench.Echo", {"Stream": grpc.stream_stream_rpc_method_handler(
        stream)})
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


async def echo_client(target: str, streams: int, inflight: int, seconds: float, warmup: float) -> dict[str, Any]:
    """Keep ``inflight`` round trips going over ``streams`` streams; count those done after the warm-up."""
    done = 0
    counting = False
    per_stream = max(1, inflight // streams)
    async with grpc.aio.insecure_channel(target) as channel:
        method = channel.stream_stream(ECHO_METHOD)
        calls = [method() for _ in range(streams)]

        async def pump(call: Any) -> None:
            nonlocal done
            for _ in range(per_stream):
                await call.write(b"d" * 24)
            while True:
                data = await call.read()
                if data is grpc.aio.EOF:
                    return
                if counting:
                    done += 1
                await call.write(b"d" * 24)

        tasks = [asyncio.create_task(pump(call)) for call in calls]
        await asyncio.sleep(warmup)
        counting = True
        start = time.perf_counter()
        await asyncio.sleep(seconds)
        elapsed = time.perf_counter() - start
        total = done
        for call in calls:
            call.cancel()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"round_trips": total, "seconds": elapsed, "per_second": total / elapsed}


# ------------------------------------------------------------------------------------------------
# Arena
# ------------------------------------------------------------------------------------------------


async def bots_client(target: str, tokens: Sequence[str], kit: bool, batches: bool = True) -> None:
    """Random bots, one connection per token, until stdin closes. ``kit``: a ``bots.RandomBot`` behind the
    full Python kit (observation converted to engine types); else a random index straight from the message.
    ``batches``: the bots accept ArenaBatch messages (and answer a batch in one BotBatch)."""
    import logging
    import random

    from bots import RandomBot
    from bots.kit import BotClient, bot_factory

    logging.getLogger("uno_arena.kit").setLevel(logging.ERROR)
    rng = random.Random(1)

    def pick(request: Any) -> int:
        return rng.randrange(len(request.legal_actions))

    stop = asyncio.Event()
    clients = [BotClient(target, token, bot_factory(RandomBot), bot_version="bench-random",
                         max_concurrent_matches=1024, raw=None if kit else pick, batches=batches)
               for token in tokens]
    tasks = [asyncio.create_task(client.run(stop)) for client in clients]
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _arena(matches: int, seconds: float, warmup: float, players: int, bots: int, decision_deadline_s: float,
                 store: Store, redis_pids: Sequence[int], kit: bool = False, batches: bool = True) -> dict[str, Any]:
    server = GatewayServer(store, GatewayConfig(address="127.0.0.1:0",
                                                max_concurrent_matches=1024, max_outgoing=100_000),
                           metrics=create_metrics(None))
    await server.start()
    run = uuid.uuid4().hex[:6]
    names = [f"bench-{run}-{i}" for i in range(bots)]
    tokens = [store.bots.register(name)[1] for name in names]
    child = subprocess.Popen([sys.executable, "-m", "benchmarks.gateway", "bots", f"127.0.0.1:{server.port}",
                              *tokens, *(["--kit"] if kit else []), *([] if batches else ["--no-batches"])],
                             stdin=subprocess.PIPE)
    metrics = create_metrics(None)
    try:
        for name in names:
            await server.gateway.registry.wait_for_bot(name, 30)
        window = TimingProbe(open=False)
        totals = {"timeouts": 0, "refusals": 0, "matches": 0}
        stop_at = time.perf_counter() + warmup + seconds
        serial = 0

        async def loop(slot: int) -> None:
            nonlocal serial
            while time.perf_counter() < stop_at:
                serial += 1
                seat_names = [names[(slot + i) % bots] for i in range(players)]
                config = MatchConfig(f"bench-{run}-{serial}", serial, Rules(), decision_deadline_s=decision_deadline_s)
                seats = [RelaySeat(store, name) for name in seat_names]
                record = await run_match(config, seats, metrics=metrics, probe=window)
                totals["timeouts"] += sum(record.timeouts)
                totals["refusals"] += sum(record.refusals)
                totals["matches"] += 1
                del record  # stored and dropped by a worker; not kept alive here while the next match plays

        tasks = [asyncio.create_task(loop(slot)) for slot in range(matches)]
        await asyncio.sleep(warmup)
        window.open = True
        start, cpu0, redis0 = time.perf_counter(), time.process_time(), process_cpu(redis_pids)
        with CollectorPauses() as collector, RelayShare() as relay:
            await asyncio.sleep(seconds)
        window.open = False
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu0
        redis_cpu = process_cpu(redis_pids) - redis0
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        own = [sample[0] for sample in window.samples]
        wall = [sample[1] for sample in window.samples]
    finally:
        if child.stdin:
            child.stdin.close()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
        await server.stop(0.5)
    return {
        "decisions": len(own),
        "matches": totals["matches"],
        "seconds": elapsed,
        "per_second": len(own) / elapsed if elapsed else 0.0,
        "cpu_ms_per_op": cpu / len(own) * 1000 if own else float("nan"),
        "relay_share": relay.share,
        "redis_cpu_ms_per_op": redis_cpu / len(own) * 1000 if own else float("nan"),
        "timeouts": totals["timeouts"],
        "refusals": totals["refusals"],
        "overhead_p50_ms": _percentile(own, 0.50) * 1000,
        "overhead_p99_ms": _percentile(own, 0.99) * 1000,
        "overhead_mean_ms": (statistics.fmean(own) * 1000) if own else float("nan"),
        "wall_p50_ms": _percentile(wall, 0.50) * 1000,
        "wall_p99_ms": _percentile(wall, 0.99) * 1000,
        "gc": collector.summary(),
    }


async def _echo(matches: int, seconds: float, warmup: float, bots: int, size: int) -> dict[str, Any]:
    """Round trips per second and server CPU per round trip, counted on the server side (as the arena's are)."""
    count = _Count()
    server, port = await _echo_server(size, count)
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.gateway", "echo-client", f"127.0.0.1:{port}", str(bots), str(matches),
            str(seconds + 1.0), str(warmup), stdout=subprocess.PIPE)
        await asyncio.sleep(warmup + 0.5)
        first, cpu0, t0 = count.value, time.process_time(), time.perf_counter()
        await asyncio.sleep(seconds)
        done, cpu, elapsed = count.value - first, time.process_time() - cpu0, time.perf_counter() - t0
        await proc.communicate()
        return {"round_trips": done, "seconds": elapsed, "per_second": done / elapsed,
                "cpu_ms_per_op": cpu / done * 1000 if done else float("nan")}
    finally:
        await server.stop(0.5)


def run_gateway_bench(*, matches: int = 64, seconds: float = 10.0, warmup: float = 2.0, players: int = 4,
                      bots: int = 4, decision_deadline_s: float = 5.0, kit: bool = False, rounds: int = 2,
                      out: TextIO = sys.stdout) -> dict[str, Any]:
    """Run the measurements (echo, arena with batches, arena without) ``rounds`` times, interleaved, print the
    figures and return the best of each (other processes on the machine only ever slow a measurement down)."""
    size = typical_request_size(players)
    redis_server = RedisServer().start()
    store = Store.from_url(redis_server.url)
    redis_pids = [redis_server.pid] if redis_server.pid else []
    runs: list[list[dict[str, Any]]] = [[], [], []]
    try:
        for round_no in range(1, max(1, rounds) + 1):
            runs[0].append(asyncio.run(_echo(matches, seconds, warmup, bots, size)))
            runs[1].append(asyncio.run(_arena(matches, seconds, warmup, players, bots, decision_deadline_s, store,
                                              redis_pids, kit)))
            runs[2].append(asyncio.run(_arena(matches, seconds, warmup, players, bots, decision_deadline_s, store,
                                              redis_pids, kit, batches=False)))
            print(f"  round {round_no}: echo {runs[0][-1]['per_second']:7.0f} round trips/s, arena with batches "
                  f"{runs[1][-1]['per_second']:7.0f} decisions/s, without {runs[2][-1]['per_second']:7.0f}",
                  file=out, flush=True)
    finally:
        store.close()
        redis_server.close()
    echo, arena, single = (max(figures, key=lambda f: float(f["per_second"])) for figures in runs)
    for figures in (arena, single):
        figures["ratio"] = figures["per_second"] / echo["per_second"] if echo["per_second"] else float("nan")
        figures["cpu_ratio"] = echo["cpu_ms_per_op"] / figures["cpu_ms_per_op"]
        figures["relay_cpu_ms_per_op"] = figures["cpu_ms_per_op"] * figures["relay_share"]
        without_relay = figures["cpu_ms_per_op"] - figures["relay_cpu_ms_per_op"]
        figures["cpu_ratio_without_relay"] = echo["cpu_ms_per_op"] / without_relay if without_relay else float("nan")
    result = {"matches": matches, "players": players, "bots": bots, "request_bytes": size, "echo": echo,
              "arena": arena, "arena_without_batches": single, "ratio": arena["ratio"],
              "cpu_ratio": arena["cpu_ratio"], "cpus": os.cpu_count()}
    print(f"gateway bench: {matches} concurrent matches, {players} remote random bots per match over {bots} "
          f"streams, loopback, {os.cpu_count()} CPUs; best of {max(1, rounds)} round(s); garbage collector "
          f"thresholds {','.join(map(str, gc.get_threshold()))}:", file=out)
    print(f"  echo  (bare grpc.aio bidi stream, {size}-byte replies): {echo['per_second']:7.0f} round trips/s, "
          f"server CPU {echo['cpu_ms_per_op']:.3f} ms per round trip", file=out)
    for label, figures in (("arena, batches (kit default)", arena), ("arena, no batches", single)):
        print(f"  {label + ':':<46} {figures['per_second']:7.0f} decisions/s, server CPU "
              f"{figures['cpu_ms_per_op']:.3f} ms per decision ({figures['matches']} matches, {figures['decisions']} "
              f"decisions, {figures['timeouts']} timeouts, {figures['refusals']} refusals)", file=out)
        print(f"    of which the relay (both ends and their Redis client, sampled) ~ "
              f"{figures['relay_cpu_ms_per_op']:.3f} ms ({figures['relay_share']:.0%}); and the Redis server's own "
              f"process {figures['redis_cpu_ms_per_op']:.3f} ms per decision", file=out)
        print(f"    / echo: {figures['ratio']:.2f} in throughput, {figures['cpu_ratio']:.2f} in server CPU per "
              f"operation ({figures['cpu_ratio_without_relay']:.2f} without the relay); own overhead per decision "
              f"(runner, engine, encoding, the seat's envelope; not the gateway's, not gRPC's send and receive): p50 "
              f"{figures['overhead_p50_ms']:.3f} ms, p99 {figures['overhead_p99_ms']:.3f} ms, mean "
              f"{figures['overhead_mean_ms']:.3f} ms; wall time per decision outside the bot p50 "
              f"{figures['wall_p50_ms']:.1f} ms, p99 {figures['wall_p99_ms']:.1f} ms", file=out)
        print(f"    server {figures['gc']}", file=out)
    print(f"  arena (kit default) / echo: {arena['ratio']:.2f} in throughput (target >= 0.5, set when the matches "
          f"called the gateway in process: this process now runs both ends of the relay too, which a deployment "
          f"splits between its workers and the gateway), {arena['cpu_ratio_without_relay']:.2f} in server CPU per "
          f"operation without the relay; own overhead p99 {arena['overhead_p99_ms']:.3f} ms (target < 10 ms). The "
          f"wall time outside the bot is mostly waiting in line: the server is saturated, ~ {matches} in flight / "
          f"throughput (Little's law)", file=out)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="client processes of the gateway benchmark")
    sub = parser.add_subparsers(dest="mode", required=True)
    echo = sub.add_parser("echo-client")
    echo.add_argument("target")
    echo.add_argument("streams", type=int)
    echo.add_argument("inflight", type=int)
    echo.add_argument("seconds", type=float)
    echo.add_argument("warmup", type=float)
    bots = sub.add_parser("bots")
    bots.add_argument("target")
    bots.add_argument("tokens", nargs="+")
    bots.add_argument("--kit", action="store_true")
    bots.add_argument("--no-batches", dest="batches", action="store_false")
    args = parser.parse_args(argv)
    configure_gc()  # the client processes run as the arena's own long-running processes do
    if args.mode == "echo-client":
        result = asyncio.run(echo_client(args.target, args.streams, args.inflight, args.seconds, args.warmup))
        print(json.dumps(result), flush=True)
    else:
        asyncio.run(bots_client(args.target, args.tokens, args.kit, args.batches))
    return 0


if __name__ == "__main__":
    sys.exit(main())
