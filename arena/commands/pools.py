"""`uno-arena pools` and `uno-arena leaderboard POOL`: the rating pools and one pool's leaderboard, as the web shows
them (ListRatingPools, GetLeaderboard at ``--server``; anyone may read them).

    uno-arena pools [--json]
    uno-arena leaderboard POOL [--json]

Every number is printed as the arena returns it (rank, tier, the batch Plackett-Luce rating with its interval and
rank range, the OpenSkill rating, matches, wins, win rate and its interval), with a legend
naming each estimate: nothing is computed here but the percent of a rate.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.client import ArenaClient, one_line, plain
from arena.client.legends import BATCH_NOTE, INTERVAL_NOTE, OPENSKILL_NOTE, UNCLUSTERED_NOTE, batch_scope
from arena.commands.api import api_command, run_client
from arena.commands.tables import aligned, batch_cells, ranked_by_text, verdict_lines
from arena.protocol import arena_pb2

LEADERBOARD_HEADER = ("rank", "tier", "bot", "PL", "PL 95% CI", "PL ranks", "OpenSkill", "matches", "wins", "win%",
                      "win% 95% CI")


def _percent(entry: arena_pb2.LeaderboardEntry, field: str) -> str:
    return f"{100.0 * getattr(entry, field):.1f}" if entry.HasField(field) else "-"


def leaderboard_lines(response: arena_pb2.GetLeaderboardResponse) -> list[str]:
    """The lines of `leaderboard`: the pool's name, one row per bot in the arena's order, the legend."""
    rows: list[tuple[str, ...]] = [LEADERBOARD_HEADER]
    for e in response.entries:
        interval = (f"[{_percent(e, 'win_rate_low')}, {_percent(e, 'win_rate_high')}]"
                    if e.HasField("win_rate_low") else "-")
        if e.HasField("win_rate_low") and not e.win_rate_clustered:
            interval += "*"
        rows.append((str(e.rank), str(e.tier or "-"), one_line(e.bot_name),
                     *batch_cells(e.batch if e.HasField("batch") else None), f"{e.rating:.2f}", str(e.matches),
                     str(e.wins),
                     _percent(e, "win_rate"), interval))
    pool = response.pool
    lines = [f"{pool.pool_id}: {one_line(pool.label)} ({pool.bots} bots, {pool.matches} matches)"]
    if not response.entries:
        return [*lines, "no bot has played in this pool yet"]
    unclustered = any(e.HasField("win_rate_low") and not e.win_rate_clustered for e in response.entries)
    verdicts = verdict_lines(response.verdicts) if response.HasField("verdicts") else []
    return [*lines, *aligned(rows, frozenset({2})), *verdicts, ranked_by_text(response.ranked_by),
            OPENSKILL_NOTE, f"{BATCH_NOTE} {batch_scope(pool.competition_id)}", INTERVAL_NOTE,
            *([UNCLUSTERED_NOTE] if unclustered else [])]


def pools_lines(pools: list[arena_pb2.RatingPool]) -> list[str]:
    """The lines of `pools`: id, label, bots, matches."""
    if not pools:
        return ["no rating pools yet (a pool appears with its first rated match)"]
    rows: list[tuple[str, ...]] = [("pool", "label", "bots", "matches")]
    rows += [(p.pool_id, one_line(p.label), str(p.bots), str(p.matches)) for p in pools]
    return aligned(rows, frozenset({0, 1}))


def cmd_pools(args: argparse.Namespace) -> int:
    def body(client: ArenaClient, args: argparse.Namespace) -> int:
        pools = client.list_rating_pools()
        print(json.dumps([plain(p) for p in pools], indent=2) if args.json else "\n".join(pools_lines(pools)))
        return 0

    return run_client(args, body)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    def body(client: ArenaClient, args: argparse.Namespace) -> int:
        response = client.get_leaderboard(args.pool)
        print(json.dumps(plain(response), indent=2) if args.json else "\n".join(leaderboard_lines(response)))
        return 0

    return run_client(args, body)


def register(commands: Any) -> None:
    """Add `pools` and `leaderboard`."""
    pools = api_command(commands, "pools", cmd_pools,
                        help="the rating pools (one per variant and rule options, one per competition)")
    pools.add_argument("--json", action="store_true", help="every field, numbers as numbers")
    board = api_command(commands, "leaderboard", cmd_leaderboard,
                        help="one rating pool's leaderboard, as the web shows it")
    board.add_argument("pool", metavar="POOL", help="a pool id, as `uno-arena pools` lists them")
    board.add_argument("--json", action="store_true", help="every field, numbers as numbers")
