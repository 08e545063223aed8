"""deploy/grafana: dashboard JSON and provisioning, queries valid PromQL on defined metrics."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from arena import metrics as am
from tests.support.metrics import series_names

Promtool = Callable[..., subprocess.CompletedProcess[str]]
BUILTIN_SERIES = {"up", "ALERTS"}
GRAFANA_VARS = {"$__rate_interval": "5m", "$__interval": "1m", "$bot": ".*"}


@pytest.fixture(scope="module")
def grafana_dir(deploy_dir: Path) -> Path:
    return deploy_dir / "grafana"


@pytest.fixture(scope="module")
def dashboard(grafana_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((grafana_dir / "dashboards" / "uno-arena.json").read_text())
    return data


def panels(dashboard: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for panel in dashboard["panels"]:
        yield panel
        yield from panel.get("panels", [])


def expressions(dashboard: dict[str, Any]) -> list[str]:
    return [t["expr"] for p in panels(dashboard) for t in p.get("targets", [])]


def test_dashboard_basics(dashboard: dict[str, Any]) -> None:
    assert dashboard["uid"] == "uno-arena" and dashboard["title"]
    ids = [p["id"] for p in panels(dashboard)]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    for panel in panels(dashboard):
        if panel["type"] == "row":
            continue
        assert panel["targets"], panel["title"]
        grid = panel["gridPos"]
        assert grid["x"] + grid["w"] <= 24, panel["title"]
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
    boxes = [(p["title"], p["gridPos"]) for p in panels(dashboard)]
    for i, (title_a, a) in enumerate(boxes):
        for title_b, b in boxes[i + 1 :]:
            overlap_x = a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
            overlap_y = a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]
            assert not (overlap_x and overlap_y), f"panels {title_a!r} and {title_b!r} overlap"


def test_dashboard_covers_what_operators_watch(dashboard: dict[str, Any]) -> None:
    exprs = "\n".join(expressions(dashboard))
    for needle in (
        "rate(uno_arena_matches_total",  # throughput: matches/s
        "rate(uno_arena_decisions_total",  # decisions/s
        'outcome="timeout"',  # timeouts
        "uno_arena_refused_actions_total",  # refusals
        "uno_arena_queue_depth",
        "uno_arena_queue_oldest_age_seconds",
        "uno_arena_matches_remaining",  # tournament progress
        "uno_arena_canary_last_success_timestamp_seconds",  # worker health
        'up{job="uno-arena-worker"}',
        "uno_arena_connected_bots",
    ):
        assert needle in exprs, needle
    for q in ("0.5", "0.95", "0.99"):
        assert re.search(
            rf"histogram_quantile\({q}, sum by \(le, bot\) \(rate\(uno_arena_decision_latency_seconds_bucket",
            exprs,
        ), f"per-bot latency p{q}"


def test_dashboard_uses_only_defined_metrics(dashboard: dict[str, Any]) -> None:
    known = series_names(am.create_metrics(CollectorRegistry()))
    exprs = expressions(dashboard)
    assert exprs, "the dashboard has no queries"
    for expr in exprs:
        used = set(re.findall(r"\buno_arena_[a-z0-9_]+\b", expr))
        assert used <= known, f"unknown metrics {used - known} in {expr}"


def test_dashboard_queries_are_valid_promql(
    dashboard: dict[str, Any], promtool: Promtool, yaml_mod: Any, tmp_path: Path
) -> None:
    rules = []
    for i, expr in enumerate(expressions(dashboard)):
        for var, value in GRAFANA_VARS.items():
            expr = expr.replace(var, value)
        assert "$" not in expr, f"unhandled Grafana variable in {expr}"
        rules.append({"record": f"dashboard:query_{i}", "expr": expr})
    (tmp_path / "queries.yml").write_text(
        yaml_mod.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]})
    )
    result = promtool("check", "rules", "queries.yml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_templating_variables(dashboard: dict[str, Any]) -> None:
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert (
        variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    )
    assert "label_values(uno_arena_decisions_total, bot)" in json.dumps(variables["bot"]["query"])


def test_provisioning_matches_compose_mounts(
    grafana_dir: Path, load_yaml: Callable[[Path], Any], compose: dict[str, Any], dashboard: dict[str, Any]
) -> None:
    datasources = load_yaml(grafana_dir / "provisioning" / "datasources" / "prometheus.yml")
    (ds,) = datasources["datasources"]
    assert ds["type"] == "prometheus" and ds["url"] == "http://prometheus:9090"
    assert "prometheus" in compose["services"]
    default_ds = next(v for v in dashboard["templating"]["list"] if v["name"] == "datasource")
    assert default_ds["current"]["value"] == ds["uid"]

    providers = load_yaml(grafana_dir / "provisioning" / "dashboards" / "uno-arena.yml")
    (provider,) = providers["providers"]
    mounts = {}
    for volume in compose["services"]["grafana"]["volumes"]:
        source, target = volume.split(":")[:2]
        mounts[target] = source
    assert mounts["/etc/grafana/provisioning"] == "./grafana/provisioning"
    dashboards_source = mounts[provider["options"]["path"]]
    assert (grafana_dir.parent / dashboards_source / "uno-arena.json").is_file()
    home = compose["services"]["grafana"]["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home == provider["options"]["path"] + "/uno-arena.json"
