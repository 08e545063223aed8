"""`uno-arena play`: a whole match printed move by move, plain text when piped, and a person at a seat."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration


def _play(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", "play", *args], input=stdin,
                          capture_output=True, text=True, timeout=300)


def test_play_prints_the_match_and_the_final_scores() -> None:
    result = _play("--players", "3", "--bots", "heuristic,random", "--seed", "4", "--target-score", "100")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.match(r"(heuristic|random)(#2)? deals first", lines[0]), lines[0]  # the bots by their names
    assert re.match(r"round 1, dealer (heuristic|random)", lines[1]), lines[1]
    assert any(" plays " in line for line in lines)
    assert lines[-1].startswith("final scores:")
    assert "\x1b[" not in result.stdout  # piped: no colour codes


def test_colour_on_request() -> None:
    result = _play("--players", "2", "--seed", "1", "--target-score", "50", "--color", "always")
    assert "\x1b[" in result.stdout


def test_human_seat_re_asks_bad_input_and_never_crashes() -> None:
    answers = "\n".join(["banana", "-1", "999", ""] + ["0"] * 5000) + "\n"
    result = _play("--players", "2", "--bots", "random", "--human", "0", "--seed", "2", "--target-score", "30",
                   stdin=answers)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "'banana' is not a number from 0 to" in result.stdout
    assert "'999' is not a number" in result.stdout
    assert "Your hand (seat 0)" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("final scores:")


def test_bad_arguments_are_named() -> None:
    result = _play("--bots", "nobody")
    assert result.returncode == 2 and "unknown built-in bot 'nobody'" in result.stderr
    result = _play("--players", "3", "--human", "5")
    assert result.returncode == 2 and "--human 5" in result.stderr
