"""`python -m benchmarks ladder`, small and seeded (benchmarks.ladder): ladders played on recorded real UNO games, the
published ranking checked, informative matchmaking against uniform pairing; and the ladder simulation on the
engine and on the latent model."""

from __future__ import annotations

import pytest

from arena.engine import Rules
from arena.runner import LocalSeat, MatchConfig, run_match_sync
from arena.tournament import MatchResult
from arena.tournament.matchmaking import MatchmakingConfig, Table
from benchmarks.cli import main
from benchmarks.ladder import (
    LadderSetup,
    latent_player,
    order_is_correct,
    paired_difference,
    recorded_player,
    replicate,
    report,
    simulate_ladder,
)
from benchmarks.tiers_sample import load_sample
from bots import make_bot


def test_a_recorded_table_plays_a_real_deal_group_of_its_kinds() -> None:
    sample = load_sample()
    kinds = {"h": "heuristic", "w": "weakened"}
    play = recorded_player(sample, kinds, seed=4)
    first, second = play(Table(("w", "h"), 1), "t1")
    assert first.seats == second.seats[::-1] and {first.seats[0], second.seats[0]} == {"h", "w"}
    assert first.group == second.group == "t1"
    recorded = {(g.first.scores, g.second.scores) for g in sample.of("heuristic", "weakened")}
    assert (first.scores, second.scores) in recorded
    assert play(Table(("w", "h"), 1), "t1") == [first, second]  # the draw is keyed by the seed and the table's id
    with pytest.raises(ValueError, match="2-seat games only"):
        play(Table(("w", "h", "h"), 1), "t2")


def test_the_informative_ladder_spends_only_the_floor_on_copies_and_publishes_the_truth() -> None:
    """The issue's field (two copies of heuristic, two of random), 20 blocks: the informative ladder gives each pair
    of copies its 2 meetings and no more, and its published ranking is right on every pair, 3 seeds."""
    sample = load_sample()
    setup = LadderSetup(field=("heuristic", "heuristic", "random", "random"), blocks=20)
    for seed in range(3):
        found = replicate(setup, "informative", seed, sample)
        assert found.copy_blocks == 4
        assert found.order_right and found.copies_tied
    uniform = [replicate(setup, "uniform", seed, sample) for seed in range(3)]
    assert all(r.order_right for r in uniform)
    lines = report(setup, 3, {"informative": [found] * 3, "uniform": uniform})
    assert "[" in lines[2] and "paired by seed" in lines[-1]


def test_the_paired_difference_has_an_interval() -> None:
    mean, low, high = paired_difference([True] * 10, [True] * 5 + [False] * 5)
    assert mean == 0.5 and low < 0.5 < high
    assert paired_difference([True, True], [True, True]) == (0.0, 0.0, 0.0)


def test_a_small_ladder_of_real_matches_finds_the_order_and_keeps_the_floor() -> None:
    """random < weakened < heuristic, played by the engine in duplicate blocks: the ladder orders them by batch
    rating, and every pair met at least the floor's 2 blocks."""
    rules = Rules(target=100)

    def play(table: Table, prefix: str) -> list[MatchResult]:
        results = []
        for index, (seats, seed) in enumerate(table.matches()):
            players = [LocalSeat(make_bot(name, seed + 31 * position), name=name)
                       for position, name in enumerate(seats)]
            record = run_match_sync(MatchConfig(f"{prefix}-{index}", seed % (2**31), rules), players)
            results.append(MatchResult.from_dict({**record.to_result().to_dict(), "group": prefix}))
        return results

    order = ["heuristic", "weakened", "random"]
    trace = simulate_ladder(order, play, MatchmakingConfig(seats=2), max_matches=30, seed=4, true_order=order)
    assert order_is_correct(trace.results, order)
    assert trace.matches == 30 and len(trace.blocks) == 3 and min(trace.blocks.values()) >= 2


def test_the_latent_model_orders_bots_by_strength() -> None:
    play = latent_player({"strong": 2.0, "weak": 0.0}, seed=1)
    results = [r for i in range(300) for r in play(Table(("strong", "weak"), i), f"m{i}")]
    wins = sum(1 for r in results if r.seats[r.winner or 0] == "strong")
    assert 0.75 < wins / len(results) < 0.95
    assert all(r.group for r in results)


def test_a_ladder_with_a_hold_stops_once_its_order_held() -> None:
    names = ["bot00", "bot01", "bot02"]
    play = latent_player({"bot00": 0.0, "bot01": -2.0, "bot02": -4.0}, seed=2, deal_luck=0.5)
    trace = simulate_ladder(names, play, MatchmakingConfig(seats=2), max_matches=400, seed=2, true_order=names,
                            hold=20)
    assert trace.ordered_after is not None and trace.matches == trace.ordered_after + 20


@pytest.mark.parametrize("options", [{"field": ("heuristic",)}, {"field": ("heuristic", "ismcts")}, {"blocks": 0},
                                     {"min_meetings": -1}])
def test_a_bad_ladder_setup_is_refused(options: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        LadderSetup(**options)  # type: ignore[arg-type]


def test_the_command_refuses_an_unrecorded_bot_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "--field", "heuristic,nobody", "--replicates", "1", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "nobody not recorded" in err


def test_the_validation_recording_ranks_ismctsfast_first_and_has_no_copy_of_it() -> None:
    from benchmarks.validation_sample import VALIDATION_PATH

    setup = LadderSetup(field=("ismctsfast", "heuristic", "heuristic", "random"), blocks=16, validation=True)
    assert setup.strongest_first[0] == "ismctsfast" and setup.path.endswith("intervals_validation.json")
    found = replicate(setup, "informative", 0, load_sample(VALIDATION_PATH))
    assert found.copy_blocks == 2 and found.order_right  # heuristic's copies: the floor's 2 meetings, no more
    with pytest.raises(ValueError, match="not recorded"):
        LadderSetup(field=("ismctsfast", "random"))  # the tuning sample has no ismctsfast
    with pytest.raises(ValueError, match="against itself"):
        LadderSetup(field=("ismctsfast", "ismctsfast", "random"), validation=True)
