"""`python -m benchmarks seating`, small: the figures print, the balanced seating is exact where the docs say so and
never worse than the circular one, and bad options get one clear line."""

from __future__ import annotations

import pytest

from benchmarks.cli import main
from benchmarks.seating import Case, run_seating_bench, spread_sweep


def test_balanced_beats_circular_and_is_exact_over_full_rounds() -> None:
    cases = (Case(7, 3, 6), Case(6, 4, 2, duplicate=True), Case(9, 3, 1), Case(13, 3, 2))
    figures = list(run_seating_bench(2, cases))
    assert [(f.case, f.seating) for f in figures] == [(c, s) for c in cases for s in ("balanced", "circular")]
    for balanced, circular in zip(figures[::2], figures[1::2], strict=True):
        assert balanced.worst_imbalance <= circular.worst_imbalance
        assert balanced.pair_spreads == circular.pair_spreads  # the orientation keeps who meets whom
        assert "next-seat imbalance" in balanced.line()
    assert figures[0].worst_imbalance == figures[2].worst_imbalance == 0  # 2k deals; even duplicate deals
    assert figures[1].worst_imbalance > 0


def test_spread_sweep_and_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert sum(spread_sweep(10, 3, 2).values()) == 2
    assert main(["seating", "--spread", "10", "3", "--seeds", "2"]) == 0
    assert "n=10 k=3: pair spread" in capsys.readouterr().out
    assert main(["seating", "--spread", "10", "2", "--seeds", "2"]) == 2
    assert "--spread N K needs 3 <= K <= N" in capsys.readouterr().err
