"""The `uno-arena` command seen from tests: its sub-commands, the one way to run it in this process
(:func:`cli_in_process`) and the one way to run it in a process of its own (:func:`spawn_cli`, :func:`run_cli`)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The sub-commands of ``parser`` by name (empty when it has none)."""
    for action in parser._actions:  # argparse keeps sub-commands as one _SubParsersAction
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


REPO = Path(__file__).resolve().parents[2]
ARENA_ENVIRONMENT = ("REDIS_URL", "UNO_ARENA_GRPC_ADDR", "UNO_ARENA_TARGET", "UNO_ARENA_ADMIN_TOKEN",
                     "UNO_ARENA_ADMIN_TOKEN_FILE", "UNO_ARENA_BOT_TOKEN", "UNO_ARENA_BOT_TOKEN_FILE", "UNO_ARENA_TLS",
                     "UNO_ARENA_TLS_CA", "UNO_ARENA_GATEWAY_ID")
"""The variables through which a `uno-arena` process finds an arena (or, for ``serve``, is named in it): a spawned
CLI sees only the ones a test sets."""


def cli_environment(**extra: str) -> dict[str, str]:
    """The environment of a spawned `uno-arena` process: this one's without the arena's variables, the checkout on
    ``PYTHONPATH``, SIGINT's default restored in the child (see :func:`spawn_cli`), plus ``extra``."""
    env = {name: value for name, value in os.environ.items() if name not in ARENA_ENVIRONMENT}
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    return env


def cli_in_process(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`uno-arena ARGV` in this process (``arena.cli.main``): its exit status (argparse's 2 included), standard
    output and error (read through ``capsys``)."""
    from arena.cli import main

    capsys.readouterr()
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


CLI_BOOTSTRAP = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                 "from arena.cli import main; sys.exit(main(sys.argv[1:]))")
"""`uno-arena` with SIGINT as a fresh interpreter sets it (KeyboardInterrupt), even when the test runs as a
background job (whose children inherit an ignored SIGINT). Done by the child itself, not by a ``preexec_fn``: that
would run Python between fork and exec, so gRPC's fork handlers run in a test process that uses gRPC, and they may
abort the child (``epoll_wait error: Bad file descriptor``, status -6) before it runs."""


def spawn_cli(*args: str, env_extra: dict[str, str] | None = None, **popen: Any) -> subprocess.Popen[str]:
    """`uno-arena ARGS` in its own process (:data:`CLI_BOOTSTRAP`) with :func:`cli_environment`; its output as
    text pipes unless ``popen`` says otherwise. The child starts with SIGINT at its default."""
    options: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, "cwd": REPO,
                               "env": cli_environment(**(env_extra or {}))}
    options.update(popen)
    return subprocess.Popen([sys.executable, "-c", CLI_BOOTSTRAP, *args], **options)


def run_cli(*args: str, env_extra: dict[str, str] | None = None, timeout: float = 120.0) -> tuple[int, str, str]:
    """:func:`spawn_cli` to its end: exit status, standard output, standard error."""
    process = spawn_cli(*args, env_extra=env_extra)
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, out, err


def one_line_error(code: int, err: str) -> str:
    """The one line of a refused command: a non-zero status, no traceback, one line on stderr."""
    assert code != 0, err
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]
