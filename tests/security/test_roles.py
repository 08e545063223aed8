"""Roles on the organizer API: every RPC called by the admin, a bot, an anonymous caller and a wrong token, and
what a bot or an anonymous caller may see (issue 12, part 2)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.protocol import arena_pb2
from arena.server.auth import RPC_ROLES
from arena.service.gauntlet_runs import build_spec, start_gauntlet
from arena.service.lifecycle import create_tournament
from arena.service.visibility import Role
from arena.store import Store
from arena.submissions import PackedFile, canonical_archive
from arena.tournament import TournamentSpec
from arena.tournament.stats.sprt import SprtConfig
from tests.support.gateway import GatewayHarness
from tests.support.organizer import OrganizerServer

from .helpers import ADMIN, auth, play_tournament, register, status_of

PROTO = Path(__file__).resolve().parents[2] / "proto" / "uno_arena" / "v1" / "arena.proto"
OK, UNAUTHENTICATED, DENIED = grpc.StatusCode.OK, grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED


def expected(role: Role, caller: str) -> grpc.StatusCode:
    """What a call needing ``role`` answers ``caller`` (admin, bot, anonymous, wrong) given a valid request."""
    if caller == "wrong":
        return UNAUTHENTICATED
    if caller == "admin":
        return OK
    if caller == "bot":
        return DENIED if role is Role.ADMIN else OK
    return OK if role is Role.ANONYMOUS else UNAUTHENTICATED


def test_every_rpc_states_its_role_in_the_proto_and_has_one() -> None:
    text = PROTO.read_text()
    service = text[text.index("service ArenaService"):]
    service = service[:service.index("\n}\n")]
    stated: dict[str, str] = {}
    comment: list[str] = []
    for line in service.splitlines()[1:]:
        line = line.strip()
        if line.startswith("//"):
            comment.append(line.removeprefix("//").strip())
            continue
        match = re.match(r"rpc (\w+)\(", line)
        if match:
            found = re.search(r"Role: (admin|bot|anyone)", " ".join(comment))
            assert found, f"the comment of {match.group(1)} states no role"
            stated[match.group(1)] = found.group(1)
        comment = []
    names = {"admin": Role.ADMIN, "bot": Role.BOT, "anyone": Role.ANONYMOUS}
    assert {rpc: names[role] for rpc, role in stated.items()} == RPC_ROLES
    assert set(RPC_ROLES) == set(arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].methods_by_name)


def test_every_rpc_with_each_role(store: Store, organizer: OrganizerServer, gateway: GatewayHarness,
                                  worker: Any) -> None:
    alpha = register(organizer, "alpha")
    register(organizer, "victim")
    played = play_tournament(store, organizer, gateway, "t-roles", ["random", "alpha"], {"alpha": alpha})
    tid = played.tournament_id
    (mid,) = store.results.all(tid)
    seat = store.results.get(tid, mid).seats.index("alpha")  # type: ignore[union-attr]
    pending = TournamentSpec("t-pending", ("random", "heuristic"), seats=2, deals=1, seed=5)
    create_tournament(store, pending)  # never started: only cancelled below
    store.schedules.add("s-roles", "0 3 * * *", {"participants": ["random", "heuristic"]})  # deleted below
    store.competitions.create("c-roles", {"competition_id": "c-roles", "entrants": ["random", "heuristic"]})
    start_gauntlet(store, build_spec(candidate="heuristic", baseline="random", seats=2, gauntlet_id="g-roles",
                                     sprt=SprtConfig(min_blocks=2, max_blocks=2)))

    stub = organizer.stub
    serial = iter(range(1000))
    package = canonical_archive((PackedFile("uno-bot.toml", b'runtime = "static"\ncommand = ["./bot"]'),
                                 PackedFile("bot", b"", executable=True)))

    def gauntlet() -> arena_pb2.GauntletSpec:
        spec = arena_pb2.GauntletSpec(candidate="heuristic", baseline="random", seats_per_table=2, min_blocks=2,
                                      max_blocks=2)
        spec.rules.target = 30
        return spec

    def spec() -> arena_pb2.TournamentSpec:
        return arena_pb2.TournamentSpec(name=f"t-new-{next(serial)}", participants=["random", "heuristic"],
                                        seats_per_table=2, deals_per_table=1, seed=3)

    calls: dict[str, Callable[[list[tuple[str, str]]], Any]] = {
        "RegisterBot": lambda md: stub.RegisterBot(arena_pb2.RegisterBotRequest(name=f"new{next(serial)}"),
                                                   metadata=md, timeout=10),
        "ListBots": lambda md: stub.ListBots(arena_pb2.ListBotsRequest(), metadata=md, timeout=10),
        "GetBot": lambda md: stub.GetBot(arena_pb2.GetBotRequest(name="alpha"), metadata=md, timeout=10),
        "RotateBotToken": lambda md: stub.RotateBotToken(arena_pb2.RotateBotTokenRequest(name="victim"),
                                                         metadata=md, timeout=10),
        "RevokeBot": lambda md: stub.RevokeBot(arena_pb2.RevokeBotRequest(name="victim"), metadata=md, timeout=10),
        "DeleteBot": lambda md: stub.DeleteBot(arena_pb2.DeleteBotRequest(name="victim"), metadata=md, timeout=10),
        "GetBotLog": lambda md: stub.GetBotLog(arena_pb2.GetBotLogRequest(name="alpha"), metadata=md, timeout=10),
        "CreateTournament": lambda md: stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=spec()),
                                                             metadata=md, timeout=10),
        "ScheduleTournament": lambda md: stub.ScheduleTournament(
            arena_pb2.ScheduleTournamentRequest(spec=spec(), cron="0 3 * * *"), metadata=md, timeout=10),
        "ListTournaments": lambda md: stub.ListTournaments(arena_pb2.ListTournamentsRequest(), metadata=md, timeout=10),
        "ListSchedules": lambda md: stub.ListSchedules(arena_pb2.ListSchedulesRequest(), metadata=md, timeout=10),
        "DeleteSchedule": lambda md: stub.DeleteSchedule(arena_pb2.DeleteScheduleRequest(schedule_id="s-roles"),
                                                         metadata=md, timeout=10),
        "WatchTournament": lambda md: stub.WatchTournament(arena_pb2.WatchTournamentRequest(tournament_id=tid),
                                                           metadata=md, timeout=10),
        "GetStandings": lambda md: stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id=tid), metadata=md,
                                                     timeout=10),
        "GetReplay": lambda md: stub.GetReplay(arena_pb2.GetReplayRequest(match_id=mid, seat=seat), metadata=md,
                                               timeout=10),
        "ExportResults": lambda md: stub.ExportResults(arena_pb2.ExportResultsRequest(tournament_id=tid),
                                                       metadata=md, timeout=10),
        "CancelTournament": lambda md: stub.CancelTournament(
            arena_pb2.CancelTournamentRequest(tournament_id="t-pending"), metadata=md, timeout=10),
        "ListCompetitions": lambda md: stub.ListCompetitions(arena_pb2.ListCompetitionsRequest(), metadata=md,
                                                             timeout=10),
        "GetCompetitionStandings": lambda md: stub.GetCompetitionStandings(
            arena_pb2.GetCompetitionStandingsRequest(competition_id="c-roles"), metadata=md, timeout=10),
        "GetTournament": lambda md: stub.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=tid), metadata=md,
                                                       timeout=10),
        "ListMatches": lambda md: stub.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=tid), metadata=md,
                                                   timeout=10),
        "ListRatingPools": lambda md: stub.ListRatingPools(arena_pb2.ListRatingPoolsRequest(), metadata=md,
                                                           timeout=10),
        "GetLeaderboard": lambda md: stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(pool_id=played.rating_pool),
                                                         metadata=md, timeout=10),
        "CreateCompetition": lambda md: stub.CreateCompetition(
            arena_pb2.CreateCompetitionRequest(competition_id=f"c-new-{next(serial)}",
                                               entrants=["random", "heuristic"]), metadata=md, timeout=10),
        "SetCompetitionState": lambda md: stub.SetCompetitionState(
            arena_pb2.SetCompetitionStateRequest(competition_id="c-roles", state=arena_pb2.COMPETITION_STATE_PAUSED),
            metadata=md, timeout=10),
        "StartGauntlet": lambda md: stub.StartGauntlet(
            arena_pb2.StartGauntletRequest(spec=gauntlet(), gauntlet_id=f"g-new-{next(serial)}"), metadata=md,
            timeout=10),
        "ListGauntlets": lambda md: stub.ListGauntlets(arena_pb2.ListGauntletsRequest(), metadata=md, timeout=10),
        "GetGauntlet": lambda md: stub.GetGauntlet(arena_pb2.GetGauntletRequest(gauntlet_id="g-roles"), metadata=md,
                                                   timeout=10),
        "SubmitBot": lambda md: stub.SubmitBot(iter([arena_pb2.SubmitBotRequest(name="alpha", chunk=package)]),
                                               metadata=md, timeout=10),
        "ListSubmissions": lambda md: stub.ListSubmissions(arena_pb2.ListSubmissionsRequest(name="alpha"),
                                                           metadata=md, timeout=10),
        "GetBotOutput": lambda md: stub.GetBotOutput(arena_pb2.GetBotOutputRequest(name="alpha"), metadata=md,
                                                     timeout=10),
    }
    assert set(calls) == set(RPC_ROLES)
    callers = {"wrong": auth("alpha.not-the-token"), "anonymous": [], "bot": auth(alpha), "admin": ADMIN}
    table: dict[tuple[str, str], grpc.StatusCode] = {}
    for rpc, call in calls.items():
        for caller, metadata in callers.items():  # the admin last: its call may change what the others see
            code, details = status_of(lambda: call(metadata))  # noqa: B023 - called at once
            table[rpc, caller] = code
            if code in (UNAUTHENTICATED, DENIED):
                assert details, (rpc, caller)
            if caller == "wrong":
                assert details == "invalid token", (rpc, details)
    assert table == {(rpc, caller): expected(RPC_ROLES[rpc], caller) for rpc in calls for caller in callers}


def test_what_a_bot_and_an_anonymous_caller_see(store: Store, organizer: OrganizerServer, gateway: GatewayHarness,
                                                worker: Any) -> None:
    alpha, beta = register(organizer, "alpha"), register(organizer, "beta")
    played = play_tournament(store, organizer, gateway, "t-views", ["alpha", "beta"], {"alpha": alpha, "beta": beta})
    (mid,) = store.results.all(played.tournament_id)
    seats = store.results.get(played.tournament_id, mid).seats  # type: ignore[union-attr]
    own, other = seats.index("alpha"), seats.index("beta")
    stub = organizer.stub

    # ListBots / GetBot: the public fields for anyone, a bot's own profile in full, everything for the admin.
    def bots(metadata: list[tuple[str, str]]) -> dict[str, arena_pb2.Bot]:
        return {b.name: b for b in stub.ListBots(arena_pb2.ListBotsRequest(), metadata=metadata, timeout=10).bots}

    anonymous, as_alpha, as_admin = bots([]), bots(auth(alpha)), bots(ADMIN)
    assert set(anonymous) == set(as_alpha) == set(as_admin) == {"alpha", "beta"}
    assert anonymous["alpha"].description == "" and anonymous["alpha"].bot_version == ""
    assert anonymous["alpha"].created_at.seconds > 0
    assert as_alpha["alpha"].description == "alpha's owner" and as_alpha["beta"].description == ""
    assert as_admin["beta"].description == "beta's owner" and as_admin["beta"].bot_version
    got = stub.GetBot(arena_pb2.GetBotRequest(name="BETA"), metadata=auth(alpha), timeout=10).bot
    assert got.name == "beta" and got.description == ""
    code, _ = status_of(lambda: stub.GetBot(arena_pb2.GetBotRequest(name="nobody"), timeout=10))
    assert code == grpc.StatusCode.NOT_FOUND

    # GetReplay while the tournament runs (its status set back, as if other matches were still playing): a bot
    # gets its own seat's view of its own match, nothing else; an anonymous caller nothing.
    assert store.tournaments.set_status(played.tournament_id, "running")
    def replay(metadata: list[tuple[str, str]], seat: int | None, match_id: str = mid) -> tuple[Any, Any]:
        request = arena_pb2.GetReplayRequest(match_id=match_id)
        if seat is not None:
            request.seat = seat
        return status_of(lambda: stub.GetReplay(request, metadata=metadata, timeout=10))

    view = stub.GetReplay(arena_pb2.GetReplayRequest(match_id=mid, seat=own), metadata=auth(alpha), timeout=10).replay
    assert view.viewer == own and view.seed == 0 and view.steps
    for seat in (None, other):
        code, details = replay(auth(alpha), seat)
        assert code == DENIED and ("own seat" in details or "only for the admin" in details), (seat, details)
    code, _ = replay([], own)
    assert code == UNAUTHENTICATED
    assert replay(ADMIN, None)[0] == OK  # the admin: omniscient

    gamma = register(organizer, "gamma")
    code, details = replay(auth(gamma), 0)
    assert code == DENIED and "did not play" in details

    # Once it ended (its seed revealed), its replays are public: every view, for anyone.
    assert store.tournaments.set_status(played.tournament_id, "finished")
    assert replay([], None)[0] == replay([], other)[0] == replay(auth(gamma), own)[0] == OK

    # Public data: standings and exports of a finished tournament, for anyone.
    standings = stub.GetStandings(arena_pb2.GetStandingsRequest(tournament_id=played.tournament_id), timeout=10)
    assert {row.bot_name for row in standings.standings} == {"alpha", "beta"} and standings.final


@pytest.mark.parametrize("token", ["ghost.secret-of-a-bot-that-does-not-exist", "alpha.wrong-secret"])
def test_a_refused_token_never_tells_whether_the_bot_exists(store: Store, organizer: OrganizerServer,
                                                            gateway: GatewayHarness, token: str) -> None:
    register(organizer, "alpha")
    code, details = status_of(lambda: organizer.stub.ListBots(arena_pb2.ListBotsRequest(), metadata=auth(token),
                                                               timeout=10))
    assert (code, details) == (UNAUTHENTICATED, "invalid token")
    from tests.support.bots import RawBot

    raw = RawBot(gateway.address, token)
    try:
        code, details = raw.wait_end()
    finally:
        raw.close()
    assert (code, details) == (UNAUTHENTICATED, "invalid token")
