"""Submitted bots (:mod:`arena.submissions`): each bot's versions and the host's state in Redis, their archives on
disk (:mod:`arena.store.archive_store`).

A submission's canonical archive is kept once per content, as a file named by the sha256 of its bytes in the
arena's archive folder (never in Redis); Redis counts the versions that refer to each archive (``uno:archives``),
and an archive no version refers to any more is removed. Each bot's submissions are a list, oldest first: the n-th
is version n. A new one starts ``checking``; the bot host runs ``bot check`` on it in the sandbox and records
``admitted`` or ``rejected`` with the reason. The host runs the newest admitted version
(:meth:`SubmissionStore.current`); it records its process's state (:class:`HostedState`) and the process's last
output (at most :data:`MAX_OUTPUT` bytes) for the bot's author.

Each bot has a quota (:class:`Quota`): versions kept and their archives' bytes; a version deleted
(:meth:`SubmissionStore.delete_versions`: the admin's ``uno-arena bot prune``, or the bot's deletion) stays in the
list as a marker, so the numbers of the others never change, and frees its share of the quota.
"""

from __future__ import annotations

import enum
import json
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass

import redis

from ._codec import text_hash
from .archive_store import ArchiveFolder
from .keys import Keys

MAX_OUTPUT = 64 * 1024
"""Bytes of a hosted process's stdout and stderr kept (the last ones)."""
MAX_REASON = 2000
"""Characters of a verdict's reason kept."""
MAX_HISTORY = 10_000
"""Versions one bot may ever submit, deleted ones included (each leaves a marker of a few bytes)."""


class SubmissionState(enum.Enum):
    CHECKING = "checking"
    """Stored; the bot host has not given its verdict yet."""
    ADMITTED = "admitted"
    """``bot check`` passed with it running in the sandbox: the host runs it (the newest admitted one)."""
    REJECTED = "rejected"
    """``bot check`` failed (the reason says which checks and what the bot wrote): never run."""
    STOPPED = "stopped"
    """Admitted, then stopped by the bot host: its process broke a rule of the sandbox (the reason says which); never
    run again."""


@dataclass(frozen=True)
class Quota:
    """What one bot's kept versions may hold."""

    max_versions: int = 20
    max_bytes: int = 64 * 1024 * 1024
    """Bytes of the kept versions' canonical archives (each counted, even when two share content)."""


DEFAULT_QUOTA = Quota()


class QuotaExceeded(Exception):
    """A new version would take the bot past its :class:`Quota`; the message names the quota and the fix."""


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
    deleted_at: float = 0.0
    """When the version was deleted (0: kept); a deleted version is never run and its archive may be gone."""

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
                   submitted_at=float(data.get("submitted_at", 0.0)), checked_at=float(data.get("checked_at", 0.0)),
                   deleted_at=float(data.get("deleted_at", 0.0)))


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

    def __init__(self, client: redis.Redis, keys: Keys, archives: ArchiveFolder, quota: Quota = DEFAULT_QUOTA) -> None:
        self._r = client
        self._k = keys
        self.archives = archives
        self.quota = quota

    def use_archive_dir(self, path: str) -> None:
        """Keep archives in ``path`` from now on (the ``--archive-dir`` of ``serve`` and ``host``)."""
        self.archives = ArchiveFolder(path)

    def check_quota(self, bot: str, new_bytes: int = 0) -> None:
        """QuotaExceeded when one more version of ``new_bytes`` would take ``bot`` past its quota."""
        kept = self.all(bot)
        fix = (f"delete old versions (the admin: `uno-arena bot prune {bot} --keep N`) or ask the admin to delete "
               "the bot")
        if len(kept) >= self.quota.max_versions:
            raise QuotaExceeded(f"bot {bot!r} keeps {len(kept)} versions, its quota of {self.quota.max_versions}: "
                                f"{fix}")
        used = sum(s.size for s in kept)
        if used + new_bytes > self.quota.max_bytes:
            raise QuotaExceeded(f"bot {bot!r} keeps {used} bytes of archives; this version's {new_bytes} would pass "
                                f"its quota of {self.quota.max_bytes} bytes: {fix}")
        if int(self._r.llen(self._k.bot_submissions(bot))) >= MAX_HISTORY:
            raise QuotaExceeded(f"bot {bot!r} has submitted {MAX_HISTORY} versions, the most a bot may: ask the "
                                "admin to delete the bot and register a new one")

    def add(self, bot: str, sha256: str, archive: bytes, runtime: str, command: tuple[str, ...],
            now: float | None = None) -> Submission:
        """Store a new version of ``bot`` (its archive once per content, in the archive folder); the submission,
        ``checking``. QuotaExceeded past the bot's quota."""
        self.check_quota(bot, len(archive))
        record = Submission(bot, 0, sha256, len(archive), runtime, command, SubmissionState.CHECKING, "",
                            time.time() if now is None else now)
        self.archives.put(sha256, archive)  # first: a version never refers to an archive not yet written
        pipe = self._r.pipeline()
        pipe.hincrby(self._k.archive_refs(), sha256, 1)
        pipe.rpush(self._k.bot_submissions(bot), record.to_json())
        pipe.sadd(self._k.hosted(), bot.casefold())
        _, version, _ = pipe.execute()
        return Submission.from_stored(bot, int(version), record.to_json())

    def all(self, bot: str) -> list[Submission]:
        """Every kept version of ``bot``, the first first (deleted ones left out)."""
        return [s for s in self.history(bot) if not s.deleted_at]

    def history(self, bot: str) -> list[Submission]:
        """Every version of ``bot`` ever submitted, deleted ones included."""
        raws = self._r.lrange(self._k.bot_submissions(bot), 0, -1)
        return [Submission.from_stored(bot, index + 1, raw) for index, raw in enumerate(raws)]

    def get(self, bot: str, version: int) -> Submission | None:
        """Version ``version`` of ``bot``, unless it does not exist or was deleted."""
        raw = self._r.lindex(self._k.bot_submissions(bot), version - 1) if version >= 1 else None
        found = Submission.from_stored(bot, version, raw) if raw is not None else None
        return found if found is not None and not found.deleted_at else None

    def archive(self, sha256: str) -> bytes | None:
        """The canonical archive of that digest, if stored (and its bytes match it)."""
        found = self.archives.get(sha256)
        if found is None:  # an archive stored in Redis by an earlier version of the arena
            raw = self._r.get(self._k.submission(sha256))
            found = bytes(raw) if raw is not None else None
        return found

    def delete_versions(self, bot: str, versions: list[int], now: float | None = None) -> list[int]:
        """Delete these versions of ``bot`` (the ones that exist and are kept); the versions deleted. Archives no
        version refers to any more are removed."""
        deleted: list[int] = []
        stamp = time.time() if now is None else now
        for version in sorted(set(versions)):
            current = self.get(bot, version)
            if current is None:
                continue
            marker = Submission(bot, version, current.sha256, current.size, current.runtime, current.command,
                                current.state, current.reason, current.submitted_at, current.checked_at, stamp)
            self._r.lset(self._k.bot_submissions(bot), version - 1, marker.to_json())
            deleted.append(version)
            self._release(current.sha256)
        return deleted

    def delete_all(self, bot: str) -> list[int]:
        """Delete every kept version of ``bot`` (the bot itself was deleted); the versions deleted."""
        return self.delete_versions(bot, [s.version for s in self.all(bot)])

    def keep_newest(self, bot: str, keep: int) -> list[int]:
        """Delete every kept version of ``bot`` but the newest ``keep`` and the one the host runs; the versions
        deleted."""
        kept = self.all(bot)
        running = self.current(bot)
        old = [s.version for s in kept[:max(0, len(kept) - keep)] if running is None or s.version != running.version]
        return self.delete_versions(bot, old)

    def _release(self, sha256: str) -> None:
        left = int(self._r.hincrby(self._k.archive_refs(), sha256, -1))
        if left <= 0:
            self._r.hdel(self._k.archive_refs(), sha256)
            self._r.delete(self._k.submission(sha256))
            self.archives.remove(sha256)

    def sweep(self) -> list[str]:
        """Remove every archive of the folder no version refers to (older than the grace); their digests."""
        refs = {k.decode() if isinstance(k, bytes) else str(k) for k in self._r.hkeys(self._k.archive_refs())}
        return [sha for sha in self.archives.digests() if sha not in refs and self.archives.remove(sha)]

    def set_verdict(self, bot: str, version: int, state: SubmissionState, reason: str,
                    now: float | None = None) -> Submission:
        """Record the host's verdict on a version; the submission as now stored. KeyError for a version that
        does not exist."""
        current = self.get(bot, version)
        if current is None:
            raise KeyError(f"bot {bot!r} has no version {version} (or it was deleted)")
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

    def set_check_queue(self, places: Mapping[tuple[str, int], int]) -> None:
        """The bot host's queue of checks now: (bot, version) -> its place (1: next); what is not in it waits no
        more (under check, or given its verdict)."""
        pipe = self._r.pipeline()
        pipe.delete(self._k.check_queue())
        if places:
            pipe.hset(self._k.check_queue(), mapping={f"{bot.casefold()}:{version}": place
                                                      for (bot, version), place in places.items()})
        pipe.execute()

    def check_queue_place(self, bot: str, version: int) -> int:
        """The place of a version waiting for its check (1: next); 0 when it is not waiting."""
        raw = self._r.hget(self._k.check_queue(), f"{bot.casefold()}:{version}")
        return int(raw) if raw is not None else 0

    def count_attempt(self, bot: str, limit: int, window_s: int) -> float:
        """Count one submission of ``bot`` (accepted or not) in the current window of ``window_s``: 0.0 when it is
        within ``limit``, else the seconds until the window ends. Shared by every gateway on this Redis."""
        key = self._k.bot_submit_attempts(bot)
        pipe = self._r.pipeline()
        pipe.set(key, 0, ex=window_s, nx=True)  # the window starts with its first attempt
        pipe.incr(key)
        pipe.ttl(key)
        _, count, ttl = pipe.execute()
        return 0.0 if int(count) <= limit else float(max(1, int(ttl)))
