"""Built-in bots that think hard (the search bots) playing people's games in processes of their own (*lanes*), so
that a visitor's game never takes the CPU of the process that serves everyone else's pages: each lane is a spawned
process at ``nice`` 19 with an address-space limit, a game's bots stay in one lane for the whole match (a bot may
keep state between decisions), and a move past :data:`MOVE_CAP_S`, or a lane that died (started again for the next
game), is a timeout like any bot's.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import multiprocessing
import os
import resource
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from arena.engine import Action, Observation
from arena.players import Bot, BotFactory
from arena.runner import MatchSummary, Seat, SeatRequest, SeatTimeout

LANE_NICE = 19
"""The lanes' CPU priority: the lowest, so the web process (nice 0) is served first on a busy machine."""
LANE_MEMORY_BYTES = 1 << 30
"""Each lane's address-space limit (RLIMIT_AS): 1 GiB."""
MOVE_CAP_S = 20.0
"""The longest a pooled bot's move may take, waiting in its lane's queue included."""
SEARCH_PREFIX = "ismcts"


def pooled_kind(kind: str) -> bool:
    """Whether the built-in bot ``kind`` plays in a lane (the search bots) rather than in the calling process."""
    return kind.startswith(SEARCH_PREFIX)


# -- in the lane's process --------------------------------------------------------------------------------------

_BOTS: OrderedDict[str, Bot] = OrderedDict()
LANE_BOTS = 1024
"""The bots a lane keeps at most: past it the one that decided least recently goes (a game cancelled before its end
never says so)."""


def _lane_start() -> None:
    """A lane's first act: lower its priority and bound its memory."""
    os.nice(LANE_NICE)
    resource.setrlimit(resource.RLIMIT_AS, (LANE_MEMORY_BYTES, LANE_MEMORY_BYTES))


def _choose(key: str, make_bot: BotFactory, kind: str, seed: int, observation: Observation,
            legal: Sequence[Action]) -> int:
    """The index the bot of seat ``key`` chooses (made by ``make_bot(kind, seed)`` on its first decision)."""
    bot = _BOTS.get(key)
    if bot is None:
        bot = _BOTS[key] = make_bot(kind, seed)
        while len(_BOTS) > LANE_BOTS:
            _BOTS.popitem(last=False)
    _BOTS.move_to_end(key)
    return bot.choose(observation, legal)


def _forget(key: str) -> None:
    _BOTS.pop(key, None)


# -- in the calling process -------------------------------------------------------------------------------------


class BotProcesses:
    """``lanes`` processes playing the pooled bots (started on first use, stopped by :meth:`close`)."""

    def __init__(self, lanes: int = 1) -> None:
        if lanes < 1:
            raise ValueError(f"lanes must be 1 or more, got {lanes}")
        self.lanes = lanes
        self._executors: list[ProcessPoolExecutor | None] = [None] * lanes
        self._turn = itertools.count()
        self._lock = threading.Lock()

    def next_lane(self) -> int:
        """The lane of the next game (in turn)."""
        return next(self._turn) % self.lanes

    def executor(self, lane: int) -> ProcessPoolExecutor:
        """The process of ``lane``, started again when it died."""
        with self._lock:
            executor = self._executors[lane]
            if executor is not None and getattr(executor, "_broken", False):  # its process died: start another
                executor.shutdown(wait=False, cancel_futures=True)
                executor = None
            if executor is None:
                executor = self._executors[lane] = ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_lane_start)
            return executor

    def forget(self, lane: int, key: str) -> None:
        """Drop the bot of seat ``key`` from its lane (its match ended)."""
        executor = self._executors[lane]
        if executor is not None:
            with contextlib.suppress(BrokenProcessPool, RuntimeError):  # a lane gone or closed forgets anyway
                executor.submit(_forget, key)

    def close(self) -> None:
        with self._lock:
            executors, self._executors = self._executors, [None] * self.lanes
        for executor in executors:
            if executor is not None:
                executor.shutdown(wait=False, cancel_futures=True)


class PooledSeat(Seat):
    """A built-in bot of one match, playing in a lane of ``processes``."""

    def __init__(self, processes: BotProcesses, lane: int, make_bot: BotFactory, kind: str, seed: int,
                 name: str, key: str) -> None:
        self.processes = processes
        self.lane = lane
        self.make_bot = make_bot
        self.kind = kind
        self.seed = seed
        self.name = name
        self.version = "builtin"
        self.key = key

    async def decide(self, request: SeatRequest) -> int:
        try:
            future = self.processes.executor(self.lane).submit(_choose, self.key, self.make_bot, self.kind, self.seed,
                                                               request.observation, list(request.legal))
            return await asyncio.wait_for(asyncio.wrap_future(future), MOVE_CAP_S)
        except TimeoutError:
            raise SeatTimeout(f"match {request.match_id}, decision {request.decision_number}: {self.name} did not "
                              f"answer in {MOVE_CAP_S:g} s") from None
        except BrokenProcessPool:
            raise SeatTimeout(f"match {request.match_id}, decision {request.decision_number}: {self.name}'s process "
                              "ended; it is started again") from None

    async def end(self, match_id: str, summary: MatchSummary) -> None:
        self.processes.forget(self.lane, self.key)
