"""Every attempt of a match is distinct for the bots (issue 13, item 3): run_batch hands the attempt number of
``RunState.begin`` to the player (``MatchSpec.attempt`` -> ``MatchConfig.attempt`` -> ``MatchStarted.attempt``)."""

from __future__ import annotations

from typing import Any

from arena.service.lifecycle import Settings, check_tournament, create_tournament, run_batch, start_tournament
from arena.service.match_player import MatchPlayer
from arena.store import Replay, Store, StoredResult
from arena.tournament import MatchSpec, schedule
from bots import make_bot

from .helpers import small_spec
from .test_worker_units import Inline


def test_a_match_played_again_is_the_next_attempt(store: Store) -> None:
    spec = small_spec("t-attempts", deals=1)
    create_tournament(store, spec)
    enqueue = Inline()
    settings = Settings(max_attempts=3)
    start_tournament(store, spec.tournament_id, enqueue, settings)
    flaky = schedule(spec)[0].match_id
    player = MatchPlayer(store, make_bot=make_bot)
    attempts: dict[str, list[int]] = {}

    def play(m: MatchSpec) -> tuple[StoredResult, Replay]:
        attempts.setdefault(m.match_id, []).append(m.attempt)
        if m.match_id == flaky and m.attempt == 1:
            raise RuntimeError("the worker child broke down")
        return player(m)

    try:
        for _ in range(2):  # the first delivery, then the re-send of what is missing
            for batch_id, ids in list(enqueue.batches):
                run_batch(store, spec.tournament_id, batch_id, ids, play, settings, enqueue=enqueue)
            enqueue.batches.clear()
            check_tournament(store, spec.tournament_id, enqueue, settings)
    finally:
        player.close()
    assert attempts[flaky] == [1, 2]
    assert all(seen == [1] for match_id, seen in attempts.items() if match_id != flaky)
    assert store.tournaments.status(spec.tournament_id) == "finished"
    result = store.results.get(spec.tournament_id, flaky)
    assert result is not None and result.end_reason != "aborted"


def test_the_infrastructure_grace_is_a_worker_setting(monkeypatch: Any) -> None:
    from workers.celery_app import make_celery

    assert Settings().infra_grace_s == 30.0
    monkeypatch.setenv("UNO_ARENA_INFRA_GRACE_S", "7.5")
    settings = Settings.from_conf(make_celery("redis://127.0.0.1:1/0").conf)
    assert settings.infra_grace_s == 7.5
    spec = schedule(small_spec("t-grace", deals=1))[0]
    from arena.service.matches import match_config

    assert match_config(spec, infra_grace_s=settings.infra_grace_s).infra_grace_s == 7.5
    assert MatchPlayer(None, make_bot=make_bot, infra_grace_s=7.5).infra_grace_s == 7.5  # type: ignore[arg-type]
