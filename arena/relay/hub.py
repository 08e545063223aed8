"""One :class:`~arena.store.RelayHub` per event loop and process, shared by every :class:`~arena.relay.RelaySeat`
of that loop: one Redis client and one reader of answers however many matches the loop plays. Made on first use in
the running loop (never at import, never before a fork), again after a fork, for another Redis server or prefix,
or once the old one closed with its loop."""

from __future__ import annotations

import asyncio
import os
import weakref

from arena.metrics import get_metrics
from arena.store import RelayHub, Store

HUB_CLIENT_NAME = "uno-arena-relay-hub"
"""The name of the hubs' Redis connections (``CLIENT LIST``)."""

_HubKey = tuple[str, str]  # (Redis URL, key prefix)
_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[_HubKey, RelayHub]] = weakref.WeakKeyDictionary()
_pid = os.getpid()
_inherited: list[object] = []
"""Hubs a forked child inherited: never used nor closed there (their sockets are the parent's), only kept."""


async def relay_hub(store: Store) -> RelayHub:
    """The hub of the running loop for ``store``'s Redis server and prefix."""
    global _hubs, _pid
    loop = asyncio.get_running_loop()
    if _pid != os.getpid():
        _inherited.append(_hubs)
        _hubs, _pid = weakref.WeakKeyDictionary(), os.getpid()
    per_loop = _hubs.setdefault(loop, {})
    key = (store.url, store.keys.prefix)
    hub = per_loop.get(key)
    if hub is None or hub.closed:
        channel = store.relay(get_metrics().relay_meter("worker"), name=HUB_CLIENT_NAME)
        hub = per_loop[key] = RelayHub(channel, on_closed=lambda closed: _drop(loop, key, closed))
        await hub.start()
    return hub


def _drop(loop: asyncio.AbstractEventLoop, key: _HubKey, hub: RelayHub) -> None:
    per_loop = _hubs.get(loop)
    if per_loop is not None and per_loop.get(key) is hub:
        del per_loop[key]


def loop_hubs() -> list[RelayHub]:
    return [hub for hub in _hubs.get(asyncio.get_running_loop(), {}).values() if not hub.closed]

