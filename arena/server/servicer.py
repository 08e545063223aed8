"""The organizer API's gRPC glue: :class:`ArenaServicer` serves ``uno_arena.v1.ArenaService`` on a ``grpc.aio``
server over an :class:`arena.server.organizer.Organizer`.

Every RPC authorizes its caller (:data:`arena.server.auth.RPC_ROLES`), then runs the core's blocking call in a
thread (``asyncio.to_thread``) so the bot streams on the same event loop never wait on Redis; a refused request
ends the call with its status (an unknown tournament or bot NOT_FOUND, a malformed id INVALID_ARGUMENT, a name
taken ALREADY_EXISTS, a deleted bot FAILED_PRECONDITION, Redis unreachable or no workers UNAVAILABLE).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from operator import attrgetter
from typing import Any, TypeVar

import grpc
import grpc.aio

from arena.protocol import arena_pb2, arena_pb2_grpc
from arena.protocol.statuses import ENDED_TOURNAMENT_STATES
from arena.service.enqueuer import Enqueuer, WorkersUnavailable
from arena.service.visibility import Caller
from arena.store import (
    DeletedBot,
    DuplicateBotName,
    DuplicateCompetition,
    InvalidName,
    Store,
    StoreUnavailable,
    UnknownBot,
    UnknownTournament,
)
from arena.store.gauntlet_store import DuplicateGauntlet
from arena.store.runstate import RunState

from .auth import RPC_ROLES
from .organizer import Organizer
from .refusals import OrganizerError, short
from .submission_servicer import Submissions

T = TypeVar("T")
WATCH_POLL_S = 0.25
CONNECT_POLL_S = 0.25


_DELEGATED: dict[str, tuple[str, bool]] = {
    "RegisterBot": ("core.register_bot", False),
    "ListBots": ("core.list_bots", True),
    "GetBot": ("core.get_bot", True),
    "RotateBotToken": ("core.rotate_bot_token", False),
    "RevokeBot": ("core.revoke_bot", False),
    "DeleteBot": ("core.delete_bot", False),
    "GetBotLog": ("core.get_bot_log", True),
    "ListSubmissions": ("submissions.list", True),
    "GetBotOutput": ("submissions.output", True),
    "ListTournaments": ("core.list_tournaments", True),
    "ListCompetitions": ("core.ladders.list_competitions", False),
    "GetCompetitionStandings": ("core.ladders.get_competition_standings", False),
    "ListSchedules": ("core.list_schedules", False),
    "DeleteSchedule": ("core.delete_schedule", False),
    "ScheduleTournament": ("core.schedule_tournament", False),
    "GetStandings": ("core.get_standings", True),
    "GetReplay": ("core.get_replay", True),
    "ExportResults": ("core.export", True),
    "CancelTournament": ("core.cancel_tournament", False),
    "GetTournament": ("core.get_tournament", True),
    "ListMatches": ("core.list_matches", True),
    "ListRatingPools": ("core.ladders.list_rating_pools", False),
    "GetLeaderboard": ("core.ladders.get_leaderboard", False),
    "CreateCompetition": ("core.ladders.create_competition", False),
    "SetCompetitionState": ("core.ladders.set_competition_state", False),
    "StartGauntlet": ("core.gauntlets.start_gauntlet", False),
    "ListGauntlets": ("core.gauntlets.list_gauntlets", True),
    "GetGauntlet": ("core.gauntlets.get_gauntlet", True),
}
"""The unary RPCs that only authorize their caller and call their answer in a thread: the answer's path from the
servicer, and whether it takes the caller (``caller=``, to decide what the caller may see)."""


class ArenaServicer(arena_pb2_grpc.ArenaServiceServicer):
    """``uno_arena.v1.ArenaService`` on a grpc.aio server, over :class:`Organizer`."""

    def __init__(self, organizer: Organizer) -> None:
        self.core = organizer
        self.submissions = Submissions(organizer.store)

    async def _answer(self, context: grpc.aio.ServicerContext, work: Awaitable[T]) -> T:
        """``work``'s answer; a refused request ends the call with its status (anything else propagates)."""
        try:
            return await work
        except OrganizerError as error:
            code, message = error.code, str(error)
        except (UnknownTournament, UnknownBot) as error:
            code, message = grpc.StatusCode.NOT_FOUND, str(error)
        except InvalidName as error:
            code, message = grpc.StatusCode.INVALID_ARGUMENT, str(error)
        except (DuplicateBotName, DuplicateCompetition, DuplicateGauntlet) as error:
            code, message = grpc.StatusCode.ALREADY_EXISTS, str(error)
        except DeletedBot as error:
            code, message = grpc.StatusCode.FAILED_PRECONDITION, str(error)
        except StoreUnavailable as error:
            code, message = grpc.StatusCode.UNAVAILABLE, f"the store is unreachable: {error}"
        except WorkersUnavailable as error:
            code, message = grpc.StatusCode.UNAVAILABLE, str(error)
        await context.abort(code, short(message))
        raise AssertionError("unreachable")  # context.abort raises

    async def _run(self, context: grpc.aio.ServicerContext, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a thread; a refused request ends the call with its status."""
        return await self._answer(context, asyncio.to_thread(fn, *args, **kwargs))

    async def _caller(self, context: grpc.aio.ServicerContext, rpc: str) -> Caller:
        """The caller, when its role may call ``rpc`` (:data:`RPC_ROLES`); the call ends otherwise."""
        return await self._run(context, self.core.auth.authorize, context.invocation_metadata(), RPC_ROLES[rpc])

    async def SubmitBot(
        self, requests: AsyncIterator[arena_pb2.SubmitBotRequest], context: grpc.aio.ServicerContext
    ) -> arena_pb2.SubmitBotResponse:
        caller = await self._caller(context, "SubmitBot")
        return await self._answer(context, self.submissions.submit(requests, caller, context.peer()))

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
        last_state, last_done = current.state, current.matches_done
        while current.state not in ENDED_TOURNAMENT_STATES:
            await asyncio.sleep(WATCH_POLL_S)
            new_ids = await self._run(context, RunState(self.core.store, tid).feed, offset)
            offset += len(new_ids)
            current = await self._run(context, self.core.tournament_message, tid, caller=caller)
            for mid in new_ids:
                summary = await self._run(context, self.core.match_summary, tid, mid, caller=caller)
                if summary is not None:
                    yield arena_pb2.WatchTournamentResponse(tournament=current, match=summary)
            if current.state != last_state or (not new_ids and current.matches_done != last_done):
                yield arena_pb2.WatchTournamentResponse(tournament=current)
            last_state, last_done = current.state, current.matches_done


def _delegate(rpc: str, target: str, with_caller: bool) -> Callable[..., Awaitable[Any]]:
    """The handler of a unary RPC of :data:`_DELEGATED`."""
    answer = attrgetter(target)

    async def handler(self: ArenaServicer, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = await self._caller(context, rpc)
        return await self._run(context, answer(self), request, **({"caller": caller} if with_caller else {}))

    handler.__name__ = handler.__qualname__ = rpc
    return handler


for _rpc, (_target, _with_caller) in _DELEGATED.items():
    setattr(ArenaServicer, _rpc, _delegate(_rpc, _target, _with_caller))


def add_organizer(
    server: grpc.aio.Server,
    store: Store,
    *,
    enqueuer: Enqueuer | None = None,
    admin_token: str | None = None,
) -> ArenaServicer:
    """Serve ``ArenaService`` on a ``grpc.aio`` server before ``start()``; without an ``enqueuer`` the calls that
    send work are UNAVAILABLE, and ``admin_token`` defaults to ``$UNO_ARENA_ADMIN_TOKEN`` (empty: no check)."""
    servicer = ArenaServicer(Organizer(store, enqueuer, admin_token=admin_token))
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(servicer, server)
    return servicer
