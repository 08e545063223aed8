"""The organizer API's gRPC glue: :class:`ArenaServicer` serves ``uno_arena.v1.ArenaService`` on a ``grpc.aio``
server over an :class:`arena.server.organizer.Organizer`.

Every RPC authorizes its caller (:data:`arena.server.auth.RPC_ROLES`), then runs the core's blocking call in a
thread (``asyncio.to_thread``) so the bot streams on the same event loop never wait on Redis; a refused request
ends the call with its status (an unknown tournament or bot NOT_FOUND, a malformed id INVALID_ARGUMENT, Redis
unreachable or no workers UNAVAILABLE).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import grpc
import grpc.aio

from arena.protocol import arena_pb2, arena_pb2_grpc
from arena.protocol.statuses import ENDED_TOURNAMENT_STATES
from arena.service.enqueuer import Enqueuer, WorkersUnavailable
from arena.service.visibility import Caller
from arena.store import InvalidName, Store, StoreUnavailable, UnknownBot, UnknownTournament

from .auth import RPC_ROLES
from .organizer import Organizer
from .refusals import OrganizerError, short
from .submission_servicer import Submissions

T = TypeVar("T")
WATCH_POLL_S = 0.25
CONNECT_POLL_S = 0.25

_REFUSED: tuple[type[Exception], ...] = (OrganizerError, UnknownTournament, UnknownBot, InvalidName, WorkersUnavailable,
                                         *StoreUnavailable)


class ArenaServicer(arena_pb2_grpc.ArenaServiceServicer):
    """``uno_arena.v1.ArenaService`` on a grpc.aio server, over :class:`Organizer`."""

    def __init__(self, organizer: Organizer) -> None:
        self.core = organizer
        self.submissions = Submissions(organizer.store)

    async def _abort(self, context: grpc.aio.ServicerContext, error: Exception) -> None:
        """End the call with the status of a refused request (re-raises anything else)."""
        if isinstance(error, OrganizerError):
            await context.abort(error.code, short(str(error)))
        if isinstance(error, (UnknownTournament, UnknownBot)):
            await context.abort(grpc.StatusCode.NOT_FOUND, short(str(error)))
        if isinstance(error, InvalidName):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, short(str(error)))
        if isinstance(error, StoreUnavailable):
            await context.abort(grpc.StatusCode.UNAVAILABLE, short(f"the store is unreachable: {error}"))
        if isinstance(error, WorkersUnavailable):
            await context.abort(grpc.StatusCode.UNAVAILABLE, short(str(error)))
        raise error

    async def _run(self, context: grpc.aio.ServicerContext, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a thread; a refused request ends the call with its status."""
        try:
            return await asyncio.to_thread(fn, *args, **kwargs)
        except _REFUSED as error:
            await self._abort(context, error)
        raise AssertionError("unreachable")  # context.abort raises

    async def _caller(self, context: grpc.aio.ServicerContext, rpc: str) -> Caller:
        """The caller, when its role may call ``rpc`` (:data:`RPC_ROLES`); the call ends otherwise."""
        return await self._run(context, self.core.authorize, context.invocation_metadata(), RPC_ROLES[rpc])

    async def _call(self, context: grpc.aio.ServicerContext, rpc: str, fn: Callable[..., T], *args: Any,
                    with_caller: bool = False) -> T:
        """Authorize the caller of ``rpc``, then run ``fn(*args)`` (with ``caller=`` when ``with_caller``)."""
        caller = await self._caller(context, rpc)
        return await self._run(context, fn, *args, **({"caller": caller} if with_caller else {}))

    async def RegisterBot(
        self, request: arena_pb2.RegisterBotRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.RegisterBotResponse:
        return await self._call(context, "RegisterBot", self.core.register_bot, request)

    async def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListBotsResponse:
        return await self._call(context, "ListBots", self.core.list_bots, request, with_caller=True)

    async def GetBot(
        self, request: arena_pb2.GetBotRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetBotResponse:
        return await self._call(context, "GetBot", self.core.get_bot, request, with_caller=True)

    async def RotateBotToken(
        self, request: arena_pb2.RotateBotTokenRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.RotateBotTokenResponse:
        return await self._call(context, "RotateBotToken", self.core.rotate_bot_token, request)

    async def RevokeBot(
        self, request: arena_pb2.RevokeBotRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.RevokeBotResponse:
        return await self._call(context, "RevokeBot", self.core.revoke_bot, request)

    async def DeleteBot(
        self, request: arena_pb2.DeleteBotRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.DeleteBotResponse:
        return await self._call(context, "DeleteBot", self.core.delete_bot, request)

    async def GetBotLog(
        self, request: arena_pb2.GetBotLogRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetBotLogResponse:
        return await self._call(context, "GetBotLog", self.core.get_bot_log, request, with_caller=True)

    async def SubmitBot(
        self, requests: AsyncIterator[arena_pb2.SubmitBotRequest], context: grpc.aio.ServicerContext
    ) -> arena_pb2.SubmitBotResponse:
        caller = await self._caller(context, "SubmitBot")
        try:
            return await self.submissions.submit(requests, caller, context.peer())
        except _REFUSED as error:
            await self._abort(context, error)
        raise AssertionError("unreachable")  # context.abort raises

    async def ListSubmissions(
        self, request: arena_pb2.ListSubmissionsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListSubmissionsResponse:
        return await self._call(context, "ListSubmissions", self.submissions.list, request, with_caller=True)

    async def GetBotOutput(
        self, request: arena_pb2.GetBotOutputRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetBotOutputResponse:
        return await self._call(context, "GetBotOutput", self.submissions.output, request, with_caller=True)

    async def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.CreateTournamentResponse:
        """Create a tournament; with ``require_connected``, first wait (on the event loop, no thread held) up to
        the request's wait for its registered participants to connect."""
        await self._caller(context, "CreateTournament")
        checked = await self._run(context, self.core.check_create, request)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + checked.wait_s
        while checked.wait_s > 0 and loop.time() < deadline:
            if not await self._run(context, self.core.not_connected, checked.spec.participants):
                break
            await asyncio.sleep(min(CONNECT_POLL_S, max(0.0, deadline - loop.time())))
        return await self._run(context, self.core.create_tournament, checked)

    async def ListTournaments(
        self, request: arena_pb2.ListTournamentsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListTournamentsResponse:
        return await self._call(context, "ListTournaments", self.core.list_tournaments, request, with_caller=True)

    async def ListCompetitions(
        self, request: arena_pb2.ListCompetitionsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListCompetitionsResponse:
        return await self._call(context, "ListCompetitions", self.core.ladders.list_competitions, request)

    async def GetCompetitionStandings(
        self, request: arena_pb2.GetCompetitionStandingsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetCompetitionStandingsResponse:
        return await self._call(context, "GetCompetitionStandings", self.core.ladders.get_competition_standings,
                                request)

    async def ListSchedules(
        self, request: arena_pb2.ListSchedulesRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListSchedulesResponse:
        return await self._call(context, "ListSchedules", self.core.list_schedules, request)

    async def DeleteSchedule(
        self, request: arena_pb2.DeleteScheduleRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.DeleteScheduleResponse:
        return await self._call(context, "DeleteSchedule", self.core.delete_schedule, request)

    async def ScheduleTournament(
        self, request: arena_pb2.ScheduleTournamentRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ScheduleTournamentResponse:
        return await self._call(context, "ScheduleTournament", self.core.schedule_tournament, request)

    async def GetStandings(
        self, request: arena_pb2.GetStandingsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetStandingsResponse:
        return await self._call(context, "GetStandings", self.core.get_standings, request, with_caller=True)

    async def GetReplay(
        self, request: arena_pb2.GetReplayRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetReplayResponse:
        return await self._call(context, "GetReplay", self.core.get_replay, request, with_caller=True)

    async def ExportResults(
        self, request: arena_pb2.ExportResultsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ExportResultsResponse:
        return await self._call(context, "ExportResults", self.core.export, request, with_caller=True)

    async def CancelTournament(
        self, request: arena_pb2.CancelTournamentRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.CancelTournamentResponse:
        return await self._call(context, "CancelTournament", self.core.cancel_tournament, request)

    async def GetTournament(
        self, request: arena_pb2.GetTournamentRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetTournamentResponse:
        return await self._call(context, "GetTournament", self.core.get_tournament, request, with_caller=True)

    async def ListMatches(
        self, request: arena_pb2.ListMatchesRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListMatchesResponse:
        return await self._call(context, "ListMatches", self.core.list_matches, request, with_caller=True)

    async def ListRatingPools(
        self, request: arena_pb2.ListRatingPoolsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListRatingPoolsResponse:
        return await self._call(context, "ListRatingPools", self.core.ladders.list_rating_pools, request)

    async def GetLeaderboard(
        self, request: arena_pb2.GetLeaderboardRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetLeaderboardResponse:
        return await self._call(context, "GetLeaderboard", self.core.ladders.get_leaderboard, request)

    async def CreateCompetition(
        self, request: arena_pb2.CreateCompetitionRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.CreateCompetitionResponse:
        return await self._call(context, "CreateCompetition", self.core.ladders.create_competition, request)

    async def SetCompetitionState(
        self, request: arena_pb2.SetCompetitionStateRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.SetCompetitionStateResponse:
        return await self._call(context, "SetCompetitionState", self.core.ladders.set_competition_state, request)

    async def StartGauntlet(
        self, request: arena_pb2.StartGauntletRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.StartGauntletResponse:
        return await self._call(context, "StartGauntlet", self.core.gauntlets.start_gauntlet, request)

    async def ListGauntlets(
        self, request: arena_pb2.ListGauntletsRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.ListGauntletsResponse:
        return await self._call(context, "ListGauntlets", self.core.gauntlets.list_gauntlets, request,
                                with_caller=True)

    async def GetGauntlet(
        self, request: arena_pb2.GetGauntletRequest, context: grpc.aio.ServicerContext
    ) -> arena_pb2.GetGauntletResponse:
        return await self._call(context, "GetGauntlet", self.core.gauntlets.get_gauntlet, request, with_caller=True)

    async def WatchTournament(
        self, request: arena_pb2.WatchTournamentRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[arena_pb2.WatchTournamentResponse]:
        tid = request.tournament_id
        caller = await self._caller(context, "WatchTournament")
        # An empty, malformed or unknown id ends the call (INVALID_ARGUMENT, NOT_FOUND) before the stream sends or
        # polls anything.
        await self._run(context, self.core.check_tournament, tid)
        current = await self._run(context, self.core.tournament_message, tid, caller=caller)
        yield arena_pb2.WatchTournamentResponse(tournament=current)
        offset = 0
        last_state = current.state
        last_done = current.matches_done
        while current.state not in ENDED_TOURNAMENT_STATES:
            await asyncio.sleep(WATCH_POLL_S)
            new_ids = await self._run(context, self.core.feed, tid, offset)
            offset += len(new_ids)
            current = await self._run(context, self.core.tournament_message, tid, caller=caller)
            for mid in new_ids:
                summary = await self._run(context, self.core.match_summary, tid, mid, caller=caller)
                if summary is not None:
                    yield arena_pb2.WatchTournamentResponse(tournament=current, match=summary)
            if current.state != last_state or (not new_ids and current.matches_done != last_done):
                yield arena_pb2.WatchTournamentResponse(tournament=current)
            last_state, last_done = current.state, current.matches_done


def add_organizer(
    server: grpc.aio.Server,
    store: Store,
    *,
    enqueuer: Enqueuer | None = None,
    admin_token: str | None = None,
) -> ArenaServicer:
    """Serve ``ArenaService`` on ``server`` (a ``grpc.aio`` server, before ``start()``).

    ``enqueuer``: where tournament starts and gauntlets are sent (none: such calls are UNAVAILABLE).
    ``admin_token``: default ``$UNO_ARENA_ADMIN_TOKEN`` (empty: no check).
    """
    servicer = ArenaServicer(Organizer(store, enqueuer, admin_token=admin_token))
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(servicer, server)
    return servicer
