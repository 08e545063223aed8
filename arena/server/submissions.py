"""The organizer API's side of submitted bots (``SubmitBot``, ``ListSubmissions``, ``GetBotOutput``): the archive
checked (:mod:`arena.submissions`), stored as the bot's next version (:mod:`arena.store.submissions`), and read back
for its author; the verdicts themselves are the bot host's (:mod:`arena.hosting`)."""

from __future__ import annotations

import grpc

from arena.protocol import arena_pb2
from arena.service.visibility import Caller
from arena.store import Store
from arena.store.submissions import HostedState, Submission, SubmissionState
from arena.submissions import DEFAULT_LIMITS, SubmissionRejected, read_package

from .messages import set_time
from .refusals import OrganizerError

MAX_VERSIONS = 200
"""Versions one bot may submit (each is kept): past it, SubmitBot is refused (the admin may delete the bot)."""
MAX_CHUNK_BYTES = 32 * 1024
"""The most bytes one SubmitBot message carries (under the gateway's 64 KiB per message)."""

STATE_OF = {SubmissionState.CHECKING: arena_pb2.SUBMISSION_STATE_CHECKING,
            SubmissionState.ADMITTED: arena_pb2.SUBMISSION_STATE_ADMITTED,
            SubmissionState.REJECTED: arena_pb2.SUBMISSION_STATE_REJECTED}


def submission_message(submission: Submission) -> arena_pb2.Submission:
    msg = arena_pb2.Submission(version=submission.version, sha256=submission.sha256, size=submission.size,
                               runtime=submission.runtime, command=list(submission.command),
                               state=STATE_OF[submission.state], reason=submission.reason)
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


class Submissions:
    """The synchronous core of the three RPCs."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def submit(self, name: str, archive: bytes, caller: Caller) -> arena_pb2.SubmitBotResponse:
        """Check ``archive`` and store it as bot ``name``'s next version (``checking``)."""
        _own(caller, name)
        record = self.store.bots.get(name)
        if record.deleted:
            raise OrganizerError(grpc.StatusCode.FAILED_PRECONDITION, f"bot {record.name!r} is deleted")
        if len(self.store.submissions.all(record.name)) >= MAX_VERSIONS:
            raise OrganizerError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"bot {record.name!r} has submitted {MAX_VERSIONS} versions, the most the arena keeps")
        try:
            package = read_package(archive, DEFAULT_LIMITS)
        except SubmissionRejected as error:
            raise OrganizerError(grpc.StatusCode.INVALID_ARGUMENT, f"submission refused: {error}") from None
        stored = self.store.submissions.add(record.name, package.sha256, package.archive,
                                            package.manifest.runtime.value, package.manifest.command)
        return arena_pb2.SubmitBotResponse(submission=submission_message(stored))

    def list(self, request: arena_pb2.ListSubmissionsRequest, caller: Caller) -> arena_pb2.ListSubmissionsResponse:
        _own(caller, request.name)
        record = self.store.bots.get(request.name)
        return arena_pb2.ListSubmissionsResponse(
            submissions=[submission_message(s) for s in self.store.submissions.all(record.name)],
            hosted=hosted_message(self.store.submissions.hosted(record.name)))

    def output(self, request: arena_pb2.GetBotOutputRequest, caller: Caller) -> arena_pb2.GetBotOutputResponse:
        _own(caller, request.name)
        record = self.store.bots.get(request.name)
        return arena_pb2.GetBotOutputResponse(output=self.store.submissions.output(record.name))


async def read_chunks(requests: object, limit: int = DEFAULT_LIMITS.max_archive_bytes) -> tuple[str, bytes]:
    """The bot's name and the archive of a SubmitBot stream; OrganizerError past ``limit`` bytes (read no
    further) or for a message without a name first."""
    name = ""
    parts: list[bytes] = []
    total = 0
    async for message in requests:  # type: ignore[attr-defined]
        if not name:
            name = message.name
            if not name:
                raise OrganizerError(grpc.StatusCode.INVALID_ARGUMENT,
                                     "the first SubmitBot message must name the bot")
        if len(message.chunk) > MAX_CHUNK_BYTES:
            raise OrganizerError(grpc.StatusCode.INVALID_ARGUMENT,
                                 f"a SubmitBot message carries at most {MAX_CHUNK_BYTES} bytes")
        total += len(message.chunk)
        if total > limit:
            raise OrganizerError(grpc.StatusCode.INVALID_ARGUMENT,
                                 f"submission refused: the archive is more than the {limit} bytes allowed: leave "
                                 "out what the bot does not need to run")
        parts.append(message.chunk)
    if not name:
        raise OrganizerError(grpc.StatusCode.INVALID_ARGUMENT, "an empty SubmitBot stream: send the archive")
    return name, b"".join(parts)
