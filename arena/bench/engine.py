"""`uno-arena bench engine`: random legal play through the public API, and RLCard's UNO env when installed.

Each configuration plays whole matches (random legal actions via `legal_actions()` and `apply()`) for a
fixed CPU time on one core and reports rounds/s and decisions/s per CPU second (process time, so other
load on a shared machine skews the figures less), best of a few interleaved repeats. RLCard (optional
extra `bench`) is measured in the same run, two ways: driven by `env.step` (its fastest path) and by
`env.run` with random agents (its documented idiom); the ratio is against the `env.step` figure first.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from typing import Any, TextIO

from arena.engine import Match, Rules, Variant


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
    for variant in ("flip", "classic"):
        for players in (2, 4):
            rates[f"uno-arena {variant} {players}p"] = functools.partial(engine_rate, players, variant, seconds)
    with_rlcard = rlcard and rlcard_installed()
    if with_rlcard:
        for players in (2, 4):
            rates[f"rlcard uno {players}p env.step"] = functools.partial(rlcard_step_rate, players, seconds)
            rates[f"rlcard uno {players}p env.run"] = functools.partial(rlcard_run_rate, players, seconds)
    best: dict[str, tuple[float, float]] = {}
    failed: dict[str, str] = {}
    for _ in range(max(1, repeats)):
        for name, measure in rates.items():
            if name in failed:
                continue
            try:
                figure = measure()
            except Exception as error:  # RLCard refuses some player counts; say so, keep going
                failed[name] = str(error)
                continue
            if name not in best or figure[1] > best[name][1]:
                best[name] = figure
    print(f"{'configuration':<28}{'rounds/s':>12}{'decisions/s':>14}   (best of {max(1, repeats)}, per CPU second; "
          "RLCard: games/s)", file=out)
    for name in rates:
        if name in failed:
            print(f"{name:<28}  failed: {failed[name]}", file=out)
            continue
        rounds, decisions = best[name]
        line = f"{name:<28}{rounds:>12,.0f}{decisions:>14,.0f}"
        if name.startswith("rlcard"):
            table = name.split()[2]
            ours = best[f"uno-arena classic {table}"][1]
            line += f"   uno-arena classic {table} is {ours / decisions:.1f}x"
        print(line, file=out)
    if rlcard and not with_rlcard:
        print("rlcard not installed (pip install 'uno-arena[bench]'): no comparison", file=out)
    return {name: figure[1] for name, figure in best.items()}
