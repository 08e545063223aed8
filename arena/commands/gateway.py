"""`uno-arena serve`, `match`, `bot run|check|register` and `bench gateway`: the gateway's commands.

    uno-arena serve [--address 0.0.0.0:50051] [--metrics-port 9100]
        The gateway: grpc.aio BotService (+ the organizer API when present), health, reflection, the Redis
        relay consumer, Prometheus /metrics. Address: flag, else $UNO_ARENA_GRPC_ADDR, else 0.0.0.0:50051;
        metrics port: flag, else $UNO_ARENA_METRICS_PORT, else 9100; Redis: $REDIS_URL, else an embedded one.
    uno-arena match --seats random,heuristic,BOTNAME [--address HOST:PORT] [--wait 30] [--seed 1] [--json]
        One match between built-in bots (played in process) and registered bots. By default it starts its own
        gateway in process (on --address, default 127.0.0.1:50051) and waits --wait seconds for the named bots
        to connect to it; with --relay it starts none and reaches the bots through Redis and whichever gateway
        already holds them (`uno-arena serve` on the same $REDIS_URL). --register registers the named bots
        that are unknown and prints their tokens (handy with the embedded Redis).
    uno-arena bot run random|heuristic --target HOST:PORT --token TOKEN
        A built-in bot as a remote bot, through the Python kit (bots/kit.py).
    uno-arena bot check [--token T | --name NAME] [--run "COMMAND {target} {token}"] [--wait 30]
        Conformance: starts a gateway in process, waits for the bot (started by --run, or by you) and runs the
        scripted checks of arena.server.conformance; exit status 0 when all pass.
        Registers a bot in the store ($REDIS_URL) and prints its token once.
    uno-arena bench gateway [--matches 64] [--seconds 10]
        Remote random bots over loopback vs a bare grpc.aio echo (arena.bench.gateway).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from arena.commands import add_rule_options, bench_parsers, rules_from_args, subparsers_of


@contextlib.contextmanager
def _store() -> Iterator[Any]:
    """A Store on $REDIS_URL, or on an embedded redis-server (stopped on exit)."""
    from arena.store import Store
    from arena.store.embedded import ensure_redis_url

    url, embedded = ensure_redis_url()
    store = Store.from_url(url)
    try:
        yield store
    finally:
        store.close()
        if embedded is not None:
            embedded.close()


def _serve_forever(coro_factory: Callable[[asyncio.Event], Any]) -> int:
    async def main() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
        result: int = await coro_factory(stop)
        return result

    return asyncio.run(main())


# ------------------------------------------------------------------------------------------------
# serve
# ------------------------------------------------------------------------------------------------


def _organizer(store: Any) -> list[Callable[[Any], None]]:
    try:
        from arena.server.organizer import add_organizer
    except ImportError:
        return []
    def add(server: Any) -> None:
        add_organizer(server, store)

    return [add]


def cmd_serve(args: argparse.Namespace) -> int:
    from arena.metrics import DEFAULT_GATEWAY_METRICS_PORT, metrics_port, start_metrics_server
    from arena.server.gateway import GatewayConfig, GatewayServer, grpc_address

    address = grpc_address(args.address)
    port = metrics_port(DEFAULT_GATEWAY_METRICS_PORT, args.metrics_port)
    with _store() as store:
        metrics_server = start_metrics_server(port) if port >= 0 else None

        async def run(stop: asyncio.Event) -> int:
            config = GatewayConfig(address=address, gateway_id=args.gateway_id or "",
                                   hello_timeout_s=args.hello_timeout, heartbeat_interval_s=args.heartbeat)
            server = GatewayServer(store, config, services=_organizer(store))
            await server.start()
            print(f"uno-arena gateway {config.gateway_id} listening on {address} (port {server.port}); "
                  f"metrics on :{metrics_server.port if metrics_server else '-'}/metrics", flush=True)
            await stop.wait()
            print("shutting down", flush=True)
            await server.stop(args.grace)
            return 0

        try:
            return _serve_forever(run)
        finally:
            if metrics_server is not None:
                metrics_server.close()


# ------------------------------------------------------------------------------------------------
# match
# ------------------------------------------------------------------------------------------------


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


def cmd_match(args: argparse.Namespace) -> int:
    from arena.relay import RelaySeat
    from arena.runner import EndReason, LocalSeat, MatchConfig, Seat, run_match
    from arena.server.gateway import GatewayConfig, GatewayServer, grpc_address
    from arena.server.remote_seat import RemoteSeat
    from arena.store import UnknownBot
    from bots import BUILTIN_BOTS, make_bot

    names = [n.strip() for n in args.seats.split(",") if n.strip()]
    if not 2 <= len(names) <= 10:
        print("--seats needs 2 to 10 comma-separated names", file=sys.stderr)
        return 2
    remote = [n for n in names if n not in BUILTIN_BOTS]
    rules = rules_from_args(args)
    config = MatchConfig(match_id=args.match_id or f"m-{uuid.uuid4().hex[:10]}", seed=args.seed, rules=rules,
                         deadline_s=args.deadline_ms / 1000.0, max_strikes=args.max_strikes)
    with _store() as store:
        for name in dict.fromkeys(remote):
            try:
                store.bots.get(name)
            except UnknownBot:
                if not args.register:
                    print(f"unknown bot {name!r}: register it (uno-arena bots register {name}) or pass --register",
                          file=sys.stderr)
                    return 2
                _record, token = store.bots.register(name)
                print(f"registered {name}: token {token}", flush=True)

        def seats_for(gateway: Any) -> list[Seat]:
            out: list[Seat] = []
            for index, name in enumerate(names):
                if name in BUILTIN_BOTS:
                    out.append(LocalSeat(make_bot(name, seed=args.seed * 1000 + index)))
                elif gateway is None:
                    out.append(RelaySeat(store, name))
                else:
                    out.append(RemoteSeat(gateway, name))
            return out

        async def play(stop: asyncio.Event) -> int:
            if args.relay:
                record = await run_match(config, seats_for(None))
                _print_record(record, args.json)
                return 0 if record.end_reason is not EndReason.ABORTED else 1
            server = GatewayServer(store, GatewayConfig(address=grpc_address(args.address), relay=False))
            await server.start()
            try:
                if remote:
                    print(f"gateway on port {server.port}: waiting up to {args.wait:g} s for "
                          f"{', '.join(dict.fromkeys(remote))}", file=sys.stderr, flush=True)
                    try:
                        await asyncio.gather(*(server.gateway.wait_for_bot(n, args.wait) for n in set(remote)))
                    except TimeoutError as error:
                        print(f"error: {error}", file=sys.stderr)
                        return 1
                task = asyncio.create_task(run_match(config, seats_for(server.gateway)))
                stopper = asyncio.create_task(stop.wait())
                await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
                stopper.cancel()
                if not task.done():
                    task.cancel()
                    print("interrupted", file=sys.stderr)
                    return 130
                record = task.result()
                _print_record(record, args.json)
                return 0 if record.end_reason is not EndReason.ABORTED else 1
            finally:
                await server.stop(1.0)

        return _serve_forever(play)


# ------------------------------------------------------------------------------------------------
# bot run / check / register
# ------------------------------------------------------------------------------------------------


def cmd_bot_run(args: argparse.Namespace) -> int:
    import logging

    from bots import BUILTIN_BOTS
    from bots.kit import KitError, play

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    token = args.token or os.environ.get("UNO_ARENA_BOT_TOKEN", "")
    if not token:
        print("--token (or $UNO_ARENA_BOT_TOKEN) is required", file=sys.stderr)
        return 2
    try:
        stats = play(BUILTIN_BOTS[args.kind], target=args.target, token=token,
                     bot_version=args.bot_version or f"{args.kind} (python kit)",
                     max_concurrent_matches=args.max_concurrent)
    except KitError as error:
        print(f"refused by the arena: {error}", file=sys.stderr)
        return 1
    print(f"stopped: {stats.sessions} sessions, {stats.matches_ended} matches, {stats.decisions} decisions",
          file=sys.stderr)
    return 0


def cmd_bot_check(args: argparse.Namespace) -> int:
    from arena.server.conformance import all_passed, run_checks
    from arena.server.gateway import GatewayConfig, GatewayServer
    from arena.store import InvalidToken

    with _store() as store:
        if args.token:
            try:
                name = store.bots.verify_token(args.token).name
            except InvalidToken as error:
                print(f"error: {error}", file=sys.stderr)
                return 2
            token = args.token
        else:
            name = args.name or f"check-{uuid.uuid4().hex[:8]}"
            _record, token = store.bots.register(name)

        async def check(stop: asyncio.Event) -> int:
            server = GatewayServer(store, GatewayConfig(address=args.address, relay=False))
            await server.start()
            target = f"127.0.0.1:{server.port}"
            child = None
            try:
                if args.run:
                    command = args.run.format(target=target, token=token, name=name)
                    child = subprocess.Popen(shlex.split(command))
                    print(f"started: {command}", file=sys.stderr, flush=True)
                else:
                    print(f"start your bot with target {target} and token {token} (bot {name}); waiting "
                          f"{args.wait:g} s", flush=True)
                results = await run_checks(server.gateway, name, deadline_s=args.deadline_ms / 1000.0,
                                           wait_s=args.wait)
                for result in results:
                    print(result.line(), flush=True)
                ok = all_passed(results)
                print("all checks passed" if ok else "some checks failed", flush=True)
                return 0 if ok else 1
            finally:
                if child is not None:
                    child.terminate()
                    try:
                        child.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        child.kill()
                await server.stop(1.0)

        return _serve_forever(check)


# ------------------------------------------------------------------------------------------------
# bench gateway
# ------------------------------------------------------------------------------------------------


def cmd_bench_gateway(args: argparse.Namespace) -> int:
    from arena.bench.gateway import run_gateway_bench

    figures = run_gateway_bench(matches=args.matches, seconds=args.seconds, warmup=args.warmup,
                                players=args.players, bots=args.bots, kit=args.kit, rounds=args.rounds)
    if args.json:
        print(json.dumps(figures))
    return 0


# ------------------------------------------------------------------------------------------------
# registration
# ------------------------------------------------------------------------------------------------


def register(commands: Any) -> None:
    """Add `serve`, `match`, `bot run|check` and `bench gateway` (`bots register` is the organizer API's)."""
    serve = commands.add_parser("serve", help="run the bot gateway (gRPC, health, reflection, relay, /metrics)")
    serve.add_argument("--address", default=None, help="listen address (default $UNO_ARENA_GRPC_ADDR or "
                                                       "0.0.0.0:50051)")
    serve.add_argument("--metrics-port", type=int, default=None,
                       help="Prometheus port (default $UNO_ARENA_METRICS_PORT or 9100; -1: none)")
    serve.add_argument("--gateway-id", default=None, help="id in Redis sessions (default: host-pid-random)")
    serve.add_argument("--hello-timeout", type=float, default=10.0, help="seconds a new stream has to say Hello")
    serve.add_argument("--heartbeat", type=float, default=10.0, help="seconds between Pings")
    serve.add_argument("--grace", type=float, default=5.0, help="seconds to finish calls on shutdown")
    serve.set_defaults(func=cmd_serve, long_running=True)

    match = commands.add_parser("match", help="one match between built-in and connected bots; prints the result")
    match.add_argument("--seats", required=True, help="comma-separated: random, heuristic or registered bot names")
    match.add_argument("--seed", type=int, default=1)
    match.add_argument("--match-id", default=None)
    match.add_argument("--deadline-ms", type=int, default=1000, help="per decision")
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
    run.add_argument("kind", choices=("random", "heuristic"))
    run.add_argument("--target", default="127.0.0.1:50051", help="the gateway, HOST:PORT")
    run.add_argument("--token", default=None, help="the bot's token (default $UNO_ARENA_BOT_TOKEN)")
    run.add_argument("--max-concurrent", type=int, default=16, help="matches offered to play at once")
    run.add_argument("--bot-version", default=None)
    run.add_argument("--verbose", "-v", action="store_true")
    run.set_defaults(func=cmd_bot_run, long_running=True)

    check = bot.add_parser("check", help="conformance checks against a bot that connects to a gateway started here")
    check.add_argument("--token", default=None, help="a registered bot's token (else a bot is registered here)")
    check.add_argument("--name", default=None, help="name to register when no --token is given")
    check.add_argument("--run", default=None, help="command starting the bot; {target} and {token} are filled in")
    check.add_argument("--address", default="127.0.0.1:0", help="where the gateway listens (default: a free port)")
    check.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the bot to connect")
    check.add_argument("--deadline-ms", type=int, default=1000)
    check.set_defaults(func=cmd_bot_check, long_running=True)

    gateway = bench_parsers(commands).add_parser("gateway", help="remote random bots over loopback vs a grpc echo")
    gateway.add_argument("--matches", type=int, default=64, help="concurrent matches")
    gateway.add_argument("--seconds", type=float, default=10.0, help="measuring time of each part")
    gateway.add_argument("--warmup", type=float, default=2.0)
    gateway.add_argument("--rounds", type=int, default=2,
                         help="interleaved rounds of the three measurements; the best of each is kept")
    gateway.add_argument("--players", type=int, default=4, choices=range(2, 11), metavar="N")
    gateway.add_argument("--bots", type=int, default=4, help="bot connections (streams)")
    gateway.add_argument("--kit", action="store_true",
                         help="bots decide through the full Python kit (engine types) instead of from the message")
    gateway.add_argument("--json", action="store_true")
    gateway.set_defaults(func=cmd_bench_gateway, long_running=True)
