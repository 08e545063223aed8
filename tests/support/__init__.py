"""Shared test helpers (real components started on free ports, cleaned up afterwards).

- :func:`wait_until` / :func:`wait_until_async` (``waiting``): wait on explicit state, bounded, failing
  with a message that names what was waited for; tests do not sleep and then assert.
- :class:`LoopThread` (``loop_thread``): an asyncio event loop in a daemon thread, for synchronous tests
  that drive asyncio servers and bots.
- :func:`free_port`: a free loopback TCP port (``arena.processes.free_port``).
- ``redis_server``: a private real redis-server and its pytest fixtures (imported by ``tests/conftest.py``).
- ``gateway``: :class:`~tests.support.gateway.GatewayHarness`, a real gateway on a free port (also a process
  for test suites in other languages: ``python -m tests.support.gateway``).
- ``bots``: kit bots in a thread or a subprocess, and :class:`~tests.support.bots.RawBot`, a hand-driven client.
- ``cli``: the sub-commands of the `uno-arena` parser, and the one way to run it: in this process
  (:func:`~tests.support.cli.cli_in_process`) or in a process of its own with a clean environment and SIGINT at its
  default (:func:`~tests.support.cli.spawn_cli`, :func:`~tests.support.cli.run_cli`).
- ``tiers``: the unit and integration tiers (the ``integration`` marker set by service fixtures, and the guard that
  fails a unit test which starts a service), hooked in by ``tests/conftest.py``.
- ``organizer``: :class:`~tests.support.organizer.OrganizerServer`, the organizer API on a real grpc.aio server.
"""

from arena.processes import free_port
from tests.support.loop_thread import LoopThread
from tests.support.waiting import wait_until, wait_until_async

__all__ = ["LoopThread", "free_port", "wait_until", "wait_until_async"]
