"""Every user-supplied id is safe and every number bounded (issue 12, part 5): refused requests write nothing,
answer INVALID_ARGUMENT (never UNKNOWN) and quote at most 100 characters of the input."""

from __future__ import annotations

import importlib
from typing import Any

import grpc
import pytest

from arena.protocol import arena_pb2, game_pb2
from arena.server.organizer import Organizer
from arena.service import lifecycle
from arena.store import Store
from arena.tournament import TournamentSpec
from arena.tournament.limits import quoted
from tests.support.organizer import OrganizerServer

from .conftest import ADMIN


def spec_msg(**fields: Any) -> arena_pb2.TournamentSpec:
    base: dict[str, Any] = {"participants": ["random", "heuristic"], "rules": game_pb2.Rules(target=50)}
    base.update(fields)
    return arena_pb2.TournamentSpec(**base)


def refused(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        result = call()
        if not hasattr(result, "SerializeToString"):
            list(result)
    return info.value.code(), info.value.details() or ""


def keys(store: Store) -> set[bytes]:
    return set(store.redis.keys("*"))


def test_colliding_ids_are_refused_and_nothing_is_written(organizer: OrganizerServer, store: Store) -> None:
    stub = organizer.stub
    store.schedules.add("nightly", "0 3 * * *", {"participants": ["random", "heuristic"]}, created_at=0)
    before = keys(store)
    requests = {
        "schedule named like a fire-once lock": lambda: stub.ScheduleTournament(arena_pb2.ScheduleTournamentRequest(
            spec=spec_msg(name="nightly:fired:1767236400"), cron="0 3 * * *"), metadata=ADMIN),
        "schedule key like the scheduler's": lambda: stub.ScheduleTournament(arena_pb2.ScheduleTournamentRequest(
            spec=spec_msg(), cron="0 3 * * *", idempotency_key="schedule:nightly:1767236400"), metadata=ADMIN),
        "create key like the scheduler's": lambda: stub.CreateTournament(arena_pb2.CreateTournamentRequest(
            spec=spec_msg(), idempotency_key="schedule:nightly:1767236400"), metadata=ADMIN),
        "tournament name with ':'": lambda: stub.CreateTournament(arena_pb2.CreateTournamentRequest(
            spec=spec_msg(name="nightly:fired")), metadata=ADMIN),
        "bot name with ':'": lambda: stub.RegisterBot(arena_pb2.RegisterBotRequest(name="a:b"), metadata=ADMIN),
        "participant with ':'": lambda: stub.CreateTournament(arena_pb2.CreateTournamentRequest(
            spec=spec_msg(participants=["random", "bot:x"])), metadata=ADMIN),
        "watch an id with ':'": lambda: stub.WatchTournament(arena_pb2.WatchTournamentRequest(
            tournament_id="nightly:fired"), metadata=ADMIN),
        "cancel an id with ':'": lambda: stub.CancelTournament(arena_pb2.CancelTournamentRequest(
            tournament_id="a:b"), metadata=ADMIN),
    }
    for what, call in requests.items():
        code, details = refused(call)
        assert code == grpc.StatusCode.INVALID_ARGUMENT, (what, code, details)
    assert keys(store) == before  # nothing written
    assert [s.schedule_id for s in store.schedules.all()] == ["nightly"]


def test_every_number_is_bounded_and_bad_input_is_never_unknown(organizer: OrganizerServer, store: Store) -> None:
    stub = organizer.stub
    before = keys(store)
    bad = {
        "deadline too short": spec_msg(decision_deadline_ms=5),
        "deadline of 49 days": spec_msg(decision_deadline_ms=49 * 24 * 3600 * 1000),
        "target": spec_msg(rules=game_pb2.Rules(target=1_000_000)),
        "decision cap too small": spec_msg(rules=game_pb2.Rules(max_decisions_per_round=1)),
        "decision cap too large": spec_msg(rules=game_pb2.Rules(max_decisions_per_round=10**9)),
        "deals": spec_msg(deals_per_table=100_000),
        "seats": spec_msg(seats_per_table=11),
        "too many matches": spec_msg(participants=[f"random#{i}" for i in range(400)], deals_per_table=10),
        "field at 3 seats": spec_msg(participants=[f"random#{i}" for i in range(300)], seats_per_table=3),
        "field at 2 seats": spec_msg(participants=[f"random#{i}" for i in range(513)]),
        "2000 bots at 10 seats": spec_msg(participants=[f"random#{i}" for i in range(2000)], seats_per_table=10),
        "empty participant": spec_msg(participants=["random", " "]),
    }
    for what, spec in bad.items():
        for request in (arena_pb2.CreateTournamentRequest(spec=spec),
                        arena_pb2.ScheduleTournamentRequest(spec=spec, cron="0 3 * * *")):
            method = stub.CreateTournament if isinstance(request, arena_pb2.CreateTournamentRequest) \
                else stub.ScheduleTournament
            code, details = refused(lambda m=method, r=request: m(r, metadata=ADMIN))
            assert code == grpc.StatusCode.INVALID_ARGUMENT, (what, code, details)
            assert len(details) < 1000, what
    assert keys(store) == before
    # The largest valid field at 10 seats (a balanced design) is accepted (how fast it is counted is a benchmark's
    # to say, not a test's).
    big = spec_msg(participants=[f"random#{i}" for i in range(256)], seats_per_table=10)
    created = stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=big), metadata=ADMIN)
    assert created.tournament.matches_total == 1280


def test_a_60_kb_input_gives_a_short_invalid_argument(organizer: OrganizerServer, store: Store) -> None:
    stub = organizer.stub
    huge = "x" * 60_000
    calls = {
        "tournament name": lambda: stub.CreateTournament(arena_pb2.CreateTournamentRequest(
            spec=spec_msg(name=huge)), metadata=ADMIN),
        "idempotency key": lambda: stub.CreateTournament(arena_pb2.CreateTournamentRequest(
            spec=spec_msg(), idempotency_key=huge), metadata=ADMIN),
        "participant": lambda: stub.CreateTournament(arena_pb2.CreateTournamentRequest(
            spec=spec_msg(participants=["random", huge])), metadata=ADMIN),
        "schedule id": lambda: stub.ScheduleTournament(arena_pb2.ScheduleTournamentRequest(
            spec=spec_msg(name=huge), cron="0 3 * * *"), metadata=ADMIN),
        "cron": lambda: stub.ScheduleTournament(arena_pb2.ScheduleTournamentRequest(
            spec=spec_msg(), cron=huge), metadata=ADMIN),
        "bot name": lambda: stub.RegisterBot(arena_pb2.RegisterBotRequest(name=huge), metadata=ADMIN),
        "bot description": lambda: stub.RegisterBot(arena_pb2.RegisterBotRequest(name="described", description=huge),
                                                    metadata=ADMIN),
        "watched id": lambda: stub.WatchTournament(arena_pb2.WatchTournamentRequest(tournament_id=huge)),
        "replayed match": lambda: stub.GetReplay(arena_pb2.GetReplayRequest(match_id=huge), metadata=ADMIN),
        "exported id": lambda: stub.ExportResults(arena_pb2.ExportResultsRequest(tournament_id=huge)),
        "cancelled id": lambda: stub.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id=huge),
                                                      metadata=ADMIN),
    }
    for what, call in calls.items():
        code, details = refused(call)
        assert code == grpc.StatusCode.INVALID_ARGUMENT, (what, code, details[:200])
        assert len(details) <= 1000 and "x" * 101 not in details, (what, len(details))
    _, details = refused(calls["bot description"])
    assert "description must be at most 200 printable characters" in details and "60000 characters" in details
    assert store.tournaments.ids() == [] and store.schedules.all() == []
    assert quoted("y" * 500).startswith("'" + "y" * 100 + "'...") and "500 characters" in quoted("y" * 500)


def test_watch_and_cancel_never_recompute_the_design(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = TournamentSpec("t-big", tuple(f"random#{i}" for i in range(40)), seats=4, seed=3)
    lifecycle.create_tournament(store, spec)

    def boom(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the design was computed again")

    import arena.server.organizer as organizer_module

    schedule_module = importlib.import_module("arena.tournament.schedule")
    monkeypatch.setattr(schedule_module, "tables", boom)
    monkeypatch.setattr(organizer_module, "count_matches", boom)
    core = Organizer(store, admin_token="")
    stored = int(store.tournaments.get("t-big").extra["matches_total"])
    assert core.tournament_message("t-big").matches_total == stored > 0
    cancelled = core.cancel_tournament(arena_pb2.CancelTournamentRequest(tournament_id="t-big", reason="test"))
    assert cancelled.tournament.state == arena_pb2.TOURNAMENT_STATE_CANCELLED and cancelled.tournament.matches_total
