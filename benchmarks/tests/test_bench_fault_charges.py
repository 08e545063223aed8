"""`python -m benchmarks faults` counts what the recorded results charged: forfeits are seats (counted, a seat 0 too),
strikes and timeouts are per-seat counts (summed), aborted matches are counted; and it refuses a bad option in one
line."""

from __future__ import annotations

import pytest

from arena.players.outcome import EndReason
from arena.store import StoredResult
from arena.tournament import MatchResult
from benchmarks.faults import Charges
from benchmarks.tests.cli import run_benchmarks


def _stored(match_id: str, *, forfeits: tuple[int, ...] = (), strikes: tuple[int, ...] = (),
            timeouts: tuple[int, ...] = (0, 0), end_reason: EndReason = EndReason.TARGET) -> StoredResult:
    result = MatchResult(match_id, ("a", "b"), (0, 0), None, end_reason=end_reason, forfeits=forfeits,
                         strikes=strikes)
    return StoredResult(result, "t", 1, timeouts, (0, 0))


def test_a_forfeit_at_seat_zero_counts_one() -> None:
    charged = Charges.of([_stored("m1", forfeits=(0,), strikes=(3, 0), end_reason=EndReason.FORFEIT)])
    assert charged == Charges(aborted=0, strikes=3, forfeits=1, timeouts=0)


def test_forfeits_are_counted_not_summed_as_seat_numbers() -> None:
    charged = Charges.of([_stored("m1", forfeits=(0, 1), end_reason=EndReason.FORFEIT),
                          _stored("m2", forfeits=(1,), timeouts=(2, 1), end_reason=EndReason.FORFEIT),
                          _stored("m3", end_reason=EndReason.ABORTED), _stored("m4")])
    assert charged == Charges(aborted=1, strikes=0, forfeits=3, timeouts=3)


def test_clean_results_charge_nothing() -> None:
    assert Charges.of([_stored("m1"), _stored("m2")]) == Charges(aborted=0, strikes=0, forfeits=0, timeouts=0)
    assert Charges.of([]) == Charges(aborted=0, strikes=0, forfeits=0, timeouts=0)


@pytest.mark.integration
def test_bench_faults_refuses_an_unknown_fault_and_no_deals() -> None:
    for args, error in ((["--faults", "none,meteor"], "unknown fault(s) meteor"),
                        (["--deals", "0"], "--deals must be at least 1")):
        code, _out, err = run_benchmarks("faults", *args, timeout=60)
        assert code == 2 and error in err, err
