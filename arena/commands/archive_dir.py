"""The archive folder option of ``serve`` and ``host`` (``--archive-dir``, ``$UNO_ARENA_ARCHIVE_DIR``): where
submitted archives are kept (:mod:`arena.store.archive_store`), checked writable before the process starts."""

from __future__ import annotations

import argparse
import os
import tempfile
from typing import Any

from arena.store.archive_store import ARCHIVE_DIR_ENV


class ArchiveDirError(Exception):
    """The archive folder cannot be used; the message is the one line to print."""


def add_archive_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--archive-dir", default=None, metavar="DIR",
                        help=f"where submitted archives are kept (default ${ARCHIVE_DIR_ENV}, else a folder under the "
                             "system's temporary folder: one machine only); serve and host must reach the same "
                             "folder (docs/operations.md)")


def use_archive_dir(store: Any, path: str | None, *, writable: bool = True) -> str:
    """Keep ``store``'s archives in ``path`` (when given) and check the folder: writable for the gateway, readable
    for the bot host (which may mount it read-only); the folder in use."""
    if path:
        store.submissions.use_archive_dir(path)
    folder = store.submissions.archives.path
    try:
        if writable:
            os.makedirs(folder, exist_ok=True)
            with tempfile.TemporaryFile(dir=folder):
                pass
        elif folder.exists() and not os.access(folder, os.R_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as error:
        need = "write" if writable else "read"
        raise ArchiveDirError(f"archive folder {folder}: {error.strerror}: give --archive-dir (or "
                              f"${ARCHIVE_DIR_ENV}) a folder this process can {need}") from None
    return str(folder)
