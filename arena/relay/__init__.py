"""The workers' side of the Redis relay to the gateway that holds a bot's stream: :class:`RelaySeat` (the one
remote seat: tournaments, `uno-arena match` and `bot check` seat bots through it), the envelope
(:mod:`arena.relay.envelope`, on ``proto/uno_arena/relay/v1/relay.proto``) and one hub per event loop
(:mod:`arena.relay.hub`). The messages, the statuses and which faults cost a strike are described in
docs/architecture.md ("The relay envelope"); the keys in :mod:`arena.store.keys`.
"""

from .relay_seat import RelaySeat

__all__ = ["RelaySeat"]
