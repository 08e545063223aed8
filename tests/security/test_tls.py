"""TLS (issue 12, part 6): a gateway served with a certificate and key plays a match with a kit bot that trusts
that certificate (``tls_ca``), the CLI's client connects over the same TLS port (where `serve` puts the
organizer API), and a plaintext client is not let in. The certificate is self-signed, made here for
``localhost`` and ``127.0.0.1``."""

from __future__ import annotations

import datetime
import ipaddress
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.client import ArenaClient
from arena.store import Store
from tests.support import free_port, wait_until
from tests.support.bots import ThreadBot, stop_process
from tests.support.cli import REPO, spawn_cli
from tests.support.gateway import GatewayHarness, running_gateway
from tests.support.redis_server import PrivateRedis


def make_self_signed(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate and its key (PEM files) for localhost / 127.0.0.1, valid for a day."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        if shutil.which("openssl") is None:
            pytest.skip("making a test certificate needs the Python package 'cryptography' or the openssl command")
        cert_file, key_file = directory / "cert.pem", directory / "key.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", str(key_file), "-out", str(cert_file), "-days", "1",
                        "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True)
        return cert_file, key_file
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                    x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_path.chmod(0o600)
    return cert_path, key_path


@pytest.fixture
def tls_gateway(redis_server: PrivateRedis, tmp_path: Path) -> Iterator[tuple[GatewayHarness, Path]]:
    cert, key = make_self_signed(tmp_path)
    with running_gateway(redis_server.url, hello_timeout_s=2.0, tls_cert=str(cert), tls_key=str(key)) as gateway:
        yield gateway, cert


def test_a_match_over_tls(tls_gateway: tuple[GatewayHarness, Path]) -> None:
    gateway, cert = tls_gateway
    token = gateway.register_bot("secure")
    with ThreadBot(f"localhost:{gateway.port}", token, tls_ca=str(cert)) as bot:
        gateway.wait_for_bot("secure")
        record = gateway.run_match(["secure", "random", "heuristic"], seed=3, decision_deadline_s=5.0, timeout_s=60)
        wait_until(lambda: bot.stats.matches_ended == 1, 10, "MatchEnded at the bot")
    assert record.end_reason == "target", record.detail
    assert record.timeouts == [0, 0, 0] and record.strikes == [0, 0, 0]


def test_the_cli_client_connects_over_tls_and_plaintext_is_refused(tls_gateway: tuple[GatewayHarness, Path]) -> None:
    gateway, cert = tls_gateway
    client = ArenaClient(f"localhost:{gateway.port}", tls_ca=str(cert))  # the CLI's client (uno-arena ... --tls-ca)
    try:  # the harness serves health, not the organizer API: the same server, port and credentials
        reply = health_pb2_grpc.HealthStub(client.channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        client.close()
    with grpc.insecure_channel(f"127.0.0.1:{gateway.port}") as channel, pytest.raises(grpc.FutureTimeoutError):
        grpc.channel_ready_future(channel).result(timeout=2)


def test_a_bot_that_does_not_trust_the_certificate_is_not_connected(tls_gateway: tuple[GatewayHarness, Path],
                                                                     tmp_path: Path) -> None:
    gateway, _cert = tls_gateway
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    other_cert, _ = make_self_signed(other_dir)
    token = gateway.register_bot("distrustful")
    with ThreadBot(f"localhost:{gateway.port}", token, tls_ca=str(other_cert)) as bot:
        with pytest.raises(TimeoutError):
            gateway.wait_for_bot("distrustful", timeout=2)
        assert bot.stats.sessions == 0


def test_the_node_bot_plays_over_tls(tls_gateway: tuple[GatewayHarness, Path]) -> None:
    node = shutil.which("node")
    if node is None or not (REPO / "bots" / "js" / "node_modules" / "@grpc").is_dir():
        pytest.skip("the Node.js bot needs node and its node_modules (npm ci in bots/js)")
    gateway, cert = tls_gateway
    token = gateway.register_bot("jstls")
    process = subprocess.Popen([node, str(REPO / "bots" / "js" / "bot.js"), "--target", f"localhost:{gateway.port}",
                                "--tls-ca", str(cert), "--log-level", "warn"],
                               env={"UNO_ARENA_TOKEN": token, "PATH": "/usr/bin:/bin"}, cwd=REPO)
    try:
        gateway.wait_for_bot("jstls", timeout=20)
        record = gateway.run_match(["jstls", "random"], seed=2, decision_deadline_s=5.0, timeout_s=60)
    finally:
        process.terminate()
        process.wait(10)
    assert record.end_reason == "target", record.detail
    assert record.timeouts == [0, 0]


# -- the command line: serve --tls-cert/--tls-key, bots register --tls-ca, bot run --tls-ca ----------------------


def _cli(*args: str, redis_url: str, env_extra: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return spawn_cli(*args, env_extra={"REDIS_URL": redis_url, **(env_extra or {})})


def test_serve_with_tls_then_register_run_and_match_from_the_command_line(redis_server: PrivateRedis,
                                                                          tmp_path: Path) -> None:
    cert, key = make_self_signed(tmp_path)
    url, port = redis_server.url, free_port()
    admin = tmp_path / "admin-token"
    target = f"localhost:{port}"
    server = _cli("serve", "--address", f"127.0.0.1:{port}", "--metrics-port", "-1", "--heartbeat", "1",
                  "--generate-admin-token", str(admin), "--tls-cert", str(cert), "--tls-key", str(key), redis_url=url)
    bot = None
    try:
        credentials = grpc.ssl_channel_credentials(cert.read_bytes())
        with grpc.secure_channel(target, credentials) as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
        registered = _cli("bots", "register", "clitls", "--target", target, "--tls-ca", str(cert), redis_url=url,
                          env_extra={"UNO_ARENA_ADMIN_TOKEN_FILE": str(admin)})
        out, err = registered.communicate(timeout=30)
        assert registered.returncode == 0, err
        token = out.strip().splitlines()[-1].split()[-1]
        token_file = tmp_path / "clitls.token"
        token_file.write_text(token)
        plain = _cli("bots", "list", "--target", target, redis_url=url,
                     env_extra={"UNO_ARENA_ADMIN_TOKEN_FILE": str(admin)})
        _out, err = plain.communicate(timeout=60)
        assert plain.returncode == 1 and "UNAVAILABLE" in err  # a plaintext client cannot talk to a TLS port
        bot = spawn_cli("bot", "run", "heuristic", "--target", target, "--tls-ca", str(cert), "--token-file",
                        str(token_file), stdout=None, stderr=None)
        store = Store.from_url(url)
        try:
            wait_until(lambda: store.sessions.online("clitls"), 15, "clitls's session in Redis")
        finally:
            store.close()
        match = _cli("match", "--seats", "clitls,random", "--relay", "--json", "--seed", "3", redis_url=url)
        out, err = match.communicate(timeout=120)
        assert match.returncode == 0, err
        record = json.loads(out.strip().splitlines()[-1])
        assert record["end_reason"] == "target" and record["timeouts"] == [0, 0]
    finally:
        if bot is not None:
            stop_process(bot)
        server.terminate()
        out, err = server.communicate(timeout=30)
    assert "(port" in out and "TLS)" in out, out


def test_serve_refuses_a_certificate_it_cannot_read(redis_server: PrivateRedis, tmp_path: Path) -> None:
    server = _cli("serve", "--address", f"127.0.0.1:{free_port()}", "--metrics-port", "-1", "--insecure-no-admin-token",
                  "--tls-cert", str(tmp_path / "missing.pem"), "--tls-key", str(tmp_path / "missing.key"),
                  redis_url=redis_server.url)
    _out, err = server.communicate(timeout=60)
    assert server.returncode == 2 and "TLS" in err and "missing.key" in err, err
