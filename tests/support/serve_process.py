"""A real `uno-arena serve` in a process of its own, on a private Redis, with an admin token and an archive folder,
and a real `uno-arena worker` beside it (so tournaments play): for tests that attack the gateway from outside as a
client would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arena.store import Store
from tests.support.redis_server import private_redis
from tests.support.waiting import wait_until

ADMIN = "admin-token-of-the-serve-process"


@dataclass
class ServeProcess:
    """The running gateway: its address, its store (the test's own client of the same Redis) and folders."""

    address: str
    store: Store
    archive_dir: Path
    log: Path
    process: subprocess.Popen[bytes]
    env: dict[str, str]


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def serve_process(tmp: Path, *, worker: bool = False) -> Iterator[ServeProcess]:
    """`uno-arena serve` on 127.0.0.1 (a free port), its archives in ``tmp/archives``, and with ``worker`` a
    `uno-arena worker` of one child on the same Redis; stopped with SIGTERM."""
    archives = tmp / "archives"
    log = tmp / "serve.log"
    with private_redis(persistence=False) as redis:
        env = dict(os.environ, REDIS_URL=redis.url, UNO_ARENA_ADMIN_TOKEN=ADMIN, UNO_ARENA_BOT_TOKEN="")
        env.pop("UNO_ARENA_ARCHIVE_DIR", None)
        with open(log, "wb") as out:
            process = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--address", "127.0.0.1:0",
                                        "--metrics-port", "-1", "--archive-dir", str(archives)],
                                       env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        workers: list[subprocess.Popen[bytes]] = []
        store = Store.from_url(redis.url)
        store.submissions.use_archive_dir(str(archives))
        try:
            wait_until(lambda: "listening on" in log.read_text() or process.poll() is not None, timeout=30,
                       what="the gateway listening", details=lambda: log.read_text())
            assert process.poll() is None, log.read_text()
            port = int(log.read_text().split("(port ")[1].split(",")[0])
            if worker:
                with open(tmp / "worker.log", "wb") as out:
                    workers.append(subprocess.Popen(
                        [sys.executable, "-m", "arena.cli", "worker", "--concurrency", "1", "--metrics-port", "-1"],
                        env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
            yield ServeProcess(f"127.0.0.1:{port}", store, archives, log, process, env)
        finally:
            for started in [*workers, process]:
                _stop(started)
            store.close()
