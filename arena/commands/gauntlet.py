"""`uno-arena gauntlet ...`: is my new version better? (docs/organizers.md, Gauntlets.) The gauntlet runs in the
arena; the command follows it, printing the LLR after every new block (Ctrl-C stops following, not the gauntlet).
Exit status: 0 when it decided, 3 when the cap came first, 1 when it failed or the arena refused a call, 2 for bad
command-line input.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from arena.client import ArenaClient, plain
from arena.commands import add_rule_options, fail, number, rules_from_args
from arena.commands.api import api_command, run_client, with_client
from arena.commands.tables import aligned, utc_time
from arena.protocol import arena_pb2
from arena.protocol.statuses import gauntlet_status

EXIT_INCONCLUSIVE = 3
DEFAULT_MAX_BLOCKS = 0
"""0: the automatic cap (:attr:`arena.tournament.stats.sprt.SprtState.needed_blocks`)."""
POLL_S = 1.0
"""How often a followed gauntlet is asked for its new blocks."""
EXIT_BY_STATE = {arena_pb2.GAUNTLET_STATE_ACCEPTED: 0, arena_pb2.GAUNTLET_STATE_REJECTED: 0,
                 arena_pb2.GAUNTLET_STATE_INCONCLUSIVE: EXIT_INCONCLUSIVE}


def state_name(state: int) -> str:
    """A gauntlet state for people: its :class:`~arena.tournament.status.GauntletStatus` word, else ``unspecified``."""
    return str(gauntlet_status(state) or "unspecified")


def gauntlet_spec(args: argparse.Namespace) -> arena_pb2.GauntletSpec:
    """The GauntletSpec of the options; ValueError naming a bad one (the sequential test's numbers are checked
    here, by the same rules as the arena's, so a mistyped ``--alpha`` needs no arena to be told)."""
    from arena.protocol.convert import rules_to_proto

    if not args.candidate or not args.baseline:
        raise ValueError("a gauntlet needs --candidate BOT[@VERSION] and --baseline BOT[@VERSION]")
    sprt_config(args.mu0, args.mu1, args.alpha, args.beta, args.max_blocks, args.min_blocks)
    for flag, value in (("--seats", args.seats), ("--seed", args.seed or 0),
                        ("--deadline-ms", args.decision_deadline_ms or 0)):
        if value < 0:
            raise ValueError(f"{flag} must not be negative, got {value}")
    return arena_pb2.GauntletSpec(
        candidate=args.candidate, baseline=args.baseline,
        opponents=[o.strip() for o in (args.opponents or "").split(",") if o.strip()],
        seats_per_table=args.seats, rules=rules_to_proto(rules_from_args(args)), alpha=args.alpha, beta=args.beta,
        mu0=args.mu0, mu1=args.mu1, max_blocks=args.max_blocks, min_blocks=args.min_blocks, seed=args.seed or 0,
        decision_deadline_ms=args.decision_deadline_ms or 0)


BIAS_AFTER_ACCEPTANCE = (0.0, 0.03)
"""How high the mean printed after an acceptance read in the sequential test's benchmark (its ``bias|H1``
column at true gains of 1-3 x ``mu1``, every case; docs/benchmarks.md, Sequential test)."""


def _header(g: arena_pb2.Gauntlet) -> list[str]:
    spec = g.spec
    cap = (f"at most {spec.max_blocks} blocks" if spec.max_blocks
           else "cap: automatic (where about 1% of such tests are undecided at the current estimate)")
    return [f"gauntlet {g.gauntlet_id}: {spec.candidate} vs {spec.baseline}, {spec.seats_per_table} seats, opponents "
            f"{', '.join(spec.opponents)}",
            f"H0: gain <= {spec.mu0:g}  H1: gain >= {spec.mu1:g} finishing points per match  alpha {spec.alpha:g}  "
            f"beta {spec.beta:g}  bounds [{g.llr_lower:.3f}, {g.llr_upper:.3f}]  {cap}"]


def block_line(block: arena_pb2.GauntletBlock, g: arena_pb2.Gauntlet) -> str:
    """One block as `gauntlet` prints it: its number (from 1), its score, the LLR after it within the bounds."""
    return (f"block {block.block:4d}  score {block.score:+.3f}  LLR {block.llr:+.3f} in "
            f"[{g.llr_lower:.3f}, {g.llr_upper:.3f}]")


def progress_line(g: arena_pb2.Gauntlet) -> str:
    """How far a running gauntlet has to go: the blocks it expects at the current estimate, and the cap."""
    if g.HasField("expected_blocks_left"):
        towards = "H1" if g.llr > 0 else "H0"
        left = f"about {g.expected_blocks_left} more blocks expected (towards {towards}, at the current estimate)"
    else:
        left = "no direction yet"
    cap = f"cap {g.cap_blocks}" + ("" if g.spec.max_blocks else " (automatic, re-estimated as blocks come)")
    return f"after {g.blocks} blocks: {left}; {cap}"


def cap_advice(g: arena_pb2.Gauntlet) -> str | None:
    """The warning for an author whose cap is short of what the test needs at the current estimate (None when it
    is not, or not known yet)."""
    if not g.spec.max_blocks or not g.needed_blocks or g.needed_blocks <= g.spec.max_blocks:
        return None
    return (f"note: at the current estimate this test needs about {g.needed_blocks} blocks to be undecided only 1% "
            f"of the time where H0 or H1 holds; the cap of {g.spec.max_blocks} leaves about "
            f"{100 * g.undecided_at_cap:.0f}% undecided (--max-blocks 0: the automatic cap)")


def verdict_line(g: arena_pb2.Gauntlet) -> str:
    cap = g.spec.max_blocks or g.cap_blocks or g.blocks
    verdict = {arena_pb2.GAUNTLET_STATE_ACCEPTED: "accepted: the candidate is better (H1)",
               arena_pb2.GAUNTLET_STATE_REJECTED: "rejected: the candidate is not better (H0)",
               arena_pb2.GAUNTLET_STATE_INCONCLUSIVE: f"inconclusive: no decision within {cap} blocks"
                                                      + ("" if g.spec.max_blocks else " (the automatic cap)"),
               }.get(g.state, f"{state_name(g.state)}: {g.detail}")
    low, high = BIAS_AFTER_ACCEPTANCE
    bias = (f"; after an acceptance it reads {low:+.2f} to {high:+.2f} high (docs/benchmarks.md)"
            if g.state == arena_pb2.GAUNTLET_STATE_ACCEPTED else "")
    return (f"{g.gauntlet_id}: {verdict}  (blocks {g.blocks}, mean {g.mean_score:+.4f} not corrected for the early "
            f"stop{bias}; LLR {g.llr:+.3f} in [{g.llr_lower:.3f}, {g.llr_upper:.3f}])")


def follow(client: ArenaClient, gauntlet_id: str, as_json: bool, poll_s: float = POLL_S) -> arena_pb2.Gauntlet:
    """Print each new block of a gauntlet (polling GetGauntlet) until it ends; returns it as it ended."""
    last = 0  # blocks are numbered from 1
    advised = False
    while True:
        answer = client.get_gauntlet(gauntlet_id, after_block=last)
        g = answer.gauntlet
        fresh = [block for block in answer.blocks if block.block > last]
        for block in fresh:
            last = block.block
            if as_json:
                print(json.dumps({"event": "block", **plain(block), "bounds": [g.llr_lower, g.llr_upper]}),
                      flush=True)
            else:
                print(block_line(block, g), flush=True)
        running = g.state == arena_pb2.GAUNTLET_STATE_RUNNING
        if fresh and running and last == g.blocks:
            if as_json:
                print(json.dumps({"event": "progress", "blocks": g.blocks,
                                  "expected_blocks_left": g.expected_blocks_left
                                  if g.HasField("expected_blocks_left") else None,
                                  "needed_blocks": g.needed_blocks, "cap_blocks": g.cap_blocks,
                                  "undecided_at_cap": g.undecided_at_cap}), flush=True)
            else:
                print(progress_line(g), flush=True)
                advice = cap_advice(g)
                if advice is not None and not advised and g.blocks >= g.spec.min_blocks:
                    print(advice, flush=True)
                    advised = True
        if not running and last >= g.blocks:
            return g
        time.sleep(poll_s)


def cmd_gauntlet(args: argparse.Namespace) -> int:
    try:
        spec = gauntlet_spec(args)
    except ValueError as error:
        return fail(error)

    def body(client: ArenaClient, args: argparse.Namespace) -> int:
        import grpc

        try:
            started = client.start_gauntlet(spec, gauntlet_id=args.name)
        except grpc.RpcError as error:
            if isinstance(error, grpc.Call) and error.code() == grpc.StatusCode.INVALID_ARGUMENT:
                return fail(error.details())
            raise
        if not args.json:
            print("\n".join(_header(started)), flush=True)
        try:
            ended = follow(client, started.gauntlet_id, args.json, args.poll)
        except KeyboardInterrupt:
            print(f"\ninterrupted: the gauntlet goes on in the arena (uno-arena gauntlet show {started.gauntlet_id})",
                  file=sys.stderr)
            return 130
        if args.json:
            print(json.dumps({"event": "end", "id": ended.gauntlet_id, "status": state_name(ended.state),
                              "gauntlet": plain(ended)}))
        else:
            print(verdict_line(ended))
        return EXIT_BY_STATE.get(ended.state, 1)

    return run_client(args, body)


def gauntlet_rows(gauntlets: list[arena_pb2.Gauntlet]) -> list[str]:
    """The lines of `gauntlet list`: id, status, candidate vs baseline, blocks, blocks expected still (``-`` once
    ended or without a direction), LLR, created."""
    rows: list[tuple[str, ...]] = [("ID", "STATUS", "CANDIDATE", "BASELINE", "SEATS", "BLOCKS", "LEFT", "LLR",
                                    "CREATED")]
    rows += [(g.gauntlet_id, state_name(g.state), g.spec.candidate, g.spec.baseline, str(g.spec.seats_per_table),
              str(g.blocks), f"~{g.expected_blocks_left}" if g.HasField("expected_blocks_left") else "-",
              f"{g.llr:+.3f}", utc_time(g.created_at)) for g in gauntlets]
    return aligned(rows)


def _gauntlet_json(g: arena_pb2.Gauntlet) -> dict[str, Any]:
    return {**plain(g), "status": state_name(g.state)}


def gauntlet_list(client: ArenaClient, args: argparse.Namespace) -> int:
    gauntlets = client.list_gauntlets(args.limit)
    if args.json:
        print(json.dumps([_gauntlet_json(g) for g in gauntlets], sort_keys=True))
    elif not gauntlets:
        print("no gauntlets yet")
    else:
        print("\n".join(gauntlet_rows(gauntlets)))
    return 0


def gauntlet_verify(client: ArenaClient, args: argparse.Namespace) -> int:
    from arena.service.verification import verify_gauntlet_seed

    g = client.get_gauntlet(args.id).gauntlet
    if g.state == arena_pb2.GAUNTLET_STATE_RUNNING:
        print(f"gauntlet {g.gauntlet_id} is running: its seed and secret are revealed when it ends; verify it then",
              file=sys.stderr)
        return 1
    found = verify_gauntlet_seed(g.seed_commitment, g.spec.seed, g.seed_salt, g.seed_secret, g.blocks,
                                 g.spec.seats_per_table)
    if args.deals:
        for block, seeds in enumerate(found.deals, start=1):
            print(f"block {block:4d}  deal seeds by seat: {' '.join(str(seed) for seed in seeds)}")
    print(f"gauntlet {g.gauntlet_id} ({state_name(g.state)}): seed {g.spec.seed}, commitment "
          f"{'ok' if found.committed else 'FAILED'}; {len(found.deals)} blocks' deals re-derived from the seed and "
          "the secret")
    return 0 if found.committed else 1


def gauntlet_show(client: ArenaClient, args: argparse.Namespace) -> int:
    answer = client.get_gauntlet(args.id)
    g = answer.gauntlet
    if args.json:
        print(json.dumps({**_gauntlet_json(g), "block_list": [plain(b) for b in answer.blocks]}, sort_keys=True))
        return 0
    print("\n".join(gauntlet_rows([g])))
    for block in answer.blocks:
        print(block_line(block, g))
    if g.state == arena_pb2.GAUNTLET_STATE_RUNNING:
        print(progress_line(g))
        advice = cap_advice(g)
        if advice is not None:
            print(advice)
    else:
        print(verdict_line(g))
    if g.detail:
        print(f"detail: {g.detail}")
    return 0


def sprt_config(mu0: float, mu1: float, alpha: float, beta: float, max_blocks: int, min_blocks: int | None = None
                ) -> Any:
    """The test of these options: a cap of 0 is the automatic one (ValueError naming a bad option)."""
    from arena.tournament.stats.sprt import AUTO_CAP_CEILING, DEFAULT_MIN_BLOCKS, SprtConfig

    if max_blocks < 0:
        raise ValueError(f"--max-blocks must not be negative, got {max_blocks}")
    return SprtConfig(mu0=mu0, mu1=mu1, alpha=alpha, beta=beta, min_blocks=min_blocks or DEFAULT_MIN_BLOCKS,
                      max_blocks=max_blocks or AUTO_CAP_CEILING, auto_cap=not max_blocks)


def register(commands: Any) -> None:
    """Add `gauntlet` (run, list, show, verify)."""
    from arena.tournament.stats import sprt

    whole, real = number(int, "whole number"), number(float)
    gauntlet = api_command(commands, "gauntlet", cmd_gauntlet, json="one JSON object per block, then the end",
                           help="is the candidate better than the baseline? duplicate blocks "
                                "under a sequential test (list, show: stored gauntlets)")
    gauntlet.add_argument("--candidate", default="", metavar="BOT[@VERSION]", help="the bot under test")
    gauntlet.add_argument("--baseline", default="", metavar="BOT[@VERSION]", help="the bot it must beat")
    gauntlet.add_argument("--opponents", default="", metavar="A,B",
                          help="the other seats' bots, cycled (default: heuristic)")
    gauntlet.add_argument("--seats", type=whole, default=2, metavar="K", help="seats per table, 2-10 (default 2)")
    gauntlet.add_argument("--max-blocks", type=whole, default=DEFAULT_MAX_BLOCKS, metavar="N",
                          help="stop undecided after N blocks (default 0: automatic, where about 1%% of such tests "
                               "are still undecided at the current estimate)")
    gauntlet.add_argument("--min-blocks", type=whole, default=sprt.DEFAULT_MIN_BLOCKS, metavar="N",
                          help=f"no decision before N blocks (default {sprt.DEFAULT_MIN_BLOCKS}; nor before "
                               f"{sprt.DEFAULT_MIN_NONZERO} blocks that did not score 0)")
    gauntlet.add_argument("--alpha", type=real, default=sprt.DEFAULT_ALPHA,
                          help=f"rate of accepting a candidate that is not better (default {sprt.DEFAULT_ALPHA:g})")
    gauntlet.add_argument("--beta", type=real, default=sprt.DEFAULT_BETA,
                          help=f"rate of rejecting a candidate better by mu1 (default {sprt.DEFAULT_BETA:g})")
    gauntlet.add_argument("--mu0", type=real, default=sprt.DEFAULT_MU0,
                          help=f"H0: the candidate gains at most this many finishing points per match over the "
                               f"baseline (1 = first, 0 = last; default {sprt.DEFAULT_MU0:g})")
    gauntlet.add_argument("--mu1", type=real, default=sprt.DEFAULT_MU1,
                          help=f"H1: the candidate gains at least this many finishing points per match over the "
                               f"baseline (default {sprt.DEFAULT_MU1:g}: first instead of last on one deal in 20, net)")
    gauntlet.add_argument("--seed", type=whole, default=None, help="seed of the deals (default: random, not shown)")
    gauntlet.add_argument("--deadline-ms", dest="decision_deadline_ms", type=whole, default=None, metavar="MS",
                          help="per-decision deadline (default: the arena's)")
    gauntlet.add_argument("--name", default="", metavar="ID", help="gauntlet id (default: generated)")
    gauntlet.add_argument("--poll", type=float, default=POLL_S, help=argparse.SUPPRESS)
    add_rule_options(gauntlet)
    actions = gauntlet.add_subparsers(dest="gauntlet_command", required=False, metavar="ACTION")
    listing = api_command(actions, "list", with_client(gauntlet_list), json="",
                          help="the arena's gauntlets, newest first")
    listing.add_argument("--limit", type=whole, default=0, help="at most N (default: the arena's, 50)")
    show = api_command(actions, "show", with_client(gauntlet_show), json="", help="one gauntlet and its blocks")
    show.add_argument("id", metavar="ID")
    verify = api_command(actions, "verify", with_client(gauntlet_verify),
                         help="check an ended gauntlet's revealed seed and secret against its "
                              "commitment; --deals prints every block's deal seeds")
    verify.add_argument("id", metavar="ID")
    verify.add_argument("--deals", action="store_true", help="print the deal seed of every seat of every block")
