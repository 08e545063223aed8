"""`python -m benchmarks search --gauntlet`: the arena's gauntlet verdict on a search bot level against the heuristic
bot.

The gauntlet itself (:func:`arena.service.gauntlet_runs.run_gauntlet`, in process, no store): the level as candidate,
the
heuristic as baseline, 2 seats, the heuristic as the opponent, the sequential test's default hypotheses (H1: a gain
of at least 0.05 finishing points per match) unless a cap on the blocks is given, duplicate blocks of 4 matches. What
it prints: each block as it is scored (its score, the LLR within Wald's bounds, the wall time so far), the verdict,
the mean block score with its 95% Student-t interval over the blocks (not corrected for the sequential stop:
:mod:`arena.tournament.stats.sprt`), and the search bot's decisions timed as `bench search` times them (wall clock and
this
process's CPU time, against the decision deadline; built-in bots play in process, so the arena does not enforce it:
the level's own time cap does).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from arena.engine import COMPILED, Action, Observation, Rules
from arena.players import Bot, BotFactory
from arena.service.gauntlet_runs import BlockOutcome, GauntletOutcome, build_spec, run_gauntlet
from arena.tournament.commitment import SECRET_BYTES
from arena.tournament.stats.intervals import mean_interval
from arena.tournament.stats.sprt import SprtConfig, SprtState
from bots.ismcts import IsmctsBot

from .search import LevelFigures, timing_lines

BASELINE = "heuristic"


@dataclass
class SearchTimes(LevelFigures):
    """:class:`LevelFigures` plus how many searched decisions stopped short of the level's simulations (its time cap
    ran out) and the fewest simulations a decision ran."""

    capped: int = 0
    fewest: int = 0
    deadline_s: float = 1.0
    over_deadline: list[float] = field(default_factory=list)


class TimedSearchBot(Bot):
    """A search bot whose searched decisions are timed into ``times`` (the rest of its behaviour is the bot's own)."""

    def __init__(self, bot: IsmctsBot, times: SearchTimes) -> None:
        super().__init__(bot.seed)
        self.bot = bot
        self.name = bot.name
        self.times = times

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        wall, cpu = time.perf_counter(), time.process_time()
        index = self.bot.choose(observation, legal)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        done = self.bot.last_simulations
        if done:
            times = self.times
            times.wall_s.append(wall)
            times.cpu_s.append(cpu)
            times.simulations += done
            times.capped += done < self.bot.simulations
            times.fewest = min(times.fewest, done) if times.fewest else done
            if wall > times.deadline_s:
                times.over_deadline.append(wall)
        return index


def timed_factory(make: BotFactory, times: SearchTimes, time_cap: bool = True) -> BotFactory:
    """``make``, with every search bot it makes timed into ``times`` (and without its time cap unless ``time_cap``)."""

    def timed(name: str, seed: int) -> Bot:
        bot = make(name, seed)
        if not isinstance(bot, IsmctsBot):
            return bot
        if not time_cap:
            bot.time_s = math.inf
        return TimedSearchBot(bot, times)

    return timed


def verdict_lines(outcome: GauntletOutcome, times: SearchTimes) -> list[str]:
    """The verdict, the estimate with its interval, and the search bot's time per decision."""
    state = outcome.state
    verdict = (f"verdict: {outcome.status.value} ({state.outcome}) after {state.n} blocks ({state.nonzero} non-zero), "
               f"LLR {state.llr:+.3f} in [{state.bounds[0]:.3f}, {state.bounds[1]:.3f}]")
    lines = [verdict, *estimate_lines(state, [block.score for block in outcome.blocks], times)]
    return lines if not outcome.detail else [verdict, f"  {outcome.detail}", *lines[1:]]


def estimate_lines(state: SprtState, scores: Sequence[float], times: SearchTimes) -> list[str]:
    """The mean block score with its interval, and the search bot's time per decision."""
    low, high = mean_interval(scores) or (-1.0, 1.0)
    lines = [f"  mean block score {state.mean:+.4f} finishing points per match over the baseline (95% interval "
             f"{low:+.4f} to {high:+.4f}, Student-t over the blocks; not corrected for the early stop)",
             *timing_lines(times)]
    searched = len(times.wall_s)
    if searched:
        lines.append(f"  {times.capped} of {searched} searched decisions stopped by the level's time cap (fewest "
                     f"simulations {times.fewest}); {len(times.over_deadline)} took longer than the "
                     f"{times.deadline_s * 1000:.0f} ms deadline (wall)")
    return lines


def run_search_gauntlet(level: str, *, rules: Rules, seed: int, make: BotFactory, out: TextIO,
                        max_blocks: int | None = None, deadline_ms: int = 1000, time_cap: bool = True,
                        sprt: SprtConfig | None = None,
                        clock: Callable[[], float] = time.perf_counter) -> tuple[GauntletOutcome, SearchTimes]:
    """Run and print the gauntlet of ``level`` against the heuristic (module docstring). ``GauntletError`` (a
    ``ValueError``) when ``level`` is not a built-in bot name. Without ``time_cap`` every decision runs the level's
    simulations however long they take (its strength on a core of its own, measured on a busy machine: the CPU times
    are then the figures to hold against the deadline)."""
    if seed < 0:
        raise ValueError(f"--seed must be at least 0 for a gauntlet, got {seed}")
    config = sprt or SprtConfig(max_blocks=max_blocks)
    spec = build_spec(candidate=level, baseline=BASELINE, seats=2, opponents=(BASELINE,), rules=rules, sprt=config,
                      seed=seed, decision_deadline_ms=deadline_ms, gauntlet_id=f"bench-search-{level}",
                      seed_secret=seed.to_bytes(SECRET_BYTES, "big").hex())
    times = SearchTimes(level, deadline_s=deadline_ms / 1000)
    started = clock()
    print(f"gauntlet {level} (candidate) vs {BASELINE} (baseline), 2 seats, opponent {BASELINE}, {rules.variant}, "
          f"target {rules.target}, deadline {deadline_ms} ms{'' if time_cap else ' (no time cap)'}, seed {seed}, "
          f"engine {'compiled (mypyc)' if COMPILED else 'pure Python'}", file=out)
    print(f"H0: gain <= {config.mu0:g}  H1: gain >= {config.mu1:g} finishing points per match  alpha {config.alpha:g}"
          f"  beta {config.beta:g}  at most {config.max_blocks or 'unlimited'} blocks", file=out, flush=True)

    blocks: list[BlockOutcome] = []

    def on_block(block: BlockOutcome) -> None:
        blocks.append(block)
        print(f"block {block.block + 1:4d}  score {block.score:+.3f}  LLR {block.state.llr:+.3f}  "
              f"{clock() - started:.0f} s", file=out, flush=True)

    try:
        outcome = run_gauntlet(spec, None, make_bot=timed_factory(make, times, time_cap), on_block=on_block)
    except KeyboardInterrupt:  # Ctrl-C, or `timeout -s INT`: what was measured so far
        state = blocks[-1].state if blocks else SprtState(config)
        print(f"interrupted after {state.n} blocks ({state.nonzero} non-zero): no verdict, LLR {state.llr:+.3f} in "
              f"[{state.bounds[0]:.3f}, {state.bounds[1]:.3f}]", file=out)
        for line in estimate_lines(state, [block.score for block in blocks], times):
            print(line, file=out, flush=True)
        raise
    for line in verdict_lines(outcome, times):
        print(line, file=out, flush=True)
    return outcome, times
