"""The completeness check of a tournament runs while every worker child plays a batch (issue 22, item 3): its
Celery messages wait behind the batches in the workers' queue, so `uno-arena scheduler` checks every active
tournament at the workers' check interval, between its ticks too. Every part is its own process (Redis, `serve`,
one `worker` with one child, `scheduler` with a long tick); the bot is a raw client that holds its decision, so the
only child is busy."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from arena.processes import Processes, cli_argv, free_port
from arena.protocol import bot_pb2
from arena.service.lifecycle import create_tournament
from arena.store import Store
from arena.store.runstate import RunState
from arena.tournament import TournamentSpec
from tests.support import wait_until
from tests.support.bots import RawBot
from tests.support.redis_server import PrivateRedis
from workers.celery_app import make_celery
from workers.enqueue import START_TASK


def _hold_decisions(bot: RawBot, asked: threading.Event) -> None:
    """Answer pings, never a decision: the match waits on this bot for its whole decision deadline."""
    for message in bot.messages(timeout=120):
        if message.WhichOneof("payload") == "ping":
            bot.send(bot_pb2.BotMessage(pong=bot_pb2.Pong(nonce=message.ping.nonce)))
        elif message.WhichOneof("payload") == "decision_request":
            asked.set()


def test_the_completeness_check_runs_while_the_only_worker_child_is_busy(redis_server: PrivateRedis,
                                                                          tmp_path: Path) -> None:
    url, address = redis_server.url, f"127.0.0.1:{free_port()}"
    store = Store.from_url(url)
    _record, token = store.bots.register("holder")
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ARENA_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.update(REDIS_URL=url)
    processes = Processes(tmp_path)
    bot: RawBot | None = None
    try:
        processes.start("gateway", [*cli_argv(), "serve", "--address", address, "--metrics-port", "-1",
                                    "--gateway-id", "gw1", "--insecure-no-admin-token"], env)
        processes.start("worker", [*cli_argv(), "worker", "--concurrency", "1", "--metrics-port", "-1",
                                   "--hostname", "w1@%h"], env)
        processes.start("scheduler", [*cli_argv(), "scheduler", "--tick", "600"], env)

        def connected() -> bool:
            nonlocal bot
            processes.check_alive()
            if bot is None:
                try:
                    bot = RawBot(address, token)
                    bot.hello(capacity=1)
                    bot.welcome(timeout=5)
                except Exception:
                    bot = None
            return bot is not None and bool(store.sessions.for_bot("holder"))

        wait_until(connected, 60, "the bot connected to the gateway")
        assert bot is not None
        asked = threading.Event()
        threading.Thread(target=_hold_decisions, args=(bot, asked), daemon=True).start()
        spec = TournamentSpec(tournament_id="busy", participants=("holder", "random"), seed=7,
                              decision_deadline_ms=30_000)
        create_tournament(store, spec)
        tournament_id = spec.tournament_id
        make_celery(url).send_task(START_TASK, args=[tournament_id])

        def asked_once() -> bool:
            processes.check_alive()
            return asked.is_set()

        wait_until(asked_once, 60, "the first decision asked of the bot")
        seconds, micros = store.redis.time()
        held_since = seconds + micros / 1e6
        run = RunState(store, tournament_id)
        # The only child waits on the bot (30 s per decision): a check now can only come from outside the workers.
        wait_until(lambda: float(run.get("checked_at") or 0) > held_since, 20,
                   "a completeness check while the only worker child plays the batch",
                   details=lambda: (tmp_path / "scheduler.log").read_text(errors="replace")[-1500:])
        assert not store.results.recorded(tournament_id)  # still the same batch, the child still busy
    finally:
        if bot is not None:
            bot.close()
        processes.stop_all()
        store.close()
