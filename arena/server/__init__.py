"""gRPC servers of uno-arena: the bot gateway (:mod:`arena.server.gateway`), its authentication, deadlines and relay
consumer, and the organizer API (:mod:`arena.server.organizer`, served by :mod:`arena.server.servicer`)."""
