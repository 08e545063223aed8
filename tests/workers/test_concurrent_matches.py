"""One worker child plays many remote matches at once, within every bot's offer (issue 22, items 1 and 2).

Every part is its own process: a private Redis, `serve`, one `worker` with ONE child, and the bots, kit clients of
the swarm (each offering two matches at once). With `--matches-per-process 4` the child has several matches in
flight (seen from the stored results: each match's [finish - duration, finish]) and, its own batch all started,
adopts the next queued one; no bot ever sits in more matches than it offered; every match is scored, with no
timeout, strike or forfeit; with `--matches-per-process 1` the matches run one after another, as before."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena.processes import Processes, cli_argv, free_port
from arena.service.lifecycle import create_tournament
from arena.store import Store, StoredResult
from arena.tournament import TournamentSpec
from tests.support import wait_until
from tests.support.redis_server import PrivateRedis
from workers.celery_app import make_celery
from workers.enqueue import START_TASK

pytestmark = pytest.mark.integration

BOTS = ("ann", "bob", "cid", "dee")
OFFER = 2


def most_at_once(intervals: list[tuple[float, float]]) -> int:
    """The largest number of intervals that overlap at one instant."""
    edges = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    now = best = 0
    for _time, step in edges:
        now += step
        best = max(best, now)
    return best


def interval(result: StoredResult) -> tuple[float, float]:
    return result.finished_at - result.duration_s, result.finished_at


def test_most_at_once_counts_overlaps() -> None:
    assert most_at_once([(0, 2), (1, 3), (2.5, 4)]) == 2
    assert most_at_once([(0, 1), (1, 2)]) == 1  # an end and a start at one instant: the end first
    assert most_at_once([]) == 0


@pytest.mark.parametrize("limit", [4, 1])
def test_one_child_plays_several_remote_matches_within_every_bots_offer(redis_server: PrivateRedis,
                                                                          tmp_path: Path, limit: int) -> None:
    url, address = redis_server.url, f"127.0.0.1:{free_port()}"
    store = Store.from_url(url)
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("".join(f"{name} {store.bots.register(name)[1]}\n" for name in BOTS))
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ARENA_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.update(REDIS_URL=url)
    processes = Processes(tmp_path)
    try:
        processes.start("gateway", [*cli_argv(), "serve", "--address", address, "--metrics-port", "-1",
                                    "--gateway-id", "gw1", "--insecure-no-admin-token"], env)
        processes.start("worker", [*cli_argv(), "worker", "--concurrency", "1", "--metrics-port", "-1",
                                   "--matches-per-process", str(limit), "--hostname", "w1@%h"], env)
        processes.start("bots", [sys.executable, "-m", "benchmarks.swarm", "--target", address,
                                 "--tokens-file", str(tokens), "--brain", "heuristic",
                                 "--max-concurrent", str(OFFER)], env)

        def connected() -> bool:
            processes.check_alive()
            return all(store.sessions.for_bot(name) for name in BOTS)

        wait_until(connected, 60, "every bot connected")
        spec = TournamentSpec(tournament_id=f"many-{limit}", participants=BOTS, variant="classic", seats=2, deals=1,
                              duplicate=True, seed=11, options={"target": 50})
        create_tournament(store, spec)
        make_celery(url).send_task(START_TASK, args=[spec.tournament_id])

        def finished() -> bool:
            processes.check_alive()
            return store.results.progress(spec.tournament_id).complete

        wait_until(finished, 240, "every match of the tournament recorded",
                   details=lambda: (tmp_path / "worker.log").read_text(errors="replace")[-2000:])
        results = list(store.results.all(spec.tournament_id).values())
        assert len(results) == 12
        assert all(r.scored for r in results), [r.detail for r in results if not r.scored]
        assert all(sum(r.timeouts) == 0 and not r.result.forfeits for r in results)
        in_flight = most_at_once([interval(r) for r in results])
        log = (tmp_path / "worker.log").read_text(errors="replace")
        if limit == 1:
            assert in_flight == 1
            assert "adopts batch" not in log
        else:
            assert 2 <= in_flight <= limit
            # Batches of 8 and 4: with its own batch all started, the child takes the queued one as well.
            assert "adopts batch" in log
        for name in BOTS:
            assert most_at_once([interval(r) for r in results if name in r.seats]) <= OFFER, name
    finally:
        processes.stop_all()
        store.close()
