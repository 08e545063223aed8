"""The typed client covers the organizer API: one method per RPC of ArenaService, named after it."""

from __future__ import annotations

import re

from arena.client import ArenaClient
from arena.protocol import arena_pb2


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
