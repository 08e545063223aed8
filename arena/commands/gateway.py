"""`uno-arena serve` (the gateway: docs/operations.md), `match` (one match with connected bots, in an arena of its
own), `bot run` (a built-in bot as a remote bot, through the Python kit) and `bot check` (the conformance checks in
an arena of their own: docs/writing-a-bot.md, Checking your bot).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import signal
import sys
import threading
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from arena.commands import add_metrics_options, add_rule_options, fail, rules_from_args, subparsers_of
from arena.commands.archive_dir import ArchiveDirError, add_archive_dir_option, use_archive_dir
from arena.commands.run_command import missing_script
from arena.hosting.check import CHECK_BUDGET_S
from arena.local_arena import InProcessArena, arena_store, inprocess_arena, organizer_services
from arena.tournament.spec import DEFAULT_DECISION_DEADLINE_MS

EXIT_WITHIN_S = 10.0
"""A stopping `serve` (SIGTERM) exits within this, whatever happens: past it, it exits at once (code 1)."""
SEARCH_CONCURRENT_MATCHES = 1
"""`bot run`'s matches at once for the search bot's levels: each decision thinks up to its time cap on a core, so
matches at once would share the core and each be cut to fewer simulations."""


def _exit_now() -> None:
    """The watchdog of a stopping `serve`: it did not exit in time (something ignored its cancellation)."""
    print(f"error: not stopped within {EXIT_WITHIN_S:g} s of the signal: exiting now", file=sys.stderr, flush=True)
    os._exit(1)


def run_until_signal(main: Callable[[asyncio.Event], Awaitable[int]], what: str = " while stopping: exiting now",
                     code: int = 1, before_exit: Callable[[], None] = lambda: None) -> int:
    """Run ``main(stop)`` on a new event loop: the first SIGINT/SIGTERM sets ``stop``; a second one says ``error:
    second SIG... WHAT``, runs ``before_exit`` and exits at once with ``code`` (someone who does not want to wait)."""
    async def run() -> int:
        stop = asyncio.Event()

        def on_signal(sig: signal.Signals) -> None:
            if not stop.is_set():
                stop.set()
                return
            print(f"error: second {sig.name}{what}", file=sys.stderr, flush=True)
            before_exit()
            os._exit(code)

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, on_signal, sig)
        return await main(stop)

    return asyncio.run(run())


MIN_ADMIN_TOKEN_LENGTH = 16
NO_ADMIN_TOKEN = (
    "no admin token: the organizer API would let anyone who reaches the port register bots, create and cancel "
    "tournaments and read every hand. Set $UNO_ARENA_ADMIN_TOKEN (or $UNO_ARENA_ADMIN_TOKEN_FILE, a file holding "
    "it), or pass --generate-admin-token FILE to have one generated and written to FILE, or "
    "--insecure-no-admin-token to serve it open anyway"
)


def serve_admin_token(args: argparse.Namespace) -> tuple[str, str]:
    """The admin token `serve` uses and a line saying where it came from; ValueError (exit 2) when there is
    none and neither --generate-admin-token nor --insecure-no-admin-token was given, or they conflict."""
    from arena.client.connection import ADMIN_TOKEN_ENV, ADMIN_TOKEN_FILE_ENV, token_from, write_secret_file

    token = token_from(token_file=args.admin_token_file)
    if token:
        if args.generate_admin_token or args.insecure_no_admin_token:
            flag = "--generate-admin-token" if args.generate_admin_token else "--insecure-no-admin-token"
            raise ValueError(f"an admin token is configured (${ADMIN_TOKEN_ENV}, ${ADMIN_TOKEN_FILE_ENV} or "
                             f"--admin-token-file): {flag} conflicts with it")
        if len(token) < MIN_ADMIN_TOKEN_LENGTH or token.startswith("replace-me"):
            raise ValueError(f"the admin token is a placeholder or shorter than {MIN_ADMIN_TOKEN_LENGTH} characters: "
                             "use a random one, e.g. `openssl rand -hex 24`")
        return token, "organizer API: admin token configured"
    if args.generate_admin_token:
        token = secrets.token_urlsafe(32)
        write_secret_file(args.generate_admin_token, token + "\n")
        path = os.path.abspath(args.generate_admin_token)
        return token, (f"organizer API: admin token generated and written to {path} (mode 0600); use it with "
                       f"`export {ADMIN_TOKEN_FILE_ENV}={path}` or `--token-file {path}`")
    if args.insecure_no_admin_token:
        return "", ("WARNING: --insecure-no-admin-token: the organizer API has no admin token; anyone who reaches "
                    "the port is the admin (gauge uno_arena_insecure_no_admin_token is 1)")
    raise ValueError(NO_ADMIN_TOKEN)


def cmd_serve(args: argparse.Namespace) -> int:
    from arena.metrics import DEFAULT_GATEWAY_METRICS_PORT, MetricsPortError, start_exporter
    from arena.server.gateway import GatewayConfig, GatewayServer, grpc_address, server_credentials
    from arena.store import StoreConfigError

    address = grpc_address(args.address)
    try:
        admin_token, admin_line = serve_admin_token(args)
    except (ValueError, OSError) as error:
        return fail(error)
    limits = {"tls_cert": args.tls_cert or "", "tls_key": args.tls_key or "", "message_rate": args.message_rate,
              "message_burst": args.message_burst, "new_streams_per_token": args.max_new_streams}
    try:
        tls = server_credentials(GatewayConfig(**limits)) is not None  # both files readable, before anything starts
    except (ValueError, OSError) as error:
        return fail(f"TLS: {error}")
    if not os.environ.get("REDIS_URL", "").strip() and not args.embedded_redis:
        return fail("no Redis: set REDIS_URL to the deployment's Redis (the one the workers and the scheduler use), "
                    "e.g. redis://127.0.0.1:6379/0; or pass --embedded-redis to run a private one for trying things "
                    "out (nothing else sees it: tournaments created through it only run with workers on it)")
    drain_timeout = min(max(0.0, args.drain_timeout), EXIT_WITHIN_S - 5.0)
    grace = min(max(0.0, args.grace), 2.0)
    with arena_store() as store:
        try:
            store.check_reachable()  # one line naming the Redis, not "listening" and clients told nothing
            use_archive_dir(store, args.archive_dir)
            metrics_server = start_exporter(DEFAULT_GATEWAY_METRICS_PORT, args.metrics_port, args.metrics_address)
        except StoreConfigError as error:
            return fail(f"REDIS_URL: {error}")
        except (ArchiveDirError, MetricsPortError, ValueError) as error:  # ValueError: $UNO_ARENA_METRICS_PORT
            return fail(error)

        async def run(stop: asyncio.Event) -> int:
            config = GatewayConfig(address=address, gateway_id=args.gateway_id or "",
                                   hello_timeout_s=args.hello_timeout, heartbeat_interval_s=args.heartbeat,
                                   drain_timeout_s=drain_timeout, reuse_port=args.reuse_port,
                                   unix_socket=args.unix_socket or "", **limits)
            server = GatewayServer(store, config, services=organizer_services(store, admin_token))
            server.metrics.set_insecure_no_admin_token(not admin_token)
            try:
                await server.start()
            except OSError as error:  # the address is in use (without --reuse-port), or cannot be bound
                return fail(error)
            print(admin_line, file=sys.stderr if not admin_token else sys.stdout, flush=True)
            unix = f" and unix:{args.unix_socket}" if args.unix_socket else ""
            print(f"uno-arena gateway {config.gateway_id} listening on {address}{unix} (port {server.port}, "
                  f"{'TLS' if tls else 'plaintext: no --tls-cert'}); "
                  f"metrics on :{metrics_server.port if metrics_server else '-'}/metrics", flush=True)
            await stop.wait()
            print(f"draining: bots told to reconnect, pending decisions handed over (up to {drain_timeout:g} s), "
                  f"exit within {EXIT_WITHIN_S:g} s", flush=True)
            watchdog = threading.Timer(EXIT_WITHIN_S, _exit_now)
            watchdog.daemon = True
            watchdog.start()
            await server.drain(grace)
            print("drained: exiting", flush=True)
            return 0

        try:
            return run_until_signal(run)
        finally:
            if metrics_server is not None:
                metrics_server.close()


def _print_record(record: Any, as_json: bool) -> None:
    if as_json:
        print(json.dumps(record.to_dict()))
        return
    print(f"match {record.match_id}: seed {record.seed}, {record.players} seats, {record.rounds} rounds, "
          f"{len(record.decisions)} decisions, {record.duration_s:.2f} s")
    for seat, name in enumerate(record.seats):
        mark = " (winner)" if seat == record.winner else ""
        forfeited = " FORFEITED" if seat in record.forfeits else ""
        print(f"  seat {seat} {name} [{record.bot_versions[seat]}]: {record.scores[seat]} points, "
              f"{record.timeouts[seat]} timeouts, {record.refusals[seat]} refusals, "
              f"{record.strikes[seat]} strikes{forfeited}{mark}")
    print(f"end: {record.end_reason} ({record.detail})")
    print(f"seed {record.seed} (--seed {record.seed} deals the same cards again)")


def cmd_match(args: argparse.Namespace) -> int:
    from arena.runner import MatchConfig
    from arena.service.seating import is_builtin

    names = [n.strip() for n in args.seats.split(",") if n.strip()]
    if not 2 <= len(names) <= 10:
        return fail("--seats needs 2 to 10 comma-separated names")
    remote = list(dict.fromkeys(n for n in names if not is_builtin(n)))
    try:
        rules = rules_from_args(args)
    except ValueError as error:
        return fail(error)
    if args.seed is None:  # a secret random seed (the operating system's CSPRNG), printed with the result
        args.seed = secrets.randbelow(2**63 - 1) + 1
    elif not 0 <= args.seed < 2**63:
        return fail("--seed must be between 0 and 2**63 - 1")
    config = MatchConfig(match_id=args.match_id or f"m-{uuid.uuid4().hex[:10]}", seed=args.seed, rules=rules,
                         decision_deadline_s=args.decision_deadline_ms / 1000.0, max_strikes=args.max_strikes)
    with arena_store() as store:
        async def play(stop: asyncio.Event) -> int:
            from arena.runner import EndReason
            from arena.server.gateway import grpc_address
            from arena.server.gateway.server import AddressInUse
            from bots import make_bot

            # With --relay the bots are held by the arena's own gateways: this one only answers the organizer API.
            address = "127.0.0.1:0" if args.relay else grpc_address(args.address)
            try:
                async with inprocess_arena(store, address) as arena:
                    if not await _admit(arena, remote, args.register, bool(os.environ.get("REDIS_URL"))):
                        return 2
                    if remote and not args.relay:
                        print(f"gateway on port {arena.server.port}: waiting up to {args.wait:g} s for "
                              f"{', '.join(remote)}", file=sys.stderr, flush=True)
                    task = asyncio.create_task(arena.play_match(config, names, make_bot,
                                                                wait_s=None if args.relay else args.wait))
                    stopper = asyncio.create_task(stop.wait())
                    await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
                    stopper.cancel()
                    if not task.done():
                        task.cancel()
                        print("interrupted", file=sys.stderr)
                        return 130
                    record = task.result()
            except (AddressInUse, TimeoutError) as error:  # another arena listens there; a bot did not come
                return fail(error, 2 if isinstance(error, AddressInUse) else 1)
            _print_record(record, args.json)
            return 0 if record.end_reason is not EndReason.ABORTED else 1

        return run_until_signal(play)


async def _admit(arena: InProcessArena, remote: list[str], register: bool, shared: bool) -> bool:
    """Whether every named bot is registered in the arena's registry (registering the unknown ones through
    RegisterBot with ``register``, printing their tokens); False, the error said, otherwise."""
    for name in remote:
        if await arena.is_registered(name):
            continue
        if not register:
            where = ("" if shared else " (this match runs on an embedded Redis of its own: set REDIS_URL to the "
                     "arena's Redis to play the bots registered there)")
            print(f"unknown bot {name!r}{where}: register it (uno-arena bots register {name}) or pass --register",
                  file=sys.stderr)
            return False
        print(f"registered {name}: token {await arena.register(name)}", flush=True)
    return True


def cmd_bot_run(args: argparse.Namespace) -> int:
    import logging

    from bots import BUILTIN_BOTS
    from bots.ismcts import LEVELS
    from bots.kit import KitError, bot_token, play

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    logging.getLogger("uno_arena.kit").setLevel(logging.INFO)  # connects, disconnects, the bot's errors
    try:
        token = bot_token(args.token, args.token_file)
    except ValueError as error:
        return fail(error)
    search = args.kind in LEVELS
    concurrent = args.max_concurrent or (SEARCH_CONCURRENT_MATCHES if search else None)
    options: dict[str, Any] = {} if concurrent is None else {"max_concurrent_matches": concurrent}
    try:
        # A search bot thinks up to its time cap in a worker thread: the kit's event loop goes on answering the
        # arena (pings, the other matches) meanwhile.
        stats = play(BUILTIN_BOTS[args.kind], target=args.target, token=token,
                     bot_version=args.bot_version or f"{args.kind} (python kit)",
                     threaded=search, tls=args.tls, tls_ca=args.tls_ca, human_games=args.human_games,
                     exit_on_refusal=False, **options)
    except ValueError as error:  # a TLS CA file that cannot be read
        return fail(error)
    except KitError as error:
        print(f"refused by the arena: {error}", file=sys.stderr)
        return 1
    print(f"stopped: {stats.sessions} sessions, {stats.matches_ended} matches, {stats.decisions} decisions",
          file=sys.stderr)
    return 0


def cmd_bot_check(args: argparse.Namespace) -> int:
    from arena.conformance import run as conformance
    from arena.server.gateway.server import AddressInUse
    from bots.kit import BOT_TOKEN_ENV, BOT_TOKEN_FILE_ENV, bot_token

    given = ""
    if args.hosted_version is not None:
        if not args.name:
            return fail("--hosted-version checks the bot --name names, as the bot host runs it: give --name")
    elif args.token or args.token_file or os.environ.get(BOT_TOKEN_ENV) or os.environ.get(BOT_TOKEN_FILE_ENV):
        try:
            given = bot_token(args.token, args.token_file)
        except ValueError as error:
            return fail(error)
    if args.time_cap is not None and not 0 < args.time_cap <= CHECK_BUDGET_S:
        return fail(f"--time-cap must be more than 0 and at most {CHECK_BUDGET_S:g} seconds, got {args.time_cap:g}")
    options = conformance.CheckOptions(args.address, args.unix_socket or "", args.wait,
                                       CHECK_BUDGET_S if args.time_cap is None else args.time_cap,
                                       args.decision_deadline_ms / 1000.0)
    try:
        argv = conformance.run_argv(args.run) if args.run is not None else []
        missing = missing_script(argv, Path.cwd()) if argv else ""
        if missing:
            raise conformance.CheckRefused(missing)
        with conformance.private_check_store() as store:
            name: str | None = None
            token = given
            if given:  # the bot's own identity, read from the arena's registry, copied into the private one
                name = conformance.copy_identity(given, store)
            elif args.hosted_version is not None:  # as the bot host runs it: a host token of its version
                name, token = args.name, conformance.host_identity(store, args.name, args.hosted_version)
            run = conformance.CheckRun(store, options, name=name, token=token, new_name=args.name or "", argv=argv,
                                       command=args.run or "", say=_say)

            async def check(stop: asyncio.Event) -> int:
                report = await run.run(stop)
                for line in report.lines():
                    print(line, flush=True)
                if report.error:
                    print(f"error: {report.error}", file=sys.stderr, flush=True)
                return report.code

            return run_until_signal(check, ": stopping the bot and exiting now", 130, run.kill_bot)
    except (conformance.CheckRefused, AddressInUse) as error:  # AddressInUse: the check's gateway shares no port
        return fail(error)


def _say(line: str) -> None:
    """`bot check`'s progress: how to start the bot on stdout, the started bot's pid on stderr."""
    print(line, file=sys.stderr if line.startswith("started: ") else sys.stdout, flush=True)


def register(commands: Any) -> None:
    """Add `serve`, `match` and `bot run|check` (`bots register` is the organizer API's)."""
    from arena.metrics import DEFAULT_GATEWAY_METRICS_PORT

    serve = commands.add_parser("serve", help="run the bot gateway (gRPC, health, reflection, relay, /metrics)")
    serve.add_argument("--address", default=None, help="listen address (default $UNO_ARENA_GRPC_ADDR or "
                                                       "127.0.0.1:50051: give 0.0.0.0:50051 to be reached "
                                                       "from other machines)")
    admin = serve.add_mutually_exclusive_group()
    admin.add_argument("--admin-token-file", default=None, metavar="FILE",
                       help="file holding the admin token of the organizer API (default $UNO_ARENA_ADMIN_TOKEN, "
                            "else the file $UNO_ARENA_ADMIN_TOKEN_FILE names)")
    admin.add_argument("--generate-admin-token", default=None, metavar="FILE",
                       help="with no admin token configured: generate one and write it to FILE (mode 0600)")
    admin.add_argument("--insecure-no-admin-token", action="store_true",
                       help="with no admin token configured: serve the organizer API open to anyone who reaches "
                            "the port (warned at start and in /metrics); without this, serve refuses to start")
    add_metrics_options(serve, DEFAULT_GATEWAY_METRICS_PORT)
    serve.add_argument("--gateway-id", default=None, help="id in Redis sessions (default: host-pid-random)")
    serve.add_argument("--hello-timeout", type=float, default=10.0, help="seconds a new stream has to say Hello")
    serve.add_argument("--heartbeat", type=float, default=10.0, help="seconds between Pings")
    serve.add_argument("--grace", type=float, default=2.0,
                       help="seconds other calls (organizer API) get to finish on shutdown (at most 2)")
    serve.add_argument("--drain-timeout", type=float, default=5.0,
                       help="on SIGTERM: seconds at most to hand pending decisions over to the gateways the bots "
                            "moved to (at most 5; the process exits within 10 s)")
    serve.add_argument("--reuse-port", action="store_true",
                       help="share the port with other gateways started with --reuse-port (SO_REUSEPORT: a "
                            "replacement started before the gateway it replaces has drained); without it, serve "
                            "refuses a port something listens on already")
    serve.add_argument("--embedded-redis", action="store_true",
                       help="without $REDIS_URL: run a private redis-server (for trying things out; nothing else of "
                            "a deployment sees it). Without either, serve refuses to start")
    add_archive_dir_option(serve)
    serve.add_argument("--unix-socket", default=None, metavar="PATH",
                       help="listen on this Unix socket too (plaintext, mode 0666: its directory decides who reaches "
                            "it); the bot host's sandboxed bots connect through it (docs/hosting.md)")
    serve.add_argument("--tls-cert", default=None, metavar="FILE",
                       help="PEM certificate (chain): serve bots and the organizer API over TLS (with --tls-key)")
    serve.add_argument("--tls-key", default=None, metavar="FILE", help="PEM private key of --tls-cert")
    serve.add_argument("--message-rate", type=float, default=50_000.0,
                       help="messages/s a bot stream may send (token bucket; batches count their messages)")
    serve.add_argument("--message-burst", type=int, default=50_000, help="the token bucket's size, in messages")
    serve.add_argument("--max-new-streams", type=int, default=20,
                       help="new streams one bot token may open per 10 s (more: RESOURCE_EXHAUSTED); 0: no limit")
    serve.set_defaults(func=cmd_serve, long_running=True)

    match = commands.add_parser("match", help="one match between built-in and connected bots; prints the result")
    match.add_argument("--seats", required=True, help="comma-separated: random, heuristic or registered bot names")
    match.add_argument("--seed", type=int, default=None,
                       help="match seed, replays the same deal (default: a random one, printed at the end)")
    match.add_argument("--match-id", default=None)
    match.add_argument("--deadline-ms", dest="decision_deadline_ms", type=int, default=DEFAULT_DECISION_DEADLINE_MS,
                       help="per decision")
    match.add_argument("--max-strikes", type=int, default=3, help="timeouts/disconnects before a forfeit")
    match.add_argument("--address", default="127.0.0.1:50051", help="where the in-process gateway listens")
    match.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the named bots to connect")
    match.add_argument("--relay", action="store_true",
                       help="no gateway here: reach the bots through Redis and the gateway holding them")
    match.add_argument("--register", action="store_true", help="register unknown bot names, print their tokens")
    match.add_argument("--json", action="store_true", help="print the whole record as JSON")
    add_rule_options(match)
    match.set_defaults(func=cmd_match, long_running=True)

    bot = subparsers_of(commands, "bot", "run, check and register remote bots", "bot_command")
    run = bot.add_parser("run", help="run a built-in bot as a remote bot through the Python kit")
    run.add_argument("kind", choices=("random", "heuristic", "weakened", "ismctsfast", "ismcts", "ismctsstrong"))
    run.add_argument("--target", default=None, help="the gateway, HOST:PORT (default $UNO_ARENA_TARGET, else "
                                                    "localhost:50051)")
    run.add_argument("--token", default=None, help="the bot's token; visible to every user of the machine (`ps`): "
                                                   "prefer --token-file or $UNO_ARENA_BOT_TOKEN")
    run.add_argument("--token-file", default=None, metavar="FILE",
                     help="file holding the bot's token (default $UNO_ARENA_BOT_TOKEN, else the file "
                          "$UNO_ARENA_BOT_TOKEN_FILE names)")
    run.add_argument("--max-concurrent", type=int, default=None,
                     help=f"matches offered to play at once (default: the kit's, 16; {SEARCH_CONCURRENT_MATCHES} for "
                          "the search bot's levels, which use a whole core while they think)")
    run.add_argument("--human-games", action="store_true",
                     help="accept games against people on the web front (Hello.accepts_human_games)")
    run.add_argument("--tls", action="store_true", help="connect with TLS (the system's roots)")
    run.add_argument("--tls-ca", default=None, metavar="FILE",
                     help="PEM CA (or the arena's self-signed certificate) to trust; implies --tls")
    run.add_argument("--bot-version", default=None)
    run.add_argument("--verbose", "-v", action="store_true")
    run.set_defaults(func=cmd_bot_run, long_running=True)

    check = bot.add_parser("check", help="conformance checks against a bot that connects to a gateway started here")
    check.add_argument("--token", default=None, help="a registered bot's token (else --token-file, "
                       "$UNO_ARENA_BOT_TOKEN or $UNO_ARENA_BOT_TOKEN_FILE; with none a bot is registered here); "
                       "visible to every user of the machine (`ps`)")
    check.add_argument("--token-file", default=None, metavar="FILE", help="file holding a registered bot's token")
    check.add_argument("--name", default=None, help="name to register when no --token is given")
    check.add_argument("--run", default=None, help="command starting the bot; {target} and {token} are filled in "
                       "(the token is also in its environment: $UNO_ARENA_BOT_TOKEN, $UNO_ARENA_TOKEN)")
    check.add_argument("--address", default="127.0.0.1:0", help="where the gateway listens (default: a free port)")
    check.add_argument("--unix-socket", default=None, metavar="PATH",
                       help="the gateway listens on this Unix socket too, and {target} is unix:PATH (a sandboxed "
                            "bot without a network: docs/hosting.md)")
    check.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the bot to connect")
    check.add_argument("--time-cap", type=float, default=None, metavar="S",
                       help=f"seconds every check together may take past the wait (default {CHECK_BUDGET_S:g})")
    check.add_argument("--hosted-version", default=None, metavar="VERSION",
                       help="the bot host's: check --name as the host runs it, with a host token of this version")
    check.add_argument("--deadline-ms", dest="decision_deadline_ms", type=int, default=DEFAULT_DECISION_DEADLINE_MS)
    check.set_defaults(func=cmd_bot_check, long_running=True)
