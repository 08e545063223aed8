"""The Redis server's own running totals (``INFO commandstats``, ``INFO stats``): how many commands it ran and how
many bytes it read and wrote. A benchmark takes them before and after a run; the difference is the run's cost in
Redis, whoever the clients were."""

from __future__ import annotations

from dataclasses import dataclass

import redis


@dataclass(frozen=True)
class ServerCounters:
    """Totals since the server started (or since ``CONFIG RESETSTAT``)."""

    commands: int
    """Calls of every command (``INFO commandstats``: the sum of ``calls`` over the ``cmdstat_*`` lines)."""
    net_input_bytes: int
    net_output_bytes: int

    @property
    def net_bytes(self) -> int:
        """Bytes read and written, both ways."""
        return self.net_input_bytes + self.net_output_bytes

    def __sub__(self, earlier: ServerCounters) -> ServerCounters:
        return ServerCounters(self.commands - earlier.commands, self.net_input_bytes - earlier.net_input_bytes,
                              self.net_output_bytes - earlier.net_output_bytes)


def read_counters(client: redis.Redis) -> ServerCounters:
    """The server's totals now (two round trips)."""
    commandstats = client.info("commandstats")
    stats = client.info("stats")
    calls = sum(int(entry["calls"]) for name, entry in commandstats.items()
                if name.startswith("cmdstat_") and isinstance(entry, dict))
    return ServerCounters(calls, int(stats["total_net_input_bytes"]), int(stats["total_net_output_bytes"]))
