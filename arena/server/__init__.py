"""gRPC servers of uno-arena: the bot gateway (:mod:`arena.server.gateway`, BotService + health +
reflection + the Redis relay consumer), its authentication (:mod:`arena.server.auth`), the conformance
checks run against a connected bot (:mod:`arena.server.conformance`), the gateway benchmark
(:mod:`arena.server.bench`) and the organizer API (``arena/server/organizer.py``, when present).
"""
