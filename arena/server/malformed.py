"""Malformed request bytes answer ``INVALID_ARGUMENT`` naming the method, on every RPC of a server.

grpc's Python server calls a handler's ``request_deserializer`` itself and turns any exception into ``UNKNOWN:
Unexpected <class 'DecodeError'>``, before any handler or role check runs. :class:`MalformedRequests` swaps every
deserializer for one that gives :data:`MALFORMED` instead of raising, and ends such a call with ``INVALID_ARGUMENT``
before the servicer sees it (a handler that takes raw bytes, as ``BotService/Connect``, is left as it is).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import grpc.aio


class _Malformed:
    """The request that did not parse (one object, compared by identity)."""

    def __repr__(self) -> str:
        return "MALFORMED"


MALFORMED = _Malformed()


def tolerant(deserializer: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """``deserializer``, giving :data:`MALFORMED` instead of raising (protobuf's DecodeError, or anything else a
    hostile byte string makes a parser raise)."""

    def parse(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception:
            return MALFORMED

    return parse


def refusal(method: str) -> str:
    """The line a caller whose request did not parse is told."""
    return (f"{method}: the request bytes are not a valid protobuf message of this method; send the request message "
            "the uno_arena.v1 .proto files define (see docs/protocol.md)")


def _guard(behavior: Callable[..., Any], method: str, request_stream: bool) -> Callable[..., Any]:
    """``behavior`` ending the call with INVALID_ARGUMENT at a request (or the first of a stream's) that did not
    parse."""

    async def parsed(request: Any, context: grpc.aio.ServicerContext) -> Any:
        if request is MALFORMED:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, refusal(method))
        return request

    async def each(requests: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        async for request in requests:
            yield await parsed(request, context)

    async def checked(request: Any, context: grpc.aio.ServicerContext) -> Any:
        return each(request, context) if request_stream else await parsed(request, context)

    if inspect.isasyncgenfunction(behavior):
        async def stream_out(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            async for item in behavior(await checked(request, context), context):
                yield item

        return stream_out

    async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
        result = behavior(await checked(request, context), context)
        return await result if inspect.isawaitable(result) else result

    return unary


def guarded(handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
    """``handler`` with a deserializer that never raises and a behaviour that refuses :data:`MALFORMED` requests
    with INVALID_ARGUMENT naming ``method``; unchanged when it takes raw bytes."""
    if handler is None or handler.request_deserializer is None:
        return handler
    swapped: dict[str, Any] = {"request_deserializer": tolerant(handler.request_deserializer)}
    for kind in ("unary_unary", "unary_stream", "stream_unary", "stream_stream"):
        behavior = getattr(handler, kind)
        if behavior is not None:
            swapped[kind] = _guard(behavior, method, request_stream=kind.startswith("stream"))
            break
    replaced: grpc.RpcMethodHandler = handler._replace(**swapped)
    return replaced


class MalformedRequests(grpc.aio.ServerInterceptor):
    """The server interceptor of this module: every handler :func:`guarded`. Put it first in a server's list."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        return guarded(handler, handler_call_details.method)
