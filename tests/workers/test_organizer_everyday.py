"""The everyday organizer commands over real gRPC, Redis and (where matches are played) a real Celery worker:
`tournament list`, `schedule list`/`delete`, participants not connected, cancelled standings that are final,
positive `--deals`, the `--server` flag, and standings people can read (table and JSON)."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest
from celery import Celery

from arena.client import plain
from arena.client.legends import BATCH_NOTE, OPENSKILL_NOTE
from arena.commands.api import server_address
from arena.protocol import arena_pb2
from arena.service.schedules import fire_due_schedules
from arena.store import Schedule, Store
from tests.support.bots import ThreadBot
from tests.support.gateway import running_gateway
from tests.support.organizer import OrganizerServer
from tests.support.redis_server import PrivateRedis

from .helpers import cli, spec_msg, status_of, wait_finished


def create(organizer: OrganizerServer, **fields: Any) -> arena_pb2.Tournament:
    request = arena_pb2.CreateTournamentRequest(spec=spec_msg(**fields))
    return organizer.stub.CreateTournament(request, timeout=30).tournament


# -- tournament list -----------------------------------------------------------------------------


def test_tournament_list_newest_first_by_state_and_in_pages(organizer: OrganizerServer, capsys: Any) -> None:
    for name in ("t-old", "t-mid", "t-new"):
        create(organizer, name=name)  # no worker: they stay pending
    organizer.stub.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id="t-mid", reason="not today"))
    stub = organizer.stub

    def ids(**request: Any) -> list[str]:
        return [t.tournament_id for t in stub.ListTournaments(arena_pb2.ListTournamentsRequest(**request)).tournaments]

    assert ids() == ["t-new", "t-mid", "t-old"]
    assert ids(states=[arena_pb2.TOURNAMENT_STATE_PENDING]) == ["t-new", "t-old"]
    assert ids(states=[arena_pb2.TOURNAMENT_STATE_CANCELLED, arena_pb2.TOURNAMENT_STATE_FINISHED]) == ["t-mid"]
    first = stub.ListTournaments(arena_pb2.ListTournamentsRequest(page_size=2))
    assert [t.tournament_id for t in first.tournaments] == ["t-new", "t-mid"] and first.next_page_token == "t-mid"
    assert ids(page_size=2, page_token=first.next_page_token) == ["t-old"]
    last = stub.ListTournaments(arena_pb2.ListTournamentsRequest(page_size=3))
    assert last.next_page_token == ""
    code, msg = status_of(lambda: stub.ListTournaments(arena_pb2.ListTournamentsRequest(page_token="t-nope")))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "page_token 't-nope'" in msg
    code, msg = status_of(lambda: stub.ListTournaments(arena_pb2.ListTournamentsRequest(states=[99])))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "99 is not a tournament state" in msg

    code, out, err = cli(capsys, "tournament", "list", "--server", organizer.address)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["id", "state", "matches", "bots", "created", "schedule", "detail"]
    assert [line.split()[:3] for line in lines[1:]] == [["t-new", "pending", "0/3"], ["t-mid", "cancelled", "0/3"],
                                                         ["t-old", "pending", "0/3"]]
    assert "cancelled: not today" in lines[2]
    code, out, _ = cli(capsys, "tournament", "list", "--status", "cancelled,failed", "--json",
                       "--server", organizer.address)
    listed = json.loads(out)
    assert [t["tournament_id"] for t in listed] == ["t-mid"]
    assert listed[0]["state"] == "cancelled" and listed[0]["matches_done"] == 0 and listed[0]["matches_total"] == 3
    assert listed[0]["spec"]["seed"] == 5 and listed[0]["started_at"] is None  # every field, numbers as numbers
    code, out, _ = cli(capsys, "tournament", "list", "--status", "finished", "--server", organizer.address)
    assert code == 0 and out.strip() == "no finished tournaments"
    code, out, _ = cli(capsys, "tournament", "list", "--limit", "1", "--server", organizer.address)
    assert len(out.splitlines()) == 2 and "t-new" in out
    code, _, err = cli(capsys, "tournament", "list", "--status", "done", "--server", organizer.address)
    assert code == 2 and "unknown state done" in err


def test_tournament_list_hides_the_seeds_of_running_tournaments_from_others(store: Store, app: Celery) -> None:
    server = OrganizerServer(store, app, admin_token="s3cret")
    admin = [("authorization", "Bearer s3cret")]
    try:
        for name in ("t-open", "t-ended"):
            server.stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=spec_msg(name=name, seed=0)),
                                         metadata=admin, timeout=30)
        server.stub.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id="t-ended"), metadata=admin)
        seen = {t.tournament_id: t for t in server.stub.ListTournaments(arena_pb2.ListTournamentsRequest()).tournaments}
        assert seen["t-open"].spec.seed == 0 and seen["t-open"].revealed_seed == 0  # anonymous: still secret
        assert seen["t-ended"].revealed_seed == store.tournaments.get("t-ended").spec["seed"] != 0
        by_admin = server.stub.ListTournaments(arena_pb2.ListTournamentsRequest(), metadata=admin).tournaments
        seeds = {t.tournament_id: t.spec.seed for t in by_admin}
        assert seeds["t-open"] == store.tournaments.get("t-open").spec["seed"]
    finally:
        server.close()


# -- schedules -----------------------------------------------------------------------------------


def test_schedules_are_listed_and_deleted_and_a_deleted_one_fires_no_more(
    organizer: OrganizerServer, store: Store, capsys: Any
) -> None:
    stub = organizer.stub
    for sid, cron in (("every-minute", "* * * * *"), ("nightly", "0 3 * * *")):
        stub.ScheduleTournament(arena_pb2.ScheduleTournamentRequest(spec=spec_msg(name=sid), cron=cron))
    listed = stub.ListSchedules(arena_pb2.ListSchedulesRequest()).schedules
    assert [(s.schedule_id, s.cron) for s in listed] == [("every-minute", "* * * * *"), ("nightly", "0 3 * * *")]
    assert list(listed[0].spec.participants) == ["random", "heuristic", "random#2"]

    code, out, err = cli(capsys, "schedule", "list", "--server", organizer.address)
    assert code == 0, err
    assert out.splitlines()[0].split() == ["id", "cron", "next", "run", "bots"]
    assert out.splitlines()[1].startswith("every-minute") and "random,heuristic,random#2" in out
    code, out, _ = cli(capsys, "schedule", "list", "--json", "--server", organizer.address)
    assert [s["schedule_id"] for s in json.loads(out)] == ["every-minute", "nightly"]
    assert json.loads(out)[0]["spec"]["deals_per_table"] == 1

    code, out, err = cli(capsys, "schedule", "delete", "every-minute", "--server", organizer.address)
    assert code == 0, err
    assert "deleted schedule every-minute ('* * * * *')" in out
    assert [s.schedule_id for s in store.schedules.all()] == ["nightly"]
    fired: list[tuple[str, datetime]] = []

    def fire(schedule: Schedule, due: datetime) -> None:
        fired.append((schedule.schedule_id, due))

    fire_due_schedules(store, datetime.now(UTC) + timedelta(days=2), fire, holder="test")
    assert [sid for sid, _ in fired] == ["nightly"]  # the deleted every-minute schedule is gone for good

    code, _, err = cli(capsys, "schedule", "delete", "every-minute", "--server", organizer.address)
    assert code == 1 and "NOT_FOUND" in err and "no schedule 'every-minute'" in err
    code, msg = status_of(lambda: stub.DeleteSchedule(arena_pb2.DeleteScheduleRequest(schedule_id="a:b")))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "schedule id" in msg
    code, out, _ = cli(capsys, "schedule", "delete", "nightly", "--server", organizer.address)
    assert code == 0

    # A schedule whose stored expression no longer reads is still listed, and can be deleted.
    store.schedules.add("broken", "99 * * * *", {"participants": ["random", "heuristic"]})
    (broken,) = stub.ListSchedules(arena_pb2.ListSchedulesRequest()).schedules
    assert (broken.schedule_id, broken.cron, broken.HasField("next_run_at")) == ("broken", "99 * * * *", False)
    code, out, _ = cli(capsys, "schedule", "delete", "broken", "--server", organizer.address)
    assert code == 0 and "deleted schedule broken" in out
    code, out, _ = cli(capsys, "schedule", "list", "--server", organizer.address)
    assert code == 0 and out.startswith("no schedules")


# -- participants not connected ------------------------------------------------------------------


def test_participants_not_connected_warn_or_refuse(
    organizer: OrganizerServer, store: Store, redis_server: PrivateRedis, capsys: Any
) -> None:
    stub = organizer.stub
    token = stub.RegisterBot(arena_pb2.RegisterBotRequest(name="late")).token
    field = ["random", "heuristic", "late"]

    # Refused at once without a wait; nothing is created.
    refuse = arena_pb2.CreateTournamentRequest(spec=spec_msg(name="t-refused", participants=field),
                                               require_connected=True, connect_wait_ms=0)
    code, msg = status_of(lambda: stub.CreateTournament(refuse, timeout=30))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "participants not connected: late" in msg
    assert store.tournaments.ids() == []
    too_long = arena_pb2.CreateTournamentRequest(spec=spec_msg(participants=field), require_connected=True,
                                                 connect_wait_ms=60_001)
    code, msg = status_of(lambda: stub.CreateTournament(too_long, timeout=30))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "connect_wait_ms: at most 60000" in msg
    code, _, err = cli(capsys, "tournament", "create", "--bots", "random,heuristic,late", "--require-connected",
                       "--connect-wait", "0", "--server", organizer.address)
    assert code == 1 and "FAILED_PRECONDITION" in err and "late" in err
    code, _, err = cli(capsys, "tournament", "create", "--bots", "random,late", "--require-connected",
                       "--connect-wait", "61", "--server", organizer.address)
    assert code == 1 and "INVALID_ARGUMENT" in err and "at most 60000" in err  # the arena's limit, not a copy
    code, _, err = cli(capsys, "tournament", "create", "--bots", "random,late", "--require-connected",
                       "--connect-wait", "-1", "--server", organizer.address)
    assert code == 2 and "must not be negative" in err

    # Without require_connected: created, with a warning naming the bot.
    code, out, err = cli(capsys, "tournament", "create", "--bots", "random,heuristic,late", "--name", "t-warned",
                         "--server", organizer.address)
    assert code == 0 and "tournament t-warned:" in out
    assert "warning: not connected: late; they forfeit every match" in err

    # A retry of a created tournament is never refused, though the bot is still not connected.
    retry = arena_pb2.CreateTournamentRequest(spec=spec_msg(name="t-key", participants=field), idempotency_key="k-1")
    first = stub.CreateTournament(retry, timeout=30)
    assert list(first.not_connected) == ["late"]
    retry.require_connected = True
    again = stub.CreateTournament(retry, timeout=30)
    assert again.tournament.tournament_id == "t-key" and list(again.not_connected) == ["late"]

    with running_gateway(redis_server.url, hello_timeout_s=2.0, heartbeat_interval_s=1.0) as gateway:
        # The bot connects while the request waits for it: created, nobody missing.
        bots: list[ThreadBot] = []
        starter = threading.Timer(0.3, lambda: bots.append(ThreadBot(gateway.address, token)))
        starter.start()
        try:
            waited = stub.CreateTournament(
                arena_pb2.CreateTournamentRequest(spec=spec_msg(name="t-waited", participants=field),
                                                  require_connected=True, connect_wait_ms=30_000), timeout=60)
            assert waited.tournament.tournament_id == "t-waited" and list(waited.not_connected) == []
            code, out, err = cli(capsys, "tournament", "create", "--bots", "random,heuristic,late", "--name", "t-cli",
                                 "--require-connected", "--server", organizer.address)
            assert code == 0 and "warning" not in err and "tournament t-cli:" in out
        finally:
            starter.join()
            for bot in bots:
                bot.stop()



# -- cancelled standings, positive deals, --server --------------------------------------------------


def test_a_cancelled_tournament_has_final_standings(organizer: OrganizerServer, capsys: Any) -> None:
    create(organizer, name="t-stop")
    running = organizer.stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id="t-stop"))
    assert not running.final and running.state == arena_pb2.TOURNAMENT_STATE_PENDING
    organizer.stub.CancelTournament(arena_pb2.CancelTournamentRequest(tournament_id="t-stop"))
    stopped = organizer.stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id="t-stop"))
    assert stopped.final and stopped.state == arena_pb2.TOURNAMENT_STATE_CANCELLED
    code, out, _ = cli(capsys, "tournament", "standings", "t-stop", "--server", organizer.address)
    assert code == 0 and out.rstrip().endswith("final: the tournament was cancelled (no further match starts)")
    assert "provisional" not in out
    code, out, _ = cli(capsys, "tournament", "export", "t-stop", "--format", "json", "--server", organizer.address)
    assert json.loads(out)["standings"]["final"] is True


def test_deals_and_seats_must_be_positive(organizer: OrganizerServer, store: Store, capsys: Any) -> None:
    for flag in ("--deals", "--seats"):
        code, _, err = cli(capsys, "tournament", "create", "--bots", "random,heuristic", flag, "0",
                           "--server", organizer.address)
        assert code == 2 and f"argument {flag}: must be at least 1, got 0" in err
    code, _, err = cli(capsys, "tournament", "schedule", "--bots", "random,heuristic", "--deals", "-3", "--cron",
                       "0 3 * * *", "--server", organizer.address)
    assert code == 2 and "must be at least 1, got -3" in err
    for field in ("deals_per_table", "seats_per_table"):
        code, msg = status_of(lambda: create(organizer, **{field: 0}))  # noqa: B023 - called at once
        assert code == grpc.StatusCode.INVALID_ARGUMENT and field in msg and "got 0" in msg
    assert store.tournaments.ids() == [] and store.schedules.all() == []
    unset = arena_pb2.TournamentSpec(name="t-defaults", participants=["random", "heuristic"], seed=3)
    made = organizer.stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=unset)).tournament
    assert (made.spec.seats_per_table, made.spec.deals_per_table, made.matches_total) == (2, 1, 1)


def test_the_server_address_flag(organizer: OrganizerServer, capsys: Any, monkeypatch: Any) -> None:
    code, _, err = cli(capsys, "tournament", "create", "--bots", "random,heuristic", "--target", "200",
                       "--server", organizer.address)
    assert code == 2
    assert "--target '200' is not a server address" in err and "--target-score" in err
    code, _, err = cli(capsys, "tournament", "list", "--server", "200")
    assert code == 2 and "--server '200' is not a server address: give HOST:PORT" in err
    code, _, err = cli(capsys, "tournament", "list", "--server", organizer.address, "--target", "127.0.0.1:1")
    assert code == 2 and "disagree" in err
    code, out, err = cli(capsys, "tournament", "list", "--target", organizer.address)  # the old name still works
    assert code == 0 and out.startswith("no tournaments"), err
    assert server_address("h:1", "h:1") == "h:1"
    monkeypatch.setenv("UNO_ARENA_TARGET", organizer.address)
    assert server_address(None, None) == organizer.address
    code, out, err = cli(capsys, "schedule", "list")
    assert code == 0 and out.startswith("no schedules"), err


# -- standings people can read -------------------------------------------------------------------


def test_standings_table_and_json(organizer: OrganizerServer, worker: Any, store: Store, capsys: Any) -> None:
    create(organizer, name="t-read", deals_per_table=2, duplicate_deals=True)
    wait_finished(store, "t-read")
    reply = organizer.stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id="t-read"))
    payload = store.standings.get("t-read")
    assert payload is not None
    rows = {row["bot"]: row for row in payload.standings.table["rows"]}
    for row in reply.standings:
        stored = rows[row.bot_name]
        assert row.tier == stored["tier"] >= 1 and row.win_rate == pytest.approx(stored["win_rate"])
        assert [row.win_rate_low, row.win_rate_high] == pytest.approx(stored["win_rate_ci"])
        assert row.mean_points == pytest.approx(stored["mean_points"])
        assert list(row.indistinguishable) == stored["indistinguishable"]
    assert len(reply.head_to_head) == 3 * 2  # every ordered pair of a 2-seat tournament
    cell = next(c for c in reply.head_to_head if (c.bot_name, c.opponent) == ("random", "heuristic"))
    assert cell.matches == 4 and cell.wins + cell.losses <= 4

    code, out, err = cli(capsys, "tournament", "standings", "t-read", "--server", organizer.address)
    assert code == 0, err
    lines = out.splitlines()
    header = lines[0]
    assert header.split()[:6] == ["rank", "tier", "bot", "matches", "wins", "win%"]
    assert header.index("wins") < header.index("points") < header.index("PL") < header.index("OpenSkill")  # result 1st
    first = reply.standings[0]
    assert lines[1].split()[:5] == ["1", str(first.tier), first.bot_name, "8", str(first.wins)]
    assert f"{first.rating:.2f}" in lines[1]
    assert "head to head (row's wins-losses against column):" in out
    assert OPENSKILL_NOTE in out and BATCH_NOTE in out  # which number is which
    assert f"[{first.batch.low:.2f}, {first.batch.high:.2f}]" in lines[1]
    assert lines[-1] == "final"

    code, out, _ = cli(capsys, "tournament", "standings", "t-read", "--json", "--server", organizer.address)
    data = json.loads(out)
    assert data["final"] is True and data["state"] == "finished" and data["tournament_id"] == "t-read"
    row = data["standings"][0]
    assert set(row) == set(arena_pb2.Standing.DESCRIPTOR.fields_by_name)  # every field, zero ones too
    assert isinstance(row["points"], int) and isinstance(row["rating"], float) and row["timeouts"] == 0
    assert isinstance(row["win_rate"], float) and row["tier"] >= 1
    assert {(c["bot_name"], c["opponent"]) for c in data["head_to_head"]} >= {("random", "heuristic")}


def test_plain_keeps_zero_and_unset_fields() -> None:
    row = arena_pb2.Standing(rank=1, bot_name="random", points=2**40)
    data = plain(row)
    assert data["points"] == 2**40 and data["wins"] == 0 and data["forfeits"] == 0
    assert data["win_rate"] is None and data["indistinguishable"] == []
    tournament = plain(arena_pb2.Tournament(tournament_id="t", state=arena_pb2.TOURNAMENT_STATE_RUNNING))
    assert tournament["state"] == "running" and tournament["created_at"] is None and tournament["spec"] is None
