"""`uno-arena competition ...`: continuous competitions (a rating pool with its rules and a self-running ladder).

    uno-arena competition create NAME [--entrants A,B,...] [--seats K] [--deadline-ms MS]
                                 [--matches-per-minute N] [--max-blocks N] [--blocks-per-bot N] [rule options]
    uno-arena competition list [--json]
    uno-arena competition standings NAME [--retired] [--json]
    uno-arena competition pause|resume|close NAME

Competitions live in the Redis at ``$REDIS_URL`` (the one the workers and the scheduler use): the scheduler runs
the ladder (:mod:`arena.service.competitions`) and the workers play its blocks. Without ``--entrants`` every
registered bot may play; the built-in bots (``random``, ``heuristic``, ``weakened``) enter only when named.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from arena.commands import add_rule_options, subparsers_of


def _store() -> Any:
    from arena.store import Store

    store = Store.from_url()
    store.check_config()
    return store


def cmd_create(args: argparse.Namespace) -> int:
    from arena.service.competitions import create_competition
    from arena.store import DuplicateCompetition, InvalidName, UnknownBot
    from arena.tournament.competition import CompetitionSpec

    rules = {"target": args.target, "bluffing": not args.no_bluffing, "uno_penalty": args.uno_penalty,
             "scoring": args.scoring, "start_flip": args.start_flip, "pairing": args.pairing}
    try:
        spec = CompetitionSpec(args.name, args.variant, rules, args.seats,
                               tuple(n.strip() for n in args.entrants.split(",") if n.strip()),
                               args.deadline_ms, args.matches_per_minute, args.max_blocks, args.blocks_per_bot,
                               seed=args.seed)
        with _store() as store:
            create_competition(store, spec)
    except (ValueError, InvalidName, UnknownBot, DuplicateCompetition) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    who = ", ".join(spec.entrants) if spec.entrants else "every registered bot"
    print(f"competition {spec.competition_id}: {spec.variant}, {spec.seats} seats, entrants: {who}; rating pool "
          f"{spec.pool}; the scheduler starts blocks while entrants are connected")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from arena.tournament.competition import CompetitionSpec

    with _store() as store:
        records = [store.competitions.get(cid) for cid in store.competitions.ids()]
    if args.json:
        print(json.dumps([{"competition": r.competition_id, "status": r.status, "spec": r.spec, "rounds": r.rounds,
                           "blocks": r.blocks, "created_at": r.created_at} for r in records], indent=2))
        return 0
    if not records:
        print("no competitions")
    for r in records:
        spec = CompetitionSpec.from_dict(r.spec)
        print(f"{r.competition_id:<24} {r.status:<7} {spec.variant:<7} {spec.seats} seats  {r.blocks:>6} blocks  "
              f"entrants: {', '.join(spec.entrants) or 'open'}")
    return 0


def cmd_standings(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from arena.service.competitions import competition_standings
    from arena.store import UnknownCompetition

    try:
        with _store() as store:
            rows, retired = competition_standings(store, args.name)
    except UnknownCompetition as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"entries": [asdict(r) for r in rows], "retired": retired}, indent=2))
        return 0
    print(f"{'rank':>4}  {'bot':<24} {'version':<16} {'rating':>7} {'95% interval':>17} {'matches':>7}  connected")
    for r in rows:
        print(f"{r.rank:>4}  {r.bot[:24]:<24} {r.version[:16]:<16} {r.rating:>7.2f} "
              f"{f'[{r.low:.1f}, {r.high:.1f}]':>17} {r.matches:>7}  {'yes' if r.connected else 'no'}")
    print("rating: mu of the competition's own pool, inside its 95% interval mu -/+ 1.96 sigma (each version of a "
          "bot is its own entry, from nothing)")
    if args.retired and retired:
        print("\nretired versions:")
        for e in retired:
            ended = time.strftime("%Y-%m-%d %H:%M", time.gmtime(float(e["retired_at"] or 0)))
            print(f"  {e['bot']}@{e['version']}: mu {e['mu']:.2f}, sigma {e['sigma']:.2f}, {e['matches']} matches, "
                  f"retired {ended}Z")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from arena.service.competitions import set_competition_status
    from arena.store import UnknownCompetition

    status = {"pause": "paused", "resume": "active", "close": "closed"}[args.competition_command]
    try:
        with _store() as store:
            old = set_competition_status(store, args.name, status)
    except (UnknownCompetition, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"competition {args.name}: {old} -> {status}")
    return 0


def register(commands: Any) -> None:
    """Add `competition create|list|standings|pause|resume|close`."""
    sub = subparsers_of(commands, "competition", "continuous competitions: a rating pool and a ladder that runs "
                        "itself", "competition_command")
    create = sub.add_parser("create", help="a new competition (active at once)")
    create.add_argument("name")
    create.add_argument("--entrants", default="", help="comma-separated bots (default: every registered bot)")
    create.add_argument("--seats", type=int, default=2)
    create.add_argument("--deadline-ms", type=int, default=1000)
    create.add_argument("--matches-per-minute", type=float, default=60.0, help="the ladder's global rate limit")
    create.add_argument("--max-blocks", type=int, default=8, help="blocks in flight at most")
    create.add_argument("--blocks-per-bot", type=int, default=1, help="blocks one bot plays at once at most")
    create.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "big"),
                        help="the ladder's seed (deals and tie-breaks); default: random")
    add_rule_options(create)
    create.set_defaults(func=cmd_create)
    listing = sub.add_parser("list", help="every competition")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(func=cmd_list)
    standings = sub.add_parser("standings", help="the ladder's entries by rating")
    standings.add_argument("name")
    standings.add_argument("--retired", action="store_true", help="also the retired versions")
    standings.add_argument("--json", action="store_true")
    standings.set_defaults(func=cmd_standings)
    for action, text in (("pause", "no new blocks until resumed"), ("resume", "start blocks again"),
                         ("close", "no new blocks, for good (blocks in flight still count)")):
        parser = sub.add_parser(action, help=text)
        parser.add_argument("name")
        parser.set_defaults(func=cmd_status)
