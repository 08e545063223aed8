"""deploy/docker-compose.yml and deploy/Dockerfile agree with the environment contract."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena import metrics as am
from arena.commands.hosting import DEFAULT_HOST_METRICS_PORT
from tests.support import free_port

ARENA_COMMANDS = {"serve", "worker", "scheduler", "demo", "web"}


def arena_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: svc
        for name, svc in compose["services"].items()
        if svc.get("image", "").startswith("uno-arena") or "build" in svc
    }


def by_command(compose: dict[str, Any], command: str) -> dict[str, dict[str, Any]]:
    return {name: svc for name, svc in arena_services(compose).items() if svc["command"][0] == command}


def replicas(svc: dict[str, Any]) -> int:
    return int(svc.get("deploy", {}).get("replicas", 1))


def test_topology(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"redis", "prometheus", "grafana"} <= set(services)
    assert sum(replicas(s) for s in by_command(compose, "serve").values()) == 2
    assert sum(replicas(s) for s in by_command(compose, "worker").values()) == 2
    schedulers = by_command(compose, "scheduler")
    assert sum(replicas(s) for s in schedulers.values()) == 1
    for name, svc in arena_services(compose).items():
        assert svc["command"][0] in ARENA_COMMANDS, name
        assert svc["depends_on"]["redis"]["condition"] == "service_healthy", name


def test_image_is_built_from_the_repository(compose: dict[str, Any], deploy_dir: Path) -> None:
    services = arena_services(compose)
    assert services, "compose has no uno-arena service"
    for name, svc in services.items():
        context = (deploy_dir / svc["build"]["context"]).resolve()
        assert (context / "pyproject.toml").is_file(), name
        assert (context / svc["build"]["dockerfile"]).resolve() == deploy_dir / "Dockerfile", name


def test_redis_persists_with_append_only_file(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert any(v.split(":")[1] == "/data" and v.split(":")[0] in compose["volumes"] for v in redis["volumes"])
    assert redis["healthcheck"]["test"][-1] == "ping"


def test_environment_contract(compose: dict[str, Any], contract: dict[str, Any]) -> None:
    env_contract = contract["environment"]
    services = arena_services(compose)
    assert services, "compose has no uno-arena service"
    for name, svc in services.items():
        env = svc["environment"]
        assert set(env) <= set(env_contract), (
            f"{name}: variables outside the contract {set(env) - set(env_contract)}"
        )
        host_port = re.fullmatch(r"redis://([^:/]+):(\d+)/\d+", env["REDIS_URL"])
        assert host_port and host_port.group(1) in compose["services"] and host_port.group(2) == "6379", name
        assert env["UNO_ARENA_ADMIN_TOKEN"].startswith("${UNO_ARENA_ADMIN_TOKEN"), "token comes from the host"


def test_gateways_ports_and_env(compose: dict[str, Any], contract: dict[str, Any]) -> None:
    grpc_port = contract["ports"]["grpc"]
    assert contract["environment"]["UNO_ARENA_GRPC_ADDR"] == f"0.0.0.0:{grpc_port}"
    host_ports = set()
    for name, svc in by_command(compose, "serve").items():
        env = svc["environment"]
        assert env["UNO_ARENA_GRPC_ADDR"] == contract["environment"]["UNO_ARENA_GRPC_ADDR"], name
        assert env["UNO_ARENA_METRICS_PORT"] == str(am.DEFAULT_GATEWAY_METRICS_PORT), name
        assert str(am.DEFAULT_GATEWAY_METRICS_PORT) in svc["expose"], name
        assert am.MULTIPROC_DIR_ENV not in env, "gateways are single-process"
        (mapping,) = svc["ports"]
        host, container = mapping.split(":")
        assert int(container) == grpc_port, name
        host_ports.add(host)
    assert len(host_ports) == 2, "each gateway on its own host port"


def test_workers_ports_and_multiprocess_dir(compose: dict[str, Any]) -> None:
    workers = by_command(compose, "worker")
    assert workers, "compose has no worker service"
    for name, svc in workers.items():
        env = svc["environment"]
        assert env["UNO_ARENA_METRICS_PORT"] == str(am.DEFAULT_WORKER_METRICS_PORT), name
        assert str(am.DEFAULT_WORKER_METRICS_PORT) in svc["expose"], name
        assert env[am.MULTIPROC_DIR_ENV].startswith("/tmp/"), "writable by the image's non-root user"
        assert "ports" not in svc, "workers are scaled: no fixed host ports"


def test_prometheus_and_grafana_mounts_exist(compose: dict[str, Any], deploy_dir: Path) -> None:
    for name in ("prometheus", "grafana"):
        for volume in compose["services"][name]["volumes"]:
            source = volume.split(":")[0]
            if source.startswith("./"):
                assert (deploy_dir / source).is_dir(), f"{name}: {source}"
            else:
                assert source in compose["volumes"], f"{name}: {source}"
    command = compose["services"]["prometheus"]["command"]
    assert "--config.file=/etc/prometheus/prometheus.yml" in command


def healthcheck_code(compose: dict[str, Any]) -> str:
    (gateway, *_) = by_command(compose, "serve").values()
    test = gateway["healthcheck"]["test"]
    assert test[:3] == ["CMD", "python", "-c"]
    code: str = test[3]
    return code


def test_gateway_healthcheck_is_valid_python(compose: dict[str, Any]) -> None:
    code = healthcheck_code(compose)
    assert code.strip(), "the gateway healthcheck runs no code"
    compile(code, "<healthcheck>", "exec")


@pytest.mark.integration
@pytest.mark.parametrize("serving", [True, False])
def test_gateway_healthcheck_against_a_real_health_server(compose: dict[str, Any], serving: bool) -> None:
    grpc = pytest.importorskip("grpc", reason="grpcio not installed")
    health = pytest.importorskip("grpc_health.v1.health", reason="grpcio-health-checking not installed")
    health_pb2 = pytest.importorskip("grpc_health.v1.health_pb2")
    health_pb2_grpc = pytest.importorskip("grpc_health.v1.health_pb2_grpc")
    from concurrent import futures

    port = free_port()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
    servicer.set("", status)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    try:
        code = healthcheck_code(compose).replace("127.0.0.1:50051", f"127.0.0.1:{port}")
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
        )
    finally:
        server.stop(grace=None)
    assert result.returncode == (0 if serving else 1), result.stderr


def test_dockerfile(deploy_dir: Path, contract: dict[str, Any]) -> None:
    text = (deploy_dir / "Dockerfile").read_text()
    instructions = [
        line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    assert instructions[0] == "FROM python:3.11-slim"
    assert re.search(r"^RUN pip install \.", text, re.M)
    assert 'ENTRYPOINT ["uno-arena"]' in instructions
    assert 'CMD ["serve"]' in instructions
    assert any(i.startswith("USER ") and "root" not in i for i in instructions), "runs as non-root"
    exposed = {int(p) for i in instructions if i.startswith("EXPOSE ") for p in i.split()[1:]}
    ports = contract["ports"]
    assert exposed == {ports["grpc"], am.DEFAULT_GATEWAY_METRICS_PORT, am.DEFAULT_WORKER_METRICS_PORT,
                       DEFAULT_HOST_METRICS_PORT}
    assert re.search(r"apt-get install .*bubblewrap", text), "the bot host's sandbox (docs/hosting.md)"
    assert f"UNO_ARENA_GRPC_ADDR={contract['environment']['UNO_ARENA_GRPC_ADDR']}" in text


def test_dockerignore_keeps_what_pip_install_needs(deploy_dir: Path) -> None:
    ignored = {
        line.strip().rstrip("/")
        for line in (deploy_dir / "Dockerfile.dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for needed in ("pyproject.toml", "README.md", "arena", "bots", "workers", "proto"):
        assert needed not in ignored, needed
    assert {".git", ".venv"} <= ignored
