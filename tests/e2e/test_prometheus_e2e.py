"""A real Prometheus server scrapes a real arena (gateway and worker) while a tournament runs through them.

The arena is the one `uno-arena demo` starts (:func:`arena.local_arena.local_arena`: Redis, `uno-arena
serve`, `uno-arena worker` with two prefork children in prometheus multiprocess mode) plus one remote bot
in its own process. Prometheus (Debian's `prometheus` package) scrapes the gateway's and the worker's
``/metrics`` every second; the test asks the Prometheus HTTP API, not the exporters, whether the completed
match count equals the tournament's match count and whether the remote bot has decision latency series.
Without the binary the test skips and says so.
"""

from __future__ import annotations

import io
import json
import shutil
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from arena.local_arena import LocalArena, local_arena
from tests.support import free_port, wait_until

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
ALERTS = REPO / "deploy" / "prometheus" / "alerts.yml"
REMOTE_BOT = f"e2e-remote-{uuid.uuid4().hex[:6]}"  # unique: $REDIS_URL may name a Redis that outlives the test
SCRAPE_INTERVAL = "1s"
PROMETHEUS_WAIT_S = 30.0


def prometheus_binary() -> str:
    exe = shutil.which("prometheus")
    if exe is None:
        pytest.skip("the Prometheus server binary `prometheus` is not installed (not on PATH): this end-to-end "
                    "test needs it; install Debian's package with `apt-get install -y --no-install-recommends "
                    "prometheus` (.ci/run does so when it runs as root)")
    return exe


def query(base: str, promql: str) -> list[dict[str, Any]]:
    """The result vector of an instant query."""
    url = f"{base}/api/v1/query?{urllib.parse.urlencode({'query': promql})}"
    with urllib.request.urlopen(url, timeout=10) as reply:
        body = json.loads(reply.read())
    assert body["status"] == "success", body
    result: list[dict[str, Any]] = body["data"]["result"]
    return result


def targets(base: str) -> list[str]:
    """One line per scrape target: job, health, last error (for failure messages)."""
    with urllib.request.urlopen(f"{base}/api/v1/targets", timeout=10) as reply:
        active = json.loads(reply.read())["data"]["activeTargets"]
    return [f"{t['labels'].get('job')}: {t['health']} {t.get('lastError', '')}".strip() for t in active]


def ready(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/-/ready", timeout=2) as reply:
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def start_prometheus(arena: LocalArena, exe: str) -> str:
    """Prometheus on loopback scraping the arena's two exporters (a child of the arena's process set)."""
    port = free_port()
    config = {
        "global": {"scrape_interval": SCRAPE_INTERVAL, "evaluation_interval": SCRAPE_INTERVAL},
        "rule_files": [str(ALERTS)] if ALERTS.exists() else [],
        "scrape_configs": [
            {"job_name": "uno-arena-gateway",
             "static_configs": [{"targets": [f"127.0.0.1:{arena.gateway_metrics_port}"]}]},
            {"job_name": "uno-arena-worker",
             "static_configs": [{"targets": [f"127.0.0.1:{arena.worker_metrics_port}"]}]},
        ],
    }
    folder = arena.work_dir / "prometheus"
    folder.mkdir()
    config_file = folder / "prometheus.yml"
    config_file.write_text(json.dumps(config, indent=1))  # JSON is YAML
    arena.processes.start("prometheus", [exe, f"--config.file={config_file}", f"--storage.tsdb.path={folder / 'data'}",
                                         f"--web.listen-address=127.0.0.1:{port}"], arena.env)
    base = f"http://127.0.0.1:{port}"
    def up() -> bool:
        arena.processes.check_alive()  # raises, naming the process and its log, when one has exited
        return ready(base)

    wait_until(up, PROMETHEUS_WAIT_S, "Prometheus to be ready", interval=0.2)
    return base


def run_tournament(arena: LocalArena) -> int:
    """A small tournament of two built-in bots and the remote one; its match count, once it finished."""
    from arena.commands.tables import watch
    from arena.engine import Rules
    from arena.protocol import arena_pb2
    from arena.protocol.convert import rules_to_proto

    spec = arena_pb2.TournamentSpec(
        name=f"e2e-prometheus-{uuid.uuid4().hex[:6]}", participants=["random", "heuristic", REMOTE_BOT],
        rules=rules_to_proto(Rules(variant="flip", target=50)), seats_per_table=2, deals_per_table=2,
        duplicate_deals=False, seed=11, decision_deadline_ms=2000)
    created = arena.client.create_tournament(spec).tournament
    total = int(created.matches_total)
    assert total == 6  # 3 pairs x 2 deals
    out = io.StringIO()
    assert watch(arena.client, created.tournament_id, out, quiet=True) == 0, out.getvalue()
    return total


def poll(base: str, what: str, promql: str, satisfied: Any, arena: LocalArena) -> list[dict[str, Any]]:
    """Query until ``satisfied(result)``; bounded, then fail with the last result and the targets."""
    last: list[list[dict[str, Any]]] = [[]]

    def seen() -> list[dict[str, Any]] | None:
        arena.processes.check_alive()
        last[0] = query(base, promql)
        return last[0] if satisfied(last[0]) else None

    found: list[dict[str, Any]] = wait_until(
        seen, PROMETHEUS_WAIT_S, f"Prometheus to see {what}", interval=0.5,
        details=lambda: f"`{promql}` returned {last[0]}; targets: {targets(base)}")
    return found


def test_prometheus_sees_every_match_and_the_remote_bots_latency(tmp_path: Path) -> None:
    exe = prometheus_binary()
    with local_arena(worker_concurrency=2, work_dir=tmp_path) as arena:
        arena.start_remote_bot(REMOTE_BOT, "heuristic")
        base = start_prometheus(arena, exe)
        arena.wait_for_bots([REMOTE_BOT])
        total = run_tournament(arena)

        def as_count(result: list[dict[str, Any]]) -> float:
            return float(result[0]["value"][1]) if result else -1.0

        completed = "sum(uno_arena_matches_completed_total)"
        poll(base, f"{total} completed matches", completed, lambda r: as_count(r) == total, arena)
        # The count holds still: once every series has been scraped again, it is still the match count.
        counted_at = max(float(r["value"][1]) for r in query(base, "timestamp(uno_arena_matches_completed_total)"))
        poll(base, "a scrape of every series after the count", "min(timestamp(uno_arena_matches_completed_total))",
             lambda r: as_count(r) > counted_at, arena)
        assert as_count(query(base, completed)) == total

        # Recorded in the worker's prefork children, merged by the worker's multiprocess exporter (every
        # child's file counts); the gateway exports the family too, at zero.
        by_job = {row["metric"]["job"]: float(row["value"][1])
                  for row in query(base, "sum by (job) (uno_arena_matches_completed_total)")}
        assert by_job.get("uno-arena-worker") == total and by_job.get("uno-arena-gateway", 0.0) == 0.0, by_job

        buckets = poll(base, f"decision latency buckets of {REMOTE_BOT}",
                       f'uno_arena_decision_latency_seconds_bucket{{bot="{REMOTE_BOT}"}}', bool, arena)
        bounds = {sample["metric"]["le"] for sample in buckets}
        assert "+Inf" in bounds and len(bounds) > 5, bounds
        assert {sample["metric"]["job"] for sample in buckets} == {"uno-arena-worker"}
        observed = as_count(query(base, f'sum(uno_arena_decision_latency_seconds_count{{bot="{REMOTE_BOT}"}})'))
        decided = as_count(query(base, f'sum(uno_arena_decisions_total{{bot="{REMOTE_BOT}"}})'))
        assert observed > 0 and observed == decided, (observed, decided)

        # The gateway's own exporter is scraped too, and holds the remote bot's stream.
        up = query(base, 'uno_arena_gateway_up{job="uno-arena-gateway"}')
        assert up and float(up[0]["value"][1]) == 1.0, (up, targets(base))
        connected = query(base, 'uno_arena_connected_bots{job="uno-arena-gateway"}')
        assert connected and float(connected[0]["value"][1]) >= 1.0, connected

        # The deploy alert rules evaluate against the real series without errors.
        assert ALERTS.is_file(), f"{ALERTS} is missing"
        with urllib.request.urlopen(f"{base}/api/v1/rules", timeout=10) as reply:
            groups = json.loads(reply.read())["data"]["groups"]
        assert groups
        broken = [rule for group in groups for rule in group["rules"] if rule.get("health") == "err"]
        assert not broken, broken
