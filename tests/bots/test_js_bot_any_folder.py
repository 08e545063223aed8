"""The Node.js bot works from any folder (issue 38, item 10), seen from outside: `uno-arena bot check --run` run in
``bots/js`` with ``node bot.js`` connects (the bot finds its own modules and the .proto files from where it lies),
and the repository-root spelling ``node bots/js/bot.js`` typed there is refused before anything starts, in one line
that gives the path that works from there."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gateway.test_js_bot import JS_DIR, node_bot
from tests.support.cli import spawn_cli

__all__ = ["node_bot"]

pytestmark = pytest.mark.integration  # starts processes (tests/support/tiers.py)


def _check(*run: str, cwd: Path) -> tuple[int, str, str]:
    process = spawn_cli("bot", "check", "--run", *run, "--wait", "60", cwd=cwd)
    try:
        out, err = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
            out, err = process.communicate()
    return process.returncode, out, err


def test_the_root_spelling_typed_in_bots_js_is_named_with_the_path_that_works() -> None:
    code, out, err = _check("node bots/js/bot.js --target {target}", cwd=JS_DIR)
    assert code == 2 and out == "", out + err
    assert err.strip() == (f"error: --run: 'bots/js/bot.js' is not a file in {JS_DIR} (the command runs in the "
                           "current folder): here it is 'bot.js'")


def test_the_node_bot_connects_when_started_from_its_own_folder(node_bot: Path) -> None:
    _code, out, err = _check("node bot.js --target {target}", cwd=node_bot.parent)
    assert "PASS connects" in out, out + err
    assert "Cannot find module" not in out + err
