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

"""

from __future__ import annotations

import asyncio

from bots.kit import Playable

from .checks import CHECKS, CheckResult
from .run import CHECK_BUDGET_S, CheckOptions, CheckRefused, CheckReport, CheckRun, private_check_store, run_argv

__all__ = ["CHECKS", "CheckRefused", "CheckReport", "CheckResult", "check_bot"]


def check_bot(bot: Playable | str, *, name: str = "", decision_deadline_s: float = 1.0, wait_s: float = 30.0,
              time_cap_s: float = CHECK_BUDGET_S) -> CheckReport:
    """Run every check of `uno-arena bot check` against ``bot`` (anything :func:`bots.kit.play` takes, played through
    the kit in this process, or a command as `bot check --run` takes it) and return the report (``str(report)`` is
    what `bot check` prints). :class:`CheckRefused` for a command that cannot be run, or a store that cannot start."""
    options = CheckOptions(wait_s=wait_s, time_cap_s=time_cap_s, decision_deadline_s=decision_deadline_s)
    argv, kit_bot, command = (run_argv(bot), None, bot) if isinstance(bot, str) else ([], bot, "")

    async def run() -> CheckReport:
        with private_check_store() as store:
            check = CheckRun(store, options, new_name=name, argv=argv, kit_bot=kit_bot, command=command)
            return await check.run(asyncio.Event())

    report = asyncio.run(run())
    if report.error and not report.results:
        raise CheckRefused(report.error)
    return report
