"""A real grpc.aio server with the organizer API (arena.server.organizer) on a free port, for tests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import grpc
import grpc.aio
from celery import Celery

from arena.protocol import arena_pb2_grpc
from arena.server.organizer import add_organizer
from arena.store import Store

T = TypeVar("T")


class OrganizerServer:
    """ArenaService served on 127.0.0.1:<free port> from its own event loop thread."""

    def __init__(self, store: Store, app: Celery, admin_token: str = "") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run_loop, name="organizer", daemon=True)
        self._thread.start()
        self.server: grpc.aio.Server = self.run(self._start(store, app, admin_token))
        self.address = f"127.0.0.1:{self.port}"
        self.channel = grpc.insecure_channel(self.address)
        self.stub = arena_pb2_grpc.ArenaServiceStub(self.channel)

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    async def _start(self, store: Store, app: Celery, admin_token: str) -> grpc.aio.Server:
        server = grpc.aio.server()
        add_organizer(server, store, celery_app=app, admin_token=admin_token)
        self.port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        return server

    def close(self) -> None:
        self.channel.close()
        self.run(self.server.stop(0.5))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()
