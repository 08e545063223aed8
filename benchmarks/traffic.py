"""What a Redis server has done so far, as INFO tells it (:class:`ServerTraffic`): the calls of each command
(``INFO commandstats``), the bytes it read from and wrote to its clients (``total_net_input_bytes``,
``total_net_output_bytes``) and the CPU time it used (``used_cpu_user`` + ``used_cpu_sys``). Two snapshots
subtracted (:meth:`ServerTraffic.since`) give the traffic of whatever ran in between: the load, relay and remote
benchmarks divide it by the decisions played.

The figures are the whole server's: every client of it counts (Celery's broker and results, the organizer API,
the relay), the INFO commands that take the snapshots too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import redis


@dataclass(frozen=True)
class ServerTraffic:
    """Commands (calls by lower-case name) and bytes in and out of one Redis server, counted since it started."""

    calls: dict[str, int] = field(default_factory=dict)
    net_input_bytes: int = 0
    net_output_bytes: int = 0
    cpu_s: float = 0.0

    @property
    def commands(self) -> int:
        return sum(self.calls.values())

    @property
    def net_bytes(self) -> int:
        """Bytes read and written, both ways."""
        return self.net_input_bytes + self.net_output_bytes

    def since(self, earlier: ServerTraffic) -> ServerTraffic:
        """The traffic between ``earlier`` and this snapshot (of the same server, not restarted meanwhile)."""
        calls = {name: count - earlier.calls.get(name, 0) for name, count in self.calls.items()}
        return ServerTraffic({name: count for name, count in calls.items() if count},
                             self.net_input_bytes - earlier.net_input_bytes,
                             self.net_output_bytes - earlier.net_output_bytes, self.cpu_s - earlier.cpu_s)


def server_traffic(client: redis.Redis) -> ServerTraffic:
    """A snapshot of the server's traffic (three INFO commands)."""
    stats: Mapping[str, Any] = client.info("stats")
    cpu: Mapping[str, Any] = client.info("cpu")
    commandstats: Mapping[str, Any] = client.info("commandstats")
    calls = {name.removeprefix("cmdstat_").lower(): int(entry["calls"]) for name, entry in commandstats.items()
             if isinstance(entry, dict) and "calls" in entry}
    return ServerTraffic(calls, int(stats.get("total_net_input_bytes", 0)), int(stats.get("total_net_output_bytes", 0)),
                         float(cpu.get("used_cpu_user", 0.0)) + float(cpu.get("used_cpu_sys", 0.0)))
