"""What every command that reads the organizer API shares: its options (``--server``, ``--token-file``, TLS:
docs/organizers.md, Reaching the arena) and the runner that opens an :class:`arena.client.ArenaClient`, calls the
command with it and turns a refused call into one line on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from typing import Any

from arena.client import ArenaClient
from arena.client.connection import DEFAULT_TARGET, TARGET_ENV, default_target
from arena.commands import fail

Body = Callable[[ArenaClient, argparse.Namespace], int]
EVERY_FIELD = "every field, numbers as numbers"
"""The ``--json`` help of a command that prints its answer's every field."""


def api_command(parsers: Any, command: str, func: Callable[[argparse.Namespace], int], *positional: str,
                json: str | None = None, **options: Any) -> argparse.ArgumentParser:
    """A command of the organizer API in ``parsers`` (``options``: those of ``add_parser``): its positional
    arguments, the server options, ``--json`` when ``json`` is its help (or '') and its handler."""
    parser: argparse.ArgumentParser = parsers.add_parser(command, **options)
    for name in positional:
        parser.add_argument(name)
    add_server_options(parser)
    if json is not None:
        parser.add_argument("--json", action="store_true", help=json or None)
    parser.set_defaults(func=func)
    return parser


def with_client(body: Body, *, as_author: bool = False) -> Callable[[argparse.Namespace], int]:
    """A command that runs ``body`` with a client of the arena (:func:`run_client`); ``as_author``: a command about
    the bot ``args.name``, sending the token of :func:`author_token`."""
    if not as_author:
        return functools.partial(run_client, body=body)

    def run(args: argparse.Namespace) -> int:
        try:
            token = author_token(args)
        except ValueError as error:
            return fail(error)
        return run_client(args, body, token, bot=args.name)

    return run


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """The options of every organizer command: the server address, the token file and TLS."""
    parser.add_argument("--server", default=None, metavar="HOST:PORT",
                        help=f"the arena's organizer API (ArenaService) address (default ${TARGET_ENV}, else "
                             f"{DEFAULT_TARGET})")
    parser.add_argument("--target", dest="target_address", default=None, metavar="HOST:PORT",
                        help="the same as --server (a number is refused: the match target score is --target-score)")
    parser.add_argument("--token-file", default=None, metavar="FILE",
                        help="file holding the token to send (the admin's, or a bot's for what a bot may read); "
                             "default $UNO_ARENA_ADMIN_TOKEN, else the file $UNO_ARENA_ADMIN_TOKEN_FILE names; "
                             "none: anonymous")
    parser.add_argument("--tls", action="store_true", help="connect with TLS (system roots; default $UNO_ARENA_TLS=1)")
    parser.add_argument("--tls-ca", default=None, metavar="FILE",
                        help="PEM CA (or self-signed server certificate) to trust; implies --tls "
                             "(default $UNO_ARENA_TLS_CA)")


def server_address(server: str | None, old_target: str | None) -> str:
    """The server address of ``--server`` or ``--target`` (else the default); ValueError when they disagree or a
    value is a bare number (``--target 200`` meant as a target score)."""
    for flag, value in (("--server", server), ("--target", old_target)):
        if value is not None and (not value.strip() or value.strip().isdigit()):
            hint = (" (--target is the arena's address everywhere; the match target score is --target-score "
                    "POINTS)" if flag == "--target" else "")
            raise ValueError(f"{flag} {value!r} is not a server address: give HOST:PORT{hint}")
    if server is not None and old_target is not None and server != old_target:
        raise ValueError(f"--server {server!r} and --target {old_target!r} disagree: give the address once, "
                         "with --server")
    return server or old_target or default_target()


def author_token(args: argparse.Namespace) -> str | None:
    """The token of a command for a bot's author: None (the admin's) when one is configured (``--token-file`` or the
    environment), else the bot's own ($UNO_ARENA_BOT_TOKEN, or the file $UNO_ARENA_BOT_TOKEN_FILE names)."""
    from arena.client.connection import token_from

    if args.token_file or token_from():
        return None
    return token_from(env="UNO_ARENA_BOT_TOKEN", file_env="UNO_ARENA_BOT_TOKEN_FILE") or None


def token_source(args: argparse.Namespace, token: str | None) -> str:
    """Where the token a command sends comes from, for a refusal's line (empty: no token was sent)."""
    import os

    from arena.client.connection import ADMIN_TOKEN_ENV, ADMIN_TOKEN_FILE_ENV

    if args.token_file:
        return f"in {args.token_file}"
    if token:
        return "of $UNO_ARENA_BOT_TOKEN / $UNO_ARENA_BOT_TOKEN_FILE"
    if os.environ.get(ADMIN_TOKEN_ENV):
        return f"of ${ADMIN_TOKEN_ENV}"
    if os.environ.get(ADMIN_TOKEN_FILE_ENV):
        return f"in {os.environ[ADMIN_TOKEN_FILE_ENV]} (${ADMIN_TOKEN_FILE_ENV})"
    return ""


def refused_token_line(detail: str, source: str, bot: str | None) -> str:
    """One line for a token the arena does not know (``UNAUTHENTICATED "invalid token"``) when one was sent: it is
    neither the admin token nor a bot's (``bot``: the bot whose own token would do)."""
    if bot:
        whose = f"bot {bot!r}'s own token"
        return (f"{detail}: the token {source} is neither the admin token nor {whose}: give {whose} (the file "
                "`uno-arena bots register --output` wrote) or the admin token, with --token-file")
    return (f"{detail}: the token {source} is neither the admin token nor any bot's: give the admin token with "
            "--token-file (or $UNO_ARENA_ADMIN_TOKEN / $UNO_ARENA_ADMIN_TOKEN_FILE), or a bot's own for its own data")


def run_client(args: argparse.Namespace, body: Body, token: str | None = None, *, bot: str | None = None) -> int:
    """Run ``body`` with a client of the arena the options name (sending ``token``, else the one
    :func:`arena.client.token_from` finds): a refused call is one line naming the problem and the fix, exit 1; bad
    options exit 2. ``bot``: the bot the command is about, whose own token a refused token is told to replace."""
    import grpc

    from arena.client import rpc_error_line
    from arena.client.connection import token_from

    try:
        args.target = server_address(args.server, args.target_address)
        client = ArenaClient(args.target, token or token_from(token_file=args.token_file), tls=args.tls,
                             tls_ca=args.tls_ca)
    except ValueError as error:
        return fail(error)
    try:
        return body(client, args)
    except grpc.RpcError as error:
        source = token_source(args, token)
        code = error.code() if isinstance(error, grpc.Call) else None
        detail = (error.details() if isinstance(error, grpc.Call) else "") or ""
        if code == grpc.StatusCode.UNAUTHENTICATED and source and detail.startswith("invalid token"):
            print(f"error: {refused_token_line(detail, source, bot)}", file=sys.stderr)
        else:
            print(f"error: {rpc_error_line(error, args.target)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        client.close()
