"""A real Celery worker (celery.contrib.testing) on the private redis-server runs the canary task."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

import celery.contrib.testing.tasks  # noqa: F401  - registers celery.ping, used by start_worker
from celery.contrib.testing.worker import start_worker

import workers.tasks
from arena.store import Store
from workers.celery_app import (
    TASK_TIME_LIMIT,
    VISIBILITY_TIMEOUT,
    get_store,
    make_celery,
)
from workers.celery_app import (
    app as default_app,
)


def test_canary_runs_on_a_real_worker(redis_server: Any, store: Store) -> None:
    app = make_celery(redis_server.url)
    before = time.time()
    with start_worker(app, pool="solo", perform_ping_check=True, shutdown_timeout=30):
        result = app.tasks[workers.tasks.canary.name].delay()
        ts = result.get(timeout=30)
    beat = store.canary.last()
    assert beat is not None and beat.ts == ts >= before
    assert beat.worker  # the worker's host name
    assert app.conf.broker_url == redis_server.url


def test_configuration_is_deliberate(redis_server: Any) -> None:
    app = make_celery(redis_server.url)
    c = app.conf
    assert c.task_acks_late is True
    assert c.task_reject_on_worker_lost is True
    assert c.worker_prefetch_multiplier == 1
    assert c.broker_transport_options["visibility_timeout"] == VISIBILITY_TIMEOUT
    assert c.result_backend_transport_options["visibility_timeout"] == VISIBILITY_TIMEOUT
    assert c.task_soft_time_limit < c.task_time_limit == TASK_TIME_LIMIT < VISIBILITY_TIMEOUT
    assert c.worker_max_tasks_per_child is None
    assert c.broker_connection_retry_on_startup is True
    assert c.task_serializer == c.result_serializer == "json" and c.accept_content == ["json"]
    assert c.result_expires == 24 * 3600
    assert "workers.tasks.canary" in app.tasks
    assert c.beat_schedule["canary"]["task"] == "workers.tasks.canary"
    assert default_app.main == "uno-arena"


def test_socket_urls_are_converted_for_each_side() -> None:
    app = make_celery("unix:///tmp/x/redis.sock?db=1")
    assert app.conf.broker_url == "redis+socket:///tmp/x/redis.sock?virtual_host=1"
    assert app.conf.arena_redis_url == "unix:///tmp/x/redis.sock?db=1"


def test_get_store_is_cached_per_process(redis_server: Any) -> None:
    app = make_celery(redis_server.url)
    assert get_store(app) is get_store(app)
    assert get_store(app).ping()


def test_prefork_worker_process_smoke(redis_server: Any, store: Store, tmp_path: Any) -> None:
    """`celery -A workers.celery_app worker` as a real process with prefork children reads REDIS_URL."""
    env = {**os.environ, "REDIS_URL": redis_server.url}
    log = open(tmp_path / "worker.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker", "--pool", "prefork",
         "--concurrency", "2", "--loglevel", "INFO", "--hostname", "smoke@%h", "--without-mingle",
         "--without-gossip"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        app = make_celery(redis_server.url)
        results = [app.tasks[workers.tasks.canary.name].delay() for _ in range(4)]
        stamps = [r.get(timeout=60) for r in results]
        beat = store.canary.last()
        assert beat is not None and beat.ts in stamps and beat.worker.startswith("smoke@")
    finally:
        proc.send_signal(signal.SIGTERM)  # warm shutdown
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        log.close()
    assert proc.returncode == 0, (tmp_path / "worker.log").read_text()[-3000:]
