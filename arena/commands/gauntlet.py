"""`uno-arena gauntlet ...`: is my new version better? And `uno-arena bench ladder`: the matchmaking simulation.

    uno-arena gauntlet --candidate BOT[@VERSION] --baseline BOT[@VERSION] [--opponents A,B] --seats K
                       [--max-blocks N] [--alpha 0.05] [--beta 0.05] [--mu0 0] [--mu1 0.05] [--min-blocks 16]
                       [--seed S] [--deadline-ms MS] [--name ID] [--json] [rule options]
    uno-arena gauntlet list [--limit N] [--json]
    uno-arena gauntlet show ID [--json]
    uno-arena bench ladder [--bots 8] [--seats 2] [--gap 0.6] [--max-matches 4000] [--seeds 12]

The gauntlet plays duplicate blocks in this process (:mod:`arena.service.gauntlet`): built-in bots in process,
registered bots through the relay of the Redis at ``$REDIS_URL`` (and the gateway holding their stream). It
prints the LLR and its bounds after every block and stops at a decision or at ``--max-blocks``. With
``$REDIS_URL`` set the gauntlet and its blocks are stored (``gauntlet list``/``show`` read them); without it,
built-in bots still play and nothing is kept.

Exit status of a gauntlet: 0 when it decided (accepted or rejected), 3 when the cap came first, 1 when it
failed (a bot missing or of the wrong version, matches aborted), 2 for bad command-line input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from arena.commands import add_rule_options, bench_parsers, rules_from_args

EXIT_INCONCLUSIVE = 3
DEFAULT_MAX_BLOCKS = 1000


def _store_or_none() -> Any:
    """A store on ``$REDIS_URL``, or ``None`` when it is not set."""
    if not os.environ.get("REDIS_URL"):
        return None
    from arena.store import Store

    store = Store.from_url()
    store.check_config()
    return store


def cmd_gauntlet(args: argparse.Namespace) -> int:
    from arena.service.gauntlet import GauntletError, build_spec, run_gauntlet
    from arena.store import StoreError
    from arena.tournament.sprt import SprtConfig
    from bots import make_bot

    if not args.candidate or not args.baseline:
        print("error: a gauntlet needs --candidate BOT[@VERSION] and --baseline BOT[@VERSION]", file=sys.stderr)
        return 2
    try:
        sprt = SprtConfig(mu0=args.mu0, mu1=args.mu1, alpha=args.alpha, beta=args.beta, min_blocks=args.min_blocks,
                          max_blocks=args.max_blocks)
        spec = build_spec(candidate=args.candidate, baseline=args.baseline, seats=args.seats,
                          opponents=[o for o in (args.opponents or "").split(",") if o.strip()],
                          rules=rules_from_args(args), sprt=sprt, seed=args.seed, deadline_ms=args.deadline_ms,
                          gauntlet_id=args.name or None)
        store = _store_or_none()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    lower, upper = sprt.bounds
    out = sys.stdout
    if not args.json:
        print(f"gauntlet {spec.gauntlet_id}: {spec.candidate} vs {spec.baseline}, {spec.seats} seats, opponents "
              f"{', '.join(spec.opponents)}", file=out)
        print(f"H0: mean block score <= {sprt.mu0:g}  H1: >= {sprt.mu1:g}  alpha {sprt.alpha:g}  beta {sprt.beta:g}  "
              f"bounds [{lower:.3f}, {upper:.3f}]  at most {sprt.max_blocks} blocks", file=out, flush=True)

    def on_block(block: Any) -> None:
        if args.json:
            print(json.dumps({"event": "block", **block.to_dict(), "mean": block.state.mean,
                              "bounds": [lower, upper], "outcome": block.state.outcome}), file=out, flush=True)
        else:
            print(f"block {block.block + 1:4d}  score {block.score:+.3f}  {block.state.line()}", file=out, flush=True)

    try:
        try:
            outcome = run_gauntlet(spec, store, make_bot=make_bot, on_block=on_block)
        finally:
            if store is not None:
                store.close()
    except (GauntletError, StoreError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted: the gauntlet stops here (stored as running)", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps({"event": "end", "id": spec.gauntlet_id, "status": outcome.status,
                          "state": outcome.state.to_dict(), "detail": outcome.detail, "stored": outcome.stored}),
              file=out)
    else:
        verdict = {"accepted": "accepted: the candidate is better (H1)",
                   "rejected": "rejected: the candidate is not better (H0)",
                   "inconclusive": f"inconclusive: no decision within {sprt.max_blocks} blocks",
                   "failed": f"failed: {outcome.detail}"}[outcome.status]
        print(f"{spec.gauntlet_id}: {verdict}" + ("" if outcome.stored else " (not stored: REDIS_URL is not set)"),
              file=out)
    return {"accepted": 0, "rejected": 0, "inconclusive": EXIT_INCONCLUSIVE}.get(outcome.status, 1)


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts)) + "Z" if ts else "-"


def gauntlet_rows(records: list[Any]) -> list[str]:
    """The lines of `gauntlet list`: id, status, candidate vs baseline, blocks, LLR, created."""
    rows = [("ID", "STATUS", "CANDIDATE", "BASELINE", "SEATS", "BLOCKS", "LLR", "CREATED")]
    for record in records:
        state = record.state
        rows.append((record.id, record.status, str(record.spec.get("candidate", "")),
                     str(record.spec.get("baseline", "")), str(record.spec.get("seats", "")), str(record.blocks),
                     f"{float(state.get('llr', 0.0)):+.3f}", _when(record.created_at)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]


def _stored_gauntlets() -> Any:
    """The store holding the gauntlets; None (the error said) without ``$REDIS_URL`` or with a bad one."""
    try:
        store = _store_or_none()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return None
    if store is None:
        print("error: gauntlets are stored in Redis: set REDIS_URL", file=sys.stderr)
    return store


def cmd_gauntlet_list(args: argparse.Namespace) -> int:
    store = _stored_gauntlets()
    if store is None:
        return 2
    if not 1 <= args.limit <= 1000:
        print(f"error: --limit must be between 1 and 1000, got {args.limit}", file=sys.stderr)
        return 2
    with store:
        records = store.gauntlets.recent(args.limit)
    if args.json:
        print(json.dumps([r.to_dict() for r in records], sort_keys=True))
    elif not records:
        print("no gauntlets yet")
    else:
        print("\n".join(gauntlet_rows(records)))
    return 0


def cmd_gauntlet_show(args: argparse.Namespace) -> int:
    from arena.store import UnknownGauntlet

    store = _stored_gauntlets()
    if store is None:
        return 2
    with store:
        gauntlets = store.gauntlets
        try:
            record = gauntlets.get(args.id)
            blocks = gauntlets.blocks(args.id)
        except (UnknownGauntlet, ValueError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps({**record.to_dict(), "block_list": blocks}, sort_keys=True))
        return 0
    print("\n".join(gauntlet_rows([record])))
    for block in blocks:
        print(f"block {int(block['block']) + 1:4d}  score {float(block['score']):+.3f}  LLR {float(block['llr']):+.3f}")
    if record.detail:
        print(f"detail: {record.detail}")
    return 0


def cmd_bench_ladder(args: argparse.Namespace) -> int:
    from arena.tournament.matchmaking import compare_matchmaking

    try:
        figures = compare_matchmaking(args.bots, args.seats, gap=args.gap, max_matches=args.max_matches,
                                      seeds=range(args.seeds))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{args.bots} bots, {args.seats} seats, latent strength gap {args.gap:g}, {args.seeds} seeded ladders "
          f"of at most {args.max_matches} matches: matches until the order by mu is right for good")
    base = figures[1]
    for figure in figures:
        print(f"  {figure.label:42s} mean {figure.mean:7.0f} ({figure.mean / base.mean:4.0%})  median "
              f"{figure.median:7.0f} ({figure.median / base.median:4.0%})  never ordered {figure.unordered}")
    return 0


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    return value


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None


def register(commands: Any) -> None:
    """Add `gauntlet` (run, list, show) and `bench ladder`."""
    from arena.tournament.sprt import DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_MIN_BLOCKS, DEFAULT_MU0, DEFAULT_MU1

    gauntlet = commands.add_parser("gauntlet", help="is the candidate better than the baseline? duplicate blocks "
                                                    "under a sequential test (list, show: stored gauntlets)")
    gauntlet.add_argument("--candidate", default="", metavar="BOT[@VERSION]", help="the bot under test")
    gauntlet.add_argument("--baseline", default="", metavar="BOT[@VERSION]", help="the bot it must beat")
    gauntlet.add_argument("--opponents", default="", metavar="A,B",
                          help="the other seats' bots, cycled (default: heuristic)")
    gauntlet.add_argument("--seats", type=_whole, default=2, metavar="K", help="seats per table, 2-10 (default 2)")
    gauntlet.add_argument("--max-blocks", type=_whole, default=DEFAULT_MAX_BLOCKS, metavar="N",
                          help=f"stop undecided after N blocks (default {DEFAULT_MAX_BLOCKS})")
    gauntlet.add_argument("--min-blocks", type=_whole, default=DEFAULT_MIN_BLOCKS, metavar="N",
                          help=f"no decision before N blocks (default {DEFAULT_MIN_BLOCKS})")
    gauntlet.add_argument("--alpha", type=_number, default=DEFAULT_ALPHA,
                          help=f"rate of accepting a candidate that is not better (default {DEFAULT_ALPHA:g})")
    gauntlet.add_argument("--beta", type=_number, default=DEFAULT_BETA,
                          help=f"rate of rejecting a candidate better by mu1 (default {DEFAULT_BETA:g})")
    gauntlet.add_argument("--mu0", type=_number, default=DEFAULT_MU0,
                          help=f"H0: mean block score at most this (default {DEFAULT_MU0:g})")
    gauntlet.add_argument("--mu1", type=_number, default=DEFAULT_MU1,
                          help=f"H1: mean block score at least this, in finishing points per match (default "
                               f"{DEFAULT_MU1:g})")
    gauntlet.add_argument("--seed", type=_whole, default=None, help="seed of the deals (default: random, not shown)")
    gauntlet.add_argument("--deadline-ms", type=_whole, default=1000, metavar="MS", help="per-decision deadline")
    gauntlet.add_argument("--name", default="", metavar="ID", help="gauntlet id (default: generated)")
    gauntlet.add_argument("--json", action="store_true", help="one JSON object per block, then the end")
    add_rule_options(gauntlet)
    gauntlet.set_defaults(func=cmd_gauntlet)
    actions = gauntlet.add_subparsers(dest="gauntlet_command", required=False, metavar="ACTION")
    listing = actions.add_parser("list", help="stored gauntlets, newest first (needs REDIS_URL)")
    listing.add_argument("--limit", type=_whole, default=50)
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(func=cmd_gauntlet_list)
    show = actions.add_parser("show", help="one stored gauntlet and its blocks (needs REDIS_URL)")
    show.add_argument("id", metavar="ID")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_gauntlet_show)

    ladder = bench_parsers(commands).add_parser(
        "ladder", help="matchmaking simulation: matches until a ladder orders bots of known strength")
    ladder.add_argument("--bots", type=_whole, default=8, help="bots on the ladder (default 8)")
    ladder.add_argument("--seats", type=_whole, default=2, help="seats per table (default 2)")
    ladder.add_argument("--gap", type=float, default=0.6, help="latent strength between neighbours (default 0.6)")
    ladder.add_argument("--max-matches", type=_whole, default=4000, help="matches per ladder (default 4000)")
    ladder.add_argument("--seeds", type=_whole, default=12, help="seeded ladders per policy (default 12)")
    ladder.set_defaults(func=cmd_bench_ladder, long_running=True)
