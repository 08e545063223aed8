"""A kit survives its author's bug (issue 14, item 2): an exception in the Python kit's ``choose`` (or the Node.js
bot's strategy) costs that one decision, answered with the safe legal action and logged with its traceback, the
match id and the observation's short form; the other matches go on. Connects, disconnects and reconnects are
logged at INFO; a wrong token ends the bot with one clear line and a non-zero exit, no traceback."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.engine import Action, Observation, Rules
from arena.runner import MatchConfig
from arena.service.incidents import MAX_PER_MATCH
from bots import Bot
from bots.kit import match_seed
from tests.gateway.test_js_bot import JS_BOT, node_bot  # noqa: F401 - the fixture installs the npm packages
from tests.support import wait_until
from tests.support.bots import ThreadBot
from tests.support.gateway import GatewayHarness

REPO = Path(__file__).resolve().parents[2]


class _FailsInOneMatch(Bot):
    """Plays the first legal action, but raises at every 5th decision of match ``h-broken`` (the kit makes one
    instance per match and seat, seeded from the match id: that is how it knows its match)."""

    name = "fails-in-one-match"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.asked = 0
        self.broken = seed in {match_seed("h-broken", seat) for seat in range(2)}

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        self.asked += 1
        if self.broken and self.asked % 5 == 0:
            return {"hand": 0}["missing"]
        return 0


def test_an_exception_in_choose_costs_one_decision_and_the_other_matches_go_on(
        gateway: GatewayHarness, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="uno_arena.kit")
    token = gateway.register_bot("buggy")
    bot = ThreadBot(gateway.address, token, bot=_FailsInOneMatch)
    try:
        gateway.wait_for_bot("buggy")
        configs = [(MatchConfig(mid, 3, Rules(), decision_deadline_s=5.0), ["buggy", "random"])
                   for mid in ("h-broken", "h-fine")]
        broken, fine = gateway.run_matches(configs, timeout_s=120)
        assert broken.timeouts[0] == 0 and broken.refusals[0] == 0 and broken.strikes[0] == 0, broken.detail
        assert {d.outcome for d in broken.decisions if d.seat == 0} == {"answered"}
        assert fine.timeouts[0] == 0 and fine.strikes[0] == 0
        errors = bot.stats.choose_errors
        assert errors == sum(1 for d in broken.decisions if d.seat == 0) // 5
        assert bot.stats.sessions == 1  # the stream never dropped
    finally:
        bot.stop()
    # The kit told the arena with each safe answer: an `error` incident per failed decision (no strike), what
    # `uno-arena bot log` and the web's bot page read, counted in the incidents metric.
    # At most MAX_PER_MATCH of them per match: a readable log, not a flood.
    kept = min(errors, MAX_PER_MATCH)
    wait_until(lambda: len(gateway.store.incidents.recent("buggy", 1000)) >= kept, 15, "the error incidents written")
    logged = [i for i in gateway.store.incidents.recent("buggy", 1000) if i.kind == "error"]
    assert len(logged) == kept and {i.match_id for i in logged} == {"h-broken"}
    assert all(i.detail == "the bot's code raised KeyError: 'missing' (it answered the safe legal action instead)"
               and i.strike == 0 and i.decision > 0 for i in logged)
    assert gateway.server.gateway.metrics.bot_incidents.labels("buggy", "error")._value.get() >= kept
    reported = gateway.server.gateway.code_errors("buggy")
    assert reported.count == errors and reported.first is not None
    assert reported.first.traceback.startswith("Traceback (most recent call last):")
    assert reported.first.traceback.endswith("KeyError: 'missing'") and "bots/kit.py" not in reported.first.traceback
    failures = [r for r in caplog.records if "choose() failed" in r.getMessage()]
    assert failures and all(r.levelno == logging.ERROR and r.exc_info for r in failures)
    message = failures[0].getMessage()
    assert message.startswith("match h-broken, decision ") and "KeyError: 'missing'" in message
    assert "cards in hand" in message and "answered with the safe legal action" in message
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert any(m.startswith(f"connected to {gateway.address} as bot buggy") for m in infos)


def test_connects_disconnects_and_reconnects_are_logged(gateway: GatewayHarness,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="uno_arena.kit")
    token = gateway.register_bot("dropped")
    with ThreadBot(gateway.address, token) as bot:
        gateway.wait_for_bot("dropped")
        gateway.run(_drop(gateway, "dropped"))
        wait_until(lambda: bot.stats.sessions == 2, 15, "the bot back")
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert any(m.startswith(f"connected to {gateway.address}") for m in infos)
    assert any(m.startswith(f"disconnected from {gateway.address}: UNAVAILABLE: dropped by the test") for m in infos)
    assert any(m.startswith(f"reconnecting to {gateway.address} in ") for m in infos)
    assert any(m.startswith(f"reconnected to {gateway.address}") for m in infos)


async def _drop(gateway: GatewayHarness, bot: str) -> None:
    assert gateway.server.gateway.registry.drop_session(bot, details="dropped by the test")


def test_a_wrong_token_ends_the_python_kit_with_one_line(gateway: GatewayHarness) -> None:
    code = "from bots.kit import play; play(lambda o, legal: 0, target=__import__('sys').argv[1], token='nobody.x')"
    done = subprocess.run([sys.executable, "-c", code, gateway.address], cwd=REPO, capture_output=True, text=True,
                          timeout=60, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=False)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == "error: the arena refused the bot: UNAUTHENTICATED: invalid token"


def test_a_wrong_token_ends_the_node_bot_with_one_line(gateway: GatewayHarness, node_bot: Path) -> None:  # noqa: F811
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run([node, str(JS_BOT), "--target", gateway.address, "--token", "nobody.x"], cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 3
    errors = [line for line in done.stderr.splitlines() if " ERROR " in line]
    assert len(errors) == 1 and errors[0].endswith("the arena refused the bot: UNAUTHENTICATED: invalid token")
    assert "    at " not in done.stderr  # no stack trace
