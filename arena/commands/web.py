"""`uno-arena web`: serve the web front (arena/web) with uvicorn.

    uno-arena web [--address 127.0.0.1] [--port 8080] [--server HOST:PORT] [--grafana-url URL]
    uno-arena bench web [--bots 1000] [--matches 100000] [--viewers 200]   # see arena/bench/web.py

The pages read the organizer API at ``--server`` (default ``$UNO_ARENA_TARGET``, else ``localhost:50051``) as an
anonymous caller: they show what the API shows everyone (no seed or replay of a running tournament). The admin
token of the environment (``$UNO_ARENA_ADMIN_TOKEN`` or the file ``$UNO_ARENA_ADMIN_TOKEN_FILE`` names, or
``--token-file``), when set, is used for two things only: counting each bot's incidents by kind for its page (the
details stay with the bot's author), and reading each bot's description, version and whether it is connected now
(arena.web.views.PublicBot; never a token, a seed or a hidden card). Prometheus metrics of the web front
are at ``/metrics``.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.client import ArenaClient

from arena.client import ArenaClient

DEFAULT_ADDRESS = "127.0.0.1"
DEFAULT_PORT = 8080


def public_client(target: str, *, tls: bool = False, tls_ca: str | None = None) -> ArenaClient:
    """A client of the organizer API that sends no token, never the admin token of the environment: the pages are
    public."""
    return ArenaClient(target, tls=tls, tls_ca=tls_ca, anonymous=True)


def cmd_web(args: argparse.Namespace) -> int:
    import uvicorn

    from arena.client import ArenaClient, token_from
    from arena.commands.api import server_address
    from arena.web.app import DEFAULT_POLL_S, create_app
    from arena.web.guard import NO_LIMITS
    from bots import make_bot

    if args.poll is None:
        args.poll = DEFAULT_POLL_S
    if not 0 <= args.port <= 65535:
        print(f"error: --port {args.port} is not a TCP port (0-65535)", file=sys.stderr)
        return 2
    if args.poll <= 0:
        print(f"error: --poll {args.poll} must be a positive number of seconds", file=sys.stderr)
        return 2
    try:
        target = server_address(args.server, None)
        admin_token = token_from(token_file=args.token_file)
        client = public_client(target, tls=args.tls, tls_ca=args.tls_ca)
        admin = ArenaClient(target, admin_token, tls=args.tls, tls_ca=args.tls_ca) if admin_token else None
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    limits = NO_LIMITS if args.no_client_limits else None
    app = create_app(client, make_bot=make_bot, admin_client=admin, poll_s=args.poll, grafana_url=args.grafana_url,
                     limits=limits)
    print(f"uno-arena web: http://{args.address}:{args.port}/ (organizer API {target})", flush=True)
    try:
        uvicorn.run(app, host=args.address, port=args.port, log_level=args.log_level, access_log=False)
    finally:
        client.close()
        if admin is not None:
            admin.close()
    return 0


def cmd_bench_web(args: argparse.Namespace) -> int:
    from arena.bench.web import WebBenchOptions, run_web_bench
    from arena.web.app import DEFAULT_POLL_S

    try:
        options = WebBenchOptions(bots=args.bots, matches=args.matches, field=args.field, requests=args.requests,
                                  viewers=args.viewers, live_matches=args.live_matches,
                                  poll_s=DEFAULT_POLL_S if args.poll is None else args.poll)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    run_web_bench(options, sys.stdout)
    return 0


def register(commands: Any) -> None:
    from arena.client import DEFAULT_TARGET, TARGET_ENV
    from arena.commands import bench_parsers

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
    web.add_argument("--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug"))
    web.set_defaults(func=cmd_web, long_running=True)

    bench = bench_parsers(commands).add_parser(
        "web", help="the web front with a big history (page p99) and 200 live viewers of a running tournament")
    bench.add_argument("--bots", type=int, default=1000, help="registered bots (default 1000)")
    bench.add_argument("--matches", type=int, default=100_000, help="recorded matches (default 100000)")
    bench.add_argument("--field", type=int, default=45, help="bots per recorded tournament (default 45)")
    bench.add_argument("--requests", type=int, default=100, help="timed requests per page (default 100)")
    bench.add_argument("--viewers", type=int, default=200, help="live viewers of the running tournament (default 200)")
    bench.add_argument("--live-matches", type=int, default=300,
                       help="matches of the running tournament (default 300)")
    bench.add_argument("--poll", type=float, default=None, metavar="SECONDS",
                       help="the web front's live poll interval (default 0.5, as `uno-arena web`)")
    bench.set_defaults(func=cmd_bench_web, long_running=True)
