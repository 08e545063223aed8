"""`python -m benchmarks tiers`, smaller and seeded: on resampled real results the arena's tiers keep two copies of one
bot together in at least 95 % of replicates and put heuristic above weakened at 8 deals in at least 90 %
(benchmarks.tiers); in the other designs the arena produces (2 bots of single matches, the cyclic design at 14
bots x 5 seats: benchmarks.tiers_designs) copies stay together; the samples of real results load, and new ones
can be recorded."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmarks.cli import main
from benchmarks.tiers import FIELDS, entrants, figure_lines, replicate, run_tiers_bench
from benchmarks.tiers_designs import (
    DESIGNS,
    Design,
    design_lines,
    load_multiseat,
    record_multiseat,
    replicate_design,
    run_designs_bench,
    save_multiseat,
)
from benchmarks.tiers_sample import BOTS, load_sample, record_sample, save_sample

REPLICATES = 100
FIELD_REPLICATES = 60
"""Fewer for the five 4-bot fields: every replicate fits the batch model (the full figures: docs/benchmarks.md)."""


def test_the_shipped_sample_holds_real_groups_of_every_pair() -> None:
    sample = load_sample()
    for i, a in enumerate(BOTS):
        for b in BOTS[i:]:
            groups = sample.of(a, b)
            assert len(groups) >= 100
            assert all(sum(g.wins()) <= 2 for g in groups)


def test_tiers_keep_copies_together_and_split_heuristic_from_weakened() -> None:
    figures = run_tiers_bench(replicates=FIELD_REPLICATES, seed=5)
    holm = [f for f in figures if f.rule == "adjusted"]
    assert [f.field for f in holm] == list(FIELDS)
    for f in holm:
        assert f.copies_together is not None and f.copies_together.replicates == FIELD_REPLICATES
        assert f.copies_together.share >= 0.95, f
        if f.no_split is not None:
            assert f.no_split.share >= 0.95, f
        if f.heuristic_above_weakened is not None:
            assert f.deals == 8 and f.heuristic_above_weakened.share >= 0.90, f
    lines = figure_lines(figures, FIELD_REPLICATES, 8, load_sample())
    assert len(lines) == 2 + 2 * len(FIELDS)


def test_a_replicate_plays_every_pair_of_entrants() -> None:
    field = ("weakened", "weakened", "random")
    assert entrants(field) == ["weakened", "weakened#2", "random"]
    results = replicate(load_sample(), field, 3, random.Random(1))
    assert len(results) == 3 * 3 * 2 and len({r.group for r in results}) == 9
    single = replicate(load_sample(), field, 3, random.Random(1), duplicate=False)
    assert len(single) == 9 and len({r.group for r in single}) == 9


def test_a_recorded_sample_reads_back(tmp_path: Path) -> None:
    sample = record_sample(1)
    path = tmp_path / "sample.json"
    save_sample(sample, path)
    assert load_sample(path) == sample
    assert sum(len(groups) for groups in sample.groups.values()) == 6


def test_a_bad_sample_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nothing.json"
    path.write_text("{}", encoding="utf-8")
    assert main(["tiers", "--sample", str(path), "--replicates", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is not a tier sample" in err and "--record" in err


def test_the_rating_measure_runs_on_request() -> None:
    figures = run_tiers_bench(fields=(("weakened", "weakened", "random"),), replicates=5, ratings=True)
    assert [f.rule for f in figures] == ["adjusted", "win rate", "rating"]
    assert all(f.copies_together is not None and f.copies_together.replicates == 5 for f in figures)


def test_two_bots_of_single_matches_keep_copies_together_where_win_rates_did_not() -> None:
    designs = (Design("2 bots, single matches", ("heuristic", "heuristic"), 2, 4),
               Design("2 bots, single matches", ("heuristic", "random"), 2, 8))
    figures = run_designs_bench(designs, replicates=REPLICATES, seed=5)
    adjusted = {f.design.field: f for f in figures if f.rule == "adjusted"}
    before = {f.design.field: f for f in figures if f.rule == "win rate"}
    copies = adjusted[("heuristic", "heuristic")].copies_together
    assert copies is not None and copies.share >= 0.95  # 4-0 is p = 0.125: never told apart
    earlier = before[("heuristic", "heuristic")].copies_together
    assert earlier is not None and earlier.share < copies.share
    (strong, weak, rate), = adjusted[("heuristic", "random")].apart
    assert (strong, weak) == ("heuristic", "random") and rate.share >= 0.9
    assert len(design_lines(figures, REPLICATES)) == 1 + 2 * len(designs)


def test_a_cyclic_replicate_is_the_arenas_schedule_made_of_real_five_seat_matches() -> None:
    design = next(d for d in DESIGNS if d.name.startswith("cyclic"))
    results = replicate_design(design, load_sample(), load_multiseat(), random.Random(3), 0)
    assert len(results) == 14 * design.deals and all(len(r.seats) == 5 for r in results)
    tables = {frozenset(r.seats) for r in results}
    assert len(tables) == 14  # the cyclic design: 14 of the 2,002 possible tables
    # Two copies of one bot meet different fields, which raw win rates cannot adjust for.
    first = {b for t in tables if "heuristic" in t for b in t} - {"heuristic"}
    second = {b for t in tables if "heuristic#2" in t for b in t} - {"heuristic#2"}
    assert first != second


def test_the_multiseat_sample_holds_every_table_and_reads_back(tmp_path: Path) -> None:
    sample = load_multiseat()
    assert len(sample.matches) == 10 + 21  # every set of 3 bots at 3 seats and at 5
    assert all(len(matches) >= 40 for matches in sample.matches.values())
    small = record_multiseat(1, seats=(3,))
    path = tmp_path / "multi.json"
    save_multiseat(small, path)
    assert load_multiseat(path) == small
