"""`uno-arena doctor`: what this machine can run, one line per part: Redis, the bot host's sandbox, the engine's speed
and a gateway (docs/operations.md, What this machine can run).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from typing import Any

from arena.commands import positive_float

HEALTH_TIMEOUT_S = 5.0
"""How long the gateway at ``--target`` has to answer its health check."""


def redis_line() -> tuple[bool, str]:
    from arena.local_arena import redis_problem
    from arena.store.embedded import RedisServerError, find_redis_server

    if os.environ.get("REDIS_URL", "").strip():
        problem = redis_problem()
        return problem is None, problem or "$REDIS_URL answers"
    try:
        return True, f"no $REDIS_URL: the embedded Redis runs {find_redis_server()}"
    except RedisServerError as error:
        return False, f"no $REDIS_URL and no embedded Redis: {error}"


def sandbox_line() -> tuple[bool, str]:
    from arena.hosting.sandbox import sandbox_missing

    missing = sandbox_missing()
    return not missing, missing or "bwrap runs the bot host's sandbox (namespaces and the syscall filter)"


def engine_line(seconds: float) -> tuple[bool, str]:
    from arena.engine import COMPILED, Match, Rules, Variant

    pick = random.Random(1).random
    rounds = decisions = seed = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        match = Match(players=4, seed=seed, rules=Rules(variant=Variant.FLIP))
        seed += 1
        while match.decision != "match_over":
            if match.decision == "round_over":
                rounds += 1
                match.next_round()
                continue
            legal = match.legal_actions()
            match.apply(match.current, legal[int(pick() * len(legal))])
            decisions += 1
        rounds += 1  # the round that ended the match
    elapsed = time.process_time() - start
    build = "compiled" if COMPILED else "pure Python"
    return True, (f"engine ({build}): {rounds / elapsed:,.0f} rounds/s, {decisions / elapsed:,.0f} decisions/s "
                  "(4-seat flip, random legal play)")


def gateway_line(target: str) -> tuple[bool, str]:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(target) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(),
                                                              timeout=HEALTH_TIMEOUT_S)
        except grpc.RpcError as error:
            code = error.code() if hasattr(error, "code") else None
            why = getattr(code, "name", "error")
            return False, f"no gateway answers at {target} ({why}): is `uno-arena serve` running there?"
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    return reply.status == health_pb2.HealthCheckResponse.SERVING, f"gateway at {target}: {status}"


def cmd_doctor(args: argparse.Namespace) -> int:
    checks = [redis_line, sandbox_line, lambda: engine_line(args.seconds)]
    if args.target:
        checks.append(lambda: gateway_line(args.target))
    healthy = True
    for check in checks:
        ok, text = check()
        healthy = healthy and ok
        print(f"{'ok  ' if ok else 'FAIL'} {text}", flush=True)
    if not args.target:
        print("--   gateway: not checked (give --target HOST:PORT)")
    return 0 if healthy else 1


def register(commands: Any) -> None:
    """Add `doctor`."""
    doctor = commands.add_parser("doctor", help="what this machine can run: Redis, the sandbox, the engine's speed, "
                                                "a gateway")
    doctor.add_argument("--target", default=None, metavar="HOST:PORT", help="check that a gateway answers there")
    doctor.add_argument("--seconds", type=positive_float, default=1.0, help="CPU time of the engine's run (default 1)")
    doctor.set_defaults(func=cmd_doctor)
