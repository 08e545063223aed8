"""The gateway's settings (:class:`GatewayConfig`), where it listens (:func:`grpc_address`) and its id in Redis
(:func:`new_gateway_id`)."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass

from arena.store.session_store import DEFAULT_TTL as DEFAULT_SESSION_TTL

DEFAULT_ADDRESS = "127.0.0.1:50051"
"""Loopback unless told otherwise (``--address`` or ``$UNO_ARENA_GRPC_ADDR``): the deploy files give 0.0.0.0."""
ADDRESS_ENV = "UNO_ARENA_GRPC_ADDR"
GATEWAY_ID_ENV = "UNO_ARENA_GATEWAY_ID"
MAX_MESSAGE_BYTES = 64 * 1024
DRAIN_TIMEOUT_S = 6.0
"""How long a draining gateway (:meth:`GatewayServer.drain`, SIGTERM of ``serve``) goes on handing relayed
decisions over to the gateways its bots moved to, at most; with the final stop it exits within 10 s."""


def grpc_address(flag: str | None = None) -> str:
    """The listen address: the flag, else ``$UNO_ARENA_GRPC_ADDR``, else :data:`DEFAULT_ADDRESS`."""
    return flag or os.environ.get(ADDRESS_ENV, "").strip() or DEFAULT_ADDRESS


def new_gateway_id() -> str:
    """``$UNO_ARENA_GATEWAY_ID`` or ``gw-<host>-<pid>-<random>`` (unique per process)."""
    configured = os.environ.get(GATEWAY_ID_ENV, "").strip()
    if configured:
        return configured
    host = "".join(c if c.isalnum() or c in "-_." else "-" for c in socket.gethostname())[:40] or "host"
    return f"gw-{host}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


@dataclass
class GatewayConfig:
    """Settings of one gateway; every field has a working default."""

    address: str = DEFAULT_ADDRESS
    gateway_id: str = ""
    """Identifies this gateway in Redis sessions and its relay queue; empty: :func:`new_gateway_id`."""
    hello_timeout_s: float = 10.0
    heartbeat_interval_s: float = 10.0
    heartbeat_misses: int = 3
    session_ttl_s: float = DEFAULT_SESSION_TTL
    """A session's life in Redis without a refresh (refreshed every third of it): a dead gateway's sessions stop
    counting this soon."""
    max_message_bytes: int = MAX_MESSAGE_BYTES
    max_concurrent_matches: int = 64
    """The most matches a session is offered (Welcome says min(this, what Hello offered))."""
    flood_limit: int = 50
    flood_window_s: float = 10.0
    max_outgoing: int = 4096
    """Messages queued for a bot that does not read its stream before it is disconnected."""
    relay: bool = True
    message_rate: float = 50_000.0
    """Messages per second a stream may send on average (a token bucket; a batch counts its inner messages)."""
    message_burst: int = 50_000
    """The bucket's size: messages a stream may send at once before ``message_rate`` applies."""
    new_streams_per_token: int = 20
    """New streams one token may open in ``new_streams_window_s``; more are refused (``RESOURCE_EXHAUSTED``)."""
    new_streams_window_s: float = 10.0
    slot_idle_s: float = 900.0
    """A match slot unused this long (and 20 decision time limits) is dropped: its runner is gone (a worker
    that died); it no longer counts toward the bot's capacity."""
    tls_cert: str = ""
    """PEM certificate chain file: serve TLS (with ``tls_key``, its private key file) instead of plaintext."""
    tls_key: str = ""
    keepalive_time_ms: int = 20_000
    keepalive_timeout_ms: int = 10_000
    drain_timeout_s: float = DRAIN_TIMEOUT_S
    goodbye_reconnect_ms: int = 0
    """``Goodbye.reconnect_after_ms``: the pause a drained bot makes before reconnecting (0: at once)."""
    unix_socket: str = ""
    """A Unix socket path to listen on as well (gRPC's ``unix:PATH``; ``serve --unix-socket``): what sandboxed bots
    without a network reach (:mod:`arena.hosting`). Made connectable by every user of the machine (mode 0666): the
    directory it sits in decides who reaches it."""
    reuse_port: bool = False
    """Share the port with other gateways that ask for it too (SO_REUSEPORT: a replacement started on the port of a
    gateway that drains); without it a port something listens on already is refused (``serve --reuse-port``)."""
