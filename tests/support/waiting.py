"""Waiting on explicit state, the one way tests synchronise with servers, bots and workers.

A test never sleeps and then asserts: it waits (bounded) until the state it needs is there, and a wait
that runs out fails with a message that names what it waited for. Where a sleep *is* the behaviour under
test (a deadline that must pass, a bot that must be slow), the test sleeps and says why in a comment.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

POLL_S = 0.02
"""How often a predicate is asked again (short: the state is local, asking is cheap)."""


def _message(what: str, timeout: float, last_error: BaseException | None, details: Callable[[], str] | None) -> str:
    message = f"timed out after {timeout:g} s waiting for {what}"
    if last_error is not None:
        message += f" (last error: {type(last_error).__name__}: {last_error})"
    if details is not None:
        message += f"\n{details()}"
    return message


def wait_until(
    predicate: Callable[[], T],
    timeout: float = 20.0,
    what: str = "a condition",
    *,
    interval: float = POLL_S,
    ignore: tuple[type[BaseException], ...] = (),
    details: Callable[[], str] | None = None,
) -> T:
    """Poll ``predicate`` until it returns something truthy, and return that; ``AssertionError`` naming
    ``what`` after ``timeout`` seconds.

    ``ignore``: exceptions of the predicate that mean "not yet" (e.g. ``OSError`` while a server starts).
    Any other exception propagates at once (a predicate may raise to fail early: a process that exited).
    ``details``: called on time-out only, its text is added to the message (a log tail, the last answer).
    """
    deadline = time.monotonic() + timeout
    last_error: BaseException | None = None
    while True:
        try:
            result = predicate()
        except ignore as error:
            last_error = error
        else:
            if result:
                return result
        if time.monotonic() >= deadline:
            raise AssertionError(_message(what, timeout, last_error, details))
        time.sleep(interval)


async def wait_until_async(
    predicate: Callable[[], T],
    timeout: float = 20.0,
    what: str = "a condition",
    *,
    interval: float = 0.001,
) -> T:
    """:func:`wait_until` for code on an event loop: polls with ``asyncio.sleep`` so the loop keeps running
    (short interval by default: it is used to catch transient states of the loop's own objects)."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(_message(what, timeout, None, None))
        await asyncio.sleep(interval)
