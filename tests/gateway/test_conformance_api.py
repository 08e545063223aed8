"""The conformance suite as a bot author uses it from pytest (:func:`arena.conformance.check_bot`): the same checks as
`uno-arena bot check`, against a Python bot played through the kit in this process or a bot program, each run on a
private store and gateway of its own."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pytest

from arena.conformance import CHECKS, CheckRefused, check_bot
from arena.engine import Action, Observation
from bots import HeuristicBot

pytestmark = pytest.mark.integration


def _verdicts(report_text: str) -> dict[str, str]:
    return {line.split(" ", 1)[1].split(":", 1)[0]: line.split(" ", 1)[0]
            for line in report_text.splitlines() if line.startswith(("PASS ", "FAIL "))}


def test_a_built_in_bot_passes_every_check() -> None:
    report = check_bot(HeuristicBot)
    assert report.passed, report
    assert [r.name for r in report.results] == list(CHECKS)
    assert str(report).endswith("all checks passed")


def test_a_bot_whose_code_raises_fails_code_errors_with_its_traceback() -> None:
    def choose(_observation: Observation, legal: Sequence[Action]) -> int:
        if len(legal) > 1:
            raise KeyError("the bot's own bug")
        return 0

    report = check_bot(choose, name="raiser")
    assert not report.passed and report.code == 1
    verdicts = _verdicts(str(report))
    assert verdicts["connects"] == "PASS" and verdicts["code-errors"] == "FAIL"
    assert "KeyError" in str(report) and "the bot's own bug" in str(report)


def test_a_bot_program_that_exits_mid_check_fails_with_its_last_words() -> None:
    command = f"{sys.executable} -m tests.bots_under_check.exits_at 30 --target {{target}}"
    report = check_bot(command, wait_s=30)
    assert not report.passed
    assert "FAIL answers-in-time: the bot exited with code 1 during this check" in str(report)
    assert "exits-at: giving up at decision 30" in str(report)


def test_a_command_that_cannot_be_a_bot_is_refused_at_once() -> None:
    with pytest.raises(CheckRefused, match=r"only \{target\}, \{token\} and \{name\}"):
        check_bot("python bot.py --port {port}")
