"""gRPC servers of uno-arena: the bot gateway (:mod:`arena.server.gateway`, BotService + health + reflection; a
package of one module per job), its authentication (:mod:`arena.server.auth`) and deadlines
(:mod:`arena.server.deadlines`), its match side as the relay sees it (:mod:`arena.server.match_api`), the gateway's
side of the Redis relay (:mod:`arena.server.relay_consumer`) and the organizer API (:mod:`arena.server.organizer`:
request parsing, authorization and calls into :mod:`arena.service`).
"""
