"""`python -m benchmarks engine`: random legal play through the public API, and RLCard's UNO env when installed.

Each configuration plays whole matches (random legal actions via `legal_actions()` and `apply()`) for a
fixed CPU time on one core and reports rounds/s and decisions/s per CPU second (process time, so other
load on a shared machine skews the figures less), best of a few interleaved repeats. RLCard (optional
extra `bench`) is measured in the same run, two ways: driven by `env.step` (its fastest path) and by
`env.run` with random agents (its documented idiom); the ratio is against the `env.step` figure first.

Where the engine is compiled (mypyc, `uno-arena engine compile`), the run measures both builds of the same source,
each in a fresh child process per repeat (the pure-Python one, the reference, loads the sources:
`UNO_ARENA_ENGINE=pure`), interleaved with each other and with RLCard.
"""

from __future__ import annotations

import functools
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from arena.engine import COMPILED, ENGINE_VARIABLE, Match, Rules, Variant
from arena.gc_tuning import configure_gc

CONFIGURATIONS = tuple((variant, players) for variant in ("flip", "classic") for players in (2, 4))
"""The engine's configurations: (variant, players)."""
COMPILED_SUFFIX = " mypyc"
"""Appended to a configuration's name for the compiled engine's figures."""


def engine_rate(players: int, variant: str, seconds: float) -> tuple[float, float]:
    """(rounds/s, decisions/s) of random legal play for about `seconds`."""
    random_unit = random.Random(12345).random  # the same cheap uniform choice for both engines
    rules = Rules(variant=Variant(variant))
    decisions = rounds = 0
    seed = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        match = Match(players=players, seed=seed, rules=rules)
        seed += 1
        while True:
            decision = match.decision
            if decision == "round_over":
                rounds += 1
                match.next_round()
            elif decision == "match_over":
                rounds += 1
                break
            else:
                legal = match.legal_actions()
                match.apply(match.current, legal[int(random_unit() * len(legal))])
                decisions += 1
    elapsed = time.process_time() - start
    return rounds / elapsed, decisions / elapsed


def engine_name(variant: str, players: int, compiled: bool = False) -> str:
    return f"uno-arena {variant} {players}p" + (COMPILED_SUFFIX if compiled else "")


def child_engine_rates(seconds: float, compiled: bool) -> dict[str, tuple[float, float]]:
    """Every configuration measured once by one build of the engine, in a fresh child process (the pure one loads
    the sources): both builds run alike, away from what this process holds (RLCard's objects, for one)."""
    env = {key: value for key, value in os.environ.items() if key != ENGINE_VARIABLE}
    if not compiled:
        env[ENGINE_VARIABLE] = "pure"
    result = subprocess.run([sys.executable, "-m", "benchmarks.engine", str(seconds), str(compiled)],
                            capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"the engine's run in a child process failed: {result.stderr.strip()[-500:]}")
    return {name: (rounds, decisions) for name, (rounds, decisions) in json.loads(result.stdout).items()}


def _rlcard_env(players: int) -> Any:
    import rlcard

    return rlcard.make("uno", config={"seed": 1, "game_num_players": players})


def rlcard_step_rate(players: int, seconds: float) -> tuple[float, float]:
    """(games/s, decisions/s) of RLCard's UNO env driven by ``env.step`` with random legal actions: the
    fastest way to play it (no agents, no trajectories)."""
    env = _rlcard_env(players)
    random_unit = random.Random(1).random
    decisions = games = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _ = env.step(legal[int(random_unit() * len(legal))])
            decisions += 1
        games += 1
    elapsed = time.process_time() - start
    return games / elapsed, decisions / elapsed


def rlcard_run_rate(players: int, seconds: float) -> tuple[float, float]:
    """(games/s, decisions/s) of RLCard's documented idiom: ``env.run`` with a ``RandomAgent`` per seat."""
    from rlcard.agents import RandomAgent

    env = _rlcard_env(players)
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(players)])
    decisions = games = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        trajectories, _payoffs = env.run(is_training=False)
        # A seat's trajectory alternates state, action, state, ...; it ends with the final state.
        decisions += sum((len(trajectory) - 1) // 2 for trajectory in trajectories)
        games += 1
    elapsed = time.process_time() - start
    return games / elapsed, decisions / elapsed


def rlcard_installed() -> bool:
    try:
        import rlcard  # noqa: F401
    except ImportError:
        return False
    return True


def run_engine_bench(seconds: float, out: TextIO, rlcard: bool = True, repeats: int = 3) -> dict[str, float]:
    """Measure every configuration ``repeats`` times, interleaved, and keep the best of each: other load on
    a shared machine only ever slows a measurement down, and interleaving exposes every configuration to
    the same noise. Prints the table; returns decisions/s by configuration."""
    rates: dict[str, Callable[[], tuple[float, float]]] = {}
    if not COMPILED:  # the pure engine alone, in this process
        for variant, players in CONFIGURATIONS:
            rates[engine_name(variant, players)] = functools.partial(engine_rate, players, variant, seconds)
    with_rlcard = rlcard and rlcard_installed()
    if with_rlcard:
        for players in (2, 4):
            rates[f"rlcard uno {players}p env.step"] = functools.partial(rlcard_step_rate, players, seconds)
            rates[f"rlcard uno {players}p env.run"] = functools.partial(rlcard_run_rate, players, seconds)
    best: dict[str, tuple[float, float]] = {}
    failed: dict[str, str] = {}
    for _ in range(max(1, repeats)):
        if COMPILED:
            for compiled in (False, True):
                _keep_best(best, child_engine_rates(seconds, compiled))
        for name, measure in rates.items():
            if name in failed:
                continue
            try:
                figure = measure()
            except Exception as error:  # RLCard refuses some player counts; say so, keep going
                failed[name] = str(error)
                continue
            _keep_best(best, {name: figure})
    _print_table(best, failed, max(1, repeats), out)
    if os.environ.get(ENGINE_VARIABLE) == "pure":
        print(f"{ENGINE_VARIABLE}=pure: the pure-Python engine only", file=out)
    elif not COMPILED:
        print("compiled engine not built (uno-arena engine compile): the pure-Python engine only", file=out)
    if rlcard and not with_rlcard:
        print("rlcard not installed (pip install 'uno-arena[bench]'): no comparison", file=out)
    return {name: figure[1] for name, figure in best.items()}


def _keep_best(best: dict[str, tuple[float, float]], figures: dict[str, tuple[float, float]]) -> None:
    for name, figure in figures.items():
        if name not in best or figure[1] > best[name][1]:
            best[name] = figure


def _print_table(best: dict[str, tuple[float, float]], failed: dict[str, str], repeats: int, out: TextIO) -> None:
    """The figures, engines first (pure, then compiled with its ratio to pure), then RLCard with our ratios to it."""
    print(f"{'configuration':<30}{'rounds/s':>12}{'decisions/s':>14}   (best of {repeats}, per CPU second; "
          "RLCard: games/s)", file=out)
    engines = [engine_name(variant, players, compiled) for compiled in (False, True) for variant, players in
               CONFIGURATIONS]
    for name in [name for name in engines if name in best] + [name for name in best if name not in engines]:
        rounds, decisions = best[name]
        line = f"{name:<30}{rounds:>12,.0f}{decisions:>14,.0f}"
        pure = best.get(name.removesuffix(COMPILED_SUFFIX))
        if name.endswith(COMPILED_SUFFIX) and pure is not None:
            line += f"   {decisions / pure[1]:.1f}x pure"
        if name.startswith("rlcard"):
            table = name.split()[2]
            line += "   " + ", ".join(f"{engine} is {best[engine][1] / decisions:.1f}x" for engine in (
                engine_name("classic", int(table[0])), engine_name("classic", int(table[0]), True)) if engine in best)
        print(line, file=out)
    for name, error in failed.items():
        print(f"{name:<30}  failed: {error}", file=out)


def _child(seconds: float, compiled: bool) -> None:
    """One build's side of a run (`python -m benchmarks.engine SECONDS COMPILED`): JSON figures on stdout."""
    if compiled != COMPILED:
        raise SystemExit(f"the child loaded the {'compiled' if COMPILED else 'pure'} engine, not the one asked for")
    configure_gc()  # as `python -m benchmarks engine` set up its own process (UNO_ARENA_GC is inherited)
    figures = {engine_name(variant, players, compiled): engine_rate(players, variant, seconds)
               for variant, players in CONFIGURATIONS}
    print(json.dumps(figures))


if __name__ == "__main__":
    _child(float(sys.argv[1]), sys.argv[2] == "True")
