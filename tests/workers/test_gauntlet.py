"""The gauntlet (arena.service.gauntlet_runs, arena.store.gauntlet_store, `uno-arena gauntlet`): duplicate blocks of
real
matches, the sequential test deciding on bots of known order, the record in Redis, the command line."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
from dataclasses import replace
from typing import Any

import pytest

from arena.cli import main
from arena.engine import Rules
from arena.runner import MatchRecord
from arena.service.gauntlet_runs import (
    Contender,
    GauntletError,
    GauntletSpec,
    MatchPlayerForGauntlet,
    PlannedMatch,
    block_plan,
    build_spec,
    run_gauntlet,
    score_block,
    stored_spec,
    stored_state,
)
from arena.service.verification import verify_gauntlet_seed
from arena.store import Store, UnknownGauntlet
from arena.store.gauntlet_store import StoredBlock
from arena.tournament import EndReason
from arena.tournament.commitment import check_commitment
from arena.tournament.stats.sprt import SprtConfig
from arena.tournament.status import GauntletStatus
from bots import HeuristicBot, make_bot
from bots.kit import play_async
from tests.support import LoopThread
from tests.support.gateway import GatewayHarness

QUICK = Rules(target=100)
"""Short matches: the order of these bots shows long before 500 points."""


def spec_of(candidate: str, baseline: str, *, seats: int = 2, sprt: SprtConfig | None = None, seed: int = 5,
            name: str = "g-test", opponents: tuple[str, ...] = ()) -> GauntletSpec:
    return build_spec(candidate=candidate, baseline=baseline, seats=seats, opponents=opponents, rules=QUICK,
                      sprt=sprt or SprtConfig(mu1=0.2, max_blocks=200), seed=seed, gauntlet_id=name,
                      seed_secret=f"{seed:064x}")  # a fixed secret: the same matches on every run


def test_a_block_rotates_the_tested_bot_through_every_seat_with_a_deal_per_seat() -> None:
    spec = spec_of("heuristic", "random", seats=3, opponents=("weakened", "random"))
    assert spec.opponents == ("weakened#o1", "random#o2")
    plan = block_plan(spec, 4)
    assert len(plan) == 6
    # One deal per seat (no tested bot plays a deal twice), the candidate and the baseline on the same one.
    by_seat = {p.tested_seat: {q.seed for q in plan if q.tested_seat == p.tested_seat} for p in plan}
    assert all(len(seeds) == 1 for seeds in by_seat.values())
    assert len({p.seed for p in plan}) == 3
    assert not {p.seed for p in block_plan(spec, 5)} & {p.seed for p in plan}
    for seat in range(3):
        first, second = plan[2 * seat], plan[2 * seat + 1]
        # Who plays the seat's deal first alternates: a remembering opponent favours neither side.
        expected = ("candidate", "baseline") if (4 + seat) % 2 == 0 else ("baseline", "candidate")
        assert (first.role, second.role) == expected
        cand, base = (first, second) if first.role == "candidate" else (second, first)
        assert cand.seats[seat] == "heuristic" and base.seats[seat] == "random"
        # Same opponents in the same seats, with the same random streams: only the tested bot differs.
        assert [s for i, s in enumerate(cand.seats) if i != seat] == [s for i, s in enumerate(base.seats) if i != seat]
        assert cand.opponents_seed_id == base.opponents_seed_id
        assert cand.match_id != base.match_id
        # The table keeps its turn order: after the tested bot come the opponents in order.
        assert [cand.seats[(seat + j) % 3] for j in range(3)] == ["heuristic", "weakened#o1", "random#o2"]
    assert len({p.match_id for p in plan + block_plan(spec, 4, attempt=2)}) == 12


def test_deals_follow_the_seed_and_the_secret() -> None:
    spec = spec_of("heuristic", "random")
    drawn = build_spec(candidate="heuristic", baseline="random", seats=2)
    assert len(drawn.seed_secret) == 64 and build_spec(candidate="heuristic", baseline="random", seats=2,
                                                        seed=drawn.seed).seed_secret != drawn.seed_secret
    again = spec_of("heuristic", "random")
    assert [p.seed for p in block_plan(again, 2)] == [p.seed for p in block_plan(spec, 2)]  # reproducible
    small = [p.seed for p in block_plan(replace(spec, seed=7), 0)]
    assert small != [p.seed for p in block_plan(replace(spec, seed=7, seed_secret="00" * 32), 0)]
    assert len(set(small)) == len(small) // 2  # one deal per seat, played by the candidate and the baseline


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"candidate": "mybot@2", "baseline": "MyBot@1"}, "same registered bot 'mybot'"),
        ({"candidate": "heuristic@2"}, "built-in bots have no versions"),
        ({"candidate": "no good"}, "expected BOT or BOT@VERSION"),
        ({"baseline": "bad!name"}, "nor a valid registered bot name"),
        ({"seats": 1}, "--seats must be between 2 and 10"),
        ({"opponents": ("mybot",), "candidate": "mybot"}, "'mybot' is tested"),
        ({"opponents": ("other", "other"), "seats": 3}, "cannot hold two seats"),
        ({"gauntlet_id": "a:b"}, "invalid gauntlet name"),
    ],
)
def test_bad_gauntlets_are_refused_naming_the_problem(options: dict[str, Any], message: str) -> None:
    arguments: dict[str, Any] = {"candidate": "heuristic", "baseline": "random", "seats": 2, **options}
    with pytest.raises(GauntletError, match=message):
        build_spec(**arguments)


def test_registered_bots_need_a_store() -> None:
    spec = spec_of("mybot", "random")
    with pytest.raises(GauntletError, match="set REDIS_URL"):
        run_gauntlet(spec, None, make_bot=make_bot)


def test_a_clearly_stronger_candidate_is_accepted_with_real_matches() -> None:
    blocks: list[Any] = []
    outcome = run_gauntlet(spec_of("heuristic", "random"), None, make_bot=make_bot, on_block=blocks.append)
    assert outcome.status == "accepted" and outcome.state.decision == "H1"
    assert outcome.state.n == len(blocks) == len(outcome.blocks) < 200
    assert all(b.score >= 0 for b in blocks) and sum(b.score > 0 for b in blocks) >= 0.75 * len(blocks)
    lower, upper = outcome.state.bounds
    assert all(b.state.decision is None for b in blocks[:-1]) and blocks[-1].state.llr >= upper > lower
    assert not outcome.stored


@pytest.mark.slow
def test_an_identical_candidate_is_rejected_with_real_matches() -> None:
    """random against random (each seeded from its own matches), against random opponents so that the results
    do vary: the test accepts H0 within the cap (against a gain of 0.3 points per match: a third fewer blocks than
    at 0.2)."""
    spec = spec_of("random", "random", seed=5, opponents=("random",), sprt=SprtConfig(mu1=0.3, max_blocks=200))
    outcome = run_gauntlet(spec, None, make_bot=make_bot)
    assert outcome.status == "rejected" and outcome.state.decision == "H0"
    assert outcome.state.n < 200
    assert abs(outcome.state.mean) < 0.2


def test_the_cap_ends_an_undecided_gauntlet() -> None:
    sprt = SprtConfig(mu1=0.02, min_blocks=2, max_blocks=3)
    outcome = run_gauntlet(spec_of("random", "weakened", sprt=sprt), None, make_bot=make_bot)
    assert outcome.status == "inconclusive" and outcome.state.n == 3 and outcome.state.decision is None


def test_the_gauntlet_is_stored_block_by_block(store: Store) -> None:
    spec = spec_of("weakened", "random", name="g-stored", opponents=("random",))
    outcome = run_gauntlet(spec, store, make_bot=make_bot)
    assert outcome.stored and outcome.status == "accepted"
    gauntlets = store.gauntlets
    record = gauntlets.get("g-stored")
    assert record.status == "accepted"
    assert record.blocks == outcome.state.n
    again = stored_state(spec, gauntlets.blocks("g-stored"))  # the test's state is the one the stored blocks give
    assert again.decision == "H1" and again.llr == pytest.approx(outcome.state.llr)
    assert stored_spec(store, "g-stored").candidate.name == "weakened" and "seed" not in record.spec
    assert spec.seed_secret not in str(record.spec)
    # The seed and the secret are kept apart, with the commitment to both (published) and its salt.
    kept = gauntlets.seed_material("g-stored")
    assert (kept.seed, kept.secret) == (spec.seed, spec.seed_secret) and record.seed_commitment == kept.commitment
    assert check_commitment(record.seed_commitment, spec.seed, kept.salt, kept.secret)
    assert stored_spec(store, "g-stored") == spec
    found = verify_gauntlet_seed(record.seed_commitment, spec.seed, kept.salt, kept.secret, 2, spec.seats)
    assert found.committed and list(found.deals[1]) == [p.seed for p in block_plan(spec, 1) if p.role == "baseline"]
    assert not verify_gauntlet_seed(record.seed_commitment, spec.seed, kept.salt, "11" * 32, 2, spec.seats).committed
    assert [b.block for b in gauntlets.blocks("g-stored")] == list(range(outcome.state.n))
    assert [r.id for r in gauntlets.recent()] == ["g-stored"]
    # Writing a block again is a no-op.
    assert not gauntlets.add_block("g-stored", 0, StoredBlock(0, 0.0, 0.0), GauntletStatus.RUNNING)
    assert gauntlets.get("g-stored").blocks == outcome.state.n
    with pytest.raises(ValueError, match="exists already"):
        run_gauntlet(spec, store, make_bot=make_bot)
    with pytest.raises(UnknownGauntlet):
        gauntlets.get("g-nothing")


def test_blocks_with_aborted_matches_are_played_again_then_fail(store: Store) -> None:
    """An infrastructure fault is never scored: the block is replayed as the next attempt, and after
    MAX_BLOCK_ATTEMPTS aborted attempts the gauntlet fails instead of counting anything."""
    real = MatchPlayerForGauntlet(None, make_bot)
    attempts: list[str] = []

    def flaky(planned: PlannedMatch, spec: GauntletSpec) -> MatchRecord:
        record = real(planned, spec)
        attempts.append(planned.match_id)
        if planned.match_id.startswith("g-flaky-b00001-") and planned.role == "baseline" and planned.tested_seat == 1:
            return replace(record, end_reason=EndReason.ABORTED)
        return record

    spec = spec_of("heuristic", "random", name="g-flaky")
    try:
        outcome = run_gauntlet(spec, store, make_bot=make_bot, play=flaky)
    finally:
        real.close()
    assert outcome.status == "failed" and "aborted by the arena 3 times" in outcome.detail
    assert outcome.state.n == 1  # block 0 counted; block 1 never
    assert {m.split("-a")[1][0] for m in attempts if "-b00001-" in m} == {"1", "2", "3"}
    assert store.gauntlets.get("g-flaky").status == "failed"


def test_a_registered_bot_of_the_wrong_version_stops_the_gauntlet() -> None:
    spec = replace(spec_of("heuristic", "random"), candidate=Contender("heuristic", "2.0"))
    plan = block_plan(spec, 0)
    player = MatchPlayerForGauntlet(None, make_bot)
    try:
        records = [player(planned, spec) for planned in plan]
    finally:
        player.close()
    versions = [replace(r, bot_versions=["1.9"] * len(r.bot_versions)) for r in records]
    with pytest.raises(GauntletError, match=re.escape("played version '1.9', the gauntlet asked for '2.0'")):
        score_block(spec, plan, versions)
    right = [replace(r, bot_versions=["2.0"] * len(r.bot_versions)) for r in records]
    assert score_block(spec, plan, right) is not None


def test_the_command_runs_prints_the_llr_and_lists(organizer: Any, worker: Any,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`gauntlet` starts it in the arena (StartGauntlet), the worker plays it, the command follows it to the end
    (GetGauntlet) printing the LLR within its bounds; `list` and `show` read it back through the API."""
    server = ["--server", organizer.address]
    code = main(["gauntlet", "--candidate", "heuristic", "--baseline", "random", "--seats", "2", "--mu1", "0.2",
                 "--seed", "3", "--target-score", "100", "--name", "g-cli", "--poll", "0.2", *server])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "LLR" in out and "in [-2.944, 2.944]" in out and "g-cli: accepted" in out
    assert "block    1  score" in out  # every block, numbered from 1
    assert main(["gauntlet", "list", *server]) == 0
    listing = capsys.readouterr().out
    assert "g-cli" in listing and "accepted" in listing and "heuristic" in listing
    assert main(["gauntlet", "show", "g-cli", "--json", *server]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["status"] == "accepted" and len(shown["block_list"]) == shown["blocks"]
    assert [b["block"] for b in shown["block_list"]] == list(range(1, shown["blocks"] + 1))
    assert len(shown["seed_commitment"]) == 64 and len(shown["seed_secret"]) == 64  # revealed: it ended
    assert main(["gauntlet", "verify", "g-cli", "--deals", *server]) == 0
    verified = capsys.readouterr().out
    assert "block    1  deal seeds by seat: " in verified and "commitment ok" in verified
    assert main(["gauntlet", "show", "g-none", *server]) == 1
    err = capsys.readouterr().err
    assert "NOT_FOUND" in err and "g-none" in err and "Traceback" not in err


def test_the_command_refuses_bad_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("UNO_ARENA_TARGET", "127.0.0.1:9")  # nothing there
    assert main(["gauntlet", "--candidate", "heuristic"]) == 2
    assert "needs --candidate" in capsys.readouterr().err
    assert main(["gauntlet", "--candidate", "heuristic", "--baseline", "random", "--alpha", "0.7"]) == 2
    assert "alpha must be between 0 and 0.5" in capsys.readouterr().err
    assert main(["gauntlet", "list"]) == 1
    err = capsys.readouterr().err
    assert "cannot reach the arena at 127.0.0.1:9" in err and "Traceback" not in err
    assert main(["gauntlet", "--candidate", "mybot", "--baseline", "random"]) == 1
    assert "cannot reach the arena" in capsys.readouterr().err


def test_a_registered_bot_plays_through_the_relay_at_the_version_asked(redis_server: Any, store: Store) -> None:
    """A kit bot connected to a real gateway (version 2.0) is the candidate: its matches go through the Redis
    relay; asking for another version fails the gauntlet naming both; an unknown or absent bot is refused."""
    with GatewayHarness(redis_url=redis_server.url) as gw:
        token = gw.register_bot("remote1")
        gw.register_bot("absent1")
        with LoopThread("gauntlet-remote-bot") as loop_thread:
            stop = asyncio.Event()
            played = loop_thread.submit(play_async(HeuristicBot, target=gw.address, token=token, stop=stop,
                                                   bot_version="2.0"))
            try:
                gw.wait_for_bot("remote1", timeout=15)
                two_blocks = SprtConfig(mu1=0.2, min_blocks=2, max_blocks=2)

                def remote_spec(candidate: str, name: str) -> GauntletSpec:
                    return build_spec(candidate=candidate, baseline="random", seats=2, rules=QUICK, sprt=two_blocks,
                                      seed=1, decision_deadline_ms=5000, gauntlet_id=name, seed_secret="01" * 32)

                outcome = run_gauntlet(remote_spec("remote1@2.0", "g-remote"), store, make_bot=make_bot)
                wrong = run_gauntlet(remote_spec("remote1@3.0", "g-remote-old"), store, make_bot=make_bot)
                with pytest.raises(GauntletError, match="'absent1' is not connected"):
                    run_gauntlet(remote_spec("absent1", "g-absent"), store, make_bot=make_bot)
                with pytest.raises(GauntletError, match="unknown bot 'nobody'"):
                    run_gauntlet(remote_spec("nobody", "g-nobody"), store, make_bot=make_bot)
            finally:
                loop_thread.call_soon(stop.set)
                concurrent.futures.wait([played], timeout=15)
    assert outcome.status == "inconclusive" and outcome.state.n == 2
    assert sum(b.score for b in outcome.blocks) > 0  # the heuristic bot behind the stream beats random
    assert wrong.status == "failed"
    assert "candidate remote1 played version '2.0', the gauntlet asked for '3.0'" in wrong.detail
    assert store.gauntlets.get("g-remote-old").status == "failed"
