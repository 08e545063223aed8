"""What the organizer API says of a gauntlet's way to go (arena.server.gauntlet_servicer.with_progress): the blocks it
expects while running, the blocks it needs, the cap in force (an automatic one shows as max_blocks 0) and what a
short cap costs."""

from __future__ import annotations

from arena.protocol import arena_pb2
from arena.server.gauntlet_servicer import gauntlet_spec, with_progress
from arena.tournament.stats.sprt import AUTO_CAP_CEILING, SprtConfig, SprtState

SCORES = [0.5, 0.0, 0.5, -0.5, 1.0, 0.5, 0.0, 0.5, -0.5, 0.0] * 3


def message(state: SprtState) -> arena_pb2.Gauntlet:
    cap = state.config.max_blocks or 0
    return arena_pb2.Gauntlet(gauntlet_id="g", blocks=state.n, llr=state.llr,
                              spec=arena_pb2.GauntletSpec(max_blocks=cap))


def test_a_running_gauntlet_says_how_many_more_blocks_it_expects_and_what_its_short_cap_costs() -> None:
    state = SprtState(SprtConfig(max_blocks=60)).extended(SCORES)
    msg = with_progress(message(state), state, running=True)
    assert msg.HasField("expected_blocks_left") and msg.expected_blocks_left == state.expected_blocks_left
    assert msg.needed_blocks == state.needed_blocks and msg.needed_blocks > 60
    assert msg.cap_blocks == 60 and msg.spec.max_blocks == 60
    assert msg.undecided_at_cap == state.undecided_at(60) and msg.undecided_at_cap > 0.02


def test_an_automatic_cap_shows_as_zero_with_the_cap_in_force() -> None:
    state = SprtState(SprtConfig(max_blocks=AUTO_CAP_CEILING, auto_cap=True)).extended(SCORES)
    msg = with_progress(message(state), state, running=True)
    assert msg.spec.max_blocks == 0 and msg.cap_blocks == state.needed_blocks
    assert msg.undecided_at_cap <= 0.01


def test_an_ended_gauntlet_expects_nothing_more() -> None:
    state = SprtState(SprtConfig(max_blocks=60)).extended(SCORES)
    assert not with_progress(message(state), state, running=False).HasField("expected_blocks_left")


def test_a_request_without_a_cap_gets_the_automatic_one() -> None:
    spec = gauntlet_spec(arena_pb2.GauntletSpec(candidate="heuristic", baseline="random"), "g-auto")
    assert spec.sprt.auto_cap and spec.sprt.max_blocks == AUTO_CAP_CEILING
    capped = gauntlet_spec(arena_pb2.GauntletSpec(candidate="heuristic", baseline="random", max_blocks=60), "g-60")
    assert not capped.sprt.auto_cap and capped.sprt.max_blocks == 60


def test_the_command_prints_the_blocks_expected_and_advises_a_short_cap_once_known() -> None:
    from arena.commands.gauntlet import cap_advice, progress_line, verdict_line

    state = SprtState(SprtConfig(max_blocks=60)).extended(SCORES)
    msg = with_progress(message(state), state, running=True)
    line = progress_line(msg)
    assert f"about {state.expected_blocks_left} more blocks expected (towards H1" in line and "cap 60" in line
    advice = cap_advice(msg)
    assert advice is not None and f"needs about {state.needed_blocks} blocks" in advice and "the cap of 60" in advice
    auto = SprtState(SprtConfig(max_blocks=AUTO_CAP_CEILING, auto_cap=True)).extended(SCORES)
    assert cap_advice(with_progress(message(auto), auto, running=True)) is None
    msg.state = arena_pb2.GAUNTLET_STATE_ACCEPTED
    assert "reads +0.00 to +0.03 high" in verdict_line(msg)
