"""Tournaments that can be played again (issue 36, item 5): `tournament create --deals-of T` replays an ended
tournament's deals (its revealed seed and secret) with today's bots, and `--seed S --seed-secret HEX` does the same
in another arena; such a tournament says its deals were known (create, standings, verify), only the admin may
create one, and the deals of a tournament still running stay secret."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.processes import Processes, cli_argv, free_port
from arena.protocol import arena_pb2
from arena.service.lifecycle import create_tournament
from arena.store import Store
from arena.tournament import TournamentSpec
from tests.support import wait_until
from tests.support.organizer import OrganizerServer
from tests.support.redis_server import private_redis
from tests.workers.helpers import wait_finished

from .conftest import ADMIN_TOKEN

pytestmark = pytest.mark.integration

SPEC_FLAGS = ("--bots", "heuristic,heuristic#2,random", "--deals", "2", "--duplicate", "--target-score", "60")


def cli(capsys: Any, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def deals(store: Store, tid: str) -> dict[str, tuple[int, tuple[str, ...], tuple[int, ...]]]:
    """Every recorded match of ``tid`` by its place in the schedule (the match id without the tournament id): its
    deal seed, its seats and its scores."""
    return {mid.removeprefix(tid): (r.seed, r.result.seats, r.result.scores)
            for mid, r in store.results.all(tid).items()}


def assert_same_deals(first: dict[str, Any], again: dict[str, Any]) -> None:
    """Every match of ``again`` has the deal seed and seats of ``first``'s at its place; the heuristic bot is
    deterministic (the random bot draws from a seed of its match id), so the matches of its copies end alike."""
    assert len(first) == 12 and first.keys() == again.keys()
    assert {k: v[:2] for k, v in first.items()} == {k: v[:2] for k, v in again.items()}
    mirrored = [k for k, v in first.items() if "random" not in v[1]]
    assert len(mirrored) == 4 and all(first[k] == again[k] for k in mirrored)


def test_deals_of_an_ended_tournament_replay_with_the_same_seeds_and_say_so(
    organizer: OrganizerServer, worker: Any, store: Store, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UNO_ARENA_ADMIN_TOKEN", ADMIN_TOKEN)
    target = ("--target", organizer.address)
    code, out, err = cli(capsys, "tournament", "create", *SPEC_FLAGS, "--name", "t-first", *target)
    assert code == 0, err
    # A tournament that has not ended keeps its secret: one line naming why (this one stays pending: no start).
    create_tournament(store, TournamentSpec("t-pending", ("random", "heuristic"), seed=5))
    code, out, err = cli(capsys, "tournament", "create", *SPEC_FLAGS, "--deals-of", "t-pending", *target)
    assert code == 1 and "FAILED_PRECONDITION" in err and "secret until it ends" in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    code, out, err = cli(capsys, "tournament", "create", *SPEC_FLAGS, "--deals-of", "no-such", *target)
    assert code == 1 and "NOT_FOUND" in err, err
    wait_finished(store, "t-first")

    # Only the admin creates tournaments, these too.
    monkeypatch.delenv("UNO_ARENA_ADMIN_TOKEN")
    code, out, err = cli(capsys, "tournament", "create", *SPEC_FLAGS, "--deals-of", "t-first", *target)
    assert code == 1 and "needs the admin role" in err, err
    monkeypatch.setenv("UNO_ARENA_ADMIN_TOKEN", ADMIN_TOKEN)

    code, out, err = cli(capsys, "tournament", "create", *SPEC_FLAGS, "--deals-of", "t-first", "--name", "t-again",
                         *target)
    assert code == 0, err
    assert "deals known in advance" in out and "t-first" in out, out
    wait_finished(store, "t-again")
    assert_same_deals(deals(store, "t-first"), deals(store, "t-again"))
    assert store.tournaments.get("t-first").extra.get("deals_known") is None

    code, out, err = cli(capsys, "tournament", "verify", "t-again", *target)
    assert code == 0 and "consistent" in out and "commitment ok" in out, out + err
    assert "deals known in advance" in out and "t-first" in out, out
    code, out, err = cli(capsys, "tournament", "verify", "t-first", *target)
    assert code == 0 and "deals known" not in out, out
    code, out, err = cli(capsys, "tournament", "standings", "t-again", *target)
    assert code == 0 and "deals known in advance" in out, out

    # The verdicts come with the standings and the pool's leaderboard (issue 38, item 3): one sentence, every pair.
    standings = organizer.stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id="t-again"))
    assert len(standings.verdicts.pairs) == 3 and standings.verdicts.summary in out
    assert [row.bot_name for row in standings.standings][:2] == [standings.verdicts.pairs[0].bot_a,
                                                                 standings.verdicts.pairs[0].bot_b]
    pool = TournamentSpec.from_dict(store.tournaments.get("t-again").spec).rating_pool
    board = organizer.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(pool_id=pool))
    assert board.ranked_by == arena_pb2.LEADERBOARD_RANKING_BATCH and len(board.verdicts.pairs) == 3
    assert board.verdicts.summary

    # A seed other than the replayed deals' is refused, as is a secret without its seed or a malformed one.
    code, out, err = cli(capsys, "tournament", "create", *SPEC_FLAGS, "--deals-of", "t-first", "--seed", "3", *target)
    assert code == 1 and "INVALID_ARGUMENT" in err and "leave --seed out" in err, err
    code, out, err = cli(capsys, "tournament", "create", *SPEC_FLAGS, "--seed-secret", "ab" * 32, *target)
    assert code == 2 and "--seed" in err, err
    code, out, err = cli(capsys, "tournament", "create", *SPEC_FLAGS, "--seed", "3", "--seed-secret", "xyz", *target)
    assert code == 1 and "INVALID_ARGUMENT" in err and "64 lowercase hex digits" in err, err


def test_seed_and_secret_replay_the_deals_in_another_arena(
    organizer: OrganizerServer, worker: Any, store: Store, capsys: Any, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("UNO_ARENA_ADMIN_TOKEN", ADMIN_TOKEN)
    code, _out, err = cli(capsys, "tournament", "create", *SPEC_FLAGS, "--name", "t-here", "--target",
                         organizer.address)
    assert code == 0, err
    wait_finished(store, "t-here")
    revealed = store.tournaments.get("t-here")
    seed, secret = int(revealed.spec["seed"]), str(revealed.spec["seed_secret"])

    # A second arena of its own: its own redis-server, gateway and worker processes.
    with private_redis(persistence=False) as other_redis:
        second_arena(other_redis.url, store, seed, secret, capsys, tmp_path)


def second_arena(url: str, store: Store, seed: int, secret: str, capsys: Any, tmp_path: Path) -> None:
    """Play `--seed S --seed-secret HEX` in an arena on ``url`` and compare its deals with ``t-here``'s."""
    other = Store.from_url(url)
    address = f"127.0.0.1:{free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ARENA_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.update(REDIS_URL=url, UNO_ARENA_ADMIN_TOKEN=ADMIN_TOKEN)
    processes = Processes(tmp_path)
    try:
        processes.start("gateway", [*cli_argv(), "serve", "--address", address, "--metrics-port", "-1"], env)
        processes.start("worker", [*cli_argv(), "worker", "--concurrency", "1", "--metrics-port", "-1"], env)

        def created() -> bool:
            processes.check_alive()
            code, _out, _err = cli(capsys, "tournament", "create", *SPEC_FLAGS, "--name", "t-there", "--seed",
                                   str(seed), "--seed-secret", secret.upper(), "--idempotency-key", "there",
                                   "--target", address)
            return code == 0

        wait_until(created, 60, "the second arena to create the tournament")
        wait_until(lambda: processes.check_alive() or other.tournaments.status("t-there") == "finished", 120,
                   "the second arena's tournament to finish",
                   details=lambda: (tmp_path / "worker.log").read_text(errors="replace")[-2000:])
        assert_same_deals(deals(store, "t-here"), deals(other, "t-there"))
        assert other.tournaments.get("t-there").extra.get("deals_known") == "1"
        code, out, err = cli(capsys, "tournament", "verify", "t-there", "--target", address)
        assert code == 0 and "consistent" in out and "a seed and secret given by the admin" in out, out + err
    finally:
        processes.stop_all()
        other.close()
