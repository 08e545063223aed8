"""Archives made for the submission tests: folder-entry bombs in the formats the arena reads (and those it refuses)."""

from __future__ import annotations

import io
import tarfile
import zipfile
from typing import Literal

TarMode = Literal["w", "w:gz", "w:bz2", "w:xz"]


def folders_tar(count: int, mode: TarMode = "w:gz") -> bytes:
    """A tar (``mode``: plain, gzip, bzip2 or xz) of ``count`` folder entries and nothing else."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as tar:
        for i in range(count):
            info = tarfile.TarInfo(f"d{i}")
            info.type = tarfile.DIRTYPE
            tar.addfile(info)
    return out.getvalue()


def folders_zip(count: int) -> bytes:
    """A zip of ``count`` folder entries and nothing else."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for i in range(count):
            z.writestr(zipfile.ZipInfo(f"d{i}/"), b"")
    return out.getvalue()
