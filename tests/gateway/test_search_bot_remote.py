"""The search bot as a remote bot: `uno-arena bot run ismctsfast` in its own process plays a match over real gRPC
through the Python kit, inside the decision deadline."""

from __future__ import annotations

import pytest

from arena.engine import Rules
from tests.support.bots import process_bot, stop_process
from tests.support.gateway import GatewayHarness

pytestmark = pytest.mark.integration


def test_the_search_bot_plays_through_the_kit(gateway: GatewayHarness) -> None:
    token = gateway.register_bot("searcher")
    proc = process_bot(gateway.address, token, "ismctsfast")
    try:
        record = gateway.run_match(["searcher", "heuristic"], seed=3, rules=Rules(variant="classic", target=30),
                                   decision_deadline_s=2.0, wait_s=30)
    finally:
        stop_process(proc)
    assert record.end_reason == "target"
    assert record.bot_versions[0] == "ismctsfast (python kit)"
    assert record.timeouts == [0, 0] and record.refusals == [0, 0] and record.strikes == [0, 0]
    remote = [d for d in record.decisions if d.seat == 0]
    assert remote and all(d.outcome == "answered" for d in remote)
