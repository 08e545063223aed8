"""A refused call of the organizer API (or a bot stream's refused token, :mod:`arena.server.auth`):
:class:`OrganizerError` carries the gRPC status code and a message for the caller (at most :data:`MAX_ERROR_LENGTH`
characters once sent: gRPC trailers are small)."""

from __future__ import annotations

import grpc

MAX_ERROR_LENGTH = 1000
"""An error message is cut to this many characters (inputs in it are quoted to 100 characters at most)."""


class OrganizerError(Exception):
    """A refused request: the gRPC status code and a message for the caller."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def short(message: str) -> str:
    """An error message of at most :data:`MAX_ERROR_LENGTH` characters."""
    return message if len(message) <= MAX_ERROR_LENGTH else message[: MAX_ERROR_LENGTH - 3] + "..."


def invalid(message: str) -> OrganizerError:
    return OrganizerError(grpc.StatusCode.INVALID_ARGUMENT, message)


def not_found(message: str) -> OrganizerError:
    return OrganizerError(grpc.StatusCode.NOT_FOUND, message)
