"""`gateway` and `abuse`: the gateway's benchmarks.

    python -m benchmarks gateway [--matches 64] [--seconds 10]
        Remote random bots over loopback vs a bare grpc.aio echo (benchmarks.gateway).
    python -m benchmarks abuse [--attacks pong-flood,...] [--seconds 5] [--rounds 2] [--hosted] [--json]
        A well-behaved bot's decisions/s and p99 without and with each attack (benchmarks.abuse); --hosted: a
        hosted bot beside hostile hosted bots, a bot that attacks outside its check and archive bombs sent to
        the organizer API (benchmarks.hosted_abuse; needs bwrap).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def cmd_bench_abuse(args: argparse.Namespace) -> int:
    from benchmarks import abuse, hosted_abuse

    known = hosted_abuse.ATTACKS if args.hosted else abuse.ATTACKS
    attacks = [a.strip() for a in (args.attacks or ",".join(known)).split(",") if a.strip()]
    unknown = [a for a in attacks if a not in known]
    if unknown or not attacks:
        mode = " with --hosted" if args.hosted else ""
        print(f"--attacks: unknown {', '.join(unknown) or 'none given'} (known{mode}: {', '.join(known)})",
              file=sys.stderr)
        return 2
    if args.hosted:
        return _bench_hosted_abuse(args, attacks)
    figures = abuse.run_abuse_bench(attacks=attacks, seconds=args.seconds, warmup=args.warmup, matches=args.matches,
                              think_ms=args.think_ms, rounds=args.rounds or 2)
    if args.json:
        print(json.dumps(figures))
    return 0


def _bench_hosted_abuse(args: argparse.Namespace, attacks: list[str]) -> int:
    from arena.hosting.sandbox import sandbox_missing
    from benchmarks.hosted_abuse import HostedAbuseOptions, run_hosted_abuse_bench

    missing = sandbox_missing()
    if missing:
        print(f"abuse --hosted needs the bot host's sandbox: {missing}", file=sys.stderr)
        return 2
    options = HostedAbuseOptions(attacks=tuple(attacks), seconds=args.seconds, warmup=args.warmup,
                                 matches=args.matches, think_ms=args.think_ms, rounds=args.rounds or 1)
    try:
        figures = run_hosted_abuse_bench(options, sys.stderr if args.json else sys.stdout)
    except RuntimeError as error:
        print(f"abuse --hosted failed: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(figures))
    return 0


def cmd_bench_gateway(args: argparse.Namespace) -> int:
    from benchmarks.gateway import run_gateway_bench

    figures = run_gateway_bench(matches=args.matches, seconds=args.seconds, warmup=args.warmup,
                                players=args.players, bots=args.bots, kit=args.kit, rounds=args.rounds)
    if args.json:
        print(json.dumps(figures))
    return 0


def register(commands: Any) -> None:
    """Add `gateway` and `abuse`."""
    gateway = commands.add_parser("gateway", help="remote random bots over loopback vs a grpc echo")
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

    abuse = commands.add_parser(
        "abuse", help="a well-behaved bot's decisions/s and p99 without and with each attack (benchmarks.abuse)")
    abuse.add_argument("--attacks", default=None,
                       help="comma-separated: pong-flood, reconnect-storm, garbage, tcp-garbage, no-read "
                            "(default all); with --hosted: tcp, snoop, fork-bomb, memory-bomb, disk-fill, spin, "
                            "stdout-flood, never-connect, keyring-counter, api-tail-counter, inode-flood, "
                            "bomb-inside, outside-check, bomb-tar, bomb-tar.gz, bomb-zip (default all)")
    abuse.add_argument("--hosted", action="store_true",
                       help="a well-behaved bot run by the bot host (Redis, `serve` and `host` with bwrap, each its "
                            "own process) beside hostile hosted bots (benchmarks.hosted_abuse)")
    abuse.add_argument("--seconds", type=float, default=5.0, help="measuring time without and with each attack")
    abuse.add_argument("--warmup", type=float, default=1.0, help="seconds after an attack starts before measuring")
    abuse.add_argument("--matches", type=int, default=8, help="the well-behaved bot's matches at once")
    abuse.add_argument("--think-ms", type=float, default=10.0, help="its opponent's time per move (paces the load)")
    abuse.add_argument("--rounds", type=int, default=None,
                       help="interleaved rounds of every measurement; the best of each side is kept (default 2; "
                            "1 with --hosted)")
    abuse.add_argument("--json", action="store_true")
    abuse.set_defaults(func=cmd_bench_abuse, long_running=True)
