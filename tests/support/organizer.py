"""A real grpc.aio server with the organizer API (arena.server.organizer) on a free port, for tests."""

from __future__ import annotations

import grpc
import grpc.aio
from celery import Celery

from arena.protocol import arena_pb2_grpc
from arena.server.servicer import add_organizer
from arena.store import Store
from tests.support.loop_thread import LoopThread
from workers.enqueue import CeleryEnqueuer


class OrganizerServer:
    """ArenaService served on 127.0.0.1:<free port> from its own event loop thread."""

    def __init__(self, store: Store, app: Celery, admin_token: str = "") -> None:
        self.loop_thread = LoopThread("organizer")
        try:
            self.server, self.port = self.loop_thread.run(_start(store, app, admin_token), timeout=30)
        except BaseException:
            self.loop_thread.close()
            raise
        self.address = f"127.0.0.1:{self.port}"
        self.channel = grpc.insecure_channel(self.address)
        self.stub = arena_pb2_grpc.ArenaServiceStub(self.channel)

    def close(self) -> None:
        """Stop the server and close its loop (also when the stop fails: that error is raised after)."""
        self.channel.close()
        try:
            self.loop_thread.run(self.server.stop(0.5), timeout=30)
        finally:
            self.loop_thread.close()


async def _start(store: Store, app: Celery, admin_token: str) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    add_organizer(server, store, enqueuer=CeleryEnqueuer(app), admin_token=admin_token)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port
