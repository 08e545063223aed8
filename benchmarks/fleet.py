"""Remote bots in swarm processes against a local arena, for the benchmarks that play through the whole arena
(`bench load`, `bench remote`): the bots registered and started (:mod:`benchmarks.swarm`, many streams a
process), waited for until every one is connected and the worker's pool is up, one tournament among them played
with its progress printed, its stored results read back through the organizer API (ExportResults), the swarms
stopped, and the roles of the arena's processes for the memory and CPU figures.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from arena.processes import stop_process_groups, wait_until
from arena.protocol import arena_pb2
from arena.protocol.statuses import tournament_status
from arena.store import StoredResult
from arena.tournament.status import TournamentStatus
from benchmarks.procfs import child_pids, command_name
from benchmarks.swarm import SwarmStats, write_tokens

if TYPE_CHECKING:
    from arena.client import ArenaClient
    from arena.local_arena import LocalArena

EXPORT_TIMEOUT_S = 300.0
SWARM_STOP_GRACE_S = 20.0
BOTS_PER_SWARM = 50
"""Bots a swarm process holds by default (:func:`swarm_processes`)."""


@dataclass(frozen=True)
class SwarmSettings:
    """How the swarm processes run their bots (the options of :mod:`benchmarks.swarm`)."""

    brain: str = "heuristic"
    processes: int = 2
    ramp_s: float = 0.0
    max_concurrent: int = 16  # each bot's Hello.max_concurrent_matches
    think_ms: float = 0.0


@dataclass
class Fleet:
    """The swarm processes of a run: the processes, where each writes its figures, and their roles by pid."""

    processes: list[subprocess.Popen[bytes]]
    stats_files: list[Path]
    roles: list[tuple[str, int]]

    def stop(self) -> None:
        """SIGTERM to each swarm (its own process group): its bots close their streams and it writes its figures."""
        stop_process_groups(self.processes, SWARM_STOP_GRACE_S)

    def stats(self) -> list[SwarmStats | Path]:
        """Each swarm's figures, or the path of the file a swarm did not leave."""
        return [SwarmStats.read(path) or path for path in self.stats_files]


@dataclass(frozen=True)
class TournamentRun:
    """What watching a tournament to its end gave."""

    tournament_id: str
    matches_total: int
    matches_failed: int
    state: TournamentStatus | None
    """None: a state this client does not know."""
    elapsed_s: float
    """From the creation call to the last update (the state that ended it, or the time given up)."""


def swarm_processes(bots: int, requested: int = 0) -> int:
    """Swarm processes for ``bots`` bots: ``requested``, or one per :data:`BOTS_PER_SWARM` bots, 2 to 8; never more
    processes than bots."""
    processes = requested or min(8, max(2, math.ceil(bots / BOTS_PER_SWARM)))
    return min(processes, bots)


def start_fleet(arena: LocalArena, names: Sequence[str], settings: SwarmSettings) -> Fleet:
    """Register ``names`` and start the swarm processes that connect them (round-robin shares)."""
    tokens = [(name, arena.register(name)) for name in names]
    processes: list[subprocess.Popen[bytes]] = []
    stats_files: list[Path] = []
    count = settings.processes
    for index in range(count):
        tokens_file = arena.work_dir / f"swarm-{index}.tokens"
        write_tokens(tokens_file, tokens[index::count])
        stats_file = arena.work_dir / f"swarm-{index}.json"
        stats_files.append(stats_file)
        argv = [sys.executable, "-m", "benchmarks.swarm", "--target", arena.address, "--tokens-file",
                str(tokens_file), "--brain", settings.brain, "--stats-file", str(stats_file),
                "--ramp-s", str(settings.ramp_s), "--max-concurrent", str(settings.max_concurrent),
                "--think-ms", f"{settings.think_ms:g}"]
        processes.append(arena.processes.start(f"swarm-{index}", argv, arena.env))
    roles = [(f"swarm {i + 1} ({len(tokens[i::count])} bots)", p.pid) for i, p in enumerate(processes)]
    return Fleet(processes, stats_files, roles)


def scrape(port: int) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Samples of a /metrics endpoint on loopback: name -> [(labels, value)]."""
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
        text = reply.read().decode("utf-8")
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, []).append((dict(sample.labels), float(sample.value)))
    return out


def worker_pids(arena: LocalArena) -> list[int]:
    """The worker's main process, then its pool's children."""
    mains = [process.pid for name, process in arena.processes.children if name == "worker"]
    return [pid for main in mains for pid in (main, *child_pids(main))]


def _worker_ready(arena: LocalArena, workers: int) -> bool:
    """The worker serves its metrics and has forked its pool (so the clock does not time its start)."""
    scrape(arena.worker_metrics_port)
    return len(worker_pids(arena)) > workers


def wait_for_fleet(arena: LocalArena, names: Sequence[str], workers: int, timeout_s: float) -> None:
    """Until every bot of ``names`` is connected and the worker's ``workers`` children are up (RuntimeError past
    ``timeout_s`` each, or when a process of the arena died)."""
    wanted = set(names)
    wait_until(lambda: arena.connected() >= wanted, f"{len(wanted)} bots to connect",
               arena.processes, timeout_s)
    wait_until(lambda: _worker_ready(arena, workers), "the worker's processes", arena.processes, timeout_s)


def arena_processes(arena: LocalArena, swarms: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """(role, pid) of every process of the arena and of the swarms."""
    roles: list[tuple[str, int]] = []
    if arena.embedded_redis:
        roles.extend(("redis", pid) for pid in child_pids(os.getpid()) if command_name(pid).startswith("redis-server"))
    for name, process in arena.processes.children:
        if name == "gateway":
            roles.append(("gateway", process.pid))
        elif name == "worker":
            roles.append(("worker (main)", process.pid))
            roles.extend((f"worker child {number}", child) for number, child in enumerate(child_pids(process.pid), 1))
    roles.extend(swarms)
    return roles


def tournament_spec(name: str, participants: Sequence[str], *, seats: int, deals: int, variant: str,
                    target_score: int, seed: int, decision_deadline_ms: int) -> arena_pb2.TournamentSpec:
    """The round robin of ``participants`` at tables of ``seats``, ``deals`` deals (matches) a table, no duplicate
    deals, under the default rules of ``variant`` to ``target_score``."""
    from arena.engine import Rules, Variant
    from arena.protocol.convert import rules_to_proto

    return arena_pb2.TournamentSpec(
        name=name, participants=list(participants),
        rules=rules_to_proto(Rules(variant=Variant(variant), target=target_score)),
        seats_per_table=seats, deals_per_table=deals, duplicate_deals=False, seed=seed,
        decision_deadline_ms=decision_deadline_ms)


def play_tournament(client: ArenaClient, spec: arena_pb2.TournamentSpec, about: str, timeout_s: float,
                    out: TextIO) -> TournamentRun:
    """Create the tournament and follow it to its end (or ``timeout_s``), printing a line when it is created
    (``about`` describes it) and about ten progress lines."""
    import grpc

    from arena.commands.tables import progress_line

    started = time.monotonic()
    last = client.create_tournament(spec).tournament
    print(f"tournament   {last.tournament_id}: {about}: {last.matches_total} matches", file=out, flush=True)
    step = max(1, last.matches_total // 10)
    shown = 0
    try:
        for update in client.watch_tournament(last.tournament_id, timeout=timeout_s):
            last = update.tournament
            if last.matches_done - shown >= step or last.state != arena_pb2.TOURNAMENT_STATE_RUNNING:
                if last.matches_done != shown:
                    print(f"  {progress_line(last)}  {time.monotonic() - started:6.1f} s", file=out, flush=True)
                shown = last.matches_done
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
        print(f"  gave up after {timeout_s:.0f} s", file=out, flush=True)
    return TournamentRun(last.tournament_id, last.matches_total, last.matches_failed, tournament_status(last.state),
                         time.monotonic() - started)


def exported_results(client: ArenaClient, tournament_id: str) -> list[StoredResult]:
    """Every recorded match of the tournament, as ExportResults (JSON) gives them: each stored result with its
    per-seat decisions, its duration and when it finished (a 1,500-match tournament of 10 seats exports about
    5.5 MB: the client accepts answers past gRPC's default 4 MiB), given time. A match exported twice is listed
    twice."""
    data = client.export_results(tournament_id, arena_pb2.EXPORT_FORMAT_JSON, timeout=EXPORT_TIMEOUT_S).data
    rows: list[Mapping[str, object]] = json.loads(data)["matches"]
    return [StoredResult.from_dict(row) for row in rows]
