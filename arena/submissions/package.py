"""What a submitted package is (pure: no I/O but bytes): its limits, manifest, files, canonical archive and content
address, and the one reason (:class:`SubmissionRejected`) a submission is refused.
"""

from __future__ import annotations

import enum
import gzip
import io
import tarfile
from dataclasses import dataclass


class Runtime(enum.Enum):
    """What a submission runs on, in the sandbox."""

    PYTHON_KIT = "python3.11-kit"  # the arena's own Python with ``bots.kit``; ``python`` in the command is it
    STATIC = "static"  # a program of the package, statically linked or needing only the system's libraries
    NODE20 = "node20"  # Node.js 20 of the host (``node`` in the command), where the host has it


@dataclass(frozen=True)
class Limits:
    """What a submission may weigh. Every bound is checked while the archive is read, before the next entry."""

    max_archive_bytes: int = 8 * 1024 * 1024
    max_unpacked_bytes: int = 32 * 1024 * 1024
    """Bytes of the files, and of the archive's unpacked stream (tar headers included) less the entries' share."""
    max_entries: int = 1000  # entries of the archive, whatever they are: files, folders, links, devices
    max_expansion: int = 100  # unpacked bytes per archive byte, beyond expansion_floor_bytes
    expansion_floor_bytes: int = 4 * 1024 * 1024  # any archive may unpack to this (a small bot of zeros is fine)
    max_manifest_bytes: int = 64 * 1024
    max_path_length: int = 200
    max_command_length: int = 1000

    def max_stream_bytes(self, archive_bytes: int) -> int:
        """The most bytes an archive of ``archive_bytes`` may unpack to (its tar stream, or its zip members)."""
        return min(max(self.expansion_floor_bytes, self.max_expansion * archive_bytes),
                   self.max_unpacked_bytes + self.max_entries * 2048)


DEFAULT_LIMITS = Limits()

ACCEPTED_FORMATS = ".tar.gz, .tgz, .tar or .zip"  # the archive formats the arena reads, as the docs name them


def hosted_version(version: int) -> str:
    """The bot version of a hosted process running submission ``version`` (each submission a version of its own)."""
    return f"submission-{version}"


class SubmissionRejected(ValueError):
    """A submission the arena does not take; its message is the one reason, for the author."""


@dataclass(frozen=True)
class Manifest:
    runtime: Runtime
    command: tuple[str, ...]


@dataclass(frozen=True)
class PackedFile:
    """One regular file of a package: its path (``/``-separated, relative), bytes and whether it is executable."""

    path: str
    data: bytes
    executable: bool = False


@dataclass(frozen=True)
class Package:
    """An accepted submission: its manifest, files, canonical archive and that archive's sha256 (hex)."""

    manifest: Manifest
    files: tuple[PackedFile, ...]
    archive: bytes
    sha256: str


def check_paths(files: list[str], folders: tuple[str, ...] = ()) -> None:
    """SubmissionRejected for a path given twice, a path that differs from another only in case, or a path that
    is both a file and a folder (a file ``a`` and a file ``a/b``, or a folder entry ``a`` beside a file ``a``)."""
    seen: dict[str, str] = {}
    for path in files:
        key = path.casefold()
        if key in seen:
            same = seen[key] == path
            raise SubmissionRejected(f"the archive holds {path!r} twice" if same else
                                     f"the archive holds {seen[key]!r} and {path!r}, which differ only in case: "
                                     "rename one")
        seen[key] = path
    parents = {parent.casefold(): parent for path in files for parent in _parents(path)}
    parents.update((folder.casefold(), folder) for folder in folders)
    for path in files:
        if path.casefold() in parents:
            raise SubmissionRejected(f"the archive holds {path!r} as a file and as a folder "
                                     f"({parents[path.casefold()]!r}): a path is one or the other")


def _parents(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def canonical_archive(files: tuple[PackedFile, ...]) -> bytes:
    """A tar.gz of ``files`` that depends on nothing but their paths, bytes and executable bits."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for f in sorted(files, key=lambda f: f.path):
            info = tarfile.TarInfo(f.path)
            info.size = len(f.data)
            info.mode = 0o755 if f.executable else 0o644
            info.mtime = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(f.data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=6) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()
