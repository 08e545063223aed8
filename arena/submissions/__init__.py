"""Submitted bots as packages: what a submission is, checked before the arena keeps it.

A submission is a folder (packed by the CLI, :func:`pack_folder`) or an archive (``.tar.gz``, ``.tgz``, ``.tar`` or
``.zip``) holding the bot's files and a manifest at its top, ``uno-bot.toml`` (or ``uno-bot.json``)::

    runtime = "python3.11-kit"        # or "static" (a binary of the package), "node20"
    command = ["python", "bot.py"]    # what starts it, run in the package's folder

:func:`read_package` checks it (every limit of :class:`Limits` while reading, paths, entry types, the manifest) and
gives a :class:`Package`, or raises :class:`SubmissionRejected` with one reason (docs/hosting.md lists them). An
accepted package is rewritten as a canonical archive, so the same files always give the same sha256, its content
address. :mod:`.intake` runs the whole check in a child process with CPU, memory and time limits.
"""

from .archives import read_package
from .assemble import pack_folder
from .package import (
    DEFAULT_LIMITS,
    Limits,
    PackedFile,
    Runtime,
    SubmissionRejected,
    canonical_archive,
    hosted_version,
)

__all__ = ["DEFAULT_LIMITS", "Limits", "PackedFile", "Runtime", "SubmissionRejected", "canonical_archive",
           "hosted_version", "pack_folder", "read_package"]
