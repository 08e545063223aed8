"""arena/metrics.py: names and conventions, helpers, promtool lint, multiprocess export."""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
import textwrap
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from arena import metrics as am
from tests.support.metrics import metric_objects, metric_types

REPO = Path(__file__).resolve().parents[2]

# name -> (type, label names); names as exposed (counters with _total).
EXPECTED: dict[str, tuple[str, tuple[str, ...]]] = {
    "uno_arena_decisions_total": ("counter", ("bot", "outcome")),
    "uno_arena_decision_latency_seconds": ("histogram", ("bot",)),
    "uno_arena_refused_actions_total": ("counter", ("bot", "reason")),
    "uno_arena_strikes_total": ("counter", ("bot",)),
    "uno_arena_forfeits_total": ("counter", ("bot",)),
    "uno_arena_bot_incidents_total": ("counter", ("bot", "kind")),
    "uno_arena_matches_total": ("counter", ("variant", "reason")),
    "uno_arena_match_duration_seconds": ("histogram", ("variant",)),
    "uno_arena_matches_completed_total": ("counter", ()),
    "uno_arena_store_errors_total": ("counter", ("kind", "where")),
    "uno_arena_relay_redis_commands_total": ("counter", ("side",)),
    "uno_arena_relay_redis_bytes_total": ("counter", ("side", "direction")),
    "uno_arena_matches_remaining": ("gauge", ("tournament",)),
    "uno_arena_queue_depth": ("gauge", ("queue",)),
    "uno_arena_queue_oldest_age_seconds": ("gauge", ("queue",)),
    "uno_arena_canary_last_success_timestamp_seconds": ("gauge", ()),
    "uno_arena_connected_bots": ("gauge", ()),
    "uno_arena_gateway_up": ("gauge", ()),
    "uno_arena_insecure_no_admin_token": ("gauge", ()),
    "uno_arena_build_info": ("gauge", ("version", "component")),
}
ALLOWED_LABELS = {"bot", "outcome", "variant", "reason", "tournament", "queue", "version", "component", "kind", "where",
                  "side", "direction"}


def fill(m: am.ArenaMetrics) -> None:
    """Sample values for every metric."""
    m.record_decision("alice", "answered", 0.004)
    m.record_decision("alice", "refused", 0.02)
    m.record_decision("bob", "timeout", 1.0)
    m.record_decision("bob", "fallback")
    m.record_refusal("alice", "F1")
    m.record_strike("bob")
    m.record_forfeit("bob")
    m.record_incidents("bob", "timeout", 2)
    m.record_match("flip", "finished", 12.5)
    m.record_match("classic", "forfeit", 3.0)
    m.record_matches_completed(2)
    m.record_store_error("misconf", "task")
    m.relay_meter("worker").count(2, 3100, 12)
    m.set_matches_remaining("t-1", 40)
    m.set_queue("celery", 12, 30.0)
    m.mark_canary_success(1_700_000_000.0)
    m.bot_connected()
    m.set_gateway_up(True)
    m.set_insecure_no_admin_token(False)
    m.set_build_info("gateway")


def families(text: str) -> dict[str, Any]:
    return {f.name: f for f in text_string_to_metric_families(text)}


@pytest.fixture
def metrics() -> am.ArenaMetrics:
    return am.create_metrics(CollectorRegistry())


def scrape_text(registry: CollectorRegistry) -> str:
    return generate_latest(registry).decode()


def test_every_metric_is_defined_once_with_expected_type_and_labels(metrics: am.ArenaMetrics) -> None:
    assert sorted(metric_types(metrics)) == sorted(EXPECTED)
    for obj in metric_objects(metrics):
        (family,) = obj.describe()
        name = family.name + "_total" if family.type == "counter" else family.name
        kind, labels = EXPECTED[name]
        assert family.type == kind, name
        assert tuple(obj._labelnames) == labels, name
        assert set(labels) <= ALLOWED_LABELS, name
        assert family.documentation, f"{name} has no help text"


def test_names_follow_prometheus_conventions(metrics: am.ArenaMetrics) -> None:
    for name, (kind, _labels) in EXPECTED.items():
        assert name.startswith("uno_arena_")
        assert (kind == "counter") == name.endswith("_total"), name
        assert kind != "summary"
        for bad in ("_ms", "milliseconds", "_minutes", "_bytes_kb"):
            assert bad not in name, name
    with_tournament = [name for name, (_kind, labels) in EXPECTED.items() if "tournament" in labels]
    assert with_tournament == ["uno_arena_matches_remaining"], "tournament is allowed on one gauge only"


def test_decision_latency_buckets_cover_1ms_to_2s(metrics: am.ArenaMetrics) -> None:
    buckets = am.DECISION_LATENCY_BUCKETS
    assert buckets[0] <= 0.001 and buckets[-1] >= 2.0
    assert list(buckets) == sorted(buckets)
    assert all(b / a <= 3.0 for a, b in itertools.pairwise(buckets)), "too coarse for percentiles"
    metrics.record_decision("alice", "answered", 0.0015)
    fam = families(scrape_text(metrics.registry))["uno_arena_decision_latency_seconds"]  # type: ignore[arg-type]
    les = [s.labels["le"] for s in fam.samples if s.name.endswith("_bucket")]
    assert les[0] == "0.001" and "2.0" in les and les[-1] == "+Inf"


def test_second_set_on_the_same_registry_is_refused_but_a_new_registry_is_fine() -> None:
    registry = CollectorRegistry()
    am.create_metrics(registry)
    with pytest.raises(ValueError):
        am.create_metrics(registry)
    am.create_metrics(CollectorRegistry())


def test_helpers_record_values(metrics: am.ArenaMetrics) -> None:
    fill(metrics)
    fams = families(scrape_text(metrics.registry))  # type: ignore[arg-type]

    def value(family: str, sample: str, **labels: str) -> float:
        for s in fams[family].samples:
            if s.name == sample and s.labels == labels:
                return float(s.value)
        raise AssertionError(f"no sample {sample}{labels}")

    assert value("uno_arena_decisions", "uno_arena_decisions_total", bot="bob", outcome="timeout") == 1
    assert (
        value("uno_arena_decision_latency_seconds", "uno_arena_decision_latency_seconds_count", bot="bob")
        == 1
    )
    assert (
        value("uno_arena_refused_actions", "uno_arena_refused_actions_total", bot="alice", reason="F1") == 1
    )
    assert value("uno_arena_matches", "uno_arena_matches_total", variant="flip", reason="finished") == 1
    assert value("uno_arena_matches_completed", "uno_arena_matches_completed_total") == 2
    assert value("uno_arena_matches_remaining", "uno_arena_matches_remaining", tournament="t-1") == 40
    assert value("uno_arena_queue_depth", "uno_arena_queue_depth", queue="celery") == 12
    assert (
        value("uno_arena_queue_oldest_age_seconds", "uno_arena_queue_oldest_age_seconds", queue="celery")
        == 30
    )
    assert value("uno_arena_connected_bots", "uno_arena_connected_bots") == 1
    assert value("uno_arena_gateway_up", "uno_arena_gateway_up") == 1
    assert (
        value("uno_arena_build_info", "uno_arena_build_info", version=am.__version__, component="gateway")
        == 1
    )
    canary = value(
        "uno_arena_canary_last_success_timestamp_seconds", "uno_arena_canary_last_success_timestamp_seconds"
    )
    assert canary == 1_700_000_000.0


def test_labels_stay_bounded(metrics: am.ArenaMetrics) -> None:
    with pytest.raises(ValueError):
        metrics.record_decision("alice", "exploded")
    with pytest.raises(ValueError):
        metrics.record_decision("", "answered")
    metrics.record_refusal(
        "alice", "a free-form message with the card red-9 in it, far too long to be a label"
    )
    metrics.record_match("flip", "weird reason!")
    text = scrape_text(metrics.registry)  # type: ignore[arg-type]
    assert 'uno_arena_refused_actions_total{bot="alice",reason="other"} 1.0' in text
    assert 'uno_arena_matches_total{reason="other",variant="flip"} 1.0' in text
    metrics.set_queue("celery", 0, 99.0)
    assert 'uno_arena_queue_oldest_age_seconds{queue="celery"} 0.0' in scrape_text(metrics.registry)  # type: ignore[arg-type]


def test_finished_tournament_series_is_removed(metrics: am.ArenaMetrics) -> None:
    metrics.set_matches_remaining("t-1", 3)
    metrics.set_matches_remaining("t-2", 5)
    metrics.finish_tournament("t-1")
    metrics.finish_tournament("never-started")
    text = scrape_text(metrics.registry)  # type: ignore[arg-type]
    assert 'tournament="t-1"' not in text
    assert 'uno_arena_matches_remaining{tournament="t-2"} 5.0' in text


def test_promtool_check_metrics_accepts_the_exposition(
    metrics: am.ArenaMetrics, promtool: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    fill(metrics)
    result = promtool("check", "metrics", stdin=scrape_text(metrics.registry))  # type: ignore[arg-type]
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "" and result.stderr.strip() == "", result.stdout + result.stderr


@pytest.mark.integration
def test_exporter_serves_a_given_registry_over_http(metrics: am.ArenaMetrics) -> None:
    fill(metrics)
    server = am.start_metrics_server(0, "127.0.0.1", registry=metrics.registry)
    try:
        assert server.port > 0
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=10) as reply:
            text = reply.read().decode()
    finally:
        server.close()
    assert 'uno_arena_decisions_total{bot="alice",outcome="answered"} 1.0' in text


def test_metrics_port_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(am.METRICS_PORT_ENV, raising=False)
    assert am.metrics_port(am.DEFAULT_GATEWAY_METRICS_PORT) == 9100
    assert am.metrics_port(am.DEFAULT_WORKER_METRICS_PORT) == 9101
    monkeypatch.setenv(am.METRICS_PORT_ENV, "9300")
    assert am.metrics_port(9100) == 9300
    assert am.metrics_port(9100, flag=9400) == 9400


def test_reset_multiprocess_dir_wipes_only_db_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(am.MULTIPROC_DIR_ENV, raising=False)
    assert am.reset_multiprocess_dir() is None
    target = tmp_path / "mp"
    assert am.reset_multiprocess_dir(target) == target and target.is_dir()
    (target / "counter_1.db").write_bytes(b"stale")
    (target / "gauge_livesum_2.db").write_bytes(b"stale")
    (target / "notes.txt").write_text("keep")
    monkeypatch.setenv(am.MULTIPROC_DIR_ENV, str(target))
    assert am.reset_multiprocess_dir() == target
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]


def run_python(code: str, env: dict[str, str]) -> str:
    full_env = {**os.environ, **env, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.integration
def test_import_registers_nothing_and_get_metrics_is_a_singleton() -> None:
    env = {k: v for k, v in os.environ.items() if k != am.MULTIPROC_DIR_ENV}
    out = run_python(
        """
        from prometheus_client import REGISTRY, generate_latest
        import arena.metrics as am
        assert b"uno_arena_" not in generate_latest(REGISTRY)
        m = am.get_metrics()
        assert am.get_metrics() is m
        m.record_decision("alice", "answered", 0.01)
        assert b'uno_arena_decisions_total{bot="alice",outcome="answered"} 1.0' in generate_latest(REGISTRY)
        print("ok")
        """,
        env,
    )
    assert out.strip() == "ok"


MULTIPROCESS_SCRIPT = """
import json, multiprocessing, os, urllib.request
from pathlib import Path
import arena.metrics as am

directory = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
assert am.multiprocess_enabled()
am.reset_multiprocess_dir()
assert not list(directory.glob("*.db")), "stale files survived the reset"

m = am.create_metrics(None)
m.set_build_info("worker")

def child(i):
    m.record_decision("alice", "answered", 0.004)
    m.record_decision("bob", "timeout", 1.0)
    m.record_refusal("alice", "F1")
    m.record_match("flip", "finished", 2.0)
    m.record_matches_completed(2)
    m.set_matches_remaining("t-done", 5)
    m.set_matches_remaining("t-live", 10 - i)
    m.set_queue("celery", 7 + i, 1.5)
    m.mark_canary_success(1000.0 + i)
    m.bot_connected()

ctx = multiprocessing.get_context("fork")
pids = []
for i in range(3):
    p = ctx.Process(target=child, args=(i,))
    p.start()
    p.join()
    assert p.exitcode == 0
    pids.append(p.pid)
m.finish_tournament("t-done")

def scrape():
    server = am.start_metrics_server(0, "127.0.0.1")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=10) as reply:
            return reply.read().decode()
    finally:
        server.close()

before = scrape()
am.mark_process_dead(pids[0])
after = scrape()
print(json.dumps({"before": before, "after": after}))
"""


@pytest.fixture(scope="module")
def multiprocess_scrapes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    directory = tmp_path_factory.mktemp("prom-mp")
    (directory / "counter_424242.db").write_bytes(b"\0" * 8)  # left by a previous run
    out = run_python(MULTIPROCESS_SCRIPT, {am.MULTIPROC_DIR_ENV: str(directory)})
    scrapes: dict[str, str] = json.loads(out)
    return scrapes


def sample_values(text: str, sample: str) -> dict[tuple[tuple[str, str], ...], float]:
    found: dict[tuple[tuple[str, str], ...], float] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if s.name == sample:
                found[tuple(sorted(s.labels.items()))] = float(s.value)
    return found


@pytest.mark.integration
def test_multiprocess_exporter_sums_children(multiprocess_scrapes: dict[str, str]) -> None:
    text = multiprocess_scrapes["before"]
    decisions = sample_values(text, "uno_arena_decisions_total")
    assert decisions[(("bot", "alice"), ("outcome", "answered"))] == 3
    assert decisions[(("bot", "bob"), ("outcome", "timeout"))] == 3
    assert sample_values(text, "uno_arena_decision_latency_seconds_count") == {
        (("bot", "alice"),): 3,
        (("bot", "bob"),): 3,
    }
    assert sample_values(text, "uno_arena_matches_completed_total") == {(): 6}
    assert sample_values(text, "uno_arena_canary_last_success_timestamp_seconds") == {(): 1002.0}
    assert sample_values(text, "uno_arena_queue_depth") == {(("queue", "celery"),): 9}
    assert sample_values(text, "uno_arena_connected_bots") == {(): 3}
    assert sample_values(text, "uno_arena_build_info") == {
        (("component", "worker"), ("version", am.__version__)): 1
    }


@pytest.mark.integration
def test_multiprocess_finished_tournament_disappears(multiprocess_scrapes: dict[str, str]) -> None:
    remaining = sample_values(multiprocess_scrapes["before"], "uno_arena_matches_remaining")
    assert remaining == {(("tournament", "t-live"),): 8}
    assert not any(math.isnan(v) for v in remaining.values())


@pytest.mark.integration
def test_multiprocess_dead_child_leaves_live_gauges(multiprocess_scrapes: dict[str, str]) -> None:
    after = multiprocess_scrapes["after"]
    assert sample_values(after, "uno_arena_connected_bots") == {(): 2}
    assert sample_values(after, "uno_arena_matches_completed_total") == {(): 6}, (
        "counters survive a dead child"
    )


@pytest.mark.integration
def test_multiprocess_exposition_passes_promtool(
    multiprocess_scrapes: dict[str, str], promtool: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    result = promtool("check", "metrics", stdin=multiprocess_scrapes["before"])
    assert result.returncode == 0, result.stdout + result.stderr


def test_observe_many_equals_observing_one_by_one() -> None:
    values = [0.0, 0.0004, 0.001, 0.0025, 0.003, 0.2, 1.0, 7.5, 99.0, 0.001]
    one_by_one, at_once = CollectorRegistry(), CollectorRegistry()
    for registry, observe in ((one_by_one, None), (at_once, am.observe_many)):
        metrics = am.create_metrics(registry)
        if observe is None:
            for value in values:
                metrics.record_decision("bot-a", "answered", value)
        else:
            metrics.record_decision_latencies("bot-a", values)

    def samples(registry: CollectorRegistry) -> dict[tuple[str, str], float]:
        out = {}
        for family in text_string_to_metric_families(generate_latest(registry).decode()):
            if family.name == "uno_arena_decision_latency_seconds":
                for sample in family.samples:
                    if not sample.name.endswith("_created"):
                        out[(sample.name, sample.labels.get("le", ""))] = sample.value
        return out

    expected, got = samples(one_by_one), samples(at_once)
    assert expected.keys() == got.keys() and len(expected) > 3
    for key, value in expected.items():
        assert got[key] == pytest.approx(value), key


@pytest.mark.integration
def test_the_metrics_servers_bind_loopback_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.cli import build_parser

    monkeypatch.delenv(am.METRICS_ADDRESS_ENV, raising=False)
    assert am.metrics_address() == "127.0.0.1"
    server = am.start_metrics_server(0)
    try:
        assert server.server.server_address[0] == "127.0.0.1"
    finally:
        server.close()
    monkeypatch.setenv(am.METRICS_ADDRESS_ENV, "0.0.0.0")
    assert am.metrics_address() == "0.0.0.0" and am.metrics_address("10.0.0.5") == "10.0.0.5"
    for command in ("serve", "worker"):
        args = build_parser().parse_args([command, "--metrics-address", "10.0.0.5"])
        assert args.metrics_address == "10.0.0.5"
