"""Archive bombs of folder entries for ``bench abuse --hosted`` (pure: bytes out): a tar, a tar.gz and a zip that
list many empty folders and nothing else, the shape of issue 35's 5 KB archive that stalled the gateway.

Each is written header by header (the standard library's ``tarfile`` and ``zipfile`` take tens of seconds for
200,000 entries on a loaded machine). A tar and a zip store every entry's header as it is, so the most entries they
can hold is bounded by the archive size the arena accepts (:data:`MAX_ARCHIVE_BYTES`): :func:`bomb` builds as many
as are asked and fit. A tar.gz compresses its headers: 200,000 of them are about 1.4 MB at gzip's level 3 (0.9 MB at
level 9, which takes some 60 times as long), well under the size cap.
"""

from __future__ import annotations

import enum
import gzip
import struct
from dataclasses import dataclass

from arena.submissions.package import DEFAULT_LIMITS

MAX_ARCHIVE_BYTES = DEFAULT_LIMITS.max_archive_bytes
"""The largest archive the arena takes: a bomb is built to fit, or it would be refused for its size alone."""
TAR_BLOCK = 512
ZIP_MAX_ENTRIES = 0xFFFE
"""The most entries a zip lists without the zip64 extension (0xFFFF itself marks a zip64 archive)."""


class BombFormat(enum.Enum):
    TAR = "tar"
    TAR_GZ = "tar.gz"
    ZIP = "zip"


@dataclass(frozen=True)
class Bomb:
    """An archive of ``entries`` folder entries in ``format``."""

    format: BombFormat
    entries: int
    data: bytes

    def describe(self) -> str:
        return f"{self.format.value} of {self.entries:,} folders, {len(self.data):,} bytes"


def _folder_name(i: int) -> bytes:
    return f"d{i}/".encode()


def _tar_template() -> bytes:
    """A ustar folder header with an empty name and its checksum field blank (eight spaces)."""
    header = bytearray(TAR_BLOCK)
    for offset, value in ((100, b"0000755\0"), (108, b"0000000\0"), (116, b"0000000\0"),
                          (124, b"00000000000\0"), (136, b"00000000000\0"), (148, b" " * 8), (156, b"5"),
                          (257, b"ustar\0"), (263, b"00")):
        header[offset:offset + len(value)] = value
    return bytes(header)


def folders_tar(entries: int) -> bytes:
    """A tar of ``entries`` empty folders ``d0/``, ``d1/``... and its two closing blocks."""
    template = _tar_template()
    base = sum(template)
    blocks = []
    for i in range(entries):
        name = _folder_name(i)
        checksum = b"%06o\0 " % (base + sum(name))
        blocks.append(name + template[len(name):148] + checksum + template[156:])
    blocks.append(bytes(2 * TAR_BLOCK))
    return b"".join(blocks)


def folders_zip(entries: int) -> bytes:
    """A zip of ``entries`` (at most :data:`ZIP_MAX_ENTRIES`) empty folders, stored."""
    entries = min(entries, ZIP_MAX_ENTRIES)
    local, central = [], []
    offset = 0
    folder_attributes = (0o40755 << 16) | 0x10
    for i in range(entries):
        name = _folder_name(i)
        header = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0x21, 0, 0, 0, len(name), 0) + name
        central.append(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21, 0, 0, 0, len(name), 0, 0,
                                   0, 0, folder_attributes, offset) + name)
        local.append(header)
        offset += len(header)
    directory = b"".join(central)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, entries, entries, len(directory), offset, 0)
    return b"".join(local) + directory + end


def _tar_fits(entries: int) -> int:
    return min(entries, MAX_ARCHIVE_BYTES // TAR_BLOCK - 2)


def _zip_fits(entries: int) -> int:
    per_entry = 30 + 46 + 2 * len(_folder_name(entries))
    return min(entries, ZIP_MAX_ENTRIES, (MAX_ARCHIVE_BYTES - 22) // per_entry)


def bomb(format: BombFormat, entries: int) -> Bomb:
    """A bomb of up to ``entries`` folders in ``format``: as many as fit the arena's archive size cap."""
    if format is BombFormat.TAR:
        count = _tar_fits(entries)
        return Bomb(format, count, folders_tar(count))
    if format is BombFormat.ZIP:
        count = _zip_fits(entries)
        return Bomb(format, count, folders_zip(count))
    return Bomb(format, entries, gzip.compress(folders_tar(entries), compresslevel=3, mtime=0))
