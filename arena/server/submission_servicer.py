"""The organizer API's side of submitted bots (``SubmitBot``, ``ListSubmissions``, ``GetBotOutput``): the archive
checked off the serving path (:class:`arena.submissions.intake.IntakeRunner`), stored as the bot's next version
(:mod:`arena.store.submission_store`), and read back for its author.

Every submission, refused ones too, counts against a rate limit per bot (in Redis, shared by every gateway) and per
client address (on this gateway) before anything is checked: past either it is ``RESOURCE_EXHAUSTED``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc

from arena.protocol import arena_pb2
from arena.service.visibility import Caller
from arena.store import Store
from arena.store.submission_store import HostedState, QuotaExceeded, Submission, SubmissionState
from arena.submissions import DEFAULT_LIMITS, SubmissionRejected
from arena.submissions.intake import IntakeBusy, IntakeFailed, IntakeRunner

from .api_messages import set_time
from .gateway.stream_limits import StreamLimiter
from .refusals import OrganizerError

MAX_CHUNK_BYTES = 32 * 1024
"""The most bytes one SubmitBot message carries (under the gateway's 64 KiB per message)."""


@dataclass(frozen=True)
class SubmitRates:
    """How often submissions may come, accepted or refused."""

    per_bot: int = 10
    per_bot_window_s: int = 600
    per_client: int = 60
    per_client_window_s: float = 60.0


DEFAULT_RATES = SubmitRates()

STATE_OF: dict[SubmissionState, Any] = {state: arena_pb2.SubmissionState.Value(f"SUBMISSION_STATE_{state.name}")
                                        for state in SubmissionState}


def submission_message(submission: Submission, queue_position: int = 0) -> arena_pb2.Submission:
    msg = arena_pb2.Submission(version=submission.version, sha256=submission.sha256, size=submission.size,
                               runtime=submission.runtime, command=list(submission.command),
                               state=STATE_OF[submission.state], reason=submission.reason,
                               queue_position=queue_position)
    set_time(msg.submitted_at, submission.submitted_at)
    set_time(msg.checked_at, submission.checked_at)
    return msg


def hosted_message(hosted: HostedState | None) -> arena_pb2.HostedProcess:
    if hosted is None:
        return arena_pb2.HostedProcess()
    msg = arena_pb2.HostedProcess(state=hosted.state, version=hosted.version, restarts=hosted.restarts,
                                  detail=hosted.detail)
    set_time(msg.since, hosted.since)
    return msg


def _own(caller: Caller, name: str) -> None:
    if not (caller.is_admin or caller.is_bot(name)):
        raise OrganizerError(grpc.StatusCode.PERMISSION_DENIED,
                             "a bot may submit and read its own submissions only (the admin any)")


def client_of(peer: str) -> str:
    """The caller's address without its port (``ipv4:1.2.3.4:5`` is ``ipv4:1.2.3.4``; a unix socket is one)."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6"):
        return f"{kind}:{rest.rpartition(':')[0]}"
    return kind


class Submissions:
    """The three RPCs: :meth:`submit` on the event loop (its blocking parts in threads), the others blocking."""

    def __init__(self, store: Store, intake: IntakeRunner | None = None, rates: SubmitRates = DEFAULT_RATES) -> None:
        self.store = store
        self.intake = intake or IntakeRunner()
        self.rates = rates
        self._clients = StreamLimiter(rates.per_client, rates.per_client_window_s)

    async def submit(self, requests: AsyncIterable[arena_pb2.SubmitBotRequest], caller: Caller,
                     peer: str) -> arena_pb2.SubmitBotResponse:
        """Read a SubmitBot stream, count it, check its archive in a child process and store it as the bot's next
        version (``checking``)."""
        wait_s = self._clients.check(client_of(peer))
        if wait_s > 0:
            raise OrganizerError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"too many submissions from this address: at most {self.rates.per_client} in "
                                 f"{self.rates.per_client_window_s:g} s; try again in {max(1.0, wait_s):.0f} s")
        # Who, whether it may, and a free check, all before the archive is read: a refused upload costs its reading.
        stream = aiter(requests)
        first = await anext(stream, None)
        if first is None or not first.name:
            raise OrganizerError(grpc.StatusCode.INVALID_ARGUMENT, "the first SubmitBot message must name the bot"
                                 if first is not None else "an empty SubmitBot stream: send the archive")
        _own(caller, first.name)
        bot = await asyncio.to_thread(self._admit, first.name)
        try:
            with self.intake.slot():
                archive = await read_chunks(first, stream)
                checked = await self.intake.check_in_slot(archive)
        except SubmissionRejected as error:
            raise OrganizerError(grpc.StatusCode.INVALID_ARGUMENT, f"submission refused: {error}") from None
        except IntakeBusy as error:
            raise OrganizerError(grpc.StatusCode.RESOURCE_EXHAUSTED, str(error)) from None
        except IntakeFailed as error:
            raise OrganizerError(grpc.StatusCode.UNAVAILABLE, f"{error}; try again") from None
        try:
            stored = await asyncio.to_thread(self.store.submissions.add, bot, checked.sha256, checked.archive,
                                             checked.runtime, checked.command)
        except QuotaExceeded as error:
            raise OrganizerError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"submission refused: {error}") from None
        except OSError as error:  # the archive folder (full, unmounted): the operator's to fix, its path not told
            raise OrganizerError(grpc.StatusCode.UNAVAILABLE, "the arena cannot store archives now "
                                 f"({error.strerror or 'storage error'}): try again later") from None
        return arena_pb2.SubmitBotResponse(submission=submission_message(stored))

    def _admit(self, name: str) -> str:
        """The bot's name as registered, once this submission is counted and the bot may take one more version."""
        record = self.store.bots.get(name)
        wait_s = self.store.submissions.count_attempt(record.name, self.rates.per_bot, self.rates.per_bot_window_s)
        if wait_s > 0:
            raise OrganizerError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"bot {record.name!r} has submitted {self.rates.per_bot} times in "
                                 f"{self.rates.per_bot_window_s} s (refused submissions count too): try again in "
                                 f"{wait_s:.0f} s")
        if record.deleted:
            raise OrganizerError(grpc.StatusCode.FAILED_PRECONDITION, f"bot {record.name!r} is deleted")
        try:
            self.store.submissions.check_quota(record.name)
        except QuotaExceeded as error:
            raise OrganizerError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"submission refused: {error}") from None
        return record.name

    def list(self, request: arena_pb2.ListSubmissionsRequest, caller: Caller) -> arena_pb2.ListSubmissionsResponse:
        _own(caller, request.name)
        record = self.store.bots.get(request.name)
        return arena_pb2.ListSubmissionsResponse(
            submissions=[submission_message(s, self.store.submissions.check_queue_place(record.name, s.version))
                         for s in self.store.submissions.all(record.name)],
            hosted=hosted_message(self.store.submissions.hosted(record.name)))

    def output(self, request: arena_pb2.GetBotOutputRequest, caller: Caller) -> arena_pb2.GetBotOutputResponse:
        _own(caller, request.name)
        record = self.store.bots.get(request.name)
        return arena_pb2.GetBotOutputResponse(output=self.store.submissions.output(record.name))


async def read_chunks(first: arena_pb2.SubmitBotRequest, rest: AsyncIterator[arena_pb2.SubmitBotRequest],
                      limit: int = DEFAULT_LIMITS.max_archive_bytes) -> bytes:
    """The archive of a SubmitBot stream (its ``first`` message, read already, then the ``rest``); OrganizerError
    past ``limit`` bytes (read no further) or for a message past :data:`MAX_CHUNK_BYTES`."""
    parts: list[bytes] = []
    total = 0
    message: arena_pb2.SubmitBotRequest | None = first
    while message is not None:
        if len(message.chunk) > MAX_CHUNK_BYTES:
            raise OrganizerError(grpc.StatusCode.INVALID_ARGUMENT,
                                 f"a SubmitBot message carries at most {MAX_CHUNK_BYTES} bytes")
        total += len(message.chunk)
        if total > limit:
            raise OrganizerError(grpc.StatusCode.INVALID_ARGUMENT,
                                 f"submission refused: the archive is more than the {limit} bytes allowed: leave "
                                 "out what the bot does not need to run")
        parts.append(message.chunk)
        message = await anext(rest, None)
    return b"".join(parts)
