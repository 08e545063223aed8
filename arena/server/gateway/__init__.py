"""The bot gateway: a ``grpc.aio`` server that holds bot streams and multiplexes every match of a bot on it.

One :class:`~arena.server.gateway.stream.BotSession` per open ``BotService/Connect`` stream; one
:class:`~arena.server.gateway.links.BotLink` per bot name on this gateway, which outlives its sessions (its matches
and pending decisions follow a bot that reconnects). The conversation is in ``proto/uno_arena/v1/bot.proto``; what
the gateway refuses and why, and its modules, lowest first, in docs/architecture.md ("The bot gateway").
Per-decision deadlines are the application's: a gRPC deadline would cover the whole stream.
"""

from __future__ import annotations

from arena.server.gateway.config import GatewayConfig, grpc_address
from arena.server.gateway.server import GatewayServer, server_credentials
from arena.server.gateway.service import Gateway

__all__ = ["Gateway", "GatewayConfig", "GatewayServer", "grpc_address", "server_credentials"]
