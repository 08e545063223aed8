"""A package's manifest, ``uno-bot.toml`` (or ``uno-bot.json``), read and checked (pure).

Every way a manifest can be wrong is one :class:`SubmissionRejected` naming it; its size is checked before it is
decoded, and nesting too deep is refused (the parsers recurse).
"""

from __future__ import annotations

import json
import posixpath
import shlex
import tomllib
from typing import Any

from .package import Limits, Manifest, PackedFile, Runtime, SubmissionRejected

MANIFEST_NAMES = ("uno-bot.toml", "uno-bot.json")  # at the package's top, the first present of these


def read_manifest(files: list[PackedFile], limits: Limits) -> Manifest:
    """The manifest of a package's files (TOML for ``.toml``, else JSON); SubmissionRejected naming the problem."""
    by_path = {f.path: f for f in files}
    name = next((n for n in MANIFEST_NAMES if n in by_path), None)
    if name is None:
        raise SubmissionRejected(f"no manifest: put {MANIFEST_NAMES[0]} at the package's top, with runtime = "
                                 "\"python3.11-kit\" (or \"static\", \"node20\") and command = "
                                 "[\"python\", \"bot.py\"]")
    data = by_path[name].data
    if len(data) > limits.max_manifest_bytes:
        raise SubmissionRejected(f"{name} is {len(data)} bytes, more than the {limits.max_manifest_bytes} allowed: "
                                 "a manifest holds runtime and command only")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SubmissionRejected(f"{name} is not UTF-8 text (byte {error.start}): save it as UTF-8") from None
    try:
        fields: Any = tomllib.loads(text) if name.endswith(".toml") else json.loads(text)
    except RecursionError:
        raise SubmissionRejected(f"{name} cannot be read: it nests too deep (a manifest holds runtime and "
                                 "command only)") from None
    except ValueError as error:  # TOMLDecodeError and JSONDecodeError are ValueErrors, as is a too-long number
        raise SubmissionRejected(f"{name} cannot be read: {str(error)[:200]}") from None
    if not isinstance(fields, dict):
        raise SubmissionRejected(f"{name} must be a table of runtime and command")
    unknown = sorted(set(fields) - {"runtime", "command"})
    if unknown:
        shown = ", ".join(repr(u)[:40] for u in unknown[:5])
        raise SubmissionRejected(f"{name}: unknown field(s) {shown} (known: runtime, command)")
    runtimes = ", ".join(r.value for r in Runtime)
    raw_runtime = fields.get("runtime")
    try:
        runtime = Runtime(raw_runtime)
    except (ValueError, TypeError):
        raise SubmissionRejected(f"{name}: runtime must be one of {runtimes}, got {repr(raw_runtime)[:60]}") from None
    return Manifest(runtime, _command(name, fields.get("command"), limits))


def _command(name: str, command: Any, limits: Limits) -> tuple[str, ...]:
    if isinstance(command, str):
        if len(command) > limits.max_command_length:
            command = None  # refused below, without splitting it
        else:
            try:
                command = shlex.split(command)
            except ValueError as error:
                raise SubmissionRejected(f"{name}: command cannot be split into words: {error}") from None
    if (not isinstance(command, list) or not command or not all(isinstance(w, str) and w for w in command)
            or sum(len(w) for w in command) > limits.max_command_length):
        raise SubmissionRejected(f"{name}: command must be a non-empty list of words (e.g. [\"python\", \"bot.py\"]), "
                                 f"at most {limits.max_command_length} characters")
    return tuple(command)


def check_command(manifest: Manifest, paths: set[str]) -> None:
    """SubmissionRejected when the command cannot run on its runtime (or names a program the package lacks)."""
    program = manifest.command[0]
    if manifest.runtime is Runtime.PYTHON_KIT and program not in ("python", "python3", "python3.11"):
        raise SubmissionRejected("runtime python3.11-kit runs the arena's Python: the command must start with "
                                 f"python (e.g. [\"python\", \"bot.py\"]), got {program[:60]!r}")
    if manifest.runtime is Runtime.NODE20 and program != "node":
        raise SubmissionRejected(f"runtime node20 runs Node.js: the command must start with node, got {program[:60]!r}")
    if manifest.runtime is Runtime.STATIC and posixpath.normpath(program.removeprefix("./")) not in paths:
        raise SubmissionRejected(f"runtime static runs a program of the package: {program[:60]!r} is not one of its "
                                 "files (give its path in the package, e.g. ./bot)")
