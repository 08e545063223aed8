"""Submitted bots (:mod:`arena.submissions`): each bot's versions and the host's state in Redis, their archives on
disk (:mod:`arena.store.archive_store`, once per content; Redis counts the versions that refer to each).

A bot's submissions are a list, oldest first: the n-th is version n. A deleted version stays in the list as a
marker, so the numbers of the others never change, and frees its share of the bot's :class:`Quota`.
"""

from __future__ import annotations

import enum
import json
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace

import redis

from ._codec import RecordStore, text, text_hash
from .archive_store import ArchiveFolder
from .keys import Keys

MAX_OUTPUT = 64 * 1024
"""Bytes of a hosted process's stdout and stderr kept (the last ones)."""
MAX_REASON = 2000
MAX_HISTORY = 10_000
"""Versions one bot may ever submit, deleted ones included (each leaves a marker of a few bytes)."""


class SubmissionState(enum.Enum):
    """A version's state: the host runs the newest ``admitted`` one; ``stopped``: admitted, then stopped for breaking
    a rule of the sandbox (the reason says which)."""

    CHECKING = "checking"
    ADMITTED = "admitted"
    REJECTED = "rejected"
    STOPPED = "stopped"


@dataclass(frozen=True)
class Quota:
    max_versions: int = 20
    max_bytes: int = 64 * 1024 * 1024
    """Bytes of the kept versions' canonical archives (each counted, even when two share content)."""


DEFAULT_QUOTA = Quota()


class QuotaExceeded(Exception):
    """A new version would take the bot past its :class:`Quota`; the message names the quota and the fix."""


@dataclass(frozen=True)
class Submission:
    bot: str
    version: int
    sha256: str
    size: int
    runtime: str
    command: tuple[str, ...]
    state: SubmissionState = SubmissionState.CHECKING
    reason: str = ""
    submitted_at: float = 0.0
    checked_at: float = 0.0
    deleted_at: float = 0.0
    """0: kept; a deleted version is never run and its archive may be gone."""

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
    state: str
    """``starting``, ``running``, ``backoff`` (crashed or killed: restarted after a pause) or ``stopped``."""
    version: int = 0
    restarts: int = 0
    detail: str = ""
    since: float = 0.0


class SubmissionStore(RecordStore):
    def __init__(self, client: redis.Redis, keys: Keys, archives: ArchiveFolder, quota: Quota = DEFAULT_QUOTA) -> None:
        super().__init__(client, keys)
        self.archives = archives
        self.quota = quota

    def use_archive_dir(self, path: str) -> None:
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
        if int(self._r.llen(self._k.bot(bot, "submissions"))) >= MAX_HISTORY:
            raise QuotaExceeded(f"bot {bot!r} has submitted {MAX_HISTORY} versions, the most a bot may: ask the "
                                "admin to delete the bot and register a new one")

    def add(self, bot: str, sha256: str, archive: bytes, runtime: str, command: tuple[str, ...],
            now: float | None = None) -> Submission:
        """Store a new version of ``bot``, ``checking``; QuotaExceeded past the bot's quota."""
        self.check_quota(bot, len(archive))
        record = Submission(bot, 0, sha256, len(archive), runtime, command, SubmissionState.CHECKING, "",
                            time.time() if now is None else now)
        self.archives.put(sha256, archive)  # first: a version never refers to an archive not yet written
        pipe = self._r.pipeline()
        pipe.hincrby(self._k.archive_refs(), sha256, 1)
        pipe.rpush(self._k.bot(bot, "submissions"), record.to_json())
        pipe.sadd(self._k.hosted(), bot.casefold())
        _, version, _ = pipe.execute()
        return Submission.from_stored(bot, int(version), record.to_json())

    def all(self, bot: str) -> list[Submission]:
        """Every kept version of ``bot``, the first first (deleted ones left out)."""
        return [s for s in self.history(bot) if not s.deleted_at]

    def history(self, bot: str) -> list[Submission]:
        raws = self._r.lrange(self._k.bot(bot, "submissions"), 0, -1)
        return [Submission.from_stored(bot, index + 1, raw) for index, raw in enumerate(raws)]

    def get(self, bot: str, version: int) -> Submission | None:
        """Version ``version`` of ``bot``, unless it does not exist or was deleted."""
        raw = self._r.lindex(self._k.bot(bot, "submissions"), version - 1) if version >= 1 else None
        found = Submission.from_stored(bot, version, raw) if raw is not None else None
        return found if found is not None and not found.deleted_at else None

    def archive(self, sha256: str) -> bytes | None:
        """The canonical archive of that digest, if stored (and its bytes match it)."""
        return self.archives.get(sha256)

    def delete_versions(self, bot: str, versions: list[int], now: float | None = None) -> list[int]:
        """Delete these versions of ``bot`` (those kept), and archives no version refers to any more; the versions
        deleted."""
        deleted: list[int] = []
        stamp = time.time() if now is None else now
        for version in sorted(set(versions)):
            current = self.get(bot, version)
            if current is None:
                continue
            self._r.lset(self._k.bot(bot, "submissions"), version - 1, replace(current, deleted_at=stamp).to_json())
            deleted.append(version)
            self._release(current.sha256)
        return deleted

    def delete_all(self, bot: str) -> list[int]:
        return self.delete_versions(bot, [s.version for s in self.all(bot)])

    def keep_newest(self, bot: str, keep: int) -> list[int]:
        """Delete every kept version of ``bot`` but the newest ``keep`` and the one the host runs."""
        kept = self.all(bot)
        running = self.current(bot)
        old = [s.version for s in kept[:max(0, len(kept) - keep)] if running is None or s.version != running.version]
        return self.delete_versions(bot, old)

    def _release(self, sha256: str) -> None:
        left = int(self._r.hincrby(self._k.archive_refs(), sha256, -1))
        if left <= 0:
            self._r.hdel(self._k.archive_refs(), sha256)
            self.archives.remove(sha256)

    def sweep(self) -> list[str]:
        """Remove every archive of the folder no version refers to (older than the grace); their digests."""
        refs = {str(text(k)) for k in self._r.hkeys(self._k.archive_refs())}
        return [sha for sha in self.archives.digests() if sha not in refs and self.archives.remove(sha)]

    def set_verdict(self, bot: str, version: int, state: SubmissionState, reason: str,
                    now: float | None = None) -> Submission:
        """Record the host's verdict on a version; KeyError for a version that does not exist."""
        current = self.get(bot, version)
        if current is None:
            raise KeyError(f"bot {bot!r} has no version {version} (or it was deleted)")
        updated = replace(current, state=state, reason=reason, checked_at=time.time() if now is None else now)
        self._r.lset(self._k.bot(bot, "submissions"), version - 1, updated.to_json())
        return updated

    def current(self, bot: str) -> Submission | None:
        """The newest admitted version of ``bot`` (what the host runs), if any."""
        admitted = [s for s in self.all(bot) if s.state is SubmissionState.ADMITTED]
        return admitted[-1] if admitted else None

    def hosted_bots(self) -> list[str]:
        return sorted(str(text(m)) for m in self._r.smembers(self._k.hosted()))

    def set_output(self, bot: str, output: bytes) -> None:
        self._r.set(self._k.bot(bot, "output"), output[-MAX_OUTPUT:])

    def output(self, bot: str) -> bytes:
        raw = self._r.get(self._k.bot(bot, "output"))
        return bytes(raw) if raw is not None else b""

    def set_hosted(self, bot: str, hosted: HostedState) -> None:
        fields: dict[str | bytes, str] = {k: str(v) for k, v in asdict(hosted).items()}
        self._r.hset(self._k.bot(bot, "hosted"), mapping=fields)

    def hosted(self, bot: str) -> HostedState | None:
        raw = self._r.hgetall(self._k.bot(bot, "hosted"))
        if not raw:
            return None
        f = text_hash(raw)
        return HostedState(f.get("state", ""), int(f.get("version", 0)), int(f.get("restarts", 0)),
                           f.get("detail", ""), float(f.get("since", 0.0)))

    def set_check_queue(self, places: Mapping[tuple[str, int], int]) -> None:
        """The bot host's queue of checks now: (bot, version) -> its place (1: next)."""
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
        """Count one submission of ``bot`` (accepted or not) in the window of ``window_s`` shared by every gateway:
        0.0 within ``limit``, else the seconds until the window ends."""
        key = self._k.bot(bot, "submit-attempts")
        pipe = self._r.pipeline()
        pipe.set(key, 0, ex=window_s, nx=True)  # the window starts with its first attempt
        pipe.incr(key)
        pipe.ttl(key)
        _, count, ttl = pipe.execute()
        return 0.0 if int(count) <= limit else float(max(1, int(ttl)))
