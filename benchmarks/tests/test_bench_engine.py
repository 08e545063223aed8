"""`python -m benchmarks engine` runs and prints every configuration (figures are not asserted: timing belongs
to the benchmark, not to the tests)."""

from __future__ import annotations

import io

from benchmarks.engine import run_engine_bench


def test_engine_bench_prints_every_configuration() -> None:
    out = io.StringIO()
    figures = run_engine_bench(seconds=0.05, out=out, rlcard=False, repeats=2)
    text = out.getvalue()
    for variant in ("flip", "classic"):
        for players in (2, 4):
            name = f"uno-arena {variant} {players}p"
            assert name in text
            assert figures[name] > 0
    assert "best of 2" in text
