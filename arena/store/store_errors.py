"""Errors raised by the store: ``ValueError`` subclasses with a message meant for people, and the Redis failures
the layers above catch without importing redis."""

from __future__ import annotations

import redis


class StoreError(ValueError):
    """Base class of the store's errors about the data asked for."""


class _NotFound(StoreError, KeyError):
    """No record of that name or id (a ``KeyError`` whose message reads as it is, not repr()-ed)."""

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownBot(_NotFound):
    def __init__(self, name: str) -> None:
        super().__init__(f"unknown bot {name!r}: register it first")


class UnknownTournament(_NotFound):
    def __init__(self, tournament_id: str) -> None:
        super().__init__(f"unknown tournament {tournament_id!r}")


class UnknownSchedule(_NotFound):
    def __init__(self, schedule_id: str) -> None:
        super().__init__(f"unknown schedule {schedule_id!r}")


class DuplicateBotName(StoreError):
    def __init__(self, name: str, existing: str) -> None:
        same = "" if name == existing else f" (as {existing!r}; names are compared without case)"
        super().__init__(f"a bot named {name!r} is already registered{same}: choose another name")


class DeletedBot(StoreError):
    def __init__(self, name: str) -> None:
        super().__init__(f"bot {name!r} was deleted: it cannot get a token again (its name stays taken)")


class InvalidToken(StoreError):
    """A bot token is malformed, names an unknown bot, or does not match the stored hash."""


class DuplicateTournament(StoreError):
    """A tournament with that id exists already (and was not created under the same idempotency key)."""

    def __init__(self, tournament_id: str) -> None:
        super().__init__(f"a tournament with id {tournament_id!r} already exists")


class IdempotencyConflict(StoreError):
    """An idempotency key was reused with a different tournament spec."""


class DuplicateSchedule(StoreError):
    def __init__(self, schedule_id: str) -> None:
        super().__init__(f"a schedule with id {schedule_id!r} already exists")


class StoreConfigError(StoreError):
    """The Redis URL is missing or cannot be used."""


# Redis failing underneath the store (a restart, a network fault, a refused write), as the layers above catch
# it: they never import redis themselves. ``StoreUnavailable`` is the connection part of it.
StoreFailure = redis.RedisError
StoreUnavailable: tuple[type[Exception], ...] = (redis.ConnectionError, redis.TimeoutError)


def failure_kind(exc: BaseException) -> str:
    """What kind of Redis failure ``exc`` is, for a metric label and a log line: ``connection``, ``other``, or the
    reason Redis refused a command while the connection is fine (``misconf``: persistence failing, e.g. the
    append-only file's disk full; ``readonly``; ``oom``; ``noreplicas``; ``busy``: a script or loading), which
    succeeds once Redis accepts writes again."""
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
