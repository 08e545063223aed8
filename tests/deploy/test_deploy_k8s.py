"""deploy/k8s: manifests hang together and agree with the environment contract."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena import metrics as am

Doc = dict[str, Any]


def find(docs: list[Doc], kind: str, name: str) -> Doc:
    for doc in docs:
        if doc["kind"] == kind and doc["metadata"]["name"] == name:
            return doc
    raise AssertionError(f"no {kind}/{name}")


def container(doc: Doc) -> Doc:
    (only,) = doc["spec"]["template"]["spec"]["containers"]
    result: Doc = only
    return result


def env_of(doc: Doc) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container(doc).get("env", [])}


def ports_of(doc: Doc) -> dict[str, int]:
    return {p["name"]: p["containerPort"] for p in container(doc).get("ports", [])}


def workloads(docs: list[Doc]) -> list[Doc]:
    return [d for d in docs if d["kind"] in {"Deployment", "StatefulSet"}]


def test_kinds_present(k8s_docs: list[Doc]) -> None:
    kinds = sorted((d["kind"], d["metadata"]["name"]) for d in k8s_docs)
    for expected in (
        ("Deployment", "uno-arena-gateway"),
        ("Service", "uno-arena-gateway"),
        ("Deployment", "uno-arena-worker"),
        ("Deployment", "uno-arena-scheduler"),
        ("StatefulSet", "redis"),
        ("Service", "redis"),
        ("ConfigMap", "uno-arena-config"),
        ("Secret", "uno-arena-secrets"),
        ("Deployment", "uno-arena-host"),
        ("NetworkPolicy", "uno-arena-host"),
    ):
        assert expected in kinds, expected


def test_kustomization_lists_every_manifest(deploy_dir: Path, load_yaml: Callable[[Path], Any]) -> None:
    kustomization = load_yaml(deploy_dir / "k8s" / "kustomization.yaml")
    files = {p.name for p in (deploy_dir / "k8s").glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == files


def test_selectors_match_pod_labels(k8s_docs: list[Doc]) -> None:
    assert workloads(k8s_docs), "deploy/k8s has no workload"
    assert any(d["kind"] == "Service" for d in k8s_docs), "deploy/k8s has no Service"
    for doc in workloads(k8s_docs):
        selector = doc["spec"]["selector"]["matchLabels"]
        labels = doc["spec"]["template"]["metadata"]["labels"]
        assert selector.items() <= labels.items(), doc["metadata"]["name"]
    pods = [d["spec"]["template"]["metadata"]["labels"] for d in workloads(k8s_docs)]
    for svc in (d for d in k8s_docs if d["kind"] == "Service"):
        matching = [p for p in pods if svc["spec"]["selector"].items() <= p.items()]
        assert len(matching) == 1, svc["metadata"]["name"]


def test_config_and_secret(k8s_docs: list[Doc], contract: dict[str, Any]) -> None:
    config = find(k8s_docs, "ConfigMap", "uno-arena-config")["data"]
    assert config["UNO_ARENA_GRPC_ADDR"] == contract["environment"]["UNO_ARENA_GRPC_ADDR"]
    assert config["REDIS_URL"] == "redis://redis:6379/0"
    secret = find(k8s_docs, "Secret", "uno-arena-secrets")
    assert set(secret["stringData"]) == {"UNO_ARENA_ADMIN_TOKEN"}
    every_key = set(config) | set(secret["stringData"])
    for doc in workloads(k8s_docs):
        every_key |= set(env_of(doc))
        for init in doc["spec"]["template"]["spec"].get("initContainers", []):
            every_key |= {e["name"] for e in init.get("env", [])}
    assert every_key <= set(contract["environment"]), every_key - set(contract["environment"])


def test_arena_workloads_read_config_and_secret(k8s_docs: list[Doc]) -> None:
    for name in ("uno-arena-gateway", "uno-arena-worker", "uno-arena-scheduler"):
        c = container(find(k8s_docs, "Deployment", name))
        refs = {next(iter(ref.values()))["name"] for ref in c["envFrom"]}
        assert refs == {"uno-arena-config", "uno-arena-secrets"}, name
        assert c["image"] == "uno-arena", name
        assert c["securityContext"]["allowPrivilegeEscalation"] is False, name


def test_gateway(k8s_docs: list[Doc], contract: dict[str, Any]) -> None:
    gateway = find(k8s_docs, "Deployment", "uno-arena-gateway")
    assert container(gateway)["args"] == ["serve"]
    ports = ports_of(gateway)
    assert ports == {"grpc": contract["ports"]["grpc"], "metrics": am.DEFAULT_GATEWAY_METRICS_PORT}
    assert env_of(gateway)[am.METRICS_PORT_ENV] == str(am.DEFAULT_GATEWAY_METRICS_PORT)
    assert container(gateway)["readinessProbe"]["grpc"]["port"] == contract["ports"]["grpc"]
    annotations = gateway["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == str(am.DEFAULT_GATEWAY_METRICS_PORT)
    assert annotations["prometheus.io/path"] == "/metrics"
    assert gateway["spec"]["replicas"] >= 2
    service = find(k8s_docs, "Service", "uno-arena-gateway")
    (port,) = service["spec"]["ports"]
    assert port["port"] == contract["ports"]["grpc"] and port["targetPort"] == "grpc"


def test_worker(k8s_docs: list[Doc]) -> None:
    worker = find(k8s_docs, "Deployment", "uno-arena-worker")
    assert container(worker)["args"][0] == "worker"
    assert ports_of(worker) == {"metrics": am.DEFAULT_WORKER_METRICS_PORT}
    env = env_of(worker)
    assert env[am.METRICS_PORT_ENV] == str(am.DEFAULT_WORKER_METRICS_PORT)
    annotations = worker["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == str(am.DEFAULT_WORKER_METRICS_PORT)
    # The multiprocess directory is a per-pod emptyDir mounted where the env var points.
    mounts = {m["name"]: m["mountPath"] for m in container(worker)["volumeMounts"]}
    volumes = {v["name"]: v for v in worker["spec"]["template"]["spec"]["volumes"]}
    (name,) = [n for n, path in mounts.items() if path == env[am.MULTIPROC_DIR_ENV]]
    assert "emptyDir" in volumes[name]


def test_scheduler_is_a_single_replica_that_never_overlaps(k8s_docs: list[Doc]) -> None:
    scheduler = find(k8s_docs, "Deployment", "uno-arena-scheduler")
    assert scheduler["spec"]["replicas"] == 1
    assert scheduler["spec"]["strategy"]["type"] == "Recreate"
    assert container(scheduler)["args"] == ["scheduler"]
    assert "annotations" not in scheduler["spec"]["template"]["metadata"], "no metrics port to scrape"


def test_redis_statefulset_persists(k8s_docs: list[Doc]) -> None:
    redis = find(k8s_docs, "StatefulSet", "redis")
    args = container(redis)["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    (claim,) = redis["spec"]["volumeClaimTemplates"]
    assert {"name": claim["metadata"]["name"], "mountPath": "/data"} in container(redis)["volumeMounts"]
    assert redis["spec"]["serviceName"] == "redis"
    service = find(k8s_docs, "Service", "redis")
    assert service["spec"]["ports"][0]["port"] == 6379


def test_external_redis_is_documented(deploy_dir: Path) -> None:
    text = (deploy_dir / "k8s" / "redis.yaml").read_text()
    assert "external" in text.lower() and "REDIS_URL" in text


@pytest.mark.integration
def test_kustomize_builds(deploy_dir: Path, yaml_mod: Any) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl not found: cannot run `kubectl kustomize deploy/k8s`")
    result = subprocess.run(
        [kubectl, "kustomize", str(deploy_dir / "k8s")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    docs = [d for d in yaml_mod.safe_load_all(result.stdout) if d]
    assert all(d["metadata"].get("namespace") == "uno-arena" for d in docs if d["kind"] != "Namespace")
    assert len(docs) == 14


def test_the_bot_host_runs_alone_with_its_own_gateway_on_a_socket(k8s_docs: list[Doc],
                                                                 contract: dict[str, Any]) -> None:
    host = find(k8s_docs, "Deployment", "uno-arena-host")
    assert host["spec"]["replicas"] == 1 and host["spec"]["strategy"]["type"] == "Recreate"  # one host per arena
    pod = host["spec"]["template"]["spec"]
    (gateway,) = pod["initContainers"]
    assert gateway["restartPolicy"] == "Always", "a native sidecar: up before the host, running beside it"
    socket = gateway["args"][gateway["args"].index("--unix-socket") + 1]
    args = container(host)["args"]
    assert args[0] == "host" and args[args.index("--gateway-socket") + 1] == socket
    assert socket in gateway["startupProbe"]["exec"]["command"]
    mounted = [{m["mountPath"]: m["name"] for m in c["volumeMounts"]} for c in (gateway, container(host))]
    (shared,) = {name for path, name in mounted[0].items() if socket.startswith(path + "/")}
    assert mounted[1][socket.rsplit("/", 1)[0]] == shared
    assert env_of(host)[am.METRICS_PORT_ENV] == str(contract["ports"]["host_metrics"])
    assert host["spec"]["template"]["metadata"]["annotations"]["prometheus.io/port"] == "9104"
    assert container(host)["livenessProbe"]["httpGet"]["port"] == "metrics"
    refs = {next(iter(ref.values()))["name"] for ref in container(host)["envFrom"]}
    assert refs == {"uno-arena-config"}, "the host needs Redis, never the admin token"


def test_the_bot_hosts_pod_is_locked_down(k8s_docs: list[Doc]) -> None:
    """Non-root, read-only root filesystem, no service-account token, no capability, requests and limits; what
    bubblewrap needs (docs/hosting.md) and nothing more: a user namespace for the Pod, an unmasked /proc, a
    seccomp and AppArmor profile that allow namespaces."""
    host = find(k8s_docs, "Deployment", "uno-arena-host")
    pod = host["spec"]["template"]["spec"]
    assert pod["automountServiceAccountToken"] is False and pod["enableServiceLinks"] is False
    assert pod["hostUsers"] is False
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    for c in [*pod["initContainers"], *pod["containers"]]:
        context = c["securityContext"]
        assert context["allowPrivilegeEscalation"] is False and context["readOnlyRootFilesystem"] is True, c["name"]
        assert context["capabilities"]["drop"] == ["ALL"] and "add" not in context["capabilities"], c["name"]
        assert not context.get("privileged") and context.get("runAsUser", 1) != 0, c["name"]
        assert {"cpu", "memory"} <= set(c["resources"]["requests"]) and "memory" in c["resources"]["limits"]
        writable = {m["mountPath"] for m in c["volumeMounts"]}
        assert "/tmp" in writable, f"{c['name']}: a read-only root needs a /tmp of its own"
    sandbox = container(host)["securityContext"]
    assert sandbox["procMount"] == "Unmasked"
    assert sandbox["seccompProfile"]["type"] in ("Unconfined", "Localhost")
    volumes = {v["name"]: v for v in pod["volumes"]}
    # Every volume is a bounded emptyDir but the archives, read-only in the host (written by the gateways).
    assert volumes["archives"]["persistentVolumeClaim"]["claimName"] == "uno-arena-archives"
    assert all(m.get("readOnly") for m in container(host)["volumeMounts"] if m["name"] == "archives")
    assert all("emptyDir" in v and v["emptyDir"]["sizeLimit"] for n, v in volumes.items() if n != "archives")


def test_the_bot_hosts_network_policy_lets_it_reach_redis_and_dns_only(k8s_docs: list[Doc]) -> None:
    policy = find(k8s_docs, "NetworkPolicy", "uno-arena-host")["spec"]
    host = find(k8s_docs, "Deployment", "uno-arena-host")
    assert policy["podSelector"]["matchLabels"].items() <= host["spec"]["template"]["metadata"]["labels"].items()
    assert set(policy["policyTypes"]) == {"Ingress", "Egress"}
    (ingress,) = policy["ingress"]
    assert ingress["ports"] == [{"port": 9104, "protocol": "TCP"}], "only Prometheus's scrape comes in"
    redis_pod = find(k8s_docs, "StatefulSet", "redis")["spec"]["template"]["metadata"]["labels"]
    to_redis, to_dns = policy["egress"]
    (peer,) = to_redis["to"]
    assert set(peer) == {"podSelector"} and peer["podSelector"]["matchLabels"].items() <= redis_pod.items()
    assert to_redis["ports"] == [{"port": 6379, "protocol": "TCP"}]
    (dns,) = to_dns["to"]
    assert dns["podSelector"]["matchLabels"] == {"k8s-app": "kube-dns"}
    assert {(p["port"], p["protocol"]) for p in to_dns["ports"]} == {(53, "UDP"), (53, "TCP")}
