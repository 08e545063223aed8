"""A hosted-bot arena of separate processes for the bot host's tests: a private Redis, the gateway (``uno-arena serve``
with the sandboxes' Unix socket) and ``uno-arena host``, each started here and stopped (SIGTERM, checked) after."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from arena.store import Store
from tests.support.redis_server import private_redis
from tests.support.waiting import wait_until


@dataclass
class HostedArena:
    """The running arena: its store, the environment its commands need, the sandboxes' socket, the host's work
    folder, the Redis and gateway ports and the tokens of the bots registered for the test."""

    store: Store
    env: dict[str, str]
    socket: str
    work_dir: Path
    redis_port: int
    gateway_port: int
    tokens: dict[str, str]

    @property
    def address(self) -> str:
        """The organizer API's address (the Unix socket serves the sandboxes' bot streams only)."""
        return f"127.0.0.1:{self.gateway_port}"

    def cli(self, *args: str, token: str = "", timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
        """``uno-arena ARGS`` against this arena, as the admin, or as a bot with ``token``."""
        env = dict(self.env, UNO_ARENA_ADMIN_TOKEN="", UNO_ARENA_BOT_TOKEN=token) if token else self.env
        return subprocess.run([sys.executable, "-m", "arena.cli", *args], env=env, capture_output=True, text=True,
                              timeout=timeout)


def _start(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen([sys.executable, "-m", "arena.cli", *argv], env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


def _stop(process: subprocess.Popen[bytes]) -> int:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return -9
    return process.returncode


@contextmanager
def hosted_arena(tmp: Path, admin: str, host_options: list[str], register: Callable[[Store], dict[str, str]],
                 before_host: Callable[[HostedArena], None] = lambda _arena: None) -> Iterator[HostedArena]:
    """The arena: ``register`` registers the test's bots (their tokens by name) once the gateway listens,
    ``before_host`` prepares what the host must find at its start; the host runs with ``host_options``. On the
    way out both stop on SIGTERM, and each must exit 0."""
    socket_dir = Path(os.environ.get("TMPDIR", "/tmp")) / f"uah-{os.getpid()}-{tmp.name}"  # a short socket path
    socket_dir.mkdir(exist_ok=True)
    with private_redis(persistence=False) as redis:
        env = dict(os.environ, REDIS_URL=redis.url, UNO_ARENA_ADMIN_TOKEN=admin, UNO_ARENA_BOT_TOKEN="")
        socket = str(socket_dir / "gw.sock")
        serve = _start(["serve", "--address", "127.0.0.1:0", "--unix-socket", socket, "--metrics-port", "-1"], env,
                       tmp / "serve.log")
        host: subprocess.Popen[bytes] | None = None
        store = Store.from_url(redis.url)
        try:
            wait_until(lambda: "listening on" in (tmp / "serve.log").read_text() and os.path.exists(socket),
                       timeout=30, what="the gateway listening on its Unix socket",
                       details=lambda: (tmp / "serve.log").read_text())
            port = int((tmp / "serve.log").read_text().split("(port ")[1].split(",")[0])
            made = HostedArena(store, env, socket, tmp / "work", int(urlsplit(redis.url).port or 0), port,
                               register(store))
            before_host(made)
            host = _start(["host", "--gateway-socket", socket, "--work-dir", str(made.work_dir), "--metrics-port",
                           "-1", *host_options], env, tmp / "host.log")
            yield made
        finally:
            host_code = _stop(host) if host is not None else 0
            serve_code = _stop(serve)
            store.close()
            shutil.rmtree(socket_dir, ignore_errors=True)
            print((tmp / "host.log").read_text()[-3000:] if (tmp / "host.log").exists() else "")
        assert host_code == 0, "the host did not stop cleanly on SIGTERM"
        assert serve_code == 0
