"""`uno-arena bench abuse` runs end to end as a user runs it (tiny durations). Its figures are printed, not asserted:
a loaded machine can bring any of them to zero in half a second; what is checked is that every attack ran and has
its row and its figures."""

from __future__ import annotations

import json

import pytest

from arena.bench.abuse import TITLES
from tests.support.cli import run_cli

ATTACKS = {"pong-flood", "reconnect-storm", "garbage", "tcp-garbage", "no-read"}

pytestmark = pytest.mark.integration


@pytest.mark.slow
def test_bench_abuse_runs_and_prints_its_table() -> None:
    code, out, err = run_cli("bench", "abuse", "--seconds", "0.5", "--warmup", "0.3", "--matches", "2", "--rounds", "1",
                             "--json", env_extra={"REDIS_URL": ""}, timeout=300)
    assert code == 0, err
    figures = json.loads(out.strip().splitlines()[-1])
    assert set(figures["attacks"]) == ATTACKS
    for attack in figures["attacks"].values():
        for side in ("without", "with"):
            assert isinstance(attack[side]["decisions"], int) and attack[side]["decisions"] >= 0, attack
    lines = out.splitlines()
    for attack in ATTACKS:  # one row per attack, under the table's header
        assert any(line.startswith(TITLES[attack]) for line in lines), (attack, out)
    assert "decisions/s" in out and "target: decisions/s ratio" in out
