"""A Redis that refuses writes mid-tournament (MISCONF, READONLY, OOM, NOREPLICAS): workers ride it out.

The refusal is made with ``min-replicas-to-write 1`` on a server without replicas: every write command
(the queue's BRPOP, the ack, the result script, heartbeats) fails with ``NOREPLICAS`` (a ``ResponseError``,
like ``MISCONF`` when the append-only file's disk is full). The worker process (a real ``uno-arena
worker``) must stay alive, back off and retry, and the tournament must finish once writes are accepted
again, every match recorded once.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from arena.service.lifecycle import create_tournament
from arena.store import Store
from tests.support import free_port, wait_until
from workers.enqueue import START_TASK

from .helpers import (
    assert_exactly_once,
    clean_standings,
    fast_app,
    small_spec,
    stored_spec,
    wait_finished,
    worker_standings,
)
from .test_worker_faults import FAULT_BOTS, scheduler_thread, scrape, wait_ready, worker_process


def _refuse_writes(server: Any, refuse: bool) -> None:
    client = server.client()
    try:
        client.config_set("min-replicas-to-write", 1 if refuse else 0)
    finally:
        client.close()


def store_errors(port: int) -> dict[str, float]:
    """The worker's ``uno_arena_store_errors_total`` series, by their labels."""
    return {k: v for k, v in scrape(port).items() if k.startswith("uno_arena_store_errors_total{")}


def refusals_met(proc: subprocess.Popen[str], log: Path, port: int, main_process: bool) -> bool:
    """Whether the worker has counted a refused write (and, with ``main_process``, backed off in the queue's BRPOP
    and logged its restart); an ``AssertionError`` with its log's tail if it has exited meanwhile."""
    assert proc.poll() is None, log.read_text()[-5000:]
    errors = store_errors(port)
    if not any('kind="noreplicas"' in k for k in errors):
        return False
    return not main_process or (any('where="broker"' in k for k in errors)
                                and "consumer restarts in" in log.read_text())


@pytest.mark.parametrize("retry_timeout", ["300", "1"], ids=["tasks-wait", "tasks-give-up"])
def test_worker_survives_refused_writes(
    fresh_redis_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, retry_timeout: str
) -> None:
    """``tasks-wait``: the batches retry their writes until Redis accepts them again. ``tasks-give-up`` (a retry
    timeout of 1 s): the batches fail, and the worker's main process meets the refusal acknowledging them (the
    original exit: ``Unrecoverable error: ResponseError``) and in the queue's BRPOP: it backs off instead."""
    monkeypatch.setenv("UNO_ARENA_STORE_RETRY_TIMEOUT", retry_timeout)
    server = fresh_redis_server
    app = fast_app(server.url)
    store = Store.from_url(server.url)
    spec = small_spec("t-refused", bots=FAULT_BOTS, deals=4, target=500)
    log = tmp_path / "stubborn.log"
    port = free_port()
    try:
        with scheduler_thread(fast_app(server.url)), \
                worker_process(server.url, tmp_path, "stubborn", metrics_port=port) as proc:
            wait_ready(app, "stubborn", proc, log)
            create_tournament(store, spec)
            app.send_task(START_TASK, args=[spec.tournament_id])
            wait_until(lambda: store.results.progress(spec.tournament_id).done >= 2, 60, "some matches")
            _refuse_writes(server, True)
            # Acks, heartbeats, results and the queue's BRPOP are all refused until the worker has met the refusal
            # (and, giving up, its main process has backed off in the queue's BRPOP): it must still be running.
            wait_until(lambda: refusals_met(proc, log, port, retry_timeout == "1"), 120, "the refusal to be met",
                       ignore=(OSError,), details=lambda: log.read_text()[-5000:])
            _refuse_writes(server, False)
            wait_finished(store, spec.tournament_id, timeout=120)
            assert proc.poll() is None, log.read_text()[-5000:]
            errors = store_errors(port)
            assert sum(v for k, v in errors.items() if 'kind="noreplicas"' in k) > 0, errors
            if retry_timeout == "1":  # the main process's back-offs are counted too
                assert any('where="broker"' in k for k in errors), errors
        text = log.read_text()
        assert "Unrecoverable error" not in text, text[-5000:]
        assert "NOREPLICAS" in text, text[-5000:]  # the refusal was met, and logged
        if retry_timeout == "1":
            assert "consumer restarts in" in text, text[-5000:]
        assert_exactly_once(store, spec)
        assert worker_standings(store, spec.tournament_id) == clean_standings(stored_spec(store, spec))
    finally:
        store.close()
