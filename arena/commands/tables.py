"""What the commands print about tournaments and ratings: aligned tables, the standings of a tournament, the verdicts
of a leaderboard, a tournament's progress line, and :func:`watch`, which follows a tournament to its end."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from arena.client import ArenaClient, one_line, state_name
from arena.client.legends import BATCH_NOTE, INTERVAL_NOTE, OPENSKILL_NOTE
from arena.protocol import arena_pb2

_ENDED_BADLY = (arena_pb2.TOURNAMENT_STATE_CANCELLED, arena_pb2.TOURNAMENT_STATE_FAILED)


def utc_time(stamp: Any) -> str:
    """A ``Timestamp`` as ``YYYY-MM-DD HH:MM:SSZ``; ``-`` when unset."""
    return time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(stamp.seconds)) if stamp.seconds else "-"


ELIDED = "..."


def aligned(rows: list[tuple[str, ...]], left: frozenset[int] | None = None, caps: Sequence[int] = ()) -> list[str]:
    """Aligned lines of ``rows``: the columns in ``left`` (None: every one) to the left, the others to the right; the
    first columns at most as wide as their ``caps``, a longer value cut, ending in :data:`ELIDED`."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    widths[:len(caps)] = [min(width, cap) for width, cap in zip(widths, caps, strict=False)]

    def cell(i: int, text: str) -> str:
        text = text if len(text) <= widths[i] else text[: widths[i] - len(ELIDED)] + ELIDED
        return text.ljust(widths[i]) if left is None or i in left else text.rjust(widths[i])

    return ["  ".join(cell(i, text) for i, text in enumerate(row)).rstrip() for row in rows]


def batch_cells(batch: Any | None) -> tuple[str, str, str]:
    """A ``BatchRating`` (or none) as the cells rating, 95% interval and rank range."""
    if batch is None:
        return ("-", "-", "-")
    ranks = str(batch.rank) if batch.best_rank == batch.worst_rank else f"{batch.best_rank}-{batch.worst_rank}"
    return (f"{batch.rating:.2f}", f"[{batch.low:.2f}, {batch.high:.2f}]", ranks)


VERDICT_PAIRS_SHOWN = 12
"""The most pairs :func:`verdict_lines` names on each of its lines (the rest counted)."""


def verdict_lines(verdicts: Any) -> list[str]:
    """A ``Verdicts`` message as text: its summary sentence, the pairs told apart, and for the rest what more would
    tell them apart (the closest first)."""
    if not verdicts.pairs:
        return [verdicts.summary] if verdicts.summary else []

    def named(pairs: list[Any], text: Callable[[Any], str]) -> str:
        shown = ", ".join(text(p) for p in pairs[:VERDICT_PAIRS_SHOWN])
        return shown + (f" and {len(pairs) - VERDICT_PAIRS_SHOWN} more" if len(pairs) > VERDICT_PAIRS_SHOWN else "")

    apart = [p for p in verdicts.pairs if p.told_apart]
    waiting = sorted((p for p in verdicts.pairs if not p.told_apart),
                     key=lambda p: p.more_matches if p.HasField("more_matches") else float("inf"))
    lines = [verdicts.summary]
    if apart:
        lines.append("told apart (95%): " + named(apart, lambda p: f"{one_line(p.bot_a)} > {one_line(p.bot_b)}"))
    if waiting:
        lines.append("not yet told apart: " + named(waiting, lambda p: (
            f"{one_line(p.bot_a)} = {one_line(p.bot_b)} ("
            + (f"about {p.more_matches:,} more matches" if p.HasField("more_matches") else "even so far") + ")")))
    return lines


STANDINGS_HEADER = ("rank", "tier", "bot", "matches", "wins", "win%", "win% 95% CI", "points", "mean pts",
                    "forfeits", "timeouts", "refusals", "PL", "PL 95% CI", "PL ranks", "OpenSkill")
"""The columns of :func:`standings_text`: this tournament's result first, the ratings last."""
STANDINGS_NOTE = (
    "rank and tier: this tournament's batch PL rating (adjusted for who met whom; in a 2-bot field the exact sign "
    "test over the deal groups each won); a tier holds the bots not told apart (95%, Holm's control over all "
    "pairs).\n"
    f"{BATCH_NOTE} Over this tournament's matches.\n"
    f"{OPENSKILL_NOTE} The pool's, carried over from earlier tournaments with this one's matches applied; it only "
    "breaks the ties left in the rank.\n"
    f"{INTERVAL_NOTE}"
)


def standings_text(response: Any) -> str:
    """The standings of a GetStandingsResponse (:data:`STANDINGS_HEADER`), the verdicts, the head-to-head table of a
    2-seat tournament, what the columns mean, and whether the standings are final."""
    rows: list[tuple[str, ...]] = [STANDINGS_HEADER]
    for row in response.standings:
        has_rate = row.HasField("win_rate")
        rows.append((
            str(row.rank), str(row.tier or "-"), one_line(row.bot_name), str(row.matches), str(row.wins),
            f"{100.0 * row.win_rate:.1f}" if has_rate else "-",
            f"[{100.0 * row.win_rate_low:.1f}, {100.0 * row.win_rate_high:.1f}]" if row.HasField("win_rate_low")
            else "-",
            str(row.points), f"{row.mean_points:.1f}" if row.HasField("mean_points") else "-",
            str(row.forfeits), str(row.timeouts), str(row.refusals),
            *batch_cells(row.batch if row.HasField("batch") else None),
            f"{row.rating:.2f}",
        ))
    lines = aligned(rows, frozenset({2}))
    lines += verdict_lines(response.verdicts) if response.HasField("verdicts") else []
    if response.head_to_head:
        lines += ["", "head to head (row's wins-losses against column):"]
        names = [one_line(row.bot_name) for row in response.standings]
        cells = {(one_line(c.bot_name), one_line(c.opponent)): f"{c.wins}-{c.losses}" for c in response.head_to_head}
        grid = [("", *names), *((a, *(cells.get((a, b), "") if a != b else "x" for b in names)) for a in names)]
        lines += aligned(grid, frozenset({0}))
    lines += ["", STANDINGS_NOTE, _final_line(response)]
    return "\n".join(lines)


def _final_line(response: Any) -> str:
    if not response.final:
        return "provisional: the tournament is still running"
    if response.state in _ENDED_BADLY:
        return f"final: the tournament was {state_name(response.state)} (no further match starts)"
    return "final"


def ranked_by_text(ranked_by: int) -> str:
    """The rank-and-tier line of a leaderboard or a ladder, naming the rating its ``ranked_by`` names."""
    rating = ("the PL rating (then OpenSkill's)" if ranked_by == arena_pb2.LEADERBOARD_RANKING_BATCH
              else "the OpenSkill rating")
    return f"rank and tier: by {rating}; a tier holds the bots it cannot yet tell apart (95%, over every pair)."


def progress_line(tournament: Any, width: int = 30) -> str:
    total = max(1, tournament.matches_total)
    done = tournament.matches_done
    filled = min(width, int(width * done / total))
    bar = "#" * filled + "." * (width - filled)
    failed = f", {tournament.matches_failed} aborted" if tournament.matches_failed else ""
    return (f"{tournament.tournament_id} [{bar}] {done}/{tournament.matches_total} matches "
            f"({100.0 * done / total:.0f}%{failed}) {state_name(tournament.state)}")


def watch(client: ArenaClient, tournament_id: str, out: Any, *, quiet: bool = False) -> int:
    """Follow a tournament to its end, then print its standings; 0 if it finished."""
    tty = bool(getattr(out, "isatty", lambda: False)())
    last = None
    shown = -1
    previous = ""
    for update in client.watch_tournament(tournament_id):
        t = last = update.tournament
        line = progress_line(t)
        if quiet or line == previous:
            continue
        step = max(1, t.matches_total // 20)  # without a terminal, about 20 lines at most
        if tty:
            print("\r" + line, end="", file=out, flush=True)
        elif t.matches_done - shown >= step or t.state != arena_pb2.TOURNAMENT_STATE_RUNNING or shown < 0:
            print(line, file=out, flush=True)
            shown = t.matches_done
        else:
            continue
        previous = line
    if tty and not quiet:
        print(file=out)
    if last is None:
        return 1
    if last.state == arena_pb2.TOURNAMENT_STATE_FINISHED:
        print(standings_text(client.get_standings(tournament_id)), file=out)
        return 0
    print(f"tournament {tournament_id} ended {state_name(last.state)}: {last.detail}", file=out)
    return 1
