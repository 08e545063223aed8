"""``python -m benchmarks relay``: the Redis relay under many matches on one event loop, as a worker process plays them.

A private Redis, a real gateway in this process (its relay consumer on), ``bots`` remote random bots in a client
process (:func:`benchmarks.gateway.bots_client`: a random legal index straight from each message) and a worker
process (``python -m benchmarks.relay worker``) that keeps ``matches`` matches going at once on one event loop,
every seat a :class:`arena.relay.RelaySeat` reaching the bots through Redis and the gateway, for ``warmup`` +
``seconds``. Decisions/s is counted over the last ``seconds``; the traffic over the whole run, from before the
worker started until the gateway went quiet after it ended (each process works through its backlog at its own
pace: windows cut in two processes would not match), divided by every decision answered in that run:

- the Redis server's commands (``INFO commandstats``) and bytes in and out (``total_net_input_bytes``,
  ``total_net_output_bytes``, Pub/Sub deliveries included), with the commands that make most of them: only the
  relay and the gateway's session heartbeats use this Redis;
- the relay's own commands and bytes, from its counters (``uno_arena_relay_redis_commands_total`` and
  ``uno_arena_relay_redis_bytes_total``) on the worker side and on the gateway side;
- the CPU time of the worker process, of the gateway's process (this one: the bench's own looks at Redis
  included) and of Redis: what a decision costs each, whatever else runs on the machine;
- the most Redis connections open at once (``INFO clients``, looked at every 0.2 s): the worker's, the gateway's,
  the bots' none.

Decisions/s is reported too, but the figures of interest are per decision: the machine's two cores run the gateway,
the bots, the worker and Redis at once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

from prometheus_client import REGISTRY, CollectorRegistry

from arena.engine import Rules
from arena.gc_tuning import configure_gc
from arena.metrics import create_metrics, get_metrics
from arena.relay import RelaySeat
from arena.runner import EndReason, MatchConfig, TimingProbe, run_match
from arena.server.gateway import GatewayConfig, GatewayServer
from arena.store import Store
from arena.store.embedded import RedisServer
from benchmarks.traffic import ServerTraffic, server_traffic

COMMANDS = "uno_arena_relay_redis_commands_total"
BYTES = "uno_arena_relay_redis_bytes_total"
LOOK_EVERY_S = 0.2
STOP_TIMEOUT_S = 30.0
"""How long the worker's matches get to end once cancelled."""


@dataclass
class RelayBenchOptions:
    """What ``python -m benchmarks relay`` runs."""

    matches: int = 32  # at once, on the worker's one event loop
    players: int = 4  # remote seats per match
    bots: int = 4  # bot streams (each plays many matches at once)
    seconds: float = 10.0
    warmup: float = 2.0
    decision_deadline_ms: int = 5000


@dataclass
class RelayFigures:
    """The figures of one run (``--json`` prints them); traffic per decision of the measured window."""

    matches: int = 0
    players: int = 0
    bots: int = 0
    seconds: float = 0.0
    decisions: int = 0
    decisions_per_s: float = 0.0
    answered: int = 0  # every decision answered in the whole run (what the traffic is divided by)
    timeouts: int = 0
    aborted: int = 0
    redis_commands: float = math.nan
    redis_bytes_in: float = math.nan
    redis_bytes_out: float = math.nan
    redis_top: list[str] = field(default_factory=list)
    worker_commands: float = math.nan
    worker_bytes_sent: float = math.nan
    worker_bytes_received: float = math.nan
    gateway_commands: float = math.nan
    gateway_bytes_sent: float = math.nan
    gateway_bytes_received: float = math.nan
    worker_cpu_ms: float = math.nan
    gateway_cpu_ms: float = math.nan
    redis_cpu_ms: float = math.nan
    peak_connections: int = 0


def relay_counts(registry: CollectorRegistry, side: str) -> tuple[float, float, float]:
    """(commands, bytes sent, bytes received) of the relay on ``side`` so far (0 for a relay without counters)."""
    def value(name: str, labels: dict[str, str]) -> float:
        return registry.get_sample_value(name, {"side": side, **labels}) or 0.0

    return (value(COMMANDS, {}), value(BYTES, {"direction": "sent"}), value(BYTES, {"direction": "received"}))


# -- the worker process ------------------------------------------------------------------------------------------


class CountingProbe(TimingProbe):
    """A :class:`TimingProbe` that also counts every answered decision, open or not."""

    def __init__(self) -> None:
        super().__init__(open=False)
        self.total = 0

    def record(self, own: float, wall: float) -> None:
        self.total += 1
        super().record(own, wall)


async def worker(url: str, names: Sequence[str], options: RelayBenchOptions, window: CountingProbe) -> dict[str, Any]:
    """Keep ``options.matches`` matches going on this loop for the warm-up and the measured time; its figures
    (``window`` counts the decisions: those of matches that end only after this returns as well)."""
    store = Store.from_url(url)
    totals = {"timeouts": 0, "aborted": 0}
    serial = 0
    stopping = False
    run = uuid.uuid4().hex[:6]

    async def play(slot: int) -> None:
        nonlocal serial
        while not stopping:
            serial += 1
            seats = [RelaySeat(store, names[(slot + i) % len(names)]) for i in range(options.players)]
            config = MatchConfig(f"relay-{run}-{serial}", serial, Rules(),
                                 decision_deadline_s=options.decision_deadline_ms / 1000)
            record = await run_match(config, seats, probe=window)
            if window.open:
                totals["timeouts"] += sum(record.timeouts)
                totals["aborted"] += record.end_reason is EndReason.ABORTED

    get_metrics()  # the relay's counters exist from the start
    tasks = [asyncio.create_task(play(slot)) for slot in range(options.matches)]
    try:
        await asyncio.sleep(options.warmup)
        window.open = True
        start = time.perf_counter()
        await asyncio.sleep(options.seconds)
        window.open = False
        elapsed = time.perf_counter() - start
    finally:
        stopping = True
        for task in tasks:
            task.cancel()
        _done, left = await asyncio.wait(tasks, timeout=STOP_TIMEOUT_S)
        if left:
            print(f"warning: {len(left)} matches did not end within {STOP_TIMEOUT_S:g} s of their cancellation",
                  file=sys.stderr, flush=True)
        store.close()
    return {"decisions": len(window.samples), "seconds": elapsed, **totals}


# -- the run ------------------------------------------------------------------------------------------------------


async def _run(options: RelayBenchOptions, store: Store, url: str) -> RelayFigures:
    registry = CollectorRegistry()
    server = GatewayServer(store, GatewayConfig(address="127.0.0.1:0", max_concurrent_matches=1024,
                                                max_outgoing=100_000), metrics=create_metrics(registry))
    await server.start()
    tag = uuid.uuid4().hex[:6]
    names = [f"relay-{tag}-{i}" for i in range(options.bots)]
    tokens = [store.bots.register(name)[1] for name in names]
    bots = subprocess.Popen([sys.executable, "-m", "benchmarks.gateway", "bots", f"127.0.0.1:{server.port}",
                             *tokens], stdin=subprocess.PIPE)
    process: asyncio.subprocess.Process | None = None
    try:
        for name in names:
            await server.gateway.registry.wait_for_bot(name, 30)
        before, gateway0 = await asyncio.to_thread(server_traffic, store.redis), relay_counts(registry, "gateway")
        cpu = time.process_time()
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.relay", "worker", url, ",".join(names), json.dumps(asdict(options)),
            stdout=asyncio.subprocess.PIPE)
        assert process.stdout is not None
        reading = asyncio.ensure_future(process.stdout.readline())
        peak = 0
        while not reading.done():
            clients = await asyncio.to_thread(store.redis.info, "clients")
            peak = max(peak, int(clients.get("connected_clients", 0)))
            await asyncio.wait([reading], timeout=LOOK_EVERY_S)
        await process.wait()
        if process.returncode != 0 or not reading.result():
            raise RuntimeError(f"the worker process ended ({process.returncode}) without its figures")
        closed = json.loads(reading.result())
        gateway1 = await _quiet(registry)
        after = await asyncio.to_thread(server_traffic, store.redis)
        closed["gateway_cpu_s"] = time.process_time() - cpu
    finally:
        if process is not None and process.returncode is None:
            process.kill()
            await process.wait()
        if bots.stdin:
            bots.stdin.close()
        try:
            bots.wait(timeout=10)
        except subprocess.TimeoutExpired:
            bots.kill()
        await server.stop(0.5)
    gateway = [b - a for a, b in zip(gateway0, gateway1, strict=True)]
    return figures(options, closed, after.since(before), gateway, peak)


async def _quiet(registry: CollectorRegistry, quiet_s: float = 0.5) -> tuple[float, float, float]:
    """The gateway's relay counters once they did not move for ``quiet_s`` (its backlog worked through)."""
    counts = relay_counts(registry, "gateway")
    while True:
        await asyncio.sleep(quiet_s)
        now = relay_counts(registry, "gateway")
        if now == counts:
            return now
        counts = now


def figures(options: RelayBenchOptions, closed: dict[str, Any], traffic: ServerTraffic, gateway: Sequence[float],
            peak: int) -> RelayFigures:
    """The report of one run: the worker's figures, the server's traffic and the gateway's counters."""
    decisions, answered = int(closed["decisions"]), int(closed["all_decisions"])
    result = RelayFigures(matches=options.matches, players=options.players, bots=options.bots,
                          seconds=float(closed["seconds"]), decisions=decisions, timeouts=int(closed["timeouts"]),
                          aborted=int(closed["aborted"]), peak_connections=peak)
    result.decisions_per_s = decisions / result.seconds if result.seconds else 0.0
    if not answered:
        return result
    busiest = sorted(traffic.calls.items(), key=lambda item: (-item[1], item[0]))[:6]
    worker = closed["worker"]
    result.answered = answered
    result.redis_commands = traffic.commands / answered
    result.redis_bytes_in = traffic.net_input_bytes / answered
    result.redis_bytes_out = traffic.net_output_bytes / answered
    result.redis_top = [f"{name} {count / answered:.2f}" for name, count in busiest]
    result.worker_cpu_ms = float(closed["cpu_s"]) * 1000 / answered
    result.gateway_cpu_ms = float(closed["gateway_cpu_s"]) * 1000 / answered
    result.redis_cpu_ms = traffic.cpu_s * 1000 / answered
    result.worker_commands, result.worker_bytes_sent, result.worker_bytes_received = (v / answered for v in worker)
    result.gateway_commands, result.gateway_bytes_sent, result.gateway_bytes_received = (
        v / answered for v in gateway)
    return result


def run_relay_bench(options: RelayBenchOptions, out: TextIO = sys.stdout) -> RelayFigures:
    """Run the benchmark on a private Redis, print the figures to ``out`` and return them."""
    if options.matches < 1 or options.players < 2 or options.bots < 1 or options.seconds <= 0:
        raise ValueError("--matches and --bots must be at least 1, --players at least 2, --seconds above 0")
    redis_server = RedisServer().start()
    store = Store.from_url(redis_server.url)
    try:
        result = asyncio.run(_run(options, store, redis_server.url))
    finally:
        store.close()
        redis_server.close()
    print_figures(result, out)
    return result


def print_figures(f: RelayFigures, out: TextIO) -> None:
    print(f"relay bench: {f.matches} matches at once on one worker event loop, {f.players} remote random bots "
          f"per match over {f.bots} streams, {f.seconds:.1f} s measured:", file=out)
    print(f"  {f.decisions_per_s:,.0f} decisions/s ({f.decisions:,} decisions, {f.timeouts} timeouts, {f.aborted} "
          f"aborted matches); at most {f.peak_connections} Redis connections open", file=out)
    print(f"  traffic over the whole run ({f.answered:,} decisions answered), per decision:", file=out)
    print(f"  Redis: {f.redis_commands:.2f} commands ({', '.join(f.redis_top)}), "
          f"{f.redis_bytes_in:,.0f} bytes in, {f.redis_bytes_out:,.0f} bytes out", file=out)
    print(f"  CPU ms: worker {f.worker_cpu_ms:.3f}, gateway {f.gateway_cpu_ms:.3f}, Redis {f.redis_cpu_ms:.3f}",
          file=out)
    print(f"  relay counters: worker {f.worker_commands:.2f} commands, {f.worker_bytes_sent:,.0f} "
          f"bytes sent, {f.worker_bytes_received:,.0f} received; gateway {f.gateway_commands:.2f} commands, "
          f"{f.gateway_bytes_sent:,.0f} bytes sent, {f.gateway_bytes_received:,.0f} received", file=out, flush=True)


def figures_json(result: RelayFigures) -> str:
    return json.dumps({key: None if isinstance(value, float) and math.isnan(value) else value
                       for key, value in asdict(result).items()})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the worker process of the relay benchmark")
    sub = parser.add_subparsers(dest="mode", required=True)
    play = sub.add_parser("worker")
    play.add_argument("redis_url")
    play.add_argument("names", help="the bots, comma-separated")
    play.add_argument("options", help="RelayBenchOptions as JSON")
    args = parser.parse_args(argv)
    configure_gc()  # as a worker's long-running process
    options = RelayBenchOptions(**json.loads(args.options))
    probe, cpu = CountingProbe(), time.process_time()
    result = asyncio.run(worker(args.redis_url, args.names.split(","), options, probe))
    # The whole run's, once the loop closed (its hub too, and what ignored its cancellation ended).
    result.update(all_decisions=probe.total, cpu_s=time.process_time() - cpu, worker=relay_counts(REGISTRY, "worker"))
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
