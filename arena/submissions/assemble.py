"""A package put together from its files (pure): :func:`package_of` checks files read from an archive past its
format; :func:`pack_folder` packs a folder as the CLI submits it.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from .manifest import check_command, read_manifest
from .package import DEFAULT_LIMITS, Limits, Package, PackedFile, SubmissionRejected, canonical_archive, check_paths


def package_of(files: list[PackedFile], limits: Limits = DEFAULT_LIMITS, folders: tuple[str, ...] = ()) -> Package:
    """The package of these files (and folder entries), checked past the archive's format."""
    if not files:
        raise SubmissionRejected("the archive holds no files")
    check_paths([f.path for f in files], folders)
    manifest = read_manifest(files, limits)
    check_command(manifest, {f.path for f in files})
    ordered = tuple(sorted(files, key=lambda f: f.path))
    archive = canonical_archive(ordered)
    return Package(manifest, ordered, archive, hashlib.sha256(archive).hexdigest())


def pack_folder(folder: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The canonical archive of a folder (`bot submit`); SubmissionRejected for a link or a folder too large."""
    root = Path(folder)
    files: list[PackedFile] = []
    total = 0
    entries = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", ".git"))
        entries += len(dirnames)
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
            entries += 1
            if total > limits.max_unpacked_bytes or entries > limits.max_entries:
                raise SubmissionRejected(f"the folder holds more than {limits.max_unpacked_bytes} bytes or "
                                         f"{limits.max_entries} entries (files and folders): submit only what the "
                                         "bot needs to run")
            files.append(PackedFile(relative, path.read_bytes(), bool(mode & 0o111)))
    return package_of(files, limits).archive
