"""The conformance suite, for `uno-arena bot check` and for bot authors' own tests (as dm_env_rpc ships its
compliance package): :func:`check_bot` runs the very checks of `bot check` against a bot and returns a
:class:`CheckReport`::

    from arena.conformance import check_bot

    def test_my_bot_conforms():
        report = check_bot(MyBot)                                  # a Python bot, through the kit
        assert report.passed, report

    def test_my_js_bot_conforms():
        report = check_bot("node mybot.js --target {target}")      # any program; its token is in its environment
        assert report.passed, report

The checks (:mod:`arena.conformance.checks`) play real matches on a gateway in this process, seating the bot as a
tournament's worker does (through Redis and the gateway holding its stream); the run (:mod:`arena.conformance.run`)
uses a private embedded Redis of its own and stops the bot at the end.
"""

from __future__ import annotations

import asyncio

from bots.kit import Playable

from .checks import CHECKS, CheckResult
from .run import CHECK_BUDGET_S, CheckOptions, CheckRefused, CheckReport, CheckRun, private_check_store, run_argv

__all__ = ["CHECKS", "CheckRefused", "CheckReport", "CheckResult", "check_bot"]


def check_bot(bot: Playable | str, *, name: str = "", decision_deadline_s: float = 1.0, wait_s: float = 30.0,
              time_cap_s: float = CHECK_BUDGET_S) -> CheckReport:
    """Run every check of `uno-arena bot check` against ``bot`` and return the report (``report.passed``, and
    ``str(report)`` is what `bot check` prints).

    ``bot``: a Python bot, anything :func:`bots.kit.play` takes (a Bot subclass or object, an object with a
    ``choose(observation, legal)`` method, or such a function), played through the kit in this process; or a
    command that starts the bot (as `bot check --run`: ``{target}``, ``{token}`` and ``{name}`` are filled in, and
    the token and target are in its environment, ``$UNO_ARENA_BOT_TOKEN`` and ``$UNO_ARENA_TARGET``). ``name``: the
    bot's name in the check (default check-XXXXXXXX). :class:`CheckRefused` for a command that cannot be run as
    given, or a private store that cannot start."""
    options = CheckOptions(wait_s=wait_s, time_cap_s=time_cap_s, decision_deadline_s=decision_deadline_s)
    argv = run_argv(bot) if isinstance(bot, str) else []

    async def run() -> CheckReport:
        with private_check_store() as store:
            if isinstance(bot, str):
                check = CheckRun(store, options, new_name=name, argv=argv, command=bot)
            else:
                check = CheckRun(store, options, new_name=name, kit_bot=bot)
            return await check.run(asyncio.Event())

    report = asyncio.run(run())
    if report.error and not report.results:
        raise CheckRefused(report.error)
    return report
