"""The protobuf contract of uno-arena (proto/uno_arena/v1, and the internal relay proto/uno_arena/relay/v1:
`relay_pb2`) as Python modules, generated into `arena/protocol/_gen/` by `python -m tools.proto_code`.

    from arena.protocol import bot_pb2, bot_pb2_grpc, arena_pb2, arena_pb2_grpc, cards_pb2, game_pb2
"""

from __future__ import annotations

from arena.protocol._gen import (
    arena_pb2,
    arena_pb2_grpc,
    bot_pb2,
    bot_pb2_grpc,
    cards_pb2,
    game_pb2,
    relay_pb2,
)

# The protocol version of this package (uno_arena.v1), as sent in Hello and Welcome.
PROTOCOL_VERSION: int = cards_pb2.PROTOCOL_VERSION_1


# Full names of the services, e.g. for the reflection service and the health service.
BOT_SERVICE_NAME: str = bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name
ARENA_SERVICE_NAME: str = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name
SERVICE_NAMES: tuple[str, ...] = (BOT_SERVICE_NAME, ARENA_SERVICE_NAME)

# The token travels in this metadata key as `Bearer <token>` (gRPC metadata keys are lower case).
AUTH_METADATA_KEY = "authorization"
AUTH_SCHEME = "Bearer"

__all__ = [
    "ARENA_SERVICE_NAME",
    "AUTH_METADATA_KEY",
    "AUTH_SCHEME",
    "BOT_SERVICE_NAME",
    "PROTOCOL_VERSION",
    "SERVICE_NAMES",
    "arena_pb2",
    "arena_pb2_grpc",
    "bot_pb2",
    "bot_pb2_grpc",
    "cards_pb2",
    "game_pb2",
    "relay_pb2",
]
