"""`uno-arena demo --keep-running` runs the whole arena, the scheduler included (issue 21, item 3): from another
process, with the environment the demo prints, a competition created through the CLI fires (its first block, a
tournament, appears), and the demo stops cleanly on Ctrl-C, everything it started stopped. Where bubblewrap works,
a bot submitted from source (bots/hosted_example) is checked and run by the bot host and plays in the demo's
tournament (issue 24, item 5); elsewhere the demo says in one line that it is skipped."""

from __future__ import annotations

import shlex
import signal
import subprocess
from pathlib import Path

import pytest

from arena.hosting.sandbox import sandbox_missing
from tests.support import free_port, wait_until
from tests.support.cli import run_cli, spawn_cli
from tests.support.lines import Lines

pytestmark = pytest.mark.integration  # starts processes (tests/support/tiers.py)

START_S = 300.0
"""The demo's start-up and its tournament on a loaded 2-core machine, with room."""


def exported(out: Lines) -> dict[str, str]:
    """The variables of the ``export`` line the demo prints for another shell."""
    line = next(line for line in out.lines if line.strip().startswith("export "))
    return dict(word.split("=", 1) for word in shlex.split(line.strip())[1:])


def block_listed(env: dict[str, str]) -> bool:
    code, out, err = run_cli("tournament", "list", env_extra=env)
    assert code == 0, err
    return "ladder.b" in out


def test_a_kept_running_demo_fires_a_competition_created_through_the_cli(tmp_path: Path) -> None:
    demo = spawn_cli("demo", "--keep-running", "--seats", "2", "--deals", "1", "--no-duplicate",
                     "--out", str(tmp_path / "out"), "--web-port", str(free_port()))
    out, err = Lines(demo.stdout), Lines(demo.stderr)
    try:
        wait_until(lambda: out.count("running; press Ctrl-C") or demo.poll() is not None, START_S,
                   "the demo to keep running", details=lambda: out.text() + err.text())
        assert demo.poll() is None, out.text() + err.text()
        assert out.count("scheduler") and out.count(f"kill -TERM {demo.pid}"), out.text()
        (hosted,) = [line for line in out.lines if line.startswith("hosted bot")]
        if sandbox_missing():
            assert "skipped: " in hosted and "bwrap" in hosted, hosted
        else:
            assert "hosted-example: submitted from source" in hosted, out.text() + err.text()
            assert "hosted-example" in (tmp_path / "out" / "results.csv").read_text()
        env = exported(out)
        assert set(env) == {"UNO_ARENA_TARGET", "UNO_ARENA_ADMIN_TOKEN_FILE", "REDIS_URL"}, env
        entrants = "remote-heuristic," + ("remote-random" if sandbox_missing() else "hosted-example")
        code, created, refused = run_cli("competition", "create", "ladder", "--entrants", entrants, env_extra=env)
        assert code == 0, refused
        assert "ladder" in created
        wait_until(lambda: block_listed(env), 120, "the competition's first block", details=err.text)
        if not sandbox_missing():  # the submitted bot is on the ladder as the version of its submission
            code, standings, refused = run_cli("competition", "standings", "ladder", env_extra=env)
            assert code == 0 and "submission-1" in standings, standings + refused
    finally:
        demo.send_signal(signal.SIGINT)
        try:
            demo.wait(60)
        except subprocess.TimeoutExpired:
            demo.kill()
            demo.wait()
        out.join()
        err.join()
    assert demo.returncode == 0, out.text() + err.text()
    assert out.count("everything started was stopped"), out.text()
    assert "Traceback" not in err.text(), err.text()
