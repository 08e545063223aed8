"""Errors raised by the store. All are ``ValueError`` subclasses with a message meant for people.

``InvalidName`` (bad bot name or id) lives in :mod:`arena.store.keys` and is re-exported here.
"""

from __future__ import annotations

import redis

from .keys import InvalidName


class StoreError(ValueError):
    """Base class of the store's errors about the data asked for."""


class UnknownBot(StoreError, KeyError):
    """No bot is registered under that name."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown bot {name!r}: register it first")
        self.name = name

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


class DuplicateBotName(StoreError):
    """A bot with that name (compared without case) is already registered."""

    def __init__(self, name: str, existing: str) -> None:
        same = "" if name == existing else f" (as {existing!r}; names are compared without case)"
        super().__init__(f"a bot named {name!r} is already registered{same}: choose another name")
        self.name = name
        self.existing = existing


class DeletedBot(StoreError):
    """The bot was deleted: it keeps its name and results, but gets no token any more."""

    def __init__(self, name: str) -> None:
        super().__init__(f"bot {name!r} was deleted: it cannot get a token again (its name stays taken)")
        self.name = name


class InvalidToken(StoreError):
    """A bot token is malformed, names an unknown bot, or does not match the stored hash."""


class UnknownTournament(StoreError, KeyError):
    """No tournament has that id."""

    def __init__(self, tournament_id: str) -> None:
        super().__init__(f"unknown tournament {tournament_id!r}")
        self.tournament_id = tournament_id

    def __str__(self) -> str:
        return str(self.args[0])


class DuplicateTournament(StoreError):
    """A tournament with that id exists already (and was not created under the same idempotency key)."""

    def __init__(self, tournament_id: str) -> None:
        super().__init__(f"a tournament with id {tournament_id!r} already exists")
        self.tournament_id = tournament_id


class IdempotencyConflict(StoreError):
    """An idempotency key was reused with a different tournament spec."""


class UnknownSchedule(StoreError, KeyError):
    """No schedule has that id."""

    def __init__(self, schedule_id: str) -> None:
        super().__init__(f"unknown schedule {schedule_id!r}")
        self.schedule_id = schedule_id

    def __str__(self) -> str:
        return str(self.args[0])


class DuplicateSchedule(StoreError):
    """A schedule with that id exists already."""

    def __init__(self, schedule_id: str) -> None:
        super().__init__(f"a schedule with id {schedule_id!r} already exists")
        self.schedule_id = schedule_id


class StoreConfigError(StoreError):
    """The Redis URL is missing or cannot be used."""


__all__ = [
    "DeletedBot",
    "DuplicateBotName",
    "DuplicateSchedule",
    "DuplicateTournament",
    "IdempotencyConflict",
    "InvalidName",
    "InvalidToken",
    "StoreConfigError",
    "StoreError",
    "UnknownBot",
    "UnknownSchedule",
    "UnknownTournament",
]


# Redis failing underneath the store (a restart, a network fault, a refused write), as the layers above catch
# it: they never import redis themselves. ``StoreUnavailable`` is the connection part of it.
StoreFailure = redis.RedisError
StoreUnavailable: tuple[type[Exception], ...] = (redis.ConnectionError, redis.TimeoutError)

FAILURE_KINDS = ("connection", "misconf", "readonly", "oom", "noreplicas", "busy", "other")
"""The ``kind`` of :func:`failure_kind`: a lost connection, or the reason Redis refused a write."""


def failure_kind(exc: BaseException) -> str:
    """What kind of Redis failure ``exc`` is (one of :data:`FAILURE_KINDS`), for a metric label and a log line.

    ``misconf`` (persistence failing: the append-only file's disk is full, a background save failed),
    ``readonly`` (a replica, or a failover in progress), ``oom`` (``maxmemory`` reached), ``noreplicas``
    (``min-replicas-to-write`` not met) and ``busy`` (a script or loading) are refusals: the connection
    is fine and the same command succeeds once Redis accepts writes again.
    """
    if isinstance(exc, redis.ReadOnlyError):
        return "readonly"
    if isinstance(exc, redis.exceptions.OutOfMemoryError):  # type: ignore[attr-defined]  # not in the stubs
        return "oom"
    if isinstance(exc, redis.BusyLoadingError):
        return "busy"
    if isinstance(exc, (*StoreUnavailable, OSError)):
        return "connection"
    text = str(exc)
    for word, kind in (("MISCONF", "misconf"), ("READONLY", "readonly"), ("OOM", "oom"),
                       ("NOREPLICAS", "noreplicas"), ("BUSY", "busy")):
        if word in text:
            return kind
    return "other"
