"""`uno-arena bench tiers`, smaller and seeded: on resampled real results the arena's tiers keep two copies of one
bot together in at least 95 % of replicates and put heuristic above weakened at 8 deals in at least 90 %
(arena.bench.tiers); the sample of real results loads, and a new one can be recorded."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arena.bench.tiers import FIELDS, entrants, figure_lines, replicate, run_tiers_bench
from arena.bench.tiers_sample import BOTS, load_sample, record_sample, save_sample
from arena.cli import main

REPLICATES = 100


def test_the_shipped_sample_holds_real_groups_of_every_pair() -> None:
    sample = load_sample()
    for i, a in enumerate(BOTS):
        for b in BOTS[i:]:
            groups = sample.of(a, b)
            assert len(groups) >= 100
            assert all(sum(g.wins()) <= 2 for g in groups)


def test_tiers_keep_copies_together_and_split_heuristic_from_weakened() -> None:
    figures = run_tiers_bench(replicates=REPLICATES, seed=5)
    holm = [f for f in figures if f.rule == "holm"]
    assert [f.field for f in holm] == list(FIELDS)
    for f in holm:
        assert f.copies_together is not None and f.copies_together.replicates == REPLICATES
        assert f.copies_together.share >= 0.95, f
        if f.no_split is not None:
            assert f.no_split.share >= 0.95, f
        if f.heuristic_above_weakened is not None:
            assert f.deals == 8 and f.heuristic_above_weakened.share >= 0.90, f
    lines = figure_lines(figures, REPLICATES, 8, load_sample())
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
    assert main(["bench", "tiers", "--sample", str(path), "--replicates", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is not a tier sample" in err and "--record" in err


def test_the_rating_measure_runs_on_request() -> None:
    figures = run_tiers_bench(fields=(("weakened", "weakened", "random"),), replicates=5, ratings=True)
    assert [f.rule for f in figures] == ["holm", "previous", "rating"]
    assert all(f.copies_together is not None and f.copies_together.replicates == 5 for f in figures)
