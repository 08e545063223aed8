"""Helpers of the security tests: call metadata per caller, the status of a call, a played tournament."""

from __future__ import annotations

from typing import Any

import grpc

from arena.protocol import arena_pb2
from arena.store import Store
from tests.support.bots import ThreadBot
from tests.support.gateway import GatewayHarness
from tests.support.organizer import OrganizerServer
from tests.workers.helpers import wait_finished

from .conftest import ADMIN_TOKEN

ADMIN = [("authorization", f"Bearer {ADMIN_TOKEN}")]


def auth(token: str | None) -> list[tuple[str, str]]:
    """Call metadata carrying ``token`` (none: an anonymous call)."""
    return [("authorization", f"Bearer {token}")] if token else []


def status_of(call: Any) -> tuple[grpc.StatusCode, str]:
    """The status code and details of ``call()`` (``OK`` when it returns); a server stream is read to its end."""
    try:
        result = call()
        if not hasattr(result, "SerializeToString"):
            list(result)
    except grpc.RpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


def register(organizer: OrganizerServer, name: str) -> str:
    """Register ``name`` through the API as the admin; its token."""
    reply = organizer.stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name, description=f"{name}'s owner"),
                                       metadata=ADMIN, timeout=10)
    return str(reply.token)


def play_tournament(store: Store, organizer: OrganizerServer, gateway: GatewayHarness, name: str,
                    participants: list[str], tokens: dict[str, str]) -> arena_pb2.Tournament:
    """Create a 2-seat, 1-deal tournament as the admin with the registered bots of ``tokens`` connected through
    ``gateway`` (Python kit, RandomBot), and wait until it finished."""
    bots = [ThreadBot(gateway.address, token) for token in tokens.values()]
    try:
        for bot in tokens:
            gateway.wait_for_bot(bot, timeout=15)
        spec = arena_pb2.TournamentSpec(name=name, participants=participants, seats_per_table=2, deals_per_table=1,
                                        seed=11, decision_deadline_ms=3000)
        spec.rules.target = 60
        created = organizer.stub.CreateTournament(arena_pb2.CreateTournamentRequest(spec=spec), metadata=ADMIN,
                                                  timeout=30).tournament
        wait_finished(store, created.tournament_id)
    finally:
        for bot in bots:
            bot.stop()
    return created
