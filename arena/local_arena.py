"""A whole arena on this machine as child processes: Redis (embedded unless REDIS_URL), the gateway with
the organizer API, a Celery worker with N prefork processes, the scheduler when asked (cron schedules, the
competitions' ladder), remote bots in their own processes and, when asked, the bot host (`uno-arena host`: submitted
bots in their bubblewrap sandbox, reaching the gateway through its Unix socket).

`uno-arena demo`, the end-to-end tests and the load benchmark all start the arena through `local_arena`,
so there is one way the pieces are wired together on one machine (the same commands deploy/ runs).

The organizer API is locked as in a deployment: a fresh admin token (``secrets``) is written to
``WORK_DIR/admin-token`` (mode 0600) and given to the gateway, the client and the child processes in their
environment (``$UNO_ARENA_ADMIN_TOKEN``), never in a command line; bots get their own token the same way
(``$UNO_ARENA_BOT_TOKEN``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.client import ArenaClient
from arena.processes import Processes, cli_argv, free_port, wait_until


@dataclass
class LocalArena:
    """Addresses and handles of a running local arena."""

    work_dir: Path
    redis_url: str
    embedded_redis: bool
    address: str
    gateway_metrics_port: int
    worker_metrics_port: int
    processes: Processes
    client: ArenaClient
    env: dict[str, str]
    admin_token_file: Path
    gateway_socket: str = ""
    """The gateway's Unix socket (``local_arena(unix_socket=True)``), else ''."""
    tokens: dict[str, str] = field(default_factory=dict)

    def register(self, name: str) -> str:
        token = self.client.register_bot(name).token
        self.tokens[name] = token
        return token

    def connected(self) -> set[str]:
        return {bot.name for bot in self.client.list_bots() if bot.connected}

    def start_remote_bot(self, name: str, brain: str) -> None:
        """Register `name` and run it as `uno-arena bot run BRAIN` in its own process, over gRPC."""
        token = self.register(name)
        env = {k: v for k, v in self.env.items() if k not in ("UNO_ARENA_ADMIN_TOKEN", "UNO_ARENA_ADMIN_TOKEN_FILE")}
        self.processes.start(f"bot-{name}", [*cli_argv(), "bot", "run", brain, "--target", self.address],
                             dict(env, UNO_ARENA_BOT_TOKEN=token))

    def start_host(self, *extra: str) -> None:
        """Start the bot host (`uno-arena host`, its options ``extra``) on the gateway's Unix socket: it checks the
        submissions in the sandbox and runs the admitted ones. Needs ``local_arena(unix_socket=True)``."""
        if not self.gateway_socket:
            raise RuntimeError("the bot host needs the gateway's Unix socket: local_arena(unix_socket=True)")
        self.processes.start("host", [*cli_argv(), "host", "--gateway-socket", self.gateway_socket, "--work-dir",
                                      str(self.work_dir / "host"), "--metrics-port", "-1", *extra], self.env)

    def wait_for_bots(self, names: Sequence[str], timeout_s: float = 60.0) -> None:
        wanted = set(names)
        wait_until(lambda: self.connected() >= wanted, f"bots {sorted(wanted)} to connect", self.processes,
                   timeout_s)


@contextlib.contextmanager
def _redis(data_dir: Path) -> Iterator[tuple[str, bool]]:
    from arena.store.embedded import RedisServer

    url = os.environ.get("REDIS_URL")
    if url:
        yield url, False
        return
    server = RedisServer(data_dir=str(data_dir))
    server.start()
    try:
        yield server.url, True
    finally:
        server.stop()


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _answers(client: ArenaClient) -> bool:
    """Whether the organizer API answers (a gateway still starting raises UNAVAILABLE)."""
    next(client.list_bots(page_size=1), None)
    return True


@contextlib.contextmanager
def local_arena(worker_concurrency: int = 2, work_dir: Path | None = None,
                scheduler_tick_s: float | None = None,
                worker_env: Mapping[str, str] | None = None, unix_socket: bool = False) -> Iterator[LocalArena]:
    """Start Redis, the gateway, a worker and, with ``scheduler_tick_s``, the scheduler ticking that often (what
    fires cron schedules and runs the competitions' ladder; the demo's arena has one); stop everything (and the
    embedded Redis) on exit. ``worker_env``: settings for the worker alone, added to its environment (e.g.
    ``UNO_ARENA_MATCHES_PER_PROCESS``, read by :mod:`workers.celery_app`). ``unix_socket``: the gateway listens on
    ``WORK_DIR/gateway.sock`` as well (what the bot host needs: :meth:`LocalArena.start_host`).

    SIGTERM becomes SystemExit here, so a terminated demo or benchmark still stops its children.
    """
    from arena.client import write_secret_file

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_on_sigterm)

    work = work_dir or Path(tempfile.mkdtemp(prefix="uno-arena-"))
    processes = Processes(work)
    address = f"127.0.0.1:{free_port()}"
    gateway_metrics, worker_metrics = free_port(), free_port()
    with _redis(work / "redis") as (redis_url, embedded):
        metrics_dir = work / "metrics"
        metrics_dir.mkdir(exist_ok=True)
        admin_token = secrets.token_urlsafe(32)
        admin_token_file = work / "admin-token"
        write_secret_file(str(admin_token_file), admin_token + "\n")
        env = dict(os.environ, REDIS_URL=redis_url, UNO_ARENA_TARGET=address, UNO_ARENA_ADMIN_TOKEN=admin_token)
        env.pop("UNO_ARENA_ADMIN_TOKEN_FILE", None)
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # the gateway is one process: the plain registry
        client = None
        try:
            socket = str(work / "gateway.sock") if unix_socket else ""
            processes.start("gateway", [*cli_argv(), "serve", "--address", address,
                                        "--metrics-port", str(gateway_metrics),
                                        *(["--unix-socket", socket] if socket else [])], env)
            client = ArenaClient(address, admin_token)
            wait_until(lambda: _answers(client) and (not socket or os.path.exists(socket)), "the gateway", processes)
            processes.start("worker", [*cli_argv(), "worker", "--concurrency", str(worker_concurrency),
                                       "--metrics-port", str(worker_metrics)],
                            dict(env, **(worker_env or {}), PROMETHEUS_MULTIPROC_DIR=str(metrics_dir)))
            if scheduler_tick_s is not None:
                processes.start("scheduler", [*cli_argv(), "scheduler", "--tick", f"{scheduler_tick_s:g}"], env)
            yield LocalArena(work, redis_url, embedded, address, gateway_metrics, worker_metrics, processes,
                             client, env, admin_token_file, socket)
        finally:
            if client is not None:
                client.close()
            processes.stop_all()
