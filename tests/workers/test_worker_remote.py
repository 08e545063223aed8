"""Remote bots in tournaments: played through the Redis relay and a real gateway (RelaySeat), and a
bot that disconnects for good (its remaining matches are forfeited, the tournament still ends)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from celery import Celery

from arena.runner import LocalSeat, Seat, SeatGone, SeatRequest
from arena.service.lifecycle import create_tournament, tournament_table
from arena.service.matches import make_seat
from arena.store import Store
from arena.tournament import MatchSpec
from bots import RandomBot, make_bot
from bots.kit import match_seed, play_async
from tests.support import LoopThread
from tests.support.gateway import GatewayHarness
from workers.enqueue import START_TASK

from .helpers import assert_exactly_once, clean_standings, small_spec, stored_spec, wait_finished, worker_standings


class GoneSeat(Seat):
    """A bot with no connection: every decision raises SeatGone (what RelaySeat does for it)."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def decide(self, request: SeatRequest) -> int:
        raise SeatGone(f"{self.name} is gone")


@contextmanager
def remote_bot(gw: GatewayHarness, name: str, token: str, stop_after: int | None = None) -> Iterator[threading.Event]:
    """The Python kit playing `RandomBot` (one per match and seat) as `name`, on its own event loop thread;
    with `stop_after`, it leaves after that many decisions. The event is set once it has left."""
    left = threading.Event()
    stop = asyncio.Event()
    decisions = 0

    with LoopThread(f"remote-bot-{name}") as loop_thread:

        class Counting(RandomBot):
            def choose(self, observation: Any, legal: Any) -> int:
                nonlocal decisions
                decisions += 1
                if stop_after is not None and decisions >= stop_after:
                    loop_thread.call_soon(stop.set)
                return super().choose(observation, legal)

        played = loop_thread.submit(play_async(Counting, target=gw.address, token=token, stop=stop))
        played.add_done_callback(lambda _: left.set())
        try:
            gw.wait_for_bot(name, timeout=15)
            yield left
        finally:
            loop_thread.call_soon(stop.set)
            concurrent.futures.wait([played], timeout=15)


def test_remote_bot_plays_through_the_relay(redis_server: Any, app: Celery, worker: Any, store: Store) -> None:
    with GatewayHarness(redis_url=redis_server.url) as gw:
        token = gw.register_bot("remote1")
        spec = small_spec("t-remote", bots=("random", "heuristic", "remote1"), deals=1)
        spec = type(spec).from_dict({**spec.to_dict(), "deadline_ms": 5000})
        with remote_bot(gw, "remote1", token):
            create_tournament(store, spec)
            app.send_task(START_TASK, args=[spec.tournament_id])
            wait_finished(store, spec.tournament_id)
    assert_exactly_once(store, spec)

    def seat(m: MatchSpec, name: str) -> Seat:
        if name == "remote1":  # what the kit plays: a RandomBot seeded from the match id and the seat
            return LocalSeat(RandomBot(seed=match_seed(m.match_id, m.seats.index(name))), name=name)
        return make_seat(store, name, m.match_id, make_bot)

    assert worker_standings(store, spec.tournament_id) == clean_standings(stored_spec(store, spec), seat)
    assert tournament_table(store, spec.tournament_id).standings.row("remote1").forfeits == 0


def test_a_remote_bot_that_disconnects_for_good(redis_server: Any, app: Celery, worker: Any, store: Store) -> None:
    with GatewayHarness(redis_url=redis_server.url) as gw:
        token = gw.register_bot("ghost")
        spec = small_spec("t-ghost", bots=("random", "heuristic", "ghost"), deals=2)
        # It answers a few decisions, then its process goes away and never comes back.
        with remote_bot(gw, "ghost", token, stop_after=20) as left:
            create_tournament(store, spec)
            app.send_task(START_TASK, args=[spec.tournament_id])
            assert left.wait(timeout=60), "the bot did not leave after 20 decisions"
        wait_finished(store, spec.tournament_id)
        assert_exactly_once(store, spec)
        row = tournament_table(store, spec.tournament_id).standings.row("ghost")
        assert row.forfeits >= 1 and row.strikes >= 3

        # Gone from the start: deterministic, so equal to a clean run where the seat is gone.
        # (Another rating pool, target 120, so that no prior rating from the first run enters.)
        again = small_spec("t-ghost2", bots=("random", "heuristic", "ghost"), deals=2, target=120)
        create_tournament(store, again)
        app.send_task(START_TASK, args=[again.tournament_id])
        wait_finished(store, again.tournament_id)
    assert_exactly_once(store, again)

    def seat(m: MatchSpec, name: str) -> Seat:
        return GoneSeat(name) if name == "ghost" else make_seat(store, name, m.match_id, make_bot)

    assert worker_standings(store, again.tournament_id) == clean_standings(stored_spec(store, again), seat)
    ghost = tournament_table(store, again.tournament_id).standings.row("ghost")
    assert ghost.forfeits == ghost.matches == 4
