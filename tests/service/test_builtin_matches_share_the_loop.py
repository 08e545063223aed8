"""A match of built-in bots only never holds the worker's event loop (issue 22, item 1): the runner yields to the
loop every YIELD_EVERY in-process answers, so the remote matches beside it on the same loop keep being served."""

from __future__ import annotations

import asyncio

from arena.engine import Rules
from arena.runner import LocalSeat, MatchConfig, run_match
from arena.runner.loop import YIELD_EVERY
from bots import make_bot


def test_a_builtin_match_lets_the_loop_run_other_coroutines_every_few_answers() -> None:
    async def both() -> tuple[int, int]:
        turns = 0
        config = MatchConfig("share-1", 5, Rules(target=200))
        seats = [LocalSeat(make_bot("heuristic", seed=1), name="heuristic"),
                 LocalSeat(make_bot("random", seed=2), name="random")]
        match = asyncio.ensure_future(run_match(config, seats))
        while not match.done():  # another match on the loop: it gets a turn at every yield
            turns += 1
            await asyncio.sleep(0)
        return turns, len(match.result().decisions)

    turns, decisions = asyncio.run(both())
    assert decisions > 4 * YIELD_EVERY
    assert turns >= decisions // YIELD_EVERY  # without the yields: one turn before the match, one after
