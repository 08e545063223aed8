"""A real Prometheus server scrapes a real arena exporter on loopback and loads the alert rules."""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from arena import metrics as am
from tests.support import free_port, wait_until

pytestmark = pytest.mark.integration


def api(base: str, path: str, **params: str) -> Any:
    url = f"{base}{path}" + (f"?{urllib.parse.urlencode(params)}" if params else "")
    with urllib.request.urlopen(url, timeout=10) as reply:
        return json.loads(reply.read())["data"]


@pytest.fixture
def exporter() -> Iterator[int]:
    metrics = am.create_metrics(CollectorRegistry())
    metrics.record_decision("alice", "answered", 0.004)
    metrics.record_refusal("alice", "F1")
    metrics.set_matches_remaining("t-1", 12)
    metrics.mark_canary_success()
    metrics.set_gateway_up(True)
    server = am.start_metrics_server(0, "127.0.0.1", registry=metrics.registry)
    try:
        yield server.port
    finally:
        server.close()


@pytest.fixture
def prometheus(exporter: int, deploy_dir: Path, tmp_path: Path, yaml_mod: Any) -> Iterator[str]:
    exe = shutil.which("prometheus")
    if exe is None:
        pytest.skip("prometheus server not found: `apt-get install -y --no-install-recommends prometheus`")
    port = free_port()
    config = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": [str(deploy_dir / "prometheus" / "alerts.yml")],
        "scrape_configs": [
            {"job_name": "uno-arena-gateway", "static_configs": [{"targets": [f"127.0.0.1:{exporter}"]}]}
        ],
    }
    (tmp_path / "prometheus.yml").write_text(yaml_mod.safe_dump(config))
    log = (tmp_path / "prometheus.log").open("w")
    proc = subprocess.Popen(
        [
            exe,
            f"--config.file={tmp_path / 'prometheus.yml'}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        log.close()


def test_prometheus_scrapes_the_exporter_and_loads_the_rules(prometheus: str) -> None:
    def scraped() -> Any:
        query = 'uno_arena_decisions_total{job="uno-arena-gateway"}'
        return api(prometheus, "/api/v1/query", query=query)["result"]

    (sample,) = wait_until(scraped, 90, "the first scrape", interval=0.25, ignore=(OSError,))
    assert sample["metric"]["bot"] == "alice" and sample["metric"]["outcome"] == "answered"
    assert float(sample["value"][1]) == 1.0

    (target,) = api(prometheus, "/api/v1/targets")["activeTargets"]
    assert target["health"] == "up", target

    groups = api(prometheus, "/api/v1/rules")["groups"]
    alerts = {rule["name"] for group in groups for rule in group["rules"] if rule["type"] == "alerting"}
    assert "UnoArenaGatewayDown" in alerts and len(alerts) >= 6
    for group in groups:
        for rule in group["rules"]:
            assert rule["health"] != "err", rule

    remaining = api(prometheus, "/api/v1/query", query="max by (tournament) (uno_arena_matches_remaining)")
    assert [r["metric"]["tournament"] for r in remaining["result"]] == ["t-1"]
