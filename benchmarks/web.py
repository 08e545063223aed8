"""`python -m benchmarks web`: the web front under load, in one run on a local arena (a benchmark: it writes its
synthetic history into Redis itself, which the web front, a reader of the organizer API, never does).

1. **Pages with a big history.** ``--bots`` registered bots (1,000) and ``--matches`` recorded matches (100,000)
   are written to Redis through the tournament service (as workers would record them: tournaments of
   ``--field`` bots each, every result a synthetic match of bots of hidden strength, each tournament finished with
   its standings and ratings), then the web front (``uno-arena web``, its own process) serves the leaderboard, a
   tournament page and their JSON ``--requests`` times each: p50 and p99 of the time to the last byte, measured
   by the client on loopback (the first, cold request, which fills the web front's cache of ended tournaments, is
   reported apart).
2. **Viewers of a running tournament.** A tournament of built-in bots (``--live-matches``) runs alone, then with
   ``--viewers`` (200) browsers' worth of server-sent event streams following its page, then alone again:
   matches/s with viewers against the mean of the two runs alone, and the delivery latency of each match to each
   viewer (from the match's recording, ``finished_at``, to the arrival of the first update that counts it), p50
   and p99.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC
from typing import TYPE_CHECKING, Any, TextIO

import httpx

from arena.processes import cli_argv, free_port, wait_until
from arena.web.app import DEFAULT_POLL_S

if TYPE_CHECKING:
    from arena.store import StoredResult

PAGE_TARGET_P99_S = 0.100
LATENCY_TARGET_P99_S = 1.0
SLOWDOWN_TARGET = 0.05


@dataclass(frozen=True)
class WebBenchOptions:
    bots: int = 1000
    matches: int = 100_000
    field: int = 45
    requests: int = 100
    viewers: int = 200
    live_matches: int = 300
    poll_s: float = DEFAULT_POLL_S
    seed: int = 2026

    def __post_init__(self) -> None:
        for name in ("bots", "matches", "requests", "live_matches"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.viewers < 0:
            raise ValueError(f"--viewers must be 0 or more, got {self.viewers}")
        if not 2 <= self.field <= self.bots:
            raise ValueError(f"--field must be 2 to --bots ({self.bots}), got {self.field}")
        if self.poll_s <= 0:
            raise ValueError(f"--poll must be positive, got {self.poll_s}")


@dataclass
class WebBenchReport:
    options: WebBenchOptions
    tournaments: int = 0
    matches: int = 0
    populate_s: float = 0.0
    pages: dict[str, dict[str, float]] = field(default_factory=dict)
    alone_matches_per_s: float = 0.0
    watched_matches_per_s: float = 0.0
    viewers_connected: int = 0
    deliveries: int = 0
    latency_p50_s: float = 0.0
    latency_p99_s: float = 0.0

    @property
    def slowdown(self) -> float:
        if not self.alone_matches_per_s:
            return 0.0
        return 1.0 - self.watched_matches_per_s / self.alone_matches_per_s


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by nearest rank; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def synthetic_result(match: Any, strength: dict[str, float], rng: random.Random) -> StoredResult:
    """A plausible result of a scheduled match: the seat with the best noisy strength wins 100+ points."""
    from arena.store import StoredResult as Stored
    from arena.tournament.results import MatchResult

    draws = [strength[bot] + rng.gauss(0.0, 1.0) for bot in match.seats]
    winner = max(range(len(draws)), key=draws.__getitem__)
    scores = [100 + rng.randrange(150) if seat == winner else rng.randrange(90) for seat in range(len(draws))]
    result = MatchResult(match.match_id, match.seats, tuple(scores), winner, rounds=rng.randrange(1, 6),
                         group=match.group).to_dict()
    result.update(tournament_id=match.tournament_id, bot_versions=["bench-1.0"] * len(match.seats),
                  timeouts=[0] * len(match.seats), refusals=[0] * len(match.seats), finished_at=time.time())
    return Stored.from_dict(result)


def populate(store: Any, names: Sequence[str], options: WebBenchOptions, out: TextIO) -> tuple[int, int]:
    """Finished tournaments of ``options.field`` bots each until ``options.matches`` results are recorded; returns
    (tournaments, matches)."""
    from arena.service import lifecycle
    from arena.tournament.schedule import schedule
    from arena.tournament.spec import TournamentSpec
    from arena.tournament.status import TournamentStatus

    rng = random.Random(options.seed)
    strength = {name: rng.gauss(0.0, 1.0) for name in names}
    recorded = tournaments = 0
    while recorded < options.matches:
        field_names = rng.sample(list(names), options.field)
        spec = TournamentSpec(f"bench-web-{tournaments:04d}", tuple(field_names), options={"target": 100}, seats=2,
                              deals=1, seed=rng.randrange(1, 2**62))
        matches = schedule(spec)[: options.matches - recorded]
        lifecycle.create_tournament(store, spec, matches_total=len(matches))
        store.tournaments.add_matches(spec.tournament_id, [m.match_id for m in matches])
        store.tournaments.set_status(spec.tournament_id, TournamentStatus.RUNNING)
        for match in matches:
            store.results.record(spec.tournament_id, match.match_id, synthetic_result(match, strength, rng))
        lifecycle.finish_tournament(store, spec.tournament_id)
        recorded += len(matches)
        tournaments += 1
        if tournaments % 10 == 0:
            print(f"  {recorded}/{options.matches} matches recorded in {tournaments} tournaments", file=out,
                  flush=True)
    return tournaments, recorded


def time_pages(base: str, paths: dict[str, str], requests: int) -> dict[str, dict[str, float]]:
    """Per page: the cold first request and p50/p99 of ``requests`` more, in seconds."""
    figures: dict[str, dict[str, float]] = {}
    with httpx.Client(base_url=base, timeout=120) as client:
        for label, path in paths.items():
            started = time.perf_counter()
            client.get(path).raise_for_status()
            cold = time.perf_counter() - started
            times = []
            for _ in range(requests):
                started = time.perf_counter()
                client.get(path).raise_for_status()
                times.append(time.perf_counter() - started)
            figures[label] = {"cold": cold, "p50": percentile(times, 0.5), "p99": percentile(times, 0.99)}
    return figures


def run_live(arena: Any, base: str, viewers: int, matches: int, seed: int) -> tuple[float, int, list[float]]:
    """Run a tournament of built-in bots followed by ``viewers`` event streams; returns its matches/s, the viewers
    that got at least one update, and every delivery latency (seconds)."""
    from arena.protocol import arena_pb2, game_pb2

    deals = max(1, matches // 6)  # 3 bots, 2 seats: 3 tables, 2 orders
    spec = arena_pb2.TournamentSpec(participants=["random", "heuristic", "random#2"], seats_per_table=2,
                                    deals_per_table=deals, rules=game_pb2.Rules(target=100), seed=seed,
                                    duplicate_deals=True)
    tid = arena.client.create_tournament(spec).tournament.tournament_id
    arrivals: list[list[tuple[float, int]]] = [[] for _ in range(viewers)]

    async def follow(index: int, client: httpx.AsyncClient) -> None:
        async with client.stream("GET", f"/events/tournaments/{tid}") as stream:
            event = ""
            async for line in stream.aiter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "update":
                    data = json.loads(line[6:])
                    if "progress" in data:
                        arrivals[index].append((time.time(), int(data["progress"]["done"])))
                elif event == "end":
                    return

    async def watch() -> None:
        limits = httpx.Limits(max_connections=viewers + 10, max_keepalive_connections=viewers + 10)
        async with httpx.AsyncClient(base_url=base, timeout=None, limits=limits) as client:
            await asyncio.gather(*(follow(i, client) for i in range(viewers)))

    if viewers:
        asyncio.run(watch())
    wait_until(lambda: _ended(arena, tid), f"tournament {tid} to end",
               arena.processes, timeout_s=1800)
    recorded = sorted(m.finished_at.ToDatetime(tzinfo=UTC).timestamp() for m in arena.client.list_matches(tid))
    rate = len(recorded) / max(1e-9, recorded[-1] - recorded[0]) if len(recorded) > 1 else 0.0
    latencies: list[float] = []
    for seen in arrivals:
        counted = 0
        for at, done in seen:
            for k in range(counted, min(done, len(recorded))):
                latencies.append(max(0.0, at - recorded[k]))
            counted = max(counted, done)
    return rate, sum(1 for seen in arrivals if seen), latencies


def _ended(arena: Any, tournament_id: str) -> bool:
    from arena.protocol.statuses import ENDED_TOURNAMENT_STATES

    return arena.client.get_tournament(tournament_id).state in ENDED_TOURNAMENT_STATES


def run_web_bench(options: WebBenchOptions, out: TextIO) -> WebBenchReport:
    from arena.local_arena import local_arena
    from arena.store import Store

    report = WebBenchReport(options)
    with local_arena(worker_concurrency=2) as arena:
        names = [f"bench-bot-{n:04d}" for n in range(options.bots)]
        for name in names:
            arena.client.register_bot(name)
        print(f"registered {len(names)} bots; recording {options.matches} matches ...", file=out, flush=True)
        store = Store.from_url(arena.redis_url)
        started = time.perf_counter()
        try:
            report.tournaments, report.matches = populate(store, names, options, out)
        finally:
            store.close()
        report.populate_s = time.perf_counter() - started
        port = free_port()
        arena.processes.start("web", [*cli_argv(), "web", "--port", str(port), "--server", arena.address,
                                      "--poll", str(options.poll_s), "--no-client-limits"], arena.env)
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: _healthy(base), "the web front", arena.processes)
        tournament = "bench-web-0000"
        report.pages = time_pages(base, {
            "leaderboard page": "/leaderboard", "leaderboard JSON": "/api/leaderboard",
            "tournament page": f"/tournaments/{tournament}", "tournament JSON": f"/api/tournaments/{tournament}",
        }, options.requests)
        print("running a tournament alone, then with viewers ...", file=out, flush=True)
        before, _, _ = run_live(arena, base, 0, options.live_matches, options.seed)
        rate, connected, latencies = run_live(arena, base, options.viewers, options.live_matches, options.seed + 1)
        after, _, _ = run_live(arena, base, 0, options.live_matches, options.seed + 2)
        report.alone_matches_per_s = (before + after) / 2  # alone before and after: the machine's drift cancels
        report.watched_matches_per_s, report.viewers_connected = rate, connected
        report.deliveries = len(latencies)
        report.latency_p50_s, report.latency_p99_s = percentile(latencies, 0.5), percentile(latencies, 0.99)
    print_report(report, out)
    return report


def _healthy(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def print_report(report: WebBenchReport, out: TextIO) -> None:
    o = report.options
    print(f"\nweb front: {o.bots} bots, {report.matches} matches in {report.tournaments} tournaments "
          f"(recorded in {report.populate_s:.0f} s)", file=out)
    print(f"{'page':<18} {'cold':>9} {'p50':>9} {'p99':>9}   ({o.requests} requests each)", file=out)
    for label, figures in report.pages.items():
        mark = "ok" if figures["p99"] <= PAGE_TARGET_P99_S else f"over {PAGE_TARGET_P99_S * 1000:.0f} ms"
        print(f"{label:<18} {figures['cold'] * 1000:7.1f}ms {figures['p50'] * 1000:7.1f}ms "
              f"{figures['p99'] * 1000:7.1f}ms   {mark}", file=out)
    print(f"live: {report.viewers_connected}/{o.viewers} viewers, {report.deliveries} deliveries, latency p50 "
          f"{report.latency_p50_s * 1000:.0f} ms, p99 {report.latency_p99_s * 1000:.0f} ms "
          f"({'ok' if report.latency_p99_s <= LATENCY_TARGET_P99_S else 'over 1 s'})", file=out)
    print(f"matches/s alone {report.alone_matches_per_s:.1f}, with viewers {report.watched_matches_per_s:.1f} "
          f"(slowdown {100 * report.slowdown:.1f}%, target under {100 * SLOWDOWN_TARGET:.0f}%)", file=out, flush=True)
