"""Small misbehaving bots that `uno-arena bot check` is tested against (run as real subprocesses).

Most are a kit bot that plays the first legal action and misbehaves at some decision: :func:`run_misbehaving`
gives each the same command line (``N --target HOST:PORT``, the token from ``$UNO_ARENA_BOT_TOKEN``) and the
decision count, and calls its ``misbehave(decision, n)`` before every answer.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from arena.engine import Action, Observation


def run_misbehaving(name: str, misbehave: Callable[[int, int], None], *, ignore_stop_signals: bool = False) -> None:
    """Play as the kit bot ``name`` until the process ends; ``misbehave(decision, n)`` runs before each answer
    (``n`` from the command line). ``ignore_stop_signals``: SIGTERM and Ctrl-C do nothing (a bot that hangs)."""
    import asyncio
    import signal

    from bots.kit import BotClient, bot_factory, bot_token, play

    parser = argparse.ArgumentParser(prog=f"python -m tests.bots_under_check.{name.replace('-', '_')}")
    parser.add_argument("n", type=int)
    parser.add_argument("--target", required=True)
    args = parser.parse_args()
    decisions = 0

    def choose(_observation: Observation, _legal: Sequence[Action]) -> int:
        nonlocal decisions
        decisions += 1
        misbehave(decisions, args.n)
        return 0

    if not ignore_stop_signals:
        play(choose, target=args.target, bot_version=name)
        return
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asyncio.run(BotClient(args.target, bot_token(), bot_factory(choose), bot_version=name).run())
