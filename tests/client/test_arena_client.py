"""The typed client covers the organizer API: one method per RPC of ArenaService, named after it."""

from __future__ import annotations

import re
import threading
from concurrent import futures

import grpc
import pytest

from arena.client import ArenaClient
from arena.protocol import arena_pb2, arena_pb2_grpc


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_every_rpc_has_one_typed_method() -> None:
    service = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"]
    missing = [rpc.name for rpc in service.methods if not callable(getattr(ArenaClient, _snake(rpc.name), None))]
    assert missing == []


def test_paged_listing_follows_tokens_to_the_last_page() -> None:
    from arena.client import _paged

    pages = {"": (["a", "b"], "t1"), "t1": (["c"], "t2"), "t2": ([], "")}
    asked: list[str] = []

    def page(token: str) -> tuple[list[str], str]:
        asked.append(token)
        return pages[token]

    assert list(_paged(page)) == ["a", "b", "c"]
    assert asked == ["", "t1", "t2"]


class _SlowFirstAnswer(arena_pb2_grpc.ArenaServiceServicer):
    """A real ArenaService whose first CreateTournament answer comes after the caller's deadline: the client must
    ask again with the same idempotency key (the server answers a retried key with the stored tournament)."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.first_done = threading.Event()

    def CreateTournament(self, request: arena_pb2.CreateTournamentRequest,
                         context: grpc.ServicerContext) -> arena_pb2.CreateTournamentResponse:
        self.keys.append(request.idempotency_key)
        if len(self.keys) == 1:
            self.first_done.wait(5.0)  # past the client's deadline: the answer is lost
        t = arena_pb2.Tournament(tournament_id="t-1", matches_total=1)
        return arena_pb2.CreateTournamentResponse(tournament=t)


@pytest.mark.integration
def test_a_lost_create_answer_is_asked_again_with_the_same_key() -> None:
    servicer = _SlowFirstAnswer()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    retried: list[grpc.StatusCode] = []
    try:
        with ArenaClient(f"127.0.0.1:{port}", timeout=0.5) as client:
            reply = client.create_tournament(arena_pb2.TournamentSpec(name="x"), on_retry=retried.append)
    finally:
        servicer.first_done.set()
        server.stop(None)
    assert reply.tournament.tournament_id == "t-1"
    assert retried == [grpc.StatusCode.DEADLINE_EXCEEDED]
    assert len(servicer.keys) == 2 and servicer.keys[0] == servicer.keys[1] and servicer.keys[0]


@pytest.mark.integration
def test_a_refusal_is_not_retried() -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(arena_pb2_grpc.ArenaServiceServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    retried: list[grpc.StatusCode] = []
    try:
        with ArenaClient(f"127.0.0.1:{port}") as client, pytest.raises(grpc.RpcError) as caught:
            client.create_tournament(arena_pb2.TournamentSpec(name="x"), on_retry=retried.append)
    finally:
        server.stop(None)
    assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED and retried == []
