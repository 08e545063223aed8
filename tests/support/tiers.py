"""The test tiers, unit, integration and bench, kept apart in one place (a pytest plugin imported by
``tests/conftest.py`` and ``benchmarks/tests/conftest.py``).

- **Marking.** A test is ``integration`` when it uses a fixture that starts a service (:data:`SERVICE_FIXTURES`,
  directly or through another fixture: pytest's fixture closure is used, so a new fixture built on one of them is
  covered), or when its module says ``pytestmark = pytest.mark.integration`` (tests that start a process, a
  gateway, a gRPC server, a web server or a browser themselves). Every test under ``benchmarks/tests`` is also
  ``bench`` (:data:`BENCH_TESTS`): the benchmarks' own tests, outside the unit tier. A test of several seconds of
  CPU carries ``slow`` on itself. Everything else is a unit test: ``pytest -m "not integration and not bench and
  not slow"`` runs those alone.
- **Order.** Files with integration tests run first (:func:`pytest_collection_modifyitems`).
- **The guard.** In every run (unless :data:`GUARD_VARIABLE` is ``0``), a unit test fails when it starts a
  process, binds a socket (any server does) or creates a gRPC server from the thread that runs it: that is how an
  integration test left unmarked is caught, in the same run that runs it (``tests/test_tiers.py`` checks the
  guard itself). Events of other threads are not watched: a service an earlier integration test left to stop in
  the background must not fail the unit test that happens to run meanwhile. Processes and sockets are seen
  through Python's audit events (:func:`sys.addaudithook`), gRPC servers, whose sockets C code opens, through
  ``grpc.server`` and ``grpc.aio.server``.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest

INTEGRATION = "integration"
"""The marker of the tests that start services (see the module's docstring)."""

BENCH = "bench"
"""The marker of the benchmarks' tests."""

BENCH_TESTS = Path(__file__).resolve().parents[2] / "benchmarks" / "tests"
"""The folder of the benchmarks' tests: each test in it is marked :data:`BENCH`."""

GUARD_VARIABLE = "UNO_ARENA_UNIT_GUARD"
"""Set to ``0``: the guard is off (a unit test that starts a service is not failed; see :func:`install_guard`)."""

SERVICE_FIXTURES = frozenset({
    "redis_server_session",  # a redis-server process (``redis_server``, ``store``, ``app``, ``worker``,
    "fresh_redis_server",    # ``organizer``, ``gateway`` are built on these two)
    "promtool",              # runs Prometheus's promtool (tests/deploy/conftest.py)
})
"""The fixtures that start a service or a process: a test using any of them, even through other fixtures, is
integration."""

SERVICE_EVENTS = frozenset({
    "subprocess.Popen", "os.system", "os.posix_spawn", "os.fork", "os.forkpty", "os.exec", "os.spawn", "pty.spawn",
    "socket.bind",
})
"""The audit events (:pep:`578`) of starting a process or binding a socket."""


def starts_services(item: pytest.Item) -> bool:
    """Whether ``item`` uses a fixture of :data:`SERVICE_FIXTURES` (its fixture closure)."""
    return not SERVICE_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``integration`` every test that uses a service fixture and ``bench`` every test of the benchmarks; then
    put the files with integration tests first (each file's tests in their order): the README's command hands whole
    files to two processes in this order, and the long files first let the many short unit ones even out the end."""
    for item in items:
        if starts_services(item) and item.get_closest_marker(INTEGRATION) is None:
            item.add_marker(INTEGRATION)
        if item.path.is_relative_to(BENCH_TESTS) and item.get_closest_marker(BENCH) is None:
            item.add_marker(BENCH)
    integration_files = {item.path for item in items if item.get_closest_marker(INTEGRATION) is not None}
    items.sort(key=lambda item: item.path not in integration_files)


class Guard:
    """What the current unit test started (nothing, for an honest one); recording only while :meth:`watch`."""

    def __init__(self) -> None:
        self.watching = False
        self.seen: list[str] = []

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if self.watching and event in SERVICE_EVENTS and threading.current_thread() is threading.main_thread():
            self.seen.append(f"{event}{_brief(args)}")

    def grpc_server(self, create: Callable[..., Any], name: str) -> Callable[..., Any]:
        """``create`` (a gRPC server constructor), recording each call as ``name``."""
        def recorded(*args: Any, **kwargs: Any) -> Any:
            if self.watching and threading.current_thread() is threading.main_thread():
                self.seen.append(name)
            return create(*args, **kwargs)
        return recorded

    def watch(self) -> None:
        self.seen = []
        self.watching = True

    def stop(self) -> list[str]:
        """Stop recording; what was recorded."""
        self.watching = False
        return self.seen


_guard: Guard | None = None


def install_guard() -> Guard:
    """Watch processes, socket binds and gRPC servers (for good: an audit hook cannot be removed; it only records
    while a unit test runs)."""
    guard = Guard()
    sys.addaudithook(guard.audit)
    grpc.server = guard.grpc_server(grpc.server, "grpc.server()")
    grpc.aio.server = guard.grpc_server(grpc.aio.server, "grpc.aio.server()")
    return guard


def pytest_configure() -> None:
    global _guard
    if os.environ.get(GUARD_VARIABLE, "1") != "0" and _guard is None:
        _guard = install_guard()


def guard_installed() -> bool:
    """Whether this run guards its unit tests."""
    return _guard is not None


def _guarded(item: pytest.Item, phase: str) -> Generator[None, Any, Any]:
    guard = _guard
    if guard is None or item.get_closest_marker(INTEGRATION) is not None:
        return (yield)
    guard.watch()
    try:
        result = yield
    finally:
        seen = guard.stop()
    if seen:
        pytest.fail(f"{item.nodeid} is a unit test (not marked {INTEGRATION!r}) but started a service during "
                    f"{phase}: {'; '.join(dict.fromkeys(seen))}; mark it (see tests/support/tiers.py)", pytrace=False)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, Any, Any]:
    return (yield from _guarded(item, "setup"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    return (yield from _guarded(item, "the test"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, Any, Any]:
    return (yield from _guarded(item, "teardown"))


def _brief(args: tuple[Any, ...]) -> str:
    """An audit event's arguments, short (a command line's first words, an address)."""
    text = repr(args)
    return f" {text[:120]}{'...' if len(text) > 120 else ''}"
