"""`uno-arena bench sprt` runs and prints a row per case and test; bad input is one line (figures are asserted
in tests/tournament/test_sprt.py, on the harness itself)."""

from __future__ import annotations

import pytest

from arena.bench.sprt import cases
from arena.bench.sprt_blocks import FIELDS, load
from arena.cli import main


def test_bench_sprt_prints_every_case_for_both_tests(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "sprt", "--runs", "3", "--jobs", "1", "--max-blocks", "300"]) == 0
    out = capsys.readouterr().out
    for case in cases():
        assert f"{case.name}" in out
    assert out.count("multinomial") == out.count("normal-old") == len(cases())
    assert "type I" in out and "finishing points per match" in out


def test_bench_sprt_refuses_bad_hypotheses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "sprt", "--mu0", "0.2", "--mu1", "0.1", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the test needs -1 < mu0 < mu1 < 1") and "Traceback" not in err


def test_the_recorded_sample_has_every_field() -> None:
    recorded = load()
    assert [r.field for r in recorded] == list(FIELDS)
    assert all(len(r.scores) >= 300 and all(-1 <= s <= 1 for s in r.scores) for r in recorded)
