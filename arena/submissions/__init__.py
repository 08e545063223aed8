"""Submitted bots as packages: what a submission is, checked before the arena keeps it (pure: no I/O but bytes).

A submission is a folder (packed by the CLI, :func:`pack_folder`) or an archive (``.tar.gz``, ``.tgz``, ``.tar`` or
``.zip``) holding the bot's files and a manifest at its top, ``uno-bot.toml`` (or ``uno-bot.json``)::

    runtime = "python3.11-kit"        # or "static" (a binary of the package), "node20"
    command = ["python", "bot.py"]    # what starts it, run in the package's folder

:func:`read_package` checks it and gives a :class:`Package`, or raises :class:`SubmissionRejected` with one reason:
too large (:class:`Limits`), not an archive, a path that is absolute or climbs out with ``..``, a link (symbolic or
hard: a package holds regular files and folders only), too many files, no manifest or a bad one. An accepted package
is rewritten as a canonical archive (:func:`canonical_archive`: files sorted, no owners or times, gzip without a
time stamp), so the same files always give the same bytes and the same sha256, its content address.
"""

from __future__ import annotations

import enum
import gzip
import hashlib
import io
import json
import os
import posixpath
import shlex
import stat
import tarfile
import tomllib
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST_NAMES = ("uno-bot.toml", "uno-bot.json")
"""The manifest's file name at the package's top, the first present of these."""


class Runtime(enum.Enum):
    """What a submission runs on, in the sandbox."""

    PYTHON_KIT = "python3.11-kit"
    """The arena's own Python (3.11) with the Python kit (``bots.kit``) importable; ``python`` or ``python3`` as
    the command's program is that interpreter."""
    STATIC = "static"
    """A program of the package (the command's program: a path in it), statically linked or needing only the
    system's libraries."""
    NODE20 = "node20"
    """Node.js 20 of the host (``node`` as the command's program), where the host has it."""


@dataclass(frozen=True)
class Limits:
    """What a submission may weigh."""

    max_archive_bytes: int = 8 * 1024 * 1024
    max_unpacked_bytes: int = 32 * 1024 * 1024
    max_files: int = 1000
    max_path_length: int = 200
    max_command_length: int = 1000


DEFAULT_LIMITS = Limits()


def hosted_version(version: int) -> str:
    """The bot version of a hosted process running submission ``version`` (what the gateway records for its
    session, so each submission is a version of its own on a competition's ladder and in ``BOT@VERSION``)."""
    return f"submission-{version}"


class SubmissionRejected(ValueError):
    """A submission the arena does not take; its message is the one reason, for the author."""


@dataclass(frozen=True)
class Manifest:
    """A submission's manifest."""

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

    @property
    def unpacked_bytes(self) -> int:
        return sum(len(f.data) for f in self.files)


def read_package(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Package:
    """The package of an archive's bytes (tar, tar.gz or zip, told by their first bytes), checked; raises
    :class:`SubmissionRejected` naming the first problem."""
    if len(data) > limits.max_archive_bytes:
        raise SubmissionRejected(f"the archive is {len(data)} bytes, more than the {limits.max_archive_bytes} "
                                 "allowed: leave out what the bot does not need to run")
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        files = _zip_files(data, limits)
    else:
        files = _tar_files(data, limits)
    return package_of(files, limits)


def package_of(files: list[PackedFile], limits: Limits = DEFAULT_LIMITS) -> Package:
    """The package of these files (checked as :func:`read_package` does, past the archive's own format)."""
    if not files:
        raise SubmissionRejected("the archive holds no files")
    seen: set[str] = set()
    for f in files:
        if f.path in seen:
            raise SubmissionRejected(f"the archive holds {f.path!r} twice")
        seen.add(f.path)
    manifest = _manifest(files)
    _check_command(manifest, seen)
    ordered = tuple(sorted(files, key=lambda f: f.path))
    archive = canonical_archive(ordered)
    return Package(manifest, ordered, archive, hashlib.sha256(archive).hexdigest())


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


def pack_folder(folder: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The canonical archive of a folder's files (the CLI's `bot submit NAME FOLDER`); SubmissionRejected for a
    link or a folder too large, as the arena would."""
    root = Path(folder)
    files: list[PackedFile] = []
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", ".git"))
        for name in sorted(filenames) + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
            path = Path(dirpath) / name
            relative = path.relative_to(root).as_posix()
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                raise SubmissionRejected(f"{relative} is a symbolic link: a package holds regular files and folders "
                                         "only (copy the file in instead)")
            if not stat.S_ISREG(mode):
                raise SubmissionRejected(f"{relative} is not a regular file")
            total += path.stat().st_size
            if total > limits.max_unpacked_bytes or len(files) >= limits.max_files:
                raise SubmissionRejected(f"the folder holds more than {limits.max_unpacked_bytes} bytes or "
                                         f"{limits.max_files} files: submit only what the bot needs to run")
            files.append(PackedFile(relative, path.read_bytes(), bool(mode & 0o111)))
    return package_of(files, limits).archive


def _clean_path(name: str, limits: Limits) -> str:
    """The archive member's path, normalised; SubmissionRejected for an absolute one or one climbing out."""
    if name.startswith("/") or name.startswith("\\") or (len(name) > 1 and name[1] == ":"):
        raise SubmissionRejected(f"the archive holds an absolute path {name!r}: paths must be relative to the "
                                 "package's top")
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        raise SubmissionRejected(f"the archive holds the path {name!r}, which climbs out of the package with '..'")
    clean = posixpath.normpath("/".join(p for p in parts if p not in ("", ".")) or ".")
    if len(clean) > limits.max_path_length or any(ord(c) < 32 for c in clean):
        raise SubmissionRejected(f"the archive holds a path longer than {limits.max_path_length} characters or "
                                 "with control characters")
    return clean


def _count(files: list[PackedFile], total: int, limits: Limits) -> None:
    if len(files) > limits.max_files:
        raise SubmissionRejected(f"the archive holds more than {limits.max_files} files")
    if total > limits.max_unpacked_bytes:
        raise SubmissionRejected(f"the archive unpacks to more than {limits.max_unpacked_bytes} bytes")


def _tar_files(data: bytes, limits: Limits) -> list[PackedFile]:
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115 (closed below: `with tar`)
    except (tarfile.TarError, OSError, EOFError):
        raise SubmissionRejected("not an archive: submit a folder, a .tar.gz, .tgz, .tar or .zip") from None
    files: list[PackedFile] = []
    total = 0
    try:
        with tar:
            for member in tar:
                name = _clean_path(member.name, limits)
                if member.issym() or member.islnk():
                    raise SubmissionRejected(f"the archive holds a link {member.name!r} -> {member.linkname!r}: a "
                                             "package holds regular files and folders only")
                if member.isdir() or name == ".":
                    continue
                if not member.isreg():
                    raise SubmissionRejected(f"the archive holds {member.name!r}, which is not a regular file")
                total += member.size
                _count(files, total, limits)
                extracted = tar.extractfile(member)
                content = extracted.read() if extracted is not None else b""
                files.append(PackedFile(name, content, bool(member.mode & 0o111)))
    except (tarfile.TarError, OSError, EOFError, zlib.error) as error:
        raise SubmissionRejected(f"the archive is damaged: {error}") from None
    return files


def _zip_files(data: bytes, limits: Limits) -> list[PackedFile]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise SubmissionRejected("not an archive: the .zip is damaged") from None
    files: list[PackedFile] = []
    total = 0
    with archive:
        for info in archive.infolist():
            name = _clean_path(info.filename, limits)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise SubmissionRejected(f"the archive holds a symbolic link {info.filename!r}: a package holds "
                                         "regular files and folders only")
            if info.is_dir() or name == ".":
                continue
            total += info.file_size
            _count(files, total, limits)
            try:
                content = archive.read(info)
            except (zipfile.BadZipFile, OSError, zlib.error) as error:
                raise SubmissionRejected(f"the archive is damaged: {error}") from None
            files.append(PackedFile(name, content, bool(mode & 0o111)))
    return files


def _manifest(files: list[PackedFile]) -> Manifest:
    by_path = {f.path: f for f in files}
    name = next((n for n in MANIFEST_NAMES if n in by_path), None)
    if name is None:
        raise SubmissionRejected(f"no manifest: put {MANIFEST_NAMES[0]} at the package's top, with runtime = "
                                 "\"python3.11-kit\" (or \"static\", \"node20\") and command = "
                                 "[\"python\", \"bot.py\"]")
    text = by_path[name].data.decode("utf-8", "replace")
    try:
        fields: Any = tomllib.loads(text) if name.endswith(".toml") else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise SubmissionRejected(f"{name} cannot be read: {error}") from None
    if not isinstance(fields, dict):
        raise SubmissionRejected(f"{name} must be a table of runtime and command")
    unknown = sorted(set(fields) - {"runtime", "command"})
    if unknown:
        raise SubmissionRejected(f"{name}: unknown field(s) {', '.join(unknown)} (known: runtime, command)")
    runtimes = ", ".join(r.value for r in Runtime)
    try:
        runtime = Runtime(fields.get("runtime"))
    except ValueError:
        raise SubmissionRejected(f"{name}: runtime must be one of {runtimes}, got {fields.get('runtime')!r}") from None
    return Manifest(runtime, _command(name, fields.get("command")))


def _command(name: str, command: Any) -> tuple[str, ...]:
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as error:
            raise SubmissionRejected(f"{name}: command cannot be split into words: {error}") from None
    if (not isinstance(command, list) or not command or not all(isinstance(w, str) and w for w in command)
            or sum(len(w) for w in command) > DEFAULT_LIMITS.max_command_length):
        raise SubmissionRejected(f"{name}: command must be a non-empty list of words (e.g. [\"python\", \"bot.py\"]), "
                                 f"at most {DEFAULT_LIMITS.max_command_length} characters")
    return tuple(command)


def _check_command(manifest: Manifest, paths: set[str]) -> None:
    program = manifest.command[0]
    if manifest.runtime is Runtime.PYTHON_KIT and program not in ("python", "python3", "python3.11"):
        raise SubmissionRejected("runtime python3.11-kit runs the arena's Python: the command must start with "
                                 f"python (e.g. [\"python\", \"bot.py\"]), got {program!r}")
    if manifest.runtime is Runtime.NODE20 and program != "node":
        raise SubmissionRejected(f"runtime node20 runs Node.js: the command must start with node, got {program!r}")
    if manifest.runtime is Runtime.STATIC and posixpath.normpath(program.removeprefix("./")) not in paths:
        raise SubmissionRejected(f"runtime static runs a program of the package: {program!r} is not one of its "
                                 "files (give its path in the package, e.g. ./bot)")
