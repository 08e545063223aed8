"""Submitted bots (:mod:`arena.submissions`) in Redis: each bot's versions, their archives, the host's state.

A submission's canonical archive is kept once per content, under the sha256 of its bytes (``uno:submission:{sha}``,
``SET NX``): Redis, not a storage folder, so the bot host may run on any machine that reaches the arena's Redis (a
Pod of its own on Kubernetes) and needs no shared volume; the size limit (:class:`arena.submissions.Limits`) keeps it
small. Each bot's submissions are a list, oldest first: the n-th is version n. A new one starts ``checking``; the
bot host runs ``bot check`` on it in the sandbox and records ``admitted`` or ``rejected`` with the reason. The host
runs the newest admitted version (:meth:`SubmissionStore.current`); it records its process's state
(:class:`HostedState`) and the process's last output (at most :data:`MAX_OUTPUT` bytes) for the bot's author.
"""

from __future__ import annotations

import enum
import json
import time
from dataclasses import asdict, dataclass

import redis

from ._codec import text_hash
from .keys import Keys

MAX_OUTPUT = 64 * 1024
"""Bytes of a hosted process's stdout and stderr kept (the last ones)."""
MAX_REASON = 2000
"""Characters of a verdict's reason kept."""
FIRST_SANDBOX_UID = 200_000
"""Hosted bots run as uids from here on, one per bot (:meth:`SubmissionStore.sandbox_uid`)."""


class SubmissionState(enum.Enum):
    CHECKING = "checking"
    """Stored; the bot host has not given its verdict yet."""
    ADMITTED = "admitted"
    """``bot check`` passed with it running in the sandbox: the host runs it (the newest admitted one)."""
    REJECTED = "rejected"
    """``bot check`` failed (the reason says which checks and what the bot wrote): never run."""


@dataclass(frozen=True)
class Submission:
    """One submitted version of a bot."""

    bot: str
    version: int
    sha256: str
    size: int
    """Bytes of the canonical archive."""
    runtime: str
    command: tuple[str, ...]
    state: SubmissionState = SubmissionState.CHECKING
    reason: str = ""
    submitted_at: float = 0.0
    checked_at: float = 0.0

    def to_json(self) -> str:
        data = asdict(self)
        data.update(state=self.state.value, command=list(self.command), reason=self.reason[:MAX_REASON])
        del data["bot"], data["version"]
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_stored(cls, bot: str, version: int, raw: bytes | str) -> Submission:
        data = json.loads(raw)
        return cls(bot=bot, version=version, sha256=str(data["sha256"]), size=int(data["size"]),
                   runtime=str(data["runtime"]), command=tuple(str(w) for w in data["command"]),
                   state=SubmissionState(data["state"]), reason=str(data.get("reason", "")),
                   submitted_at=float(data.get("submitted_at", 0.0)), checked_at=float(data.get("checked_at", 0.0)))


@dataclass(frozen=True)
class HostedState:
    """What the bot host last said of a bot's process."""

    state: str
    """``starting``, ``running``, ``backoff`` (crashed or killed: restarted after a pause) or ``stopped``."""
    version: int = 0
    restarts: int = 0
    detail: str = ""
    """Why it last ended (exit code, signal, which limit), for its author."""
    since: float = 0.0


class SubmissionStore:
    """Submissions, their archives and the host's state of each hosted bot."""

    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self._r = client
        self._k = keys

    def add(self, bot: str, sha256: str, archive: bytes, runtime: str, command: tuple[str, ...],
            now: float | None = None) -> Submission:
        """Store a new version of ``bot`` (its archive once per content); the submission, ``checking``."""
        record = Submission(bot, 0, sha256, len(archive), runtime, command, SubmissionState.CHECKING, "",
                            time.time() if now is None else now)
        pipe = self._r.pipeline()
        pipe.set(self._k.submission(sha256), archive, nx=True)
        pipe.rpush(self._k.bot_submissions(bot), record.to_json())
        pipe.sadd(self._k.hosted(), bot.casefold())
        _, version, _ = pipe.execute()
        return Submission.from_stored(bot, int(version), record.to_json())

    def all(self, bot: str) -> list[Submission]:
        """Every version of ``bot``, the first first."""
        raws = self._r.lrange(self._k.bot_submissions(bot), 0, -1)
        return [Submission.from_stored(bot, index + 1, raw) for index, raw in enumerate(raws)]

    def get(self, bot: str, version: int) -> Submission | None:
        raw = self._r.lindex(self._k.bot_submissions(bot), version - 1) if version >= 1 else None
        return Submission.from_stored(bot, version, raw) if raw is not None else None

    def archive(self, sha256: str) -> bytes | None:
        """The canonical archive of that digest, if stored."""
        raw = self._r.get(self._k.submission(sha256))
        return bytes(raw) if raw is not None else None

    def set_verdict(self, bot: str, version: int, state: SubmissionState, reason: str,
                    now: float | None = None) -> Submission:
        """Record the host's verdict on a version; the submission as now stored. KeyError for a version that
        does not exist."""
        current = self.get(bot, version)
        if current is None:
            raise KeyError(f"bot {bot!r} has no version {version}")
        updated = Submission(bot, version, current.sha256, current.size, current.runtime, current.command, state,
                             reason, current.submitted_at, time.time() if now is None else now)
        self._r.lset(self._k.bot_submissions(bot), version - 1, updated.to_json())
        return updated

    def current(self, bot: str) -> Submission | None:
        """The newest admitted version of ``bot`` (what the host runs), if any."""
        admitted = [s for s in self.all(bot) if s.state is SubmissionState.ADMITTED]
        return admitted[-1] if admitted else None

    def hosted_bots(self) -> list[str]:
        """Every bot with a submission (casefolded names), sorted."""
        return sorted(m.decode("utf-8") if isinstance(m, bytes) else str(m)
                      for m in self._r.smembers(self._k.hosted()))

    def set_output(self, bot: str, output: bytes) -> None:
        """Keep the last :data:`MAX_OUTPUT` bytes of the bot's hosted process's output."""
        self._r.set(self._k.bot_output(bot), output[-MAX_OUTPUT:])

    def output(self, bot: str) -> bytes:
        raw = self._r.get(self._k.bot_output(bot))
        return bytes(raw) if raw is not None else b""

    def set_hosted(self, bot: str, hosted: HostedState) -> None:
        fields: dict[str | bytes, str] = {k: str(v) for k, v in asdict(hosted).items()}
        self._r.hset(self._k.bot_hosted(bot), mapping=fields)

    def hosted(self, bot: str) -> HostedState | None:
        raw = self._r.hgetall(self._k.bot_hosted(bot))
        if not raw:
            return None
        f = text_hash(raw)
        return HostedState(f.get("state", ""), int(f.get("version", 0)), int(f.get("restarts", 0)),
                           f.get("detail", ""), float(f.get("since", 0.0)))

    def sandbox_uid(self, bot: str) -> int:
        """The uid the bot's sandboxed processes run as: its own, handed out once (never another bot's)."""
        key = self._k.bot_hosted(bot)
        raw = self._r.hget(key, "uid")
        if raw is not None:
            return int(raw)
        candidate = FIRST_SANDBOX_UID + int(self._r.incr(self._k.hosted_uid()))
        self._r.hsetnx(key, "uid", candidate)  # a racing host's choice wins; this one's number is skipped
        return int(self._r.hget(key, "uid") or candidate)
