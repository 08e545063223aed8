"""A whole arena on this machine as child processes (:func:`local_arena`: Redis, embedded unless REDIS_URL, the
gateway, a worker, the scheduler and the bot host when asked, remote bots), the one way `demo`, the end-to-end tests
and the load benchmark wire the pieces together; or in this process (:func:`inprocess_arena`: a gateway with the
organizer API and its relay consumer on :func:`arena_store`, for `match`, `bot check` and
:func:`arena.conformance.check_bot`).

The organizer API is locked as in a deployment: a fresh admin token goes to the children in their environment (and
to ``WORK_DIR/admin-token``, mode 0600), never in a command line; so does a bot's token.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.client import ArenaClient
from arena.processes import Processes, cli_argv, free_port, wait_until

if TYPE_CHECKING:
    from arena.players import BotFactory
    from arena.runner import MatchConfig, MatchRecord
    from arena.server.gateway import Gateway, GatewayServer
    from arena.store import Store

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
    gateway_socket: str = ""  # with local_arena(unix_socket=True)

    def register(self, name: str) -> str:
        return str(self.client.register_bot(name).token)

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
    """Start Redis, the gateway, a worker and, with ``scheduler_tick_s``, the scheduler ticking that often; stop
    everything on exit (SIGTERM becomes SystemExit, so a terminated demo or benchmark still stops its children).
    ``worker_env``: added to the worker's environment alone. ``unix_socket``: the gateway listens on
    ``WORK_DIR/gateway.sock`` as well (what the bot host needs: :meth:`LocalArena.start_host`)."""
    from arena.client.connection import write_secret_file

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


NO_REDIS = ("no Redis: set REDIS_URL to the arena's Redis (the one its gateways use), e.g. "
            "redis://127.0.0.1:6379/0")


def redis_problem() -> str | None:
    """Why this process cannot use the arena's Redis (``$REDIS_URL`` unset, unusable, or its server unreachable
    after a few seconds of retries), as one line for people; None when it answers."""
    from arena.store import Store, StoreConfigError

    url = os.environ.get("REDIS_URL", "").strip()
    if not url:
        return NO_REDIS
    try:
        with Store.from_url(url) as store:
            store.check_reachable()
    except StoreConfigError as error:
        return f"REDIS_URL: {error}"
    return None


@contextlib.contextmanager
def arena_store() -> Iterator[Store]:
    """The arena's Store on $REDIS_URL, or on an embedded redis-server (stopped on exit)."""
    from arena.store import Store
    from arena.store.embedded import ensure_redis_url

    url, embedded = ensure_redis_url()
    store = Store.from_url(url)
    try:
        yield store
    finally:
        store.close()
        if embedded is not None:
            embedded.close()


def organizer_services(store: Store, admin_token: str | None = None) -> list[Callable[[Any], None]]:
    """The organizer API as a service of a gateway on ``store``, its tasks sent to the workers of that store."""
    from arena.server.servicer import add_organizer

    def add(server: Any) -> None:
        from workers.celery_app import make_celery  # the Celery app only where tasks are sent
        from workers.enqueue import CeleryEnqueuer

        add_organizer(server, store, enqueuer=CeleryEnqueuer(make_celery(store.url)), admin_token=admin_token)

    return [add]


@dataclass
class InProcessArena:
    """A running in-process arena: its gateway server and an admin client of its organizer API."""

    server: GatewayServer
    client: ArenaClient

    @property
    def gateway(self) -> Gateway:
        return self.server.gateway

    @property
    def address(self) -> str:
        """Where bots connect (the loopback address of the port it listens on)."""
        return f"127.0.0.1:{self.server.port}"

    @property
    def bot_address(self) -> str:
        """Where the bots under check connect: the Unix socket when it listens on one, else :attr:`address`."""
        path = self.server.config.unix_socket
        return f"unix:{path}" if path else self.address

    # The blocking client's calls run in a thread: the server answers on this loop.
    async def register(self, name: str) -> str:
        return (await asyncio.to_thread(self.client.register_bot, name)).token

    async def is_registered(self, name: str) -> bool:
        """Whether ``name`` is a registered bot (GetBot; a deleted one counts as not registered)."""
        import grpc

        try:
            bot = await asyncio.to_thread(self.client.get_bot, name)
        except grpc.RpcError as error:
            if isinstance(error, grpc.Call) and error.code() == grpc.StatusCode.NOT_FOUND:
                return False
            raise
        return not bot.deleted

    async def play_match(self, config: MatchConfig, names: Sequence[str], make_bot: BotFactory, *,
                         wait_s: float | None) -> MatchRecord:
        """Play one match of ``names`` (registered bots seated as in production, through the store's relay), waiting
        up to ``wait_s`` for them to connect to this gateway first (None: other gateways hold them); TimeoutError
        naming who did not come."""
        from arena.runner import run_match
        from arena.service.seating import is_builtin, local_bot_seed, seat_for

        store = self.gateway.store
        seats = [seat_for(name, seed=local_bot_seed(config.seed, index), make_bot=make_bot, relay=store)
                 for index, name in enumerate(names)]
        if wait_s is not None:
            remote = dict.fromkeys(name for name in names if not is_builtin(name))
            await asyncio.gather(*(self.gateway.registry.wait_for_bot(name, wait_s) for name in remote))
        return await run_match(config, seats)


@contextlib.asynccontextmanager
async def inprocess_arena(store: Store, address: str, unix_socket: str = "") -> AsyncIterator[InProcessArena]:
    """Start a gateway with the organizer API and the relay consumer on ``address`` (port 0: a free one) of
    ``store``, and on the Unix socket ``unix_socket`` too when given; stopped on exit."""
    from arena.server.gateway import GatewayConfig, GatewayServer

    admin_token = secrets.token_urlsafe(32)
    server = GatewayServer(store, GatewayConfig(address=address, unix_socket=unix_socket),
                           services=organizer_services(store, admin_token))
    await server.start()
    client = ArenaClient(f"127.0.0.1:{server.port}", admin_token)
    try:
        yield InProcessArena(server, client)
    finally:
        client.close()
        await server.stop(1.0)
