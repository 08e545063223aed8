"""Who calls: a bot's bearer token checked before its stream runs, and the organizer API's roles.

:class:`BotAuthInterceptor` checks ``authorization: Bearer <token>`` of ``BotService/Connect`` before the handler is
chosen (``UNAUTHENTICATED``, or ``UNAVAILABLE`` when the store cannot be reached; the handler never runs) and binds
the handler to the verified bot. :class:`AdminAuth` identifies the organizer API's caller (admin, bot or anonymous;
without an admin token everyone is the admin) and checks each RPC's role (:data:`RPC_ROLES`, docs/organizers.md).
A token the bot host issued to a sandbox plays matches and nothing else: every organizer API call made with it is
``PERMISSION_DENIED``, with an admin token set or not, so a hosted bot can neither submit nor read what an earlier
sandbox of it left behind (a memory for a bot without one).
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import grpc
import grpc.aio

from arena.protocol import AUTH_METADATA_KEY, AUTH_SCHEME, BOT_SERVICE_NAME
from arena.service.visibility import Caller, Role
from arena.store import BotRecord, InvalidToken, Store

from .refusals import OrganizerError

CONNECT_METHOD = f"/{BOT_SERVICE_NAME}/Connect"
RETRY_PUSHBACK_KEY = "grpc-retry-pushback-ms"
"""Trailing metadata of a refused reconnect storm: milliseconds to wait before the next new stream."""


class StreamLimit(Protocol):
    """Counts new streams per token (:class:`arena.server.gateway.stream_limits.StreamLimiter`)."""

    limit: int
    window_s: float

    def check(self, token: str) -> float: ...

BoundBehavior = Callable[[Any, grpc.aio.ServicerContext, BotRecord], Awaitable[None]]


def bearer_token(metadata: Sequence[tuple[str, str | bytes]] | None) -> str:
    """The token of ``authorization: Bearer <token>``; OrganizerError(UNAUTHENTICATED) when missing or malformed."""
    values = [v for k, v in (metadata or ()) if k.lower() == AUTH_METADATA_KEY]
    if not values:
        raise OrganizerError(grpc.StatusCode.UNAUTHENTICATED, f"missing '{AUTH_METADATA_KEY}' metadata: send "
                             f"'{AUTH_METADATA_KEY}: {AUTH_SCHEME} <token>'")
    raw = values[0]
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    scheme, _, token = text.strip().partition(" ")
    if scheme.lower() != AUTH_SCHEME.lower() or not token.strip():
        raise OrganizerError(grpc.StatusCode.UNAUTHENTICATED,
                             f"malformed '{AUTH_METADATA_KEY}' metadata: expected '{AUTH_SCHEME} <token>'")
    return token.strip()


def verify(store: Store, metadata: Sequence[tuple[str, str | bytes]] | None) -> BotRecord:
    """The bot the call's token belongs to (blocking: it reads Redis); OrganizerError otherwise."""
    token = bearer_token(metadata)
    try:
        return store.bots.verify_token(token)
    except InvalidToken as error:
        # One message whether the bot is unknown, revoked or deleted or the token wrong (never which).
        raise OrganizerError(grpc.StatusCode.UNAUTHENTICATED, str(error)) from None
    except Exception as error:
        raise OrganizerError(grpc.StatusCode.UNAVAILABLE, f"cannot verify the token now: {error}") from None


def _refuse(error: OrganizerError, trailing: Sequence[tuple[str, str]] = ()) -> grpc.RpcMethodHandler:
    async def refuse(_requests: Any, context: grpc.aio.ServicerContext) -> None:
        await context.abort(error.code, str(error), trailing_metadata=tuple(trailing))

    return grpc.stream_stream_rpc_method_handler(refuse)


class BotAuthInterceptor(grpc.aio.ServerInterceptor):
    """Checks the token of every BotService/Connect call and binds the handler to the verified bot."""

    def __init__(self, store: Store, bound: BoundBehavior, limiter: StreamLimit | None = None) -> None:
        self._store = store
        self._bound = bound
        self._limiter = limiter

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        if handler_call_details.method != CONNECT_METHOD:
            return await continuation(handler_call_details)
        metadata = handler_call_details.invocation_metadata
        if self._limiter is not None:
            # A reconnect storm is refused before it costs a token check (a Redis read) or a session.
            try:
                wait_s = self._limiter.check(bearer_token(metadata))
            except OrganizerError as error:
                return _refuse(error)
            if wait_s > 0:
                return _refuse(OrganizerError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                              f"too many new streams for this token: at most {self._limiter.limit} "
                                              f"in {self._limiter.window_s:g} s; retry in {wait_s:.1f} s"),
                               ((RETRY_PUSHBACK_KEY, str(max(1, int(wait_s * 1000)))),))
        try:
            record = await asyncio.to_thread(verify, self._store, metadata)
        except OrganizerError as error:
            return _refuse(error)
        handler = await continuation(handler_call_details)
        bound = self._bound

        async def behavior(requests: Any, context: grpc.aio.ServicerContext) -> None:
            await bound(requests, context, record)

        return handler._replace(stream_stream=behavior)


RPC_ROLES: dict[str, Role] = {
    "RegisterBot": Role.ADMIN,
    "ListBots": Role.ANONYMOUS,
    "GetBot": Role.ANONYMOUS,
    "RotateBotToken": Role.ADMIN,
    "RevokeBot": Role.ADMIN,
    "DeleteBot": Role.ADMIN,
    "GetBotLog": Role.BOT,  # the bot's own log only (get_bot_log): another bot gets PERMISSION_DENIED
    "CreateTournament": Role.ADMIN,
    "ListTournaments": Role.ANONYMOUS,  # seeds of tournaments not ended only to the admin (tournament_message)
    "GetTournament": Role.ANONYMOUS,
    "ListMatches": Role.ANONYMOUS,  # deal seeds of tournaments not ended only to the admin
    "ListCompetitions": Role.ANONYMOUS,
    "GetCompetitionStandings": Role.ANONYMOUS,
    "CreateCompetition": Role.ADMIN,
    "SetCompetitionState": Role.ADMIN,
    "ListRatingPools": Role.ANONYMOUS,
    "GetLeaderboard": Role.ANONYMOUS,
    "ScheduleTournament": Role.ADMIN,
    "ListSchedules": Role.ADMIN,
    "DeleteSchedule": Role.ADMIN,
    "WatchTournament": Role.ANONYMOUS,
    "GetStandings": Role.ANONYMOUS,
    "GetReplay": Role.ANONYMOUS,  # before the end a bot's own seat only (get_replay); after it, public
    "ExportResults": Role.ANONYMOUS,
    "CancelTournament": Role.ADMIN,
    "StartGauntlet": Role.ADMIN,
    "ListGauntlets": Role.ANONYMOUS,  # seeds of gauntlets still running only to the admin
    "GetGauntlet": Role.ANONYMOUS,
    "SubmitBot": Role.BOT,  # its own bot only (arena.server.submission_servicer)
    "ListSubmissions": Role.BOT,
    "GetBotOutput": Role.BOT,
}
"""The least role each RPC of ArenaService needs (arena.proto states the same in each RPC's comment)."""


HOST_TOKEN_REFUSED = ("this is a hosted bot's token, which plays matches only: the organizer API refuses it; call "
                      "with the author's own token (or none, for public data)")


class AdminAuth:
    """Identifies the callers of the organizer API and checks their role (see the module docstring)."""

    def __init__(self, store: Store, admin_token: str) -> None:
        self.store = store
        self.admin_token = admin_token

    def identify(self, metadata: Any) -> Caller:
        """Who is calling: the admin (the admin token, or anyone when no admin token is set), a bot (its own
        token) or anonymous (no token). A token that is neither is refused, without telling which it is not; a hosted
        bot's token is refused with an admin token set or not."""
        try:
            token = bearer_token(metadata)
        except OrganizerError:
            if self.admin_token and any(key.lower() == AUTH_METADATA_KEY for key, _ in (metadata or ())):
                raise
            return Caller(Role.ANONYMOUS if self.admin_token else Role.ADMIN)
        if self.admin_token and hmac.compare_digest(token.encode(), self.admin_token.encode()):
            return Caller(Role.ADMIN)
        try:
            record = self.store.bots.verify_token(token)
        except InvalidToken:
            if not self.admin_token:
                return Caller(Role.ADMIN)
            raise OrganizerError(grpc.StatusCode.UNAUTHENTICATED, "invalid token") from None
        if record.host_token_id:
            raise OrganizerError(grpc.StatusCode.PERMISSION_DENIED, HOST_TOKEN_REFUSED)
        return Caller(Role.BOT, record.name) if self.admin_token else Caller(Role.ADMIN)

    def authorize(self, metadata: Any, needs: Role = Role.ADMIN) -> Caller:
        """The caller, when its role may make a call that ``needs`` the given role; PERMISSION_DENIED (or
        UNAUTHENTICATED for an anonymous caller) otherwise."""
        caller = self.identify(metadata)
        if not caller.may(needs):
            if caller.role is Role.ANONYMOUS:
                raise OrganizerError(grpc.StatusCode.UNAUTHENTICATED,
                                     f"this call needs the {needs.value} role: send 'authorization: Bearer <token>'")
            raise OrganizerError(grpc.StatusCode.PERMISSION_DENIED,
                                 f"this call needs the {needs.value} role; the token given is a {caller.role.value}'s")
        return caller
