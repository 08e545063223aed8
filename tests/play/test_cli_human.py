"""`uno-arena play --human N` as a person uses it: piped answers, Ctrl-D and Ctrl-C end it cleanly."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest

from tests.support.cli import CLI_BOOTSTRAP, cli_environment

pytestmark = pytest.mark.integration

COMMAND = [sys.executable, "-m", "arena.cli", "play"]


def _play(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMMAND, *args], input=stdin, capture_output=True, text=True, timeout=300)


def test_a_whole_match_with_piped_answers_shows_only_the_seat_s_view() -> None:
    result = _play("--players", "3", "--human", "1", "--seed", "4", "--target-score", "100", stdin="0\n" * 3000)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    other_draws = [line for line in lines if re.match(r"(heuristic|random)(#\d)? draws", line)]
    assert other_draws and not [line for line in other_draws if ":" in line]  # only what the table saw
    assert any(line.startswith("you draw") and ": " in line for line in lines)
    assert "hands at the end of the round" in result.stdout
    assert lines[-1].startswith("final scores:")
    assert "Traceback" not in result.stderr


def test_end_of_input_quits_with_a_clear_line() -> None:
    result = _play("--players", "2", "--human", "0", "--seed", "2", stdin="banana\n0\n")
    assert result.returncode == 1
    assert "end of input (Ctrl-D): you left the match" in result.stderr
    assert "Traceback" not in result.stderr and "final scores" not in result.stdout


def test_q_quits_with_exit_status_1_as_ctrl_d_does() -> None:
    """Leaving the match unfinished, by ``q`` or by Ctrl-D, is exit status 1 (docs/getting-started.md)."""
    result = _play("--players", "2", "--human", "0", "--seed", "2", stdin="q\n")
    assert result.returncode == 1 and "you left the match (q); the match is abandoned" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_terminal_game_names_the_bots_and_a_classic_match_has_no_sides() -> None:
    result = _play("--players", "3", "--human", "0", "--seed", "4", "--target-score", "60", "--variant", "classic",
                   "--bots", "heuristic,random", stdin="0\n" * 3000)
    assert result.returncode == 0, result.stderr[-2000:]
    text = result.stdout
    assert "side" not in text and "light" not in text, text[:2000]
    assert re.search(r"^  random \(seat 1\): \d+ cards?", text, re.M)  # the opponents, by name
    assert re.search(r"^(heuristic|random) (plays|draws) ", text, re.M)
    assert not re.search(r"^seat \d (plays|draws) ", text, re.M)


def test_ctrl_c_at_the_prompt_exits_130_without_a_traceback() -> None:
    # CLI_BOOTSTRAP: SIGINT at its default in the child, background jobs too.
    process = subprocess.Popen([sys.executable, "-c", CLI_BOOTSTRAP, "play", "--players", "2", "--human", "0",
                                "--seed", "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=cli_environment())
    assert process.stdout is not None and process.stderr is not None and process.stdin is not None
    try:
        seen = b""
        while b"your choice" not in seen:  # input() flushes its prompt: the process now waits for a line
            chunk = os.read(process.stdout.fileno(), 4096)
            assert chunk, f"the match ended before asking: {seen.decode()[-2000:]}"
            seen += chunk
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
        process.stdin.close()
    assert process.returncode == 130
    assert b"interrupted (Ctrl-C)" in err and b"Traceback" not in err
