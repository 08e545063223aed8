"""`python -m benchmarks batch`: the CPU time of a pool's batch ratings on synthetic pools (a smoke run, no duration
asserted), and its one-line refusal of a malformed pool."""

from __future__ import annotations

import pytest

from benchmarks.batch_fit import run_batch_bench, synthetic_pool
from benchmarks.cli import main


def test_synthetic_pools_have_the_asked_shape() -> None:
    pool = synthetic_pool(5, 3, 40, seed=2)
    assert len(pool) == 40 and all(len(r.seats) == 3 == len(set(r.seats)) for r in pool)
    assert all(r.scores[r.winner] == max(r.scores) for r in pool if r.winner is not None)
    assert pool == synthetic_pool(5, 3, 40, seed=2)
    (figures,) = run_batch_bench(((4, 2, 30),))
    assert (figures.bots, figures.seats, figures.matches) == (4, 2, 30) and figures.seconds >= 0.0
    assert figures.line().startswith("  4 bots, 2 seats,     30 matches: batch ratings (100 refits) in ")


def test_the_command_prints_a_line_per_pool_and_refuses_a_bad_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", "--pool", "4,2,30", "--pool", "5,3,20"]) == 0
    assert [line.split(":")[0] for line in capsys.readouterr().out.splitlines()] == [
        "  4 bots, 2 seats,     30 matches", "  5 bots, 3 seats,     20 matches"]
    with pytest.raises(SystemExit) as exited:  # argparse's own one-line refusal
        main(["batch", "--pool", "3,5,10"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "2 <= SEATS <= BOTS" in err and "Traceback" not in err
