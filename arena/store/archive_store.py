"""Submitted archives on disk, outside Redis: content-addressed files ``{sha256}.tar.gz`` in a folder the operator
names (``--archive-dir`` / ``$UNO_ARENA_ARCHIVE_DIR``, shared by the gateways and the bot host), written atomically
and checked against their name when read (see docs/operations.md, "The archive folder").
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import time
from pathlib import Path

ARCHIVE_DIR_ENV = "UNO_ARENA_ARCHIVE_DIR"
SUFFIX = ".tar.gz"
REMOVE_GRACE_S = 60.0
"""An archive no version refers to is removed only when older than this: a submission of the same content a
moment ago (its reference not yet counted) keeps it."""

_SHA = re.compile(r"[0-9a-f]{64}")


class ArchiveFolder:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def file(self, sha256: str) -> Path:
        if not _SHA.fullmatch(sha256):
            raise ValueError(f"not a sha256: {sha256[:70]!r}")
        return self.path / f"{sha256}{SUFFIX}"

    def put(self, sha256: str, data: bytes) -> None:
        """Keep ``data`` under its digest ``sha256`` (checked); an archive already there has its time refreshed."""
        if hashlib.sha256(data).hexdigest() != sha256:
            raise ValueError("the archive's bytes do not match its sha256")
        target = self.file(sha256)
        self.path.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            if target.stat().st_size == len(data):
                os.utime(target)
                return
        fd, temporary = tempfile.mkstemp(prefix=".incoming-", dir=self.path)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise

    def get(self, sha256: str) -> bytes | None:
        try:
            data = self.file(sha256).read_bytes()
        except (FileNotFoundError, ValueError):
            return None
        return data if hashlib.sha256(data).hexdigest() == sha256 else None

    def remove(self, sha256: str, grace_s: float = REMOVE_GRACE_S) -> bool:
        """Remove the archive unless it was written or refreshed in the last ``grace_s``; whether it is gone."""
        target = self.file(sha256)
        with contextlib.suppress(FileNotFoundError):
            if time.time() - target.stat().st_mtime < grace_s:
                return False
            target.unlink()
        return True

    def digests(self) -> list[str]:
        if not self.path.is_dir():
            return []
        return sorted(p.name.removesuffix(SUFFIX) for p in self.path.iterdir()
                      if p.name.endswith(SUFFIX) and _SHA.fullmatch(p.name.removesuffix(SUFFIX)))


def default_archive_dir(server: str, prefix: str) -> Path:
    """The folder of an arena that names none: under the temporary folder, one per Redis server and prefix."""
    tag = hashlib.sha256(f"{server}\0{prefix}".encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"uno-arena-archives-{os.getuid()}" / tag


def archive_folder(server: str, prefix: str, explicit: str | os.PathLike[str] | None = None) -> ArchiveFolder:
    """The folder given, else ``$UNO_ARENA_ARCHIVE_DIR``, else :func:`default_archive_dir`."""
    chosen = explicit or os.environ.get(ARCHIVE_DIR_ENV, "").strip()
    return ArchiveFolder(chosen if chosen else default_archive_dir(server, prefix))
