"""`python -m benchmarks sprt` runs and prints a row per case (error rates) and per case and gain (blocks against Wald's
expected sample number), labels the degenerate cases, and refuses bad input in one line (figures are asserted in
tests/tournament/test_sprt.py, on the harness itself)."""

from __future__ import annotations

import pytest

from benchmarks.cli import main
from benchmarks.sprt import GAINS, cases, tilted_to
from benchmarks.sprt_blocks import FIELDS, load


def test_bench_sprt_prints_every_case_in_both_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", "--runs", "2", "--jobs", "1", "--max-blocks", "300"]) == 0
    out = capsys.readouterr().out
    for case in cases():
        assert out.count(f"{case.name} ") >= 1 + len(GAINS)
    assert out.count("multinomial") == len(cases()) and "normal-old" not in out
    assert "type I" in out and "finishing points per match" in out and "Wald ASN" in out
    assert out.count("degenerate (") == 2 * sum(1 for c in cases() if c.degenerate) == 4


def test_bench_sprt_refuses_bad_hypotheses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", "--mu0", "0.2", "--mu1", "0.1", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the test needs -1 < mu0 < mu1 < 1") and "Traceback" not in err


def test_bench_sprt_compares_guards_on_the_chosen_cases(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", "--guards", "16/16/1,8/8/2", "--cases", "classic", "--runs", "2", "--jobs", "1",
                 "--max-blocks", "300"]) == 0
    out = capsys.readouterr().out
    chosen = [c.name for c in cases() if "classic" in c.name]
    assert chosen and all(out.count(f"{name} ") == 2 for name in chosen)
    assert "16/16/1" in out and "8/8/2" in out and "type I" in out and "3x" in out
    assert "synthetic" not in out


@pytest.mark.parametrize(("args", "message"), [
    (["--guards", "16/16"], "error: --guards: '16/16' is not min_blocks/min_nonzero/prior"),
    (["--guards", "16/0/1"], "error: min_nonzero must be at least 1"),
    (["--guards", "16/16/1", "--cases", "nothing-like-this"], "error: --cases: no case matches"),
])
def test_bench_sprt_refuses_bad_guards(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(["sprt", *args, "--runs", "1", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and "Traceback" not in err


def test_the_recorded_sample_has_every_field() -> None:
    recorded = load()
    assert [r.field for r in recorded] == list(FIELDS)
    assert all(len(r.scores) >= 300 and all(-1 <= s <= 1 for s in r.scores) for r in recorded)


def test_a_skewed_case_stays_skewed_at_mean_zero() -> None:
    """Tilting (not mixing with the mirror image) keeps a skewed field skewed under H0: the null is not made
    symmetric."""
    skewed = next(c for c in cases(recorded=False) if c.name == "synthetic/skewed")
    assert skewed.base is not None
    at_zero = skewed.at(0.0)
    assert at_zero == tilted_to(skewed.base, 0.0) and abs(at_zero.mean) < 1e-9
    third = sum(p * v**3 for v, p in zip(at_zero.values, at_zero.probs, strict=True))
    assert third > 0.01  # rare large gains, frequent small losses: still skewed to the right
