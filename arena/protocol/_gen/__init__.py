"""Generated Python code of proto/uno_arena/v1 and proto/uno_arena/relay/v1 (do not edit: run
`python -m tools.proto_code`).

Import it through `arena.protocol` (e.g. `from arena.protocol import bot_pb2, bot_pb2_grpc`).
"""
