"""Submitted bots as packages: what a submission is, checked before the arena keeps it.

A submission is a folder (packed by the CLI, :func:`pack_folder`) or an archive (``.tar.gz``, ``.tgz``, ``.tar`` or
``.zip``) holding the bot's files and a manifest at its top, ``uno-bot.toml`` (or ``uno-bot.json``)::

    runtime = "python3.11-kit"        # or "static" (a binary of the package), "node20"
    command = ["python", "bot.py"]    # what starts it, run in the package's folder

:func:`read_package` checks it and gives a :class:`Package`, or raises :class:`SubmissionRejected` with one reason:
too large, too many entries or unpacking too far (:class:`Limits`, checked while reading), a format the arena does
not read, a path that is absolute, climbs out with ``..`` or is both a file and a folder, a link or a device (a
package holds regular files and folders only), no manifest or a bad one. An accepted package is rewritten as a
canonical archive (:func:`canonical_archive`: files sorted, no owners or times, gzip without a time stamp), so the
same files always give the same bytes and the same sha256, its content address.

The modules: :mod:`.package` (the types, limits and path checks), :mod:`.assemble` (a package from its files),
:mod:`.archives` (the readers),
:mod:`.manifest` (the manifest), :mod:`.intake` (the whole check run in a child process with CPU, memory and time
limits, as the gateway runs it) and :mod:`.intake_child` (that child).
"""

from .archives import read_package
from .assemble import pack_folder, package_of
from .manifest import MANIFEST_NAMES
from .package import (
    ACCEPTED_FORMATS,
    DEFAULT_LIMITS,
    Limits,
    Manifest,
    Package,
    PackedFile,
    Runtime,
    SubmissionRejected,
    canonical_archive,
    check_paths,
    hosted_version,
)

__all__ = ["ACCEPTED_FORMATS", "DEFAULT_LIMITS", "MANIFEST_NAMES", "Limits", "Manifest", "Package", "PackedFile",
           "Runtime", "SubmissionRejected", "canonical_archive", "check_paths", "hosted_version", "pack_folder",
           "package_of", "read_package"]
