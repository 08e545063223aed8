"""Reading a submitted archive (pure: bytes in, files out), every bound checked before the next entry is read.

The formats (tar, gzip, zip of stored or deflated members) are told by their first bytes; others are refused in one
line. Every entry the archive lists counts, and the unpacked bytes are counted as they are produced against the
expansion cap: reading stops at the first limit, so a small archive of many entries costs what the limit allows.
"""

from __future__ import annotations

import io
import posixpath
import stat
import struct
import tarfile
import zipfile
import zlib

from .assemble import package_of
from .package import ACCEPTED_FORMATS, DEFAULT_LIMITS, Limits, Package, PackedFile, SubmissionRejected

READ_CHUNK = 64 * 1024

_REFUSED_FORMATS = ((b"BZh", "bzip2 (.bz2)"), (b"\xfd7zXZ\x00", "xz (.xz)"), (b"\x5d\x00\x00", "lzma (.lzma)"),
                    (b"\x28\xb5\x2f\xfd", "zstd (.zst)"), (b"7z\xbc\xaf\x27\x1c", "7-zip (.7z)"),
                    (b"Rar!", "rar (.rar)"), (b"\x1f\x9d", "compress (.Z)"))
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_GZIP_MAGIC = b"\x1f\x8b"
_EOCD = struct.Struct("<4s4H2LH")
_ZIP_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}


def read_package(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Package:
    """The package of an archive's bytes, checked; :class:`SubmissionRejected` naming the first problem."""
    if len(data) > limits.max_archive_bytes:
        raise SubmissionRejected(f"the archive is {len(data)} bytes, more than the {limits.max_archive_bytes} "
                                 "allowed: leave out what the bot does not need to run")
    if data[:4] in _ZIP_MAGIC:
        files, folders = _zip_files(data, limits)
    elif data[:2] == _GZIP_MAGIC:
        files, folders = _tar_files(_Unpacked(data, True, limits), limits)
    elif data[257:262] == b"ustar":
        files, folders = _tar_files(_Unpacked(data, False, limits), limits)
    else:
        refused = next((what for magic, what in _REFUSED_FORMATS if data.startswith(magic)), None)
        if refused is not None:
            raise SubmissionRejected(f"the archive is {refused}, which the arena does not read: submit a folder or "
                                     f"a {ACCEPTED_FORMATS}")
        raise SubmissionRejected(f"not an archive: submit a folder or a {ACCEPTED_FORMATS}")
    return package_of(files, limits, tuple(folders))


def clean_path(name: str, limits: Limits) -> str:
    """The archive member's path, normalised; SubmissionRejected for an absolute one or one climbing out."""
    shown = repr(name[:100])
    if name.startswith("/") or name.startswith("\\") or (len(name) > 1 and name[1] == ":"):
        raise SubmissionRejected(f"the archive holds an absolute path {shown}: paths must be relative to the "
                                 "package's top")
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        raise SubmissionRejected(f"the archive holds the path {shown}, which climbs out of the package with '..'")
    clean = posixpath.normpath("/".join(p for p in parts if p not in ("", ".")) or ".")
    if len(clean) > limits.max_path_length or any(ord(c) < 32 for c in clean):
        raise SubmissionRejected(f"the archive holds a path longer than {limits.max_path_length} characters or "
                                 "with control characters")
    return clean


def _too_many_entries(limits: Limits) -> SubmissionRejected:
    return SubmissionRejected(f"the archive holds more than {limits.max_entries} entries (files, folders, links: "
                              "every entry counts): submit only what the bot needs to run")


def _too_large(limits: Limits) -> SubmissionRejected:
    return SubmissionRejected(f"the archive unpacks to more than {limits.max_unpacked_bytes} bytes: submit only "
                              "what the bot needs to run")


class _Unpacked:
    """A tar stream read from ``data`` (gunzipped when ``gzipped``), its bytes counted as they are produced:
    SubmissionRejected past the expansion cap, before the bytes are handed on."""

    def __init__(self, data: bytes, gzipped: bool, limits: Limits) -> None:
        self._data = data
        self._gzipped = gzipped
        self._pos = 0
        self._cap = limits.max_stream_bytes(len(data))
        self._limits = limits
        self._produced = 0
        self._inflate = zlib.decompressobj(wbits=31) if gzipped else None
        self._pending = b""

    def read(self, size: int = -1) -> bytes:
        size = READ_CHUNK if size is None or size < 0 else size
        out = self._read_raw(size) if not self._gzipped else self._read_gzip(size)
        self._produced += len(out)
        if self._produced > self._cap:
            ratio = self._limits.max_expansion
            raise SubmissionRejected(
                f"the archive unpacks to more than {self._cap} bytes ({ratio} bytes per archive byte at most, "
                f"beyond {self._limits.expansion_floor_bytes}; {self._limits.max_unpacked_bytes} in all): submit "
                "only what the bot needs to run")
        return out

    def _read_raw(self, size: int) -> bytes:
        out = self._data[self._pos:self._pos + size]
        self._pos += len(out)
        return out

    def _read_gzip(self, size: int) -> bytes:
        parts: list[bytes] = []
        wanted = size
        while wanted > 0 and self._inflate is not None:
            if not self._pending:
                self._pending = self._data[self._pos:self._pos + READ_CHUNK]
                self._pos += len(self._pending)
            out = self._inflate.decompress(self._pending, wanted)
            self._pending = self._inflate.unconsumed_tail
            parts.append(out)
            wanted -= len(out)
            if self._inflate.eof:
                rest = self._inflate.unused_data
                if len(rest) < 2:
                    more = self._data[self._pos:self._pos + READ_CHUNK]
                    self._pos += len(more)
                    rest += more
                self._pending = rest
                # Another gzip member follows (a concatenated .gz), or the data ends: anything else is ignored.
                self._inflate = zlib.decompressobj(wbits=31) if rest.startswith(_GZIP_MAGIC) else None
            elif not out and not self._pending and self._pos >= len(self._data):
                raise SubmissionRejected("the archive is damaged: the gzip data ends too soon")
        return b"".join(parts)


def _tar_files(stream: _Unpacked, limits: Limits) -> tuple[list[PackedFile], list[str]]:
    files: list[PackedFile] = []
    folders: list[str] = []
    total = 0
    entries = 0
    try:
        with tarfile.open(fileobj=stream, mode="r|") as tar:  # type: ignore[call-overload]
            for member in tar:
                entries += 1
                if entries > limits.max_entries:
                    raise _too_many_entries(limits)
                name = clean_path(member.name, limits)
                if member.issym() or member.islnk():
                    raise SubmissionRejected(f"the archive holds a link {member.name[:100]!r}: a package holds "
                                             "regular files and folders only")
                if member.isdir() or name == ".":
                    if name != ".":
                        folders.append(name)
                    continue
                if not member.isreg():
                    raise SubmissionRejected(f"the archive holds {member.name[:100]!r}, which is not a regular file")
                total += member.size
                if total > limits.max_unpacked_bytes:
                    raise _too_large(limits)
                extracted = tar.extractfile(member)
                content = extracted.read() if extracted is not None else b""
                files.append(PackedFile(name, content, bool(member.mode & 0o111)))
    except (tarfile.TarError, OSError, EOFError, zlib.error, RecursionError, UnicodeError) as error:
        raise SubmissionRejected(f"the archive is damaged: {str(error)[:200]}") from None
    return files, folders


def _check_zip_directory(data: bytes, limits: Limits) -> None:
    """Refuse a zip whose central directory lists too many entries, before zipfile parses it."""
    at = data.rfind(b"PK\x05\x06", max(0, len(data) - _EOCD.size - 65535))
    if at < 0 or at + _EOCD.size > len(data):
        raise SubmissionRejected("not an archive: the .zip is damaged (no end of central directory)")
    _, _, _, _, entries, directory_bytes, _, _ = _EOCD.unpack_from(data, at)
    if entries == 0xFFFF:
        raise SubmissionRejected("the .zip is a zip64 archive, which no bot needs: zip it without zip64")
    if entries > limits.max_entries or directory_bytes > limits.max_entries * (46 + 4 * limits.max_path_length + 256):
        raise _too_many_entries(limits)


def _zip_files(data: bytes, limits: Limits) -> tuple[list[PackedFile], list[str]]:
    _check_zip_directory(data, limits)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError, NotImplementedError):
        raise SubmissionRejected("not an archive: the .zip is damaged") from None
    files: list[PackedFile] = []
    folders: list[str] = []
    total = 0
    cap = limits.max_stream_bytes(len(data))
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.max_entries:
            raise _too_many_entries(limits)
        for info in infos:
            name = clean_path(info.filename, limits)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise SubmissionRejected(f"the archive holds a symbolic link {info.filename[:100]!r}: a package "
                                         "holds regular files and folders only")
            if info.is_dir() or name == ".":
                if name != ".":
                    folders.append(name)
                continue
            if mode and stat.S_IFMT(mode) and not stat.S_ISREG(mode):
                raise SubmissionRejected(f"the archive holds {info.filename[:100]!r}, which is not a regular file")
            if info.compress_type not in _ZIP_METHODS:
                raise SubmissionRejected(f"the .zip member {info.filename[:100]!r} is compressed with method "
                                         f"{info.compress_type}: the arena reads stored or deflated members only")
            if info.flag_bits & 0x1:
                raise SubmissionRejected(f"the .zip member {info.filename[:100]!r} is encrypted: zip it without a "
                                         "password")
            if total + info.file_size > limits.max_unpacked_bytes:
                raise _too_large(limits)
            content, total = _read_member(archive, info, total, cap, limits)
            files.append(PackedFile(name, content, bool(mode & 0o111)))
    return files, folders


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, total: int, cap: int,
                 limits: Limits) -> tuple[bytes, int]:
    """A zip member's bytes, counted as they are inflated (whatever its header claims); the new total."""
    parts: list[bytes] = []
    try:
        with archive.open(info) as member:
            while chunk := member.read(READ_CHUNK):
                total += len(chunk)
                if total > min(cap, limits.max_unpacked_bytes):
                    raise _too_large(limits)
                parts.append(chunk)
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, RuntimeError, NotImplementedError) as error:
        raise SubmissionRejected(f"the archive is damaged: {str(error)[:200]}") from None
    return b"".join(parts), total
