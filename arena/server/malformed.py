"""Malformed request bytes answer ``INVALID_ARGUMENT`` naming the method, on every RPC of a server.

grpc's Python server calls a handler's ``request_deserializer`` itself and turns any exception it raises into
``UNKNOWN: Unexpected <class 'DecodeError'>`` (no method named, no fix), before any handler or role check runs.
:class:`MalformedRequests`, a server interceptor, swaps every handler's deserializer for one that never raises
(:func:`tolerant`: it gives :data:`MALFORMED` for bytes that do not parse) and wraps the handler's behaviour so that
it ends such a call with ``INVALID_ARGUMENT`` before the servicer sees it. One interceptor on the server covers the
organizer API, the bot gateway, health and reflection alike; a handler that takes raw bytes (no deserializer, as
``BotService/Connect``) is left as it is.
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


def _guard_unary(behavior: Callable[..., Any], method: str) -> Callable[..., Any]:
    if inspect.isasyncgenfunction(behavior):
        async def stream_out(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            if request is MALFORMED:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, refusal(method))
            async for item in behavior(request, context):
                yield item

        return stream_out

    async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
        if request is MALFORMED:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, refusal(method))
        result = behavior(request, context)
        return await result if inspect.isawaitable(result) else result

    return unary


def _checked(requests: Any, context: grpc.aio.ServicerContext, method: str) -> AsyncIterator[Any]:
    """A request stream that ends the call with INVALID_ARGUMENT at the first message that did not parse."""

    async def each() -> AsyncIterator[Any]:
        async for request in requests:
            if request is MALFORMED:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, refusal(method))
            yield request

    return each()


def _guard_stream(behavior: Callable[..., Any], method: str) -> Callable[..., Any]:
    if inspect.isasyncgenfunction(behavior):
        async def stream_out(requests: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            async for item in behavior(_checked(requests, context, method), context):
                yield item

        return stream_out

    async def unary(requests: Any, context: grpc.aio.ServicerContext) -> Any:
        result = behavior(_checked(requests, context, method), context)
        return await result if inspect.isawaitable(result) else result

    return unary


def guarded(handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
    """``handler`` with a deserializer that never raises and a behaviour that refuses :data:`MALFORMED` requests
    with INVALID_ARGUMENT naming ``method``; unchanged when it takes raw bytes."""
    if handler is None or handler.request_deserializer is None:
        return handler
    swapped: dict[str, Any] = {"request_deserializer": tolerant(handler.request_deserializer)}
    if handler.unary_unary is not None:
        swapped["unary_unary"] = _guard_unary(handler.unary_unary, method)
    elif handler.unary_stream is not None:
        swapped["unary_stream"] = _guard_unary(handler.unary_stream, method)
    elif handler.stream_unary is not None:
        swapped["stream_unary"] = _guard_stream(handler.stream_unary, method)
    elif handler.stream_stream is not None:
        swapped["stream_stream"] = _guard_stream(handler.stream_stream, method)
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
