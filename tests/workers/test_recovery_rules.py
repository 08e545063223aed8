"""The rules that bring lost work back in seconds (issue 13, item 5), on a real broker queue and a real Redis:

- a batch message that left the broker's queue without its batch ever starting (a worker took it and died) is
  re-sent once it has been gone for ``queued_grace`` seconds, and not before; one still in the queue is never;
- the sessions of a gateway that died stop counting within their TTL (seconds), and the bot then counts as lost
  by the arena (no strike while it reconnects) until it opens a new session.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from celery import Celery

from arena.service.lifecycle import Settings, check_tournament, create_tournament, start_tournament
from arena.store import Store
from arena.store.runstate import RunState
from tests.support import wait_until
from workers.enqueue import CeleryEnqueuer, batch_task_id

from .helpers import small_spec


def _take_message(store: Store, task_id: str) -> None:
    """Take a batch's message out of the broker's queue, as a worker that dies before starting it does."""
    for raw in store.redis.lrange("celery", 0, -1):
        if json.loads(raw)["headers"]["id"] == task_id:
            assert store.redis.lrem("celery", 1, raw) == 1
            return
    raise AssertionError(f"no message {task_id} in the queue")


def test_a_queued_batch_whose_message_vanished_is_resent_after_the_grace(app: Celery, store: Store) -> None:
    spec = small_spec("t-lostq", deals=2)
    create_tournament(store, spec)
    settings = Settings(queued_grace=10.0, batch_size=3)
    enqueue = CeleryEnqueuer(app)
    start_tournament(store, spec.tournament_id, enqueue, settings)
    run = RunState(store, spec.tournament_id)
    batches = sorted(run.batch_states())
    assert enqueue.queued_batches(spec.tournament_id) == set(batches)  # nothing started: every message waits

    _take_message(store, batch_task_id(spec.tournament_id, batches[0]))
    now = time.time()
    first = check_tournament(store, spec.tournament_id, enqueue, settings, now=now)
    assert first.resent == 0  # gone from the queue just now: maybe a worker is starting it
    early = check_tournament(store, spec.tournament_id, enqueue, settings, now=now + 5.0)
    assert early.resent == 0
    late = check_tournament(store, spec.tournament_id, enqueue, settings, now=now + 10.5)
    assert late.resent == len(run.batch_matches([batches[0]])[batches[0]])
    waiting = enqueue.queued_batches(spec.tournament_id)
    assert waiting is not None and batches[0] not in waiting
    assert any(bid.startswith("x001-") for bid in waiting)  # the re-sent batch waits in the queue
    assert set(batches[1:]) <= waiting  # the others were never touched
    again = check_tournament(store, spec.tournament_id, enqueue, settings, now=now + 30.0)
    assert again.resent == 0  # re-sent once


def test_an_enqueuer_that_cannot_read_its_queue_says_so(store: Store) -> None:
    from workers.celery_app import make_celery

    nowhere = CeleryEnqueuer(make_celery("redis://127.0.0.1:1/0", broker_connection_timeout=0.5,
                                         broker_connection_max_retries=1))
    assert nowhere.queued_batches("t-x") is None


def test_a_dead_gateways_sessions_stop_counting_and_the_bot_is_the_arenas_loss(store: Store) -> None:
    store.bots.register("orphan")
    store.sessions.open("orphan", "gw-dead", ttl=0.3)  # its gateway never refreshes it again
    relay_answers: list[tuple[Any, bool]] = []
    asyncio.run(_find(store, "orphan", relay_answers))
    assert relay_answers[-1] == ("gw-dead", False)
    wait_until(lambda: not store.sessions.for_bot("orphan"), 5, "the dead gateway's session to expire")
    asyncio.run(_find(store, "orphan", relay_answers))  # pruned by for_bot: the lost mark remembers why
    assert relay_answers[-1] == (None, True)
    store.sessions.open("orphan", "gw-new")
    asyncio.run(_find(store, "orphan", relay_answers))
    assert relay_answers[-1] == ("gw-new", False)

    store.bots.register("leaver")
    session = store.sessions.open("leaver", "gw-live")
    store.sessions.close(session.session_id)  # the bot's own disconnect: no lost mark
    asyncio.run(_find(store, "leaver", relay_answers))
    assert relay_answers[-1] == (None, False)


async def _find(store: Store, bot: str, out: list[tuple[Any, bool]]) -> None:
    relay = store.relay()
    try:
        out.append(await relay.find_gateway(bot))
    finally:
        await relay.close()
