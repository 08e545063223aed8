"""The organizer API over real gRPC and the CLI as its thin client, with a real Celery worker and Redis."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc
from celery import Celery

from arena.protocol import arena_pb2, game_pb2
from arena.service import lifecycle
from arena.store import Store
from arena.store.runstate import RunState
from arena.tournament import schedule
from tests.support import wait_until
from tests.support.organizer import OrganizerServer

from .helpers import (
    clean_standings,
    cli,
    small_spec,
    spec_msg,
    status_of,
    stored_spec,
    wait_finished,
    worker_standings,
)


def test_cli_create_watch_standings_export_replay(
    organizer: OrganizerServer, worker: Any, store: Store, capsys: Any, tmp_path: Path
) -> None:
    target = organizer.address
    code, out, _ = cli(capsys, "bots", "register", "mybot", "--description", "mine", "--server", target)
    assert code == 0 and "mybot." in out  # the token, shown once
    code, out, _ = cli(capsys, "bots", "list", "--server", target)
    assert code == 0 and "mybot" in out and "mine" in out

    create = ["tournament", "create", "--bots", "random,heuristic,random#2", "--deals", "2", "--target-score", "100",
              "--seed", "5", "--name", "t-cli", "--idempotency-key", "req-1", "--server", target]
    code, out, _ = cli(capsys, *create, "--watch")
    assert code == 0, out
    assert "t-cli" in out and "6/6 matches" in out and "final" in out
    code, out, _ = cli(capsys, *create)  # the retry: same tournament, nothing new
    assert code == 0 and "tournament t-cli:" in out
    assert store.tournaments.ids() == ["t-cli"]

    code, out, _ = cli(capsys, "tournament", "standings", "t-cli", "--json", "--server", target)
    data = json.loads(out)
    assert data["final"] is True and len(data["standings"]) == 3
    spec = small_spec("t-cli", seed=5)
    stored = stored_spec(store, spec)
    assert stored.seed == 5 and len(stored.seed_secret) == 64  # the seed given, and the secret the arena drew
    clean = clean_standings(stored)
    assert [(r["bot_name"], r["wins"]) for r in data["standings"]] == [(r["bot"], r["wins"]) for r in clean["rows"]]
    assert worker_standings(store, "t-cli") == clean

    code, out, _ = cli(capsys, "tournament", "export", "t-cli", "--server", target)
    lines = out.strip().splitlines()
    assert lines[0].startswith("match_id,") and len(lines) == 1 + 6 * 2
    path = tmp_path / "t.json"
    code, _, _ = cli(capsys, "tournament", "export", "t-cli", "--format", "json", "-o", str(path), "--server", target)
    doc = json.loads(path.read_text())
    assert doc["tournament"]["matches_done"] == 6 and len(doc["matches"]) == 6 and doc["standings"]["final"]

    match_id = schedule(spec)[0].match_id
    code, out, _ = cli(capsys, "replay", match_id, "--server", target)
    assert code == 0 and f"match {match_id} (omniscient" in out and "#1 seat" in out and "end: completed" in out
    code, out, _ = cli(capsys, "replay", match_id, "--seat", "1", "--json", "--server", target)
    seat_view = json.loads(out)
    assert seat_view["viewer"] == 1 and "seed" not in seat_view  # proto3 JSON leaves out a zero seed


def test_watch_streams_every_match_once_then_the_end(organizer: OrganizerServer, worker: Any, store: Store) -> None:
    reply = organizer.stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=spec_msg(name="t-watch")))
    assert reply.tournament.matches_total == 3
    seen: list[str] = []
    states = []
    for update in organizer.stub.WatchTournament(arena_pb2.WatchTournamentRequest(tournament_id="t-watch"), timeout=60):
        states.append(update.tournament.state)
        if update.HasField("match"):
            seen.append(update.match.match_id)
            assert len(update.match.result.scores) == 2
            assert update.match.reason == game_pb2.END_REASON_COMPLETED
    assert states[-1] == arena_pb2.TOURNAMENT_STATE_FINISHED
    assert sorted(seen) == sorted(m.match_id for m in schedule(small_spec("t-watch", deals=1, seed=5)))
    standings = organizer.stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id="t-watch"))
    assert standings.final and [s.rank for s in standings.standings] == [1, 2, 3]
    assert all(s.rating_low < s.rating < s.rating_high for s in standings.standings)




def test_bad_input_gives_clear_errors_and_creates_nothing(
    organizer: OrganizerServer, store: Store, capsys: Any
) -> None:
    stub = organizer.stub

    def create(request: arena_pb2.CreateTournamentRequest) -> Any:
        return stub.CreateTournament(request)

    def create_spec(**fields: Any) -> Any:
        return create(arena_pb2.CreateTournamentRequest(spec=spec_msg(**fields)))

    code, msg = status_of(lambda: create_spec(participants=["random", "nobody"]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "nobody" in msg and "unknown bot" in msg
    code, msg = status_of(lambda: create_spec(participants=["random", "random"]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "duplicate" in msg
    code, msg = status_of(lambda: create_spec(seats_per_table=4))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "larger than the field" in msg
    code, msg = status_of(lambda: create_spec(seats_per_table=11))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "seats" in msg
    code, msg = status_of(lambda: create_spec(name="bad name!"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "tournament name" in msg
    code, msg = status_of(lambda: create(arena_pb2.CreateTournamentRequest()))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "spec" in msg
    bad_cron = arena_pb2.ScheduleTournamentRequest(spec=spec_msg(), cron="61 * * * *")
    code, msg = status_of(lambda: stub.ScheduleTournament(bad_cron))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "minute" in msg and "out of range" in msg
    short_cron = arena_pb2.ScheduleTournamentRequest(spec=spec_msg(), cron="* * *")
    code, msg = status_of(lambda: stub.ScheduleTournament(short_cron))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "fields" in msg
    bad_zone = arena_pb2.ScheduleTournamentRequest(spec=spec_msg(), cron="0 3 * * *", time_zone="Mars/Olympus")
    code, msg = status_of(lambda: stub.ScheduleTournament(bad_zone))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "unknown time zone 'Mars/Olympus'" in msg
    twice = arena_pb2.ScheduleTournamentRequest(spec=spec_msg(), cron="CRON_TZ=UTC 0 3 * * *", time_zone="Europe/Oslo")
    code, msg = status_of(lambda: stub.ScheduleTournament(twice))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "time zone once" in msg
    assert store.tournaments.ids() == [] and store.schedules.all() == []

    # The same idempotency key: the first tournament again; with another spec: refused.
    first = create(arena_pb2.CreateTournamentRequest(spec=spec_msg(seed=0), idempotency_key="k-1"))
    again = create(arena_pb2.CreateTournamentRequest(spec=spec_msg(seed=0), idempotency_key="k-1"))
    assert again.tournament.tournament_id == first.tournament.tournament_id
    assert again.tournament.spec.seed == first.tournament.spec.seed != 0  # drawn once, stored with the tournament
    other = arena_pb2.CreateTournamentRequest(spec=spec_msg(deals_per_table=3), idempotency_key="k-1")
    code, msg = status_of(lambda: create(other))
    assert code == grpc.StatusCode.ALREADY_EXISTS and "k-1" in msg
    named = arena_pb2.CreateTournamentRequest(spec=spec_msg(name=first.tournament.tournament_id))
    code, msg = status_of(lambda: create(named))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    assert store.tournaments.ids() == [first.tournament.tournament_id]

    code, msg = status_of(lambda: stub.RegisterBot(arena_pb2.RegisterBotRequest(name="heuristic")))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "reserved" in msg
    stub.RegisterBot(arena_pb2.RegisterBotRequest(name="dup"))
    code, msg = status_of(lambda: stub.RegisterBot(arena_pb2.RegisterBotRequest(name="DUP")))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    code, msg = status_of(lambda: stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id="nope")))
    assert code == grpc.StatusCode.NOT_FOUND
    code, msg = status_of(lambda: stub.GetReplay(arena_pb2.GetReplayRequest(match_id="nope:d0000:t000000:r00")))
    assert code == grpc.StatusCode.NOT_FOUND

    # The CLI shows the server's status and message, exit status 1.
    code, _, err = cli(capsys, "tournament", "schedule", "--bots", "random,heuristic", "--cron", "0 25 * * *",
                         "--server", organizer.address)
    assert code == 1 and "INVALID_ARGUMENT" in err and "hour" in err
    code, _out, err = cli(capsys, "tournament", "create", "--bots", "random,ghost", "--server", organizer.address)
    assert code == 1 and "ghost" in err
    assert len(store.tournaments.ids()) == 1 and store.schedules.all() == []


def test_admin_token_is_required_when_set(store: Store, app: Celery, capsys: Any, monkeypatch: Any) -> None:
    server = OrganizerServer(store, app, admin_token="s3cret")
    try:
        # An admin call without a token (ListBots is public: tests/security/test_roles.py has every role).
        code, _ = status_of(lambda: server.stub.RegisterBot(arena_pb2.RegisterBotRequest(name="x")))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        bad = [("authorization", "Bearer wrong")]
        code, _msg = status_of(lambda: server.stub.ListBots(arena_pb2.ListBotsRequest(), metadata=bad))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        monkeypatch.setenv("UNO_ARENA_ADMIN_TOKEN", "s3cret")
        monkeypatch.setenv("UNO_ARENA_TARGET", server.address)
        code, _out, err = cli(capsys, "bots", "list")
        assert code == 0, err
    finally:
        server.close()


def test_idempotent_create_resends_a_lost_start(organizer: OrganizerServer, app: Celery, store: Store) -> None:
    """A tournament whose start message was lost stays pending; the retried request starts it."""
    request = arena_pb2.CreateTournamentRequest(spec=spec_msg(name="t-retry"), idempotency_key="retry-1")
    organizer.stub.CreateTournament(request)
    app.connection_for_write().default_channel.client.delete("celery")  # the start message is lost
    assert store.tournaments.status("t-retry") == "pending"
    from celery.contrib.testing.worker import start_worker

    with start_worker(app, pool="solo", perform_ping_check=True, shutdown_timeout=30):
        organizer.stub.CreateTournament(request)
        wait_finished(store, "t-retry")
    assert store.tournaments.ids() == ["t-retry"]


def test_cancel_stops_a_running_tournament(
    organizer: OrganizerServer, worker: Any, store: Store, capsys: Any
) -> None:
    spec = spec_msg(name="t-cancel", participants=["random", "heuristic", "random#2", "heuristic#2"],
                    deals_per_table=40, rules=game_pb2.Rules(target=500))
    total = organizer.stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=spec)).tournament.matches_total
    assert total == 6 * 40
    wait_until(lambda: store.results.progress("t-cancel").done >= 1, 60, "a first result")
    code, out, _ = cli(capsys, "tournament", "cancel", "t-cancel", "--reason", "enough for today",
                       "--server", organizer.address)
    assert code == 0, out
    assert "t-cancel: cancelled" in out and "cancelled: enough for today" in out
    at_cancel = store.results.progress("t-cancel").done
    run = RunState(store, "t-cancel")
    # Each batch ends ("done"/"stopped") after at most the match it was playing: once none is queued or
    # running, nothing more can be recorded.
    wait_until(lambda: all(b.state in ("done", "stopped") for b in run.batch_states().values()), 60,
               "every batch of t-cancel to stop", details=lambda: str(run.batch_states()))
    done = store.results.progress("t-cancel").done
    assert done <= at_cancel + 1 < total  # at most the match playing when it was cancelled is recorded
    assert store.tournaments.status("t-cancel") == "cancelled"
    standings = organizer.stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id="t-cancel"))
    assert len(standings.standings) == 4

    again = status_of(lambda: organizer.stub.CancelTournament(
        arena_pb2.CancelTournamentRequest(tournament_id="t-cancel")))
    assert again[0] == grpc.StatusCode.FAILED_PRECONDITION and "already cancelled" in again[1]
    unknown = status_of(lambda: organizer.stub.CancelTournament(
        arena_pb2.CancelTournamentRequest(tournament_id="nope")))
    assert unknown[0] == grpc.StatusCode.NOT_FOUND


def test_a_schedule_in_a_time_zone_fires_at_local_time(organizer: OrganizerServer, store: Store) -> None:
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    request = arena_pb2.ScheduleTournamentRequest(spec=spec_msg(name="nightly-hel"), cron="0 3 * * *",
                                                  time_zone="Europe/Helsinki")
    schedule = organizer.stub.ScheduleTournament(request).schedule
    assert schedule.time_zone == "Europe/Helsinki" and schedule.cron == "CRON_TZ=Europe/Helsinki 0 3 * * *"
    upcoming = datetime.fromtimestamp(schedule.next_run_at.seconds, UTC).astimezone(ZoneInfo("Europe/Helsinki"))
    assert (upcoming.hour, upcoming.minute) == (3, 0)
    assert store.schedules.get("nightly-hel").cron == "CRON_TZ=Europe/Helsinki 0 3 * * *"


def test_the_clocks_of_a_tournament_through_the_api(organizer: OrganizerServer, store: Store) -> None:
    """Time bank and lag compensation cap: stored with the spec, shown back, bounded (issue 16, fair clocks)."""
    stub = organizer.stub
    created = stub.CreateTournament(arena_pb2.CreateTournamentRequest(
        spec=spec_msg(name="t-clocks", time_bank_ms=4000, lag_compensation_cap_ms=100)))
    tournament_id = created.tournament.tournament_id
    spec = lifecycle.spec_of(store, tournament_id)
    assert (spec.time_bank_ms, spec.lag_compensation_cap_ms) == (4000, 100)
    shown = created.tournament.spec
    assert shown.time_bank_ms == 4000 and shown.lag_compensation_cap_ms == 100
    default = stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=spec_msg(name="t-clocks-default")))
    assert lifecycle.spec_of(store, default.tournament.tournament_id).lag_compensation_cap_ms == 250
    code, message = status_of(lambda: stub.CreateTournament(arena_pb2.CreateTournamentRequest(
        spec=spec_msg(name="t-clocks-bad", lag_compensation_cap_ms=60_000))))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "lag_compensation_cap_ms" in message


def test_a_bad_time_zone_is_named_as_the_field_it_came_in(organizer: OrganizerServer) -> None:
    stub = organizer.stub

    def schedule(**fields: Any) -> Any:
        return stub.ScheduleTournament(arena_pb2.ScheduleTournamentRequest(spec=spec_msg(name="s-tz"), **fields))

    code, message = status_of(lambda: schedule(cron="0 3 * * *", time_zone="Mars/Olympus"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert message.startswith("time_zone: unknown time zone 'Mars/Olympus'") and "CRON_TZ" not in message
    code, message = status_of(lambda: schedule(cron="CRON_TZ=Mars/Olympus 0 3 * * *"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "unknown time zone 'Mars/Olympus'" in message
    assert "(in CRON_TZ)" in message
