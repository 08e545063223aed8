"""The gateway process's gRPC server (:class:`GatewayServer`): BotService behind the token check, health, reflection
and any more servicers (the organizer API), the heartbeat and relay consumer tasks, and stopping or draining it all.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
import stat
from collections.abc import Callable, Sequence
from typing import Any

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from arena.metrics import ArenaMetrics
from arena.protocol import SERVICE_NAMES
from arena.server.auth import BotAuthInterceptor
from arena.server.gateway.config import GatewayConfig
from arena.server.gateway.drain import hand_over
from arena.server.gateway.service import Gateway
from arena.server.malformed import MalformedRequests
from arena.server.relay_consumer import RelayConsumer
from arena.store import Store

STOP_TASKS_TIMEOUT_S = 3.0
"""How long stopping waits for the heartbeat and relay tasks to end (they end within a second)."""


def server_credentials(config: GatewayConfig) -> grpc.ServerCredentials | None:
    """TLS credentials from ``tls_cert``/``tls_key`` (PEM files), or None for plaintext."""
    if not config.tls_cert and not config.tls_key:
        return None
    if not (config.tls_cert and config.tls_key):
        raise ValueError("TLS needs both a certificate and a key (--tls-cert FILE --tls-key FILE)")
    with open(config.tls_key, "rb") as key, open(config.tls_cert, "rb") as cert:
        return grpc.ssl_server_credentials([(key.read(), cert.read())])


def server_options(config: GatewayConfig) -> list[tuple[str, int]]:
    """Channel arguments of the gateway: small receive limit, keepalive 20 s / 10 s, no max_connection_age."""
    return [
        ("grpc.max_receive_message_length", config.max_message_bytes),
        ("grpc.keepalive_time_ms", config.keepalive_time_ms),
        ("grpc.keepalive_timeout_ms", config.keepalive_timeout_ms),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_recv_ping_interval_without_data_ms", 10_000),
        ("grpc.http2.max_ping_strikes", 0),
        ("grpc.so_reuseport", int(config.reuse_port)),
    ]


def add_unix_port(server: grpc.aio.Server, path: str) -> None:
    """Listen on the Unix socket ``path`` too, in plaintext even when the TCP port has TLS (a local socket: the
    kernel is the only one between the ends); a stale socket file left by a dead gateway is replaced, any other
    file there is an error; OSError naming the path when it cannot."""
    if os.path.lexists(path):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise OSError(f"--unix-socket {path} exists and is not a socket: give another path")
        os.unlink(path)
    listen(server, f"unix:{os.path.abspath(path)}", None,
           f"cannot listen on the Unix socket {path}: check that its directory exists and is writable")


def listen(server: grpc.aio.Server, address: str, credentials: grpc.ServerCredentials | None, refusal: str) -> int:
    """The port ``server`` listens on at ``address`` (TLS with ``credentials``); OSError(``refusal``) when it cannot
    (gRPC logged why)."""
    try:
        if credentials is None:
            port = server.add_insecure_port(address)
        else:
            port = server.add_secure_port(address, credentials)
    except RuntimeError:  # "Failed to bind to address ...": gRPC logged the reason
        port = 0
    if not port:
        raise OSError(refusal)
    return port


class AddressInUse(OSError):
    """Something listens on the gateway's address already and port sharing was not asked for."""

    def __str__(self) -> str:
        return str(self.strerror)


def ensure_address_free(address: str) -> None:
    """Raise :class:`AddressInUse` (its message names the fix) when a process listens on ``address`` (``HOST:PORT``,
    ``[V6]:PORT``) already; port 0 and addresses of other forms pass (gRPC itself reports them). Checked before gRPC
    binds, which would log a line of its own first."""
    host, _, port_text = address.rpartition(":")
    if not port_text.isdigit() or int(port_text) == 0:
        return
    try:
        infos = socket.getaddrinfo(host.strip("[]") or None, int(port_text), type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except OSError:
        return
    for family, kind, proto, _name, sockaddr in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a closed connection's TIME_WAIT is no use
            try:
                probe.bind(sockaddr)
            except OSError as error:
                if error.errno != errno.EADDRINUSE:
                    return
                raise AddressInUse(
                    error.errno, f"{address} is in use: another process (another `uno-arena serve`?) listens there; "
                    "stop it or give another --address (to share the port with a gateway that drains, start both "
                    "with --reuse-port)") from None


def _bot_service_handler() -> grpc.GenericRpcHandler:
    async def unauthenticated(_requests: Any, context: grpc.aio.ServicerContext) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "no credentials were checked")

    # Raw bytes both ways: the gateway parses requests itself, so a malformed message gets an in-band error
    # instead of ending the call, and outgoing messages are serialised once. The auth interceptor puts
    # Gateway.connect, bound to the verified bot, in the place of `unauthenticated`.
    handler = grpc.stream_stream_rpc_method_handler(unauthenticated)
    return grpc.method_handlers_generic_handler("uno_arena.v1.BotService", {"Connect": handler})


class GatewayServer:
    """The gateway process's server; ``services``: callables ``add(server)`` adding more servicers before start."""

    def __init__(self, store: Store, config: GatewayConfig | None = None, *, metrics: ArenaMetrics | None = None,
                 services: Sequence[Callable[[grpc.aio.Server], None]] = ()) -> None:
        self.store = store
        self.config = config or GatewayConfig()
        self.gateway = Gateway(store, self.config, metrics)
        self.metrics = self.gateway.metrics
        self.services = list(services)
        self.port = 0
        self.server: grpc.aio.Server | None = None
        self.sandbox_server: grpc.aio.Server | None = None
        """The Unix socket's server (``unix_socket``): BotService and health only."""
        self.health = HealthServicer()
        self._tasks: list[asyncio.Task[None]] = []
        self._relay: RelayConsumer | None = None

    def _grpc_server(self) -> grpc.aio.Server:
        """A server with BotService behind the token check and health (no other service yet)."""
        server = grpc.aio.server(
            # Malformed request bytes: INVALID_ARGUMENT naming the method on every RPC (arena.server.malformed).
            interceptors=[MalformedRequests(),
                          BotAuthInterceptor(self.store, self.gateway.connect, self.gateway.stream_limiter)],
            options=server_options(self.config),
        )
        server.add_generic_rpc_handlers((_bot_service_handler(),))
        health_pb2_grpc.add_HealthServicer_to_server(self.health, server)
        return server

    async def start(self) -> None:
        server = self._grpc_server()
        for add in self.services:
            add(server)
        reflection.enable_server_reflection((*SERVICE_NAMES, health_pb2.DESCRIPTOR.services_by_name["Health"]
                                             .full_name, reflection.SERVICE_NAME), server)
        credentials = server_credentials(self.config)
        if not self.config.reuse_port:
            ensure_address_free(self.config.address)
        port = listen(server, self.config.address, credentials,
                      f"cannot listen on {self.config.address}: give another --address (a port shared with another "
                      "gateway needs --reuse-port on both)")
        self.port = self.gateway.registry.port = port
        await server.start()
        self.server = server
        if self.config.unix_socket:
            # The sandboxes' socket: a server of its own with BotService and health only. A hosted bot plays and
            # nothing else: no organizer API to read back state with (docs/hosting.md, bots without memory), and
            # nothing there to tell its admission check from a live match.
            sandboxes = self._grpc_server()
            add_unix_port(sandboxes, self.config.unix_socket)
            await sandboxes.start()
            os.chmod(self.config.unix_socket, 0o666)  # sandboxed bots run as other users; the directory guards it
            self.sandbox_server = sandboxes
        for name in ("", *SERVICE_NAMES):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        self._tasks.append(asyncio.create_task(self.gateway.heartbeat_loop()))
        if self.config.relay:
            self._relay = RelayConsumer(self.store, self.gateway, self.metrics)
            self._tasks.append(asyncio.create_task(self._relay.run()))
        self.metrics.set_gateway_up(True)
        self.metrics.set_build_info("gateway")

    async def stop(self, grace: float | None = 5.0) -> None:
        """Stop serving: health NOT_SERVING, sessions closed (bots reconnect elsewhere), tasks ended."""
        self.metrics.set_gateway_up(False)
        with contextlib.suppress(Exception):
            await self.health.enter_graceful_shutdown()
        self.gateway.registry.close_all()
        if self._relay is not None:
            self._relay.stop()  # its loop ends at its next pop even if redis-py swallows the cancellation
        await self._end_tasks(STOP_TASKS_TIMEOUT_S)
        if self.sandbox_server is not None:
            await self.sandbox_server.stop(grace)
        if self.server is not None:
            await self.server.stop(grace)

    async def drain(self, grace: float = 2.0, reason: str = "the gateway is draining") -> None:
        """Drain, then stop (SIGTERM of ``uno-arena serve``, docs/operations.md); returns within about
        ``drain_timeout_s`` + 4.5 s, whatever the bots and Redis do: stop listening (a gateway sharing the port
        with ``reuse_port`` gets every new connection), say Goodbye to every bot (``Drain``), hand relayed
        decisions over to the gateways the bots moved to (:func:`hand_over`), end every task, stop."""
        loop = asyncio.get_running_loop()
        until = loop.time() + max(0.0, self.config.drain_timeout_s)
        self.metrics.set_gateway_up(False)
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1.0):
                await self.health.enter_graceful_shutdown()
        stopping: asyncio.Future[Any] | None = None
        servers = [s for s in (self.server, self.sandbox_server) if s is not None]
        if servers:  # stop listening now; running streams get `grace` to end
            stopping = asyncio.gather(*(s.stop(grace) for s in servers))
        for task in self._tasks[:1]:  # the heartbeat: it must not re-create the sessions deleted next
            task.cancel()
        await self.gateway.drainer.start(reason)
        await hand_over(self.gateway.drainer, self._relay, until)
        self.gateway.registry.close_all(reason)
        await self._end_tasks(min(STOP_TASKS_TIMEOUT_S, 1.5))  # the relay consumer ends at its next pop
        if stopping is not None:
            await asyncio.wait({stopping}, timeout=grace + 1.0)

    async def _end_tasks(self, timeout_s: float) -> None:
        """Cancel the heartbeat and relay tasks and wait ``timeout_s`` at most for them to end."""
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=timeout_s)
        self._tasks.clear()
