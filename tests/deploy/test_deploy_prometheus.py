"""deploy/prometheus: promtool check config / check rules / test rules, and rule coverage."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from arena import metrics as am
from tests.support.metrics import series_names

Promtool = Callable[..., subprocess.CompletedProcess[str]]

REQUIRED_ALERTS = {
    "UnoArenaBotTimeouts",
    "UnoArenaRefusedActionsSpike",
    "UnoArenaNoMatchesCompleted",
    "UnoArenaQueueGrowing",
    "UnoArenaWorkerCanaryMissing",
    "UnoArenaGatewayDown",
}
GATEWAY_JOB = "uno-arena-gateway"
WORKER_JOB = "uno-arena-worker"
BUILTIN_SERIES = {"up", "ALERTS", "ALERTS_FOR_STATE"}


def known_series() -> set[str]:
    """Every series name arena/metrics.py can expose (histogram parts included)."""
    return series_names(am.create_metrics(CollectorRegistry()))


def referenced_metrics(expr: str) -> set[str]:
    return set(re.findall(r"\buno_arena_[a-z0-9_]+\b", expr))


@pytest.fixture(scope="module")
def prom_dir(deploy_dir: Path) -> Path:
    return deploy_dir / "prometheus"


@pytest.fixture(scope="module")
def alerts(prom_dir: Path, load_yaml: Callable[[Path], Any]) -> list[dict[str, Any]]:
    data = load_yaml(prom_dir / "alerts.yml")
    return [rule for group in data["groups"] for rule in group["rules"]]


def test_promtool_check_config(prom_dir: Path, promtool: Promtool) -> None:
    result = promtool("check", "config", "prometheus.yml", cwd=prom_dir)
    assert result.returncode == 0, result.stdout + result.stderr


def test_promtool_check_config_kubernetes(
    prom_dir: Path, promtool: Promtool, yaml_mod: Any, tmp_path: Path
) -> None:
    result = promtool("check", "config", "prometheus-k8s.yml", cwd=prom_dir)
    if result.returncode != 0 and "kubernetes_sd_configs not found" in result.stdout + result.stderr:
        # Debian builds Prometheus without Kubernetes discovery: check the rest of the file
        # (relabelling, rule files) with the discovery block swapped for a static target.
        config = yaml_mod.safe_load((prom_dir / "prometheus-k8s.yml").read_text())
        for scrape in config["scrape_configs"]:
            assert scrape.pop("kubernetes_sd_configs"), scrape["job_name"]
            scrape["static_configs"] = [{"targets": ["pod.example:9100"]}]
        config["rule_files"] = [str(prom_dir / name) for name in config["rule_files"]]
        (tmp_path / "prometheus.yml").write_text(yaml_mod.safe_dump(config))
        result = promtool("check", "config", "prometheus.yml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_promtool_check_rules(prom_dir: Path, promtool: Promtool) -> None:
    result = promtool("check", "rules", "alerts.yml", cwd=prom_dir)
    assert result.returncode == 0, result.stdout + result.stderr


def test_promtool_test_rules(prom_dir: Path, promtool: Promtool) -> None:
    result = promtool("test", "rules", "alerts_test.yml", cwd=prom_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_required_alerts_exist_with_severity_and_summary(alerts: list[dict[str, Any]]) -> None:
    names = {rule["alert"] for rule in alerts if "alert" in rule}
    assert names >= REQUIRED_ALERTS, REQUIRED_ALERTS - names
    for rule in alerts:
        assert rule["labels"]["severity"] in {"warning", "critical"}, rule["alert"]
        assert rule["annotations"]["summary"] and rule["annotations"]["description"], rule["alert"]
        assert "for" in rule, rule["alert"]


def test_every_alert_has_a_firing_and_a_quiet_unit_test(
    alerts: list[dict[str, Any]], prom_dir: Path, load_yaml: Callable[[Path], Any]
) -> None:
    tests = load_yaml(prom_dir / "alerts_test.yml")
    fires: set[str] = set()
    quiet: set[str] = set()
    for group in tests["tests"]:
        for case in group.get("alert_rule_test", []):
            (fires if case.get("exp_alerts") else quiet).add(case["alertname"])
    names = {rule["alert"] for rule in alerts}
    assert names - fires == set(), f"no firing test for {names - fires}"
    assert names - quiet == set(), f"no non-firing test for {names - quiet}"


def test_rules_only_use_defined_metrics_and_jobs(alerts: list[dict[str, Any]], prom_dir: Path) -> None:
    series = known_series()
    assert alerts, "alerts.yml has no rules"
    for rule in alerts:
        used = referenced_metrics(rule["expr"])
        assert used <= series, f"{rule['alert']} uses unknown metrics {used - series}"
        for job in re.findall(r'job="([^"]+)"', rule["expr"]):
            assert job in {GATEWAY_JOB, WORKER_JOB}, rule["alert"]


def test_scrape_jobs_and_ports_match_metrics_defaults(
    prom_dir: Path, load_yaml: Callable[[Path], Any]
) -> None:
    config = load_yaml(prom_dir / "prometheus.yml")
    jobs = {scrape["job_name"]: scrape for scrape in config["scrape_configs"]}
    assert config["rule_files"] == ["alerts.yml"]

    gateway_targets = [t for sc in jobs[GATEWAY_JOB]["static_configs"] for t in sc["targets"]]
    assert len(gateway_targets) == 2
    assert {t.rsplit(":", 1)[1] for t in gateway_targets} == {str(am.DEFAULT_GATEWAY_METRICS_PORT)}

    (worker_sd,) = jobs[WORKER_JOB]["dns_sd_configs"]
    assert worker_sd["port"] == am.DEFAULT_WORKER_METRICS_PORT


def test_scrape_targets_are_compose_services(
    prom_dir: Path, load_yaml: Callable[[Path], Any], compose: dict[str, Any]
) -> None:
    config = load_yaml(prom_dir / "prometheus.yml")
    jobs = {scrape["job_name"]: scrape for scrape in config["scrape_configs"]}
    services = compose["services"]
    gateway_targets = [t for sc in jobs[GATEWAY_JOB]["static_configs"] for t in sc["targets"]]
    worker_names = jobs[WORKER_JOB]["dns_sd_configs"][0]["names"]
    assert gateway_targets and worker_names, "prometheus.yml scrapes no gateway or no worker"
    for target in gateway_targets:
        host, port = target.rsplit(":", 1)
        assert host in services, target
        assert services[host]["command"][0] == "serve"
        assert services[host]["environment"]["UNO_ARENA_METRICS_PORT"] == port
    for name in worker_names:
        assert services[name]["command"][0] == "worker"
        port = str(jobs[WORKER_JOB]["dns_sd_configs"][0]["port"])
        assert services[name]["environment"]["UNO_ARENA_METRICS_PORT"] == port


def test_kubernetes_scrape_config_names_jobs_like_compose(
    prom_dir: Path, load_yaml: Callable[[Path], Any]
) -> None:
    config = load_yaml(prom_dir / "prometheus-k8s.yml")
    relabels = [r for sc in config["scrape_configs"] for r in sc.get("relabel_configs", [])]
    job_rules = [r for r in relabels if r.get("target_label") == "job"]
    assert job_rules and job_rules[0]["replacement"] == "uno-arena-$1"
    keep = [r for r in relabels if r.get("action") == "keep"]
    assert any("gateway" in r["regex"] and "worker" in r["regex"] for r in keep)
