"""`uno-arena web`: serve the web front (arena/web, docs/web.md) with uvicorn. The pages read the organizer API as an
anonymous caller; an admin token, when configured, is used only for each bot's incident counts, description, version
and connection. The listening socket is bound before anything is printed, so a port in use is one line and exit 2.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import ipaddress
import socket
from typing import Any

from arena.client import ArenaClient
from arena.commands import fail

DEFAULT_ADDRESS = "127.0.0.1"
DEFAULT_PORT = 8080


def public_client(target: str, *, tls: bool = False, tls_ca: str | None = None) -> ArenaClient:
    """A client of the organizer API that sends no token, never the admin token of the environment: the pages are
    public."""
    return ArenaClient(target, tls=tls, tls_ca=tls_ca, anonymous=True)


def listening_socket(address: str, port: int) -> socket.socket:
    """A TCP socket bound to ``address:port`` and listening (``SO_REUSEADDR`` as uvicorn sets it); OSError with one
    line naming the problem and the fix when the port is in use or the address cannot be bound."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
        sock.listen(2048)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise OSError(f"--port {port} is in use on {address} (another web front or program listens there): "
                          "stop it or give a free port with --port") from None
        raise OSError(f"cannot listen on {address}:{port} ({error.strerror or error}): give an address of this "
                      "machine with --address (e.g. 127.0.0.1 or 0.0.0.0) and a free --port") from None
    sock.set_inheritable(True)
    return sock


def trusted_proxies(text: str) -> list[str]:
    """The proxies ``--trusted-proxies`` names (comma-separated addresses or networks, e.g. ``10.0.0.5`` or
    ``10.0.0.0/8``); ValueError naming a word that is neither. ``*`` (trust any peer) is refused: a visitor could
    then name any address and escape the per-client limits."""
    proxies = [word.strip() for word in text.split(",") if word.strip()]
    for word in proxies:
        try:
            ipaddress.ip_network(word, strict=False)
        except ValueError:
            raise ValueError(f"--trusted-proxies: {word!r} is not an IP address or network (give e.g. 10.0.0.5 or "
                             "10.0.0.0/8, comma-separated)") from None
    return proxies


def cmd_web(args: argparse.Namespace) -> int:
    import uvicorn

    from arena.client.connection import token_from
    from arena.commands.api import server_address
    from arena.web.app import DEFAULT_POLL_S, create_app
    from arena.web.guard import NO_LIMITS
    from arena.web.play_routes import close_bot_processes
    from bots import make_bot

    if args.poll is None:
        args.poll = DEFAULT_POLL_S
    if not 0 <= args.port <= 65535:
        return fail(f"--port {args.port} is not a TCP port (0-65535)")
    if args.poll <= 0:
        return fail(f"--poll {args.poll} must be a positive number of seconds")
    if not 1 <= args.search_workers <= 64:
        return fail(f"--search-workers {args.search_workers} must be 1 to 64 processes")
    with contextlib.ExitStack() as stack:
        try:
            proxies = trusted_proxies(args.trusted_proxies)
            target = server_address(args.server, None)
            admin_token = token_from(token_file=args.token_file)
            client = stack.enter_context(public_client(target, tls=args.tls, tls_ca=args.tls_ca))
            admin = stack.enter_context(ArenaClient(target, admin_token, tls=args.tls, tls_ca=args.tls_ca)) \
                if admin_token else None
            sock = stack.enter_context(listening_socket(args.address, args.port))
        except (ValueError, OSError) as error:
            return fail(error)
        limits = NO_LIMITS if args.no_client_limits else None
        app = create_app(client, make_bot=make_bot, admin_client=admin, poll_s=args.poll,
                         grafana_url=args.grafana_url, limits=limits, search_workers=args.search_workers)
        port = sock.getsockname()[1]
        host = f"[{args.address}]" if ":" in args.address else args.address
        trust = f"; X-Forwarded-For trusted from {', '.join(proxies)}" if proxies else ""
        print(f"uno-arena web: http://{host}:{port}/ (organizer API {target}{trust})", flush=True)
        config = uvicorn.Config(app, host=args.address, port=port, log_level=args.log_level, access_log=False,
                                proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None)
        try:
            uvicorn.Server(config).run(sockets=[sock])
        finally:
            close_bot_processes(app.state)
    return 0


def register(commands: Any) -> None:
    from arena.client.connection import DEFAULT_TARGET, TARGET_ENV

    web = commands.add_parser("web", help="serve the web front: leaderboard, tournaments, replays, bots, status")
    web.add_argument("--address", default=DEFAULT_ADDRESS, help=f"address to listen on (default {DEFAULT_ADDRESS})")
    web.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})")
    web.add_argument("--server", default=None, metavar="HOST:PORT",
                     help=f"the organizer API (default ${TARGET_ENV}, else {DEFAULT_TARGET})")
    web.add_argument("--token-file", default=None, metavar="FILE",
                     help="admin token, used only for bots' incident counts, descriptions, versions and connected "
                          "state (default $UNO_ARENA_ADMIN_TOKEN, else the file $UNO_ARENA_ADMIN_TOKEN_FILE names; "
                          "none: those are not shown)")
    web.add_argument("--tls", action="store_true", help="reach the organizer API with TLS")
    web.add_argument("--tls-ca", default=None, metavar="FILE", help="PEM CA to trust; implies --tls")
    web.add_argument("--grafana-url", default="", metavar="URL", help="link to Grafana on the status page")
    web.add_argument("--poll", type=float, default=None, metavar="SECONDS",
                     help="how often live pages look for changes (default 0.5)")
    web.add_argument("--no-client-limits", action="store_true",
                     help="turn off the per-client rate limits and caps (a benchmark whose viewers share one "
                          "address); CSRF checks and security headers stay")
    web.add_argument("--trusted-proxies", default="", metavar="ADDRESSES",
                     help="comma-separated addresses or networks of reverse proxies whose X-Forwarded-For names the "
                          "client (default: none; every client is the address its connection comes from)")
    web.add_argument("--search-workers", type=int, default=1, metavar="N",
                     help="processes (at low CPU priority) that play the search bots (ismcts...) of people's games, "
                          "outside the web process (default 1)")
    web.add_argument("--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug"))
    web.set_defaults(func=cmd_web, long_running=True)
