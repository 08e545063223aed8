"""``python -m benchmarks abuse``: a well-behaved bot's decisions per second and p99 latency, without and with each
attack on the same gateway, in one run.

The gateway (auth, Hello, sessions in a private Redis, every limit at its default: the token bucket on each
stream's messages, the per-token limit on new streams, the flood limit, Pong nonces) runs in this process. A
well-behaved bot (the Python kit, answering at random from the message) plays ``matches`` matches at once
against an opponent that thinks ``think_ms`` per move, so its load is steady and well below what the gateway
can do: an attack shows as fewer decisions per second or a higher p99, measured on the arena's side (from the
request sent to the answer read, by the match runner). For each attack: ``seconds`` without it, then the attack
starts, ``warmup`` seconds pass, and ``seconds`` with it (the figures without are taken just before, so drift
of the machine does not count as the attack's). All of it ``rounds`` times, interleaved; the best figure of each
side is kept (other load on the machine only ever slows one down), timeouts are summed.

The attacks, each from its own process with its own registered token, at full speed:

- ``pong-flood``: one stream sends batches of 10,000 Pongs back to back (the stream is closed, it reconnects);
- ``reconnect-storm``: 16 concurrent loops open a stream with the same token, say Hello, and drop it;
- ``garbage``: messages of random bytes on a stream after Hello (it reconnects when closed);
- ``tcp-garbage``: raw TCP connections writing random bytes to the port, one after the other;
- ``no-read``: a bot that says Hello and never reads its stream, while ``matches`` matches ask it decisions.

The attackers run at ``nice 10``: on a small machine they would otherwise take the CPU of the well-behaved bot's
own process (a real attacker is on another machine); the gateway's process is not favoured.

The client processes are started with this module (``python -m benchmarks.abuse good|attack ...``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import random
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import grpc
import grpc.aio

from arena.engine import Rules
from arena.metrics import create_metrics
from arena.protocol import AUTH_METADATA_KEY, AUTH_SCHEME, PROTOCOL_VERSION, bot_pb2
from arena.relay import RelaySeat
from arena.runner import MatchConfig, Seat, SeatRequest, SeatTimeout, run_match
from arena.server.gateway import GatewayConfig, GatewayServer
from arena.store import Store
from arena.store.embedded import RedisServer
from benchmarks.procfs import machine_busy, tree_cpu

CONNECT = "/uno_arena.v1.BotService/Connect"
ATTACKS = ("pong-flood", "reconnect-storm", "garbage", "tcp-garbage", "no-read")
TITLES = {"pong-flood": "batches of 10,000 Pongs", "reconnect-storm": "reconnect storm (one token)",
          "garbage": "garbage messages", "tcp-garbage": "garbage bytes (raw TCP)",
          "no-read": "a bot that stops reading"}


# ------------------------------------------------------------------------------------------------
# The arena side
# ------------------------------------------------------------------------------------------------


@dataclass
class Samples:
    """One ``(t_end, latency_s, timed_out)`` per decision of the well-behaved bot."""

    items: list[tuple[float, float, bool]] = field(default_factory=list)

    def window(self, start: float, end: float) -> dict[str, Any]:
        chosen = [(lat, out) for t, lat, out in self.items if start <= t < end]
        latencies = sorted(lat for lat, _ in chosen)
        elapsed = end - start
        return {
            "decisions": len(chosen),
            "per_second": len(chosen) / elapsed if elapsed > 0 else 0.0,
            "p50_ms": _percentile(latencies, 0.50) * 1000,
            "p99_ms": _percentile(latencies, 0.99) * 1000,
            "timeouts": sum(1 for _, out in chosen if out),
        }


def _percentile(ordered: Sequence[float], q: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def timed_decision(samples: Samples, decision: Awaitable[int]) -> int:
    """Await a seat's decision, its latency as the runner sees it (and whether it timed out) kept in ``samples``."""
    t0 = time.perf_counter()
    timed_out = False
    try:
        return await decision
    except SeatTimeout:
        timed_out = True
        raise
    finally:
        now = time.perf_counter()
        samples.items.append((now, now - t0, timed_out))


class _TimedSeat(RelaySeat):
    """The well-behaved bot's seat: every decision's latency as the runner sees it."""

    def __init__(self, store: Store, name: str, samples: Samples) -> None:
        super().__init__(store, name)
        self.samples = samples

    async def decide(self, request: SeatRequest) -> int:
        return await timed_decision(self.samples, super().decide(request))


class Thinker(Seat):
    """The opponent: a random legal action after ``think_s`` (paces the matches)."""

    def __init__(self, think_s: float, seed: int) -> None:
        self.name = "thinker"
        self.version = "bench"
        self.think_s = think_s
        self.rng = random.Random(seed)

    async def decide(self, request: SeatRequest) -> int:
        await asyncio.sleep(self.think_s)
        return self.rng.randrange(len(request.legal))


class MatchLoop:
    """Matches of one bot's seat against a :class:`Thinker`, one after the other, each with a serial of its own."""

    def __init__(self, think_ms: float) -> None:
        self.run = uuid.uuid4().hex[:6]
        self.think_ms = think_ms
        self.serial = 0
        self.metrics = create_metrics(None)

    async def play(self, seat: Callable[[], Seat], deadline_s: float, stop: asyncio.Event) -> None:
        """Until ``stop``: a match of a new ``seat()`` against the thinker, then the next."""
        while not stop.is_set():
            self.serial += 1
            config = MatchConfig(f"abuse-{self.run}-{self.serial}", self.serial, Rules(target=200),
                                 decision_deadline_s=deadline_s, max_strikes=1_000_000)
            await run_match(config, [seat(), Thinker(self.think_ms / 1000.0, self.serial)], metrics=self.metrics)


async def measure(samples: Samples, seconds: float, cpu_seconds: Callable[[], float]) -> dict[str, Any]:
    """The well-behaved bot's figures over the next ``seconds``, with the gateway's CPU share (``cpu_seconds``: the
    CPU time its process used so far), the machine's busy cores, and how many of them were busy with work that is not
    the benchmark's (processes that are not this one or below it: the machine's neighbours)."""
    t0, cpu0, busy0, ours0 = time.perf_counter(), cpu_seconds(), machine_busy(), tree_cpu(os.getpid())
    await asyncio.sleep(seconds)
    figures = samples.window(t0, time.perf_counter())
    elapsed = time.perf_counter() - t0
    figures["gateway_cpu"] = (cpu_seconds() - cpu0) / elapsed
    figures["machine_cores"] = (machine_busy() - busy0) / elapsed
    figures["other_cores"] = max(0.0, figures["machine_cores"] - (tree_cpu(os.getpid()) - ours0) / elapsed)
    return figures


def keep_best(results: dict[str, Any], attack: str, without: dict[str, Any], with_attack: dict[str, Any],
              attacker: dict[str, Any]) -> None:
    """Add one round of ``attack`` to ``results``: the best of the rounds, each side on its own (other load on the
    machine only ever slows one down); timeouts and decisions summed."""
    kept = results["attacks"].get(attack)
    if kept is None:
        results["attacks"][attack] = {"without": without, "with": with_attack, "attacker": attacker,
                                      "rounds": [[without, with_attack]]}
        return
    kept["rounds"].append([without, with_attack])
    for side, new in (("without", without), ("with", with_attack)):
        best = kept[side]
        best["per_second"] = max(best["per_second"], new["per_second"])
        best["p99_ms"] = min(best["p99_ms"], new["p99_ms"])
        best["p50_ms"] = min(best["p50_ms"], new["p50_ms"])
        best["timeouts"] += new["timeouts"]
        best["gateway_cpu"] = min(best["gateway_cpu"], new["gateway_cpu"])
        best["machine_cores"] = min(best["machine_cores"], new["machine_cores"])
        best["other_cores"] = min(best["other_cores"], new["other_cores"])
        best["decisions"] += new["decisions"]


def _child(args: Sequence[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "benchmarks.abuse", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)


async def _abuse(store: Store, attacks: Sequence[str], seconds: float, warmup: float, matches: int,
                 think_ms: float, decision_deadline_s: float, rounds: int) -> dict[str, Any]:
    server = GatewayServer(store, GatewayConfig(address="127.0.0.1:0"), metrics=create_metrics(None))
    await server.start()
    gateway = server.gateway
    target = f"127.0.0.1:{server.port}"
    games = MatchLoop(think_ms)
    good = f"good-{games.run}"
    good_token = store.bots.register(good)[1]
    good_child = _child(["good", target, good_token])
    samples = Samples()
    loops: list[asyncio.Task[None]] = []
    results: dict[str, Any] = {"attacks": {}}
    try:
        await gateway.registry.wait_for_bot(good, 30)
        forever = asyncio.Event()
        loops = [asyncio.create_task(games.play(lambda: _TimedSeat(store, good, samples), decision_deadline_s,
                                                forever)) for _ in range(matches)]
        await asyncio.sleep(warmup)
        for attack, round_no in [(a, r) for r in range(rounds) for a in attacks]:
            without = await measure(samples, seconds, time.process_time)
            name = f"{attack}-{games.run}-{round_no}"
            token = store.bots.register(name)[1]
            child = _child(["attack", attack, target, token, "--seconds", str(warmup + seconds + 1.0), "--nice", "10"])
            extra_stop = asyncio.Event()
            extra: list[asyncio.Task[None]] = []
            if attack == "no-read":
                await gateway.registry.wait_for_bot(name, 30)
                extra = [asyncio.create_task(games.play(functools.partial(RelaySeat, store, name), 0.5,
                                                        extra_stop)) for _ in range(matches)]
            await asyncio.sleep(warmup)
            with_attack = await measure(samples, seconds, time.process_time)
            extra_stop.set()
            for task in extra:
                task.cancel()
            await asyncio.gather(*extra, return_exceptions=True)
            out, _ = await asyncio.to_thread(child.communicate, None, 30)
            lines = out.decode().strip().splitlines()
            keep_best(results, attack, without, with_attack, json.loads(lines[-1]) if lines else {})
        for task in loops:
            task.cancel()
        await asyncio.gather(*loops, return_exceptions=True)
    finally:
        for task in loops:
            task.cancel()
        if good_child.stdin:
            good_child.stdin.close()
        try:
            await asyncio.to_thread(good_child.wait, 10)
        except subprocess.TimeoutExpired:
            good_child.kill()
        await server.stop(0.5)
    return results


def run_abuse_bench(*, attacks: Sequence[str] = ATTACKS, seconds: float = 5.0, warmup: float = 1.0,
                    matches: int = 8, think_ms: float = 10.0, decision_deadline_s: float = 2.0, rounds: int = 2,
                    out: TextIO | None = None) -> dict[str, Any]:
    """Run the benchmark (a private Redis, a gateway in this process) and print its table; returns the figures."""
    out = out if out is not None else sys.stdout
    redis = RedisServer()
    redis.start()
    store = Store.from_url(redis.url)
    try:
        results = asyncio.run(_abuse(store, attacks, seconds, warmup, matches, think_ms, decision_deadline_s, max(1,
                                                                                                                  rounds)))
    finally:
        store.close()
        redis.close()
    results["settings"] = {"seconds": seconds, "warmup": warmup, "matches": matches, "think_ms": think_ms,
                           "deadline_s": decision_deadline_s, "rounds": rounds, "cpus": os.cpu_count()}
    print(table(results), file=out, flush=True)
    return results


MIN_RATIO = 0.8
"""The well-behaved bot keeps at least this share of its decisions/s beside any attack (PASS, else FAIL)."""


def table(results: dict[str, Any], titles: Mapping[str, str] = TITLES, attacker: str = "attacker",
          heading: str = "") -> str:
    """The figures as a table: one row per attack, ``attacker`` the last column's name (what the attacker said, or
    what the arena recorded of it); ``heading`` replaces the first line's description of the well-behaved bot.
    ``busy cores``: the whole machine's, alone and beside the attack; ``others``: those of them busy with work that is
    not the benchmark's (the machine's neighbours: a row they crowded is not the attack's doing)."""
    s = results.get("settings", {})
    lines = [
        heading or f"well-behaved bot: {s.get('matches')} matches at once against an opponent thinking "
        f"{s.get('think_ms')} ms; {s.get('seconds')} s measured without, then with each attack, {s.get('rounds')} "
        f"rounds interleaved, the best of each side kept; timeouts summed ({s.get('cpus')} CPUs)",
        f"{'attack':<28} {'decisions/s':>11} {'with':>8} {'ratio':>6}   {'p99 ms':>7} {'with':>7} {'ratio':>6}"
        f"  {'timeouts':>8}  {'gateway CPU':>11}  {'busy cores':>10}  {'others':>9}  {f'>={MIN_RATIO}':>6}  "
        f"{attacker}",
    ]
    for attack, figures in results["attacks"].items():
        without, with_attack = figures["without"], figures["with"]
        rate = with_attack["per_second"] / without["per_second"] if without["per_second"] else float("nan")
        p99 = with_attack["p99_ms"] / without["p99_ms"] if without["p99_ms"] else float("nan")
        said = ", ".join(f"{k} {v}" for k, v in figures["attacker"].items())
        lines.append(f"{titles.get(attack, attack):<28} {without['per_second']:>11.0f} "
                     f"{with_attack['per_second']:>8.0f} {rate:>6.2f}   {without['p99_ms']:>7.1f} "
                     f"{with_attack['p99_ms']:>7.1f} {p99:>6.2f}"
                     f"  {with_attack['timeouts']:>8}  {without['gateway_cpu']:>4.0%} "
                     f"{with_attack['gateway_cpu']:>5.0%}  {_cores(without, 'machine_cores'):>4} "
                     f"{_cores(with_attack, 'machine_cores'):>5}  {_cores(without, 'other_cores'):>3} "
                     f"{_cores(with_attack, 'other_cores'):>5}  {'PASS' if rate >= MIN_RATIO else 'FAIL':>6}  {said}")
    lines.append(f"target: decisions/s ratio >= {MIN_RATIO} and p99 ratio < 2 for every attack")
    return "\n".join(lines)


def _cores(side: Mapping[str, Any], key: str) -> str:
    """A figure of cores (``machine_cores``, ``other_cores``) of one side, '-' for figures taken without it."""
    return f"{side[key]:.1f}" if key in side else "-"


# ------------------------------------------------------------------------------------------------
# The client processes
# ------------------------------------------------------------------------------------------------


async def _good(target: str, token: str) -> None:
    """The well-behaved bot (the Python kit, a random index from the message) until stdin closes."""
    import logging

    from bots import RandomBot
    from bots.kit import BotClient, bot_factory

    logging.getLogger("uno_arena.kit").setLevel(logging.ERROR)
    rng = random.Random(1)
    client = BotClient(target, token, bot_factory(RandomBot), bot_version="bench-good", max_concurrent_matches=64,
                       raw=lambda request: rng.randrange(len(request.legal_actions)))
    stop = asyncio.Event()
    task = asyncio.create_task(client.run(stop))
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    stop.set()
    await asyncio.gather(task, return_exceptions=True)


def _hello(capacity: int = 64) -> bytes:
    return bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=PROTOCOL_VERSION,  # type: ignore[arg-type]
                                                  bot_version="attacker", max_concurrent_matches=capacity)
                              ).SerializeToString()


def _open(channel: grpc.aio.Channel, token: str) -> Any:
    method = channel.stream_stream(CONNECT, request_serializer=lambda b: b, response_deserializer=lambda b: b)
    return method(metadata=((AUTH_METADATA_KEY, f"{AUTH_SCHEME} {token}"),))


async def _drain(call: Any) -> None:
    with contextlib.suppress(Exception):
        while await call.read() is not grpc.aio.EOF:
            pass


async def _streamer(target: str, token: str, stop_at: float, stats: dict[str, int], payloads: Any,
                    key: str) -> None:
    """Stream after stream (reconnecting as soon as one ends): Hello, then ``payloads()`` back to back."""
    async with grpc.aio.insecure_channel(target, options=[("grpc.max_send_message_length", 1 << 20)]) as channel:
        while time.monotonic() < stop_at:
            stats["streams"] = stats.get("streams", 0) + 1
            call = _open(channel, token)
            reader = asyncio.create_task(_drain(call))
            with contextlib.suppress(Exception):
                await call.write(_hello())
                while not reader.done() and time.monotonic() < stop_at:
                    await call.write(payloads())
                    stats[key] = stats.get(key, 0) + 1
            call.cancel()
            await asyncio.gather(reader, return_exceptions=True)
            await asyncio.sleep(0.01)


async def _pong_flood(target: str, token: str, stop_at: float, stats: dict[str, int]) -> None:
    batch = bot_pb2.BotMessage(batch=bot_pb2.BotBatch(
        messages=[bot_pb2.BotMessage(pong=bot_pb2.Pong(nonce=1))] * 10_000)).SerializeToString()
    await _streamer(target, token, stop_at, stats, lambda: batch, "batches")


async def _storm(target: str, token: str, stop_at: float, stats: dict[str, int]) -> None:
    hello = _hello()

    async def loop(channel: grpc.aio.Channel) -> None:
        while time.monotonic() < stop_at:
            call = _open(channel, token)
            with contextlib.suppress(Exception):
                await call.write(hello)
                await call.read()
            code = await call.code() if call.done() else None
            call.cancel()
            stats["streams"] = stats.get("streams", 0) + 1
            if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                stats["refused"] = stats.get("refused", 0) + 1

    async with grpc.aio.insecure_channel(target) as channel:
        await asyncio.gather(*(loop(channel) for _ in range(16)))


def _junk(rng: random.Random) -> bytes:
    return rng.randbytes(rng.randrange(1, 2000))


async def _garbage(target: str, token: str, stop_at: float, stats: dict[str, int]) -> None:
    rng = random.Random(7)
    await _streamer(target, token, stop_at, stats, lambda: _junk(rng), "messages")


async def _tcp_garbage(target: str, token: str, stop_at: float, stats: dict[str, int]) -> None:
    rng = random.Random(8)
    host, port = target.rsplit(":", 1)
    while time.monotonic() < stop_at:
        with contextlib.suppress(Exception):
            _reader, writer = await asyncio.open_connection(host, int(port))
            for _ in range(16):
                writer.write(_junk(rng))
            await writer.drain()
            writer.close()
            await writer.wait_closed()
        stats["connections"] = stats.get("connections", 0) + 1
        await asyncio.sleep(0.001)


async def _no_read(target: str, token: str, stop_at: float, stats: dict[str, int]) -> None:
    async with grpc.aio.insecure_channel(target) as channel:
        while time.monotonic() < stop_at:
            stats["streams"] = stats.get("streams", 0) + 1
            call = _open(channel, token)
            with contextlib.suppress(Exception):
                await call.write(_hello())
                async with asyncio.timeout(max(0.1, stop_at - time.monotonic())):
                    await call.code()  # never reads: waits until the arena ends the stream
            call.cancel()


async def _attack(kind: str, target: str, token: str, seconds: float) -> dict[str, int]:
    stats: dict[str, int] = {}
    stop_at = time.monotonic() + seconds
    body = {"pong-flood": _pong_flood, "reconnect-storm": _storm, "garbage": _garbage, "tcp-garbage": _tcp_garbage,
            "no-read": _no_read}[kind]
    with contextlib.suppress(Exception):
        await body(target, token, stop_at, stats)
    return stats


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="client processes of the abuse benchmark")
    sub = parser.add_subparsers(dest="mode", required=True)
    good = sub.add_parser("good")
    good.add_argument("target")
    good.add_argument("token")
    attack = sub.add_parser("attack")
    attack.add_argument("kind", choices=ATTACKS)
    attack.add_argument("target")
    attack.add_argument("token")
    attack.add_argument("--seconds", type=float, default=10.0)
    attack.add_argument("--nice", type=int, default=0, help="lower this process's priority by this much")
    args = parser.parse_args(argv)
    if args.mode == "good":
        asyncio.run(_good(args.target, args.token))
    else:
        import logging

        logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # writes to connections the arena closed
        if args.nice:
            os.nice(args.nice)
        stats = asyncio.run(_attack(args.kind, args.target, args.token, args.seconds))
        print(json.dumps(stats), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
