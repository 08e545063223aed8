"""The gateway's layout: its caller on the match side (the relay consumer) sees only its match API (the gateway's
parts), and its modules import one another in one direction only, imports under ``if TYPE_CHECKING:`` included."""

from __future__ import annotations

import grimp
import grpc

from arena.server.gateway import Gateway, GatewayConfig
from arena.server.match_api import MatchApi
from arena.store import Store

PACKAGE = "arena.server.gateway"


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("arena", exclude_type_checking_imports=False)


def test_the_match_side_callers_import_nothing_of_the_gateway() -> None:
    graph = _graph()
    for caller in ("arena.server.relay_consumer", "arena.server.match_api"):
        imported = graph.find_modules_directly_imported_by(caller)
        assert sorted(m for m in imported if m == PACKAGE or m.startswith(f"{PACKAGE}.")) == [], caller
        assert "arena.server.match_api" in imported or caller == "arena.server.match_api"


def test_no_two_gateway_modules_import_each_other_even_through_others() -> None:
    graph = _graph()
    modules = [*sorted(graph.find_descendants(PACKAGE)), "arena.server.relay_consumer", "arena.server.match_api"]
    assert len(modules) >= 12
    both_ways = [(a, b) for a in modules for b in graph.find_modules_directly_imported_by(a)
                 if b in modules and graph.find_shortest_chain(importer=b, imported=a) is not None]
    assert both_ways == []


def test_the_gateway_is_what_its_callers_ask_for(store: Store) -> None:
    gateway: MatchApi = Gateway(store, GatewayConfig(gateway_id="gw-layout"))
    assert gateway.gateway_id == "gw-layout" and not gateway.registry.draining
    assert gateway.admissions.late_refusals("nobody", "m-1", 0) == 0
    assert gateway.admissions.started_body("nobody", "m-1", 0) is None
    assert gateway.registry.end_session("no-such-session", grpc.StatusCode.UNAUTHENTICATED, "revoked") is False
    # An explicit object: its parts are called directly, none of their methods is copied onto it.
    assert not any(hasattr(gateway, name) for name in ("decide", "admit", "end_match", "link", "wait_for_bot", "drain"))
