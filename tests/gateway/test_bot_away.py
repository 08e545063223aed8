"""A bot that is away for a while, with real processes (issue 22, item 3): `uno-arena serve` and the kit bot
(`uno-arena bot run`) are their own processes, the matches are played over the Redis relay (:class:`RelaySeat`).

- A bot process that crashes (SIGKILL) and is back 2 s later has its decision's whole time to come back, as on a
  chess clock: no "not connected" strike, no forfeit.
- A match that ends while its bot is away frees the bot's slot: back with one slot, the bot is not seated again in
  the ended match, and its next match is admitted and played."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from arena.engine import Rules
from arena.relay import RelaySeat
from arena.runner import EndReason, LocalSeat, MatchConfig, MatchRecord, MatchSummary, SeatStart, run_match
from arena.store import Store
from bots import make_bot
from tests.gateway.test_gateway_drain import gateways_of, start_gateway
from tests.support import LoopThread, free_port, wait_until
from tests.support.bots import stop_process
from tests.support.redis_server import PrivateRedis

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def kit_bot(address: str, token: str, capacity: int) -> subprocess.Popen[bytes]:
    """`uno-arena bot run heuristic` in its own process, offering ``capacity`` matches at once."""
    env = {**os.environ, "PYTHONPATH": REPO}
    return subprocess.Popen([sys.executable, "-m", "arena.cli", "bot", "run", "heuristic", "--target", address,
                             "--token", token, "--max-concurrent", str(capacity)], env=env, cwd=REPO)


@contextmanager
def arena(redis_url: str, name: str) -> Iterator[tuple[Store, str, str, LoopThread]]:
    """`serve` on a free port, a registered bot (its token), and a loop thread to play matches on."""
    port = free_port()
    store = Store.from_url(redis_url)
    _record, token = store.bots.register(name)
    gateway, _out, _err = start_gateway(redis_url, port, f"gw-{name}")
    loop = LoopThread(f"away-{name}")
    try:
        yield store, f"127.0.0.1:{port}", token, loop
    finally:
        loop.close()
        stop_process(gateway)  # type: ignore[arg-type]
        store.close()


def test_a_bot_that_crashes_and_is_back_within_its_decision_time_is_not_charged(redis_server: PrivateRedis) -> None:
    """The decision in flight when the bot crashed waits for it at the gateway (sent again on its reconnect): a bot
    back after that decision's whole time is charged for it, once; the decisions asked while it is away then wait
    for it, each within its own time, and are answered once it is back (before: each was an instant fallback, and the
    third a forfeit). The deadline leaves a busy machine time to start the bot's process again (over 4 s at a load
    of 13 on 2 cores)."""
    deadline_s = 8.0
    with arena(redis_server.url, "phoenix") as (store, address, token, loop):
        bot = kit_bot(address, token, 4)
        records: list[MatchRecord] = []
        playing = threading.Event()
        playing.set()
        try:
            wait_until(lambda: gateways_of(store, "phoenix") == ["gw-phoenix"], 30, "the bot's session")

            async def play() -> None:  # matches one after the other, through the crash
                number = 0
                while playing.is_set():
                    number += 1
                    config = MatchConfig(match_id=f"phoenix-{number}", seed=number, rules=Rules(),
                                         decision_deadline_s=deadline_s)
                    seats = [RelaySeat(store, "phoenix"), LocalSeat(make_bot("random", seed=number))]
                    records.append(await run_match(config, seats))

            done = loop.submit(play())
            wait_until(lambda: len(records) >= 1 or done.done(), 60, "a first match played")
            bot.send_signal(signal.SIGKILL)  # in the middle of the next match
            bot.wait(10)
            wait_until(lambda: not gateways_of(store, "phoenix"), 10, "the crashed bot's session closed")
            # Its supervisor starts it again once the decision in flight has run out (plus the start-up time).
            threading.Event().wait(deadline_s + 0.5)
            bot = kit_bot(address, token, 4)
            played = len(records)
            wait_until(lambda: len(records) >= played + 2 or done.done(), 120, "two more matches after the crash")
            playing.clear()
            done.result(60)
        finally:
            playing.clear()
            stop_process(bot)
    assert all(not record.forfeits for record in records), [record.detail for record in records]
    assert all(record.end_reason is not EndReason.ABORTED for record in records), [r.detail for r in records]
    strikes = [(record.match_id, record.strikes, record.detail) for record in records if any(record.strikes)]
    assert sum(record.strikes[0] for record in records) <= 1 and not any(r.strikes[1] for r in records), strikes


def test_a_match_that_ends_while_its_bot_is_away_frees_the_bots_slot(redis_server: PrivateRedis) -> None:
    with arena(redis_server.url, "wanderer") as (store, address, token, loop):
        bot = kit_bot(address, token, 1)
        try:
            wait_until(lambda: gateways_of(store, "wanderer") == ["gw-wanderer"], 30, "the bot's session")
            seat = RelaySeat(store, "wanderer")
            asked = threading.Event()
            original = seat.decide

            async def decide_and_note(request):  # type: ignore[no-untyped-def]
                asked.set()
                return await original(request)

            seat.decide = decide_and_note  # type: ignore[method-assign]
            config = MatchConfig(match_id="left-behind", seed=1, rules=Rules(), decision_deadline_s=1.0,
                                 max_strikes=3)
            first = loop.submit(run_match(config, [seat, LocalSeat(make_bot("random", seed=1))]))
            wait_until(asked.is_set, 30, "the bot asked in its match")
            bot.send_signal(signal.SIGKILL)
            bot.wait(10)
            ended = first.result(120)  # it forfeits while away and the match ends without it
            assert ended.forfeits == [0], ended.detail
            bot = kit_bot(address, token, 1)  # back, with one slot
            wait_until(lambda: gateways_of(store, "wanderer") == ["gw-wanderer"], 30, "the bot back")
            config = MatchConfig(match_id="next-one", seed=2, rules=Rules(), decision_deadline_s=5.0)
            following = RelaySeat(store, "wanderer", admit_timeout_s=20.0)
            record = loop.run(run_match(config, [following, LocalSeat(make_bot("random", seed=2))]), 180)
        finally:
            stop_process(bot)
    assert record.end_reason is not EndReason.ABORTED and not record.forfeits and not any(record.strikes), record.detail


def test_a_match_waiting_for_a_free_slot_of_a_connected_bot_waits_past_a_minute(redis_server: PrivateRedis) -> None:
    """A bot offering one match plays one (its slot held for over a minute); the next match of the bot waits for
    the slot (up to 10 minutes, the docs say) and is played once the first ends: not scored as a forfeit."""
    with arena(redis_server.url, "single") as (store, address, token, loop):
        bot = kit_bot(address, token, 1)
        try:
            wait_until(lambda: gateways_of(store, "single") == ["gw-single"], 30, "the bot's session")
            holder = RelaySeat(store, "single")
            info = SeatStart("holding", 0, ("single", "random"), Rules(), 5.0, "", 1)
            loop.run(holder.start(info), 30)  # the first match holds the bot's only slot
            config = MatchConfig(match_id="waiting", seed=3, rules=Rules(), decision_deadline_s=5.0)
            waiting = loop.submit(run_match(config, [RelaySeat(store, "single"), LocalSeat(make_bot("random"))]))
            held = threading.Event()
            held.wait(75.0)  # the first match goes on for longer than a minute
            loop.run(holder.end("holding", MatchSummary("holding", (0, 0), None, 0, EndReason.ABORTED, (), (0, 0),
                                                        (0, 0))), 30)
            record = waiting.result(120)
        finally:
            stop_process(bot)
    assert record.end_reason is not EndReason.ABORTED and not record.forfeits and not any(record.strikes), record.detail
