"""`uno-arena pools` and `uno-arena leaderboard POOL`: the rating pools and one pool's leaderboard, as the web shows
them (anyone may read them). Every number is printed as the arena returns it, with a legend naming each estimate:
nothing is computed here but the percent of a rate.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.client import ArenaClient, one_line, plain
from arena.client.legends import BATCH_NOTE, INTERVAL_NOTE, OPENSKILL_NOTE, batch_scope
from arena.commands.api import EVERY_FIELD, api_command, with_client
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
        rows.append((str(e.rank), str(e.tier or "-"), one_line(e.bot_name),
                     *batch_cells(e.batch if e.HasField("batch") else None), f"{e.rating:.2f}", str(e.matches),
                     str(e.wins), _percent(e, "win_rate"), interval))
    pool = response.pool
    lines = [f"{pool.pool_id}: {one_line(pool.label)} ({pool.bots} bots, {pool.matches} matches)"]
    if not response.entries:
        return [*lines, "no bot has played in this pool yet"]
    verdicts = verdict_lines(response.verdicts) if response.HasField("verdicts") else []
    return [*lines, *aligned(rows, frozenset({2})), *verdicts, ranked_by_text(response.ranked_by),
            OPENSKILL_NOTE, f"{BATCH_NOTE} {batch_scope(pool.competition_id)}", INTERVAL_NOTE]


def pools_lines(pools: list[arena_pb2.RatingPool]) -> list[str]:
    """The lines of `pools`: id, label, bots, matches."""
    if not pools:
        return ["no rating pools yet (a pool appears with its first rated match)"]
    rows: list[tuple[str, ...]] = [("pool", "label", "bots", "matches")]
    rows += [(p.pool_id, one_line(p.label), str(p.bots), str(p.matches)) for p in pools]
    return aligned(rows, frozenset({0, 1}))


def pools(client: ArenaClient, args: argparse.Namespace) -> int:
    found = client.list_rating_pools()
    print(json.dumps([plain(p) for p in found], indent=2) if args.json else "\n".join(pools_lines(found)))
    return 0


def leaderboard(client: ArenaClient, args: argparse.Namespace) -> int:
    response = client.get_leaderboard(args.pool)
    print(json.dumps(plain(response), indent=2) if args.json else "\n".join(leaderboard_lines(response)))
    return 0


def register(commands: Any) -> None:
    """Add `pools` and `leaderboard`."""
    api_command(commands, "pools", with_client(pools), json=EVERY_FIELD,
                help="the rating pools (one per variant and rule options, one per competition)")
    board = api_command(commands, "leaderboard", with_client(leaderboard), json=EVERY_FIELD,
                        help="one rating pool's leaderboard, as the web shows it")
    board.add_argument("pool", metavar="POOL", help="a pool id, as `uno-arena pools` lists them")
