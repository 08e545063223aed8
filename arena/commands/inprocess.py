"""An arena in this process, for `uno-arena match` and `uno-arena bot check`: a gateway serving bots and the
organizer API on the arena's store (``$REDIS_URL``, else an embedded Redis of its own), with an admin token of its
own, and a client of that API.

A local arena is an arena: bots are registered through ``RegisterBot`` and their streams authenticated by the
gateway against the one registry of the store, exactly as with `uno-arena serve` (so a bot registered with `uno-arena
bots register` on the same Redis connects to it with its own token, and the other way round). The client is a
blocking one while the gateway runs on this event loop: call it through :meth:`InProcessArena.call`, which runs it
in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from arena.client import ArenaClient

T = TypeVar("T")


@contextlib.contextmanager
def arena_store() -> Iterator[Any]:
    """The arena's Store on $REDIS_URL, or on an embedded redis-server (stopped on exit)."""
    from arena.store import Store
    from arena.store.embedded import ensure_redis_url

    url, embedded = ensure_redis_url()
    store = Store.from_url(url)
    try:
        yield store
    finally:
        store.close()
        if embedded is not None:
            embedded.close()


def organizer_services(store: Any, admin_token: str | None = None) -> list[Callable[[Any], None]]:
    """The organizer API as a service of a gateway on ``store``, its tasks sent to the workers of that store."""
    from arena.server.servicer import add_organizer

    def add(server: Any) -> None:
        from workers.celery_app import make_celery  # the Celery app only where tasks are sent
        from workers.enqueue import CeleryEnqueuer

        add_organizer(server, store, enqueuer=CeleryEnqueuer(make_celery(store.url)), admin_token=admin_token)

    return [add]


@dataclass
class InProcessArena:
    """A running in-process arena: its gateway server and an admin client of its organizer API."""

    server: Any  # arena.server.gateway.GatewayServer
    client: ArenaClient

    @property
    def gateway(self) -> Any:
        return self.server.gateway

    @property
    def address(self) -> str:
        """Where bots connect (the loopback address of the port it listens on)."""
        return f"127.0.0.1:{self.server.port}"

    @property
    def bot_address(self) -> str:
        """Where the bots under check connect: the Unix socket when it listens on one, else :attr:`address`."""
        path = self.server.config.unix_socket
        return f"unix:{path}" if path else self.address

    async def call(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``method(*args, **kwargs)`` of :attr:`client`, in a thread (the server answers on this loop)."""
        return await asyncio.to_thread(method, *args, **kwargs)

    async def register(self, name: str) -> str:
        """Register bot ``name`` through RegisterBot; its token."""
        return (await self.call(self.client.register_bot, name)).token

    async def is_registered(self, name: str) -> bool:
        """Whether ``name`` is a registered bot (GetBot; a deleted one counts as not registered)."""
        import grpc

        try:
            bot = await self.call(self.client.get_bot, name)
        except grpc.RpcError as error:
            if isinstance(error, grpc.Call) and error.code() == grpc.StatusCode.NOT_FOUND:
                return False
            raise
        return not bot.deleted


@contextlib.asynccontextmanager
async def inprocess_arena(store: Any, address: str, unix_socket: str = "") -> AsyncIterator[InProcessArena]:
    """Start a gateway with the organizer API on ``address`` (port 0: a free one) of ``store``, and on the Unix
    socket ``unix_socket`` too when given; stopped on exit."""
    from arena.server.gateway import GatewayConfig, GatewayServer

    admin_token = secrets.token_urlsafe(32)
    server = GatewayServer(store, GatewayConfig(address=address, relay=False, unix_socket=unix_socket),
                           services=organizer_services(store, admin_token))
    await server.start()
    client = ArenaClient(f"127.0.0.1:{server.port}", admin_token)
    try:
        yield InProcessArena(server, client)
    finally:
        client.close()
        await server.stop(1.0)
