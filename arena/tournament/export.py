"""Export standings and results as text: CSV, JSON and a fixed-width leaderboard (pure: return strings)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable

from .results import MatchResult, dedupe
from .standings import Standings

STANDINGS_COLUMNS = (
    "rank",
    "tier",
    "bot",
    "matches",
    "wins",
    "win_rate",
    "win_rate_lo",
    "win_rate_hi",
    "points",
    "mean_points",
    "points_lo",
    "points_hi",
    "mu",
    "sigma",
    "ordinal",
    "rating_lo",
    "rating_hi",
    "indistinguishable",
    "groups",
    "forfeits",
    "strikes",
)

RESULT_COLUMNS = (
    "match_id",
    "group",
    "seat",
    "bot",
    "score",
    "rank",
    "winner",
    "forfeit",
    "strikes",
    "rounds",
    "end_reason",
    "scoring",
)

HEAD_TO_HEAD_COLUMNS = (
    "bot",
    "opponent",
    "matches",
    "wins",
    "losses",
    "points_for",
    "points_against",
    "group_wins",
    "group_draws",
    "group_losses",
)


def _num(value: float | None, digits: int = 6) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _csv(header: Iterable[str], rows: Iterable[Iterable[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(list(header))
    for row in rows:
        writer.writerow(list(row))
    return buffer.getvalue()


def standings_to_csv(standings: Standings) -> str:
    """One line per bot, columns :data:`STANDINGS_COLUMNS` (``indistinguishable`` joined by ``;``)."""
    rows = []
    for r in standings.rows:
        win_ci = r.win_rate_ci or (None, None)
        pts_ci = r.points_ci or (None, None)
        rows.append(
            (
                r.rank,
                r.tier,
                r.bot,
                r.matches,
                r.wins,
                _num(r.win_rate),
                _num(win_ci[0]),
                _num(win_ci[1]),
                r.points,
                _num(r.mean_points),
                _num(pts_ci[0]),
                _num(pts_ci[1]),
                _num(r.mu),
                _num(r.sigma),
                _num(r.ordinal),
                _num(r.rating_ci[0]),
                _num(r.rating_ci[1]),
                ";".join(r.indistinguishable),
                r.groups,
                r.forfeits,
                r.strikes,
            )
        )
    return _csv(STANDINGS_COLUMNS, rows)


def standings_to_json(standings: Standings, indent: int | None = 2) -> str:
    """The whole standings (rows, tiers, head-to-head, pool) as JSON."""
    return json.dumps(standings.to_dict(), indent=indent, sort_keys=True)


def head_to_head_to_csv(standings: Standings) -> str:
    """One line per ordered pair (empty body when the tournament is not 2-seat)."""
    rows = []
    if standings.head_to_head is not None:
        for a in sorted(standings.head_to_head):
            for b in sorted(standings.head_to_head[a]):
                c = standings.head_to_head[a][b]
                rows.append(
                    (
                        c.bot,
                        c.opponent,
                        c.matches,
                        c.wins,
                        c.losses,
                        c.points_for,
                        c.points_against,
                        c.group_wins,
                        c.group_draws,
                        c.group_losses,
                    )
                )
    return _csv(HEAD_TO_HEAD_COLUMNS, rows)


def results_to_csv(results: Iterable[MatchResult]) -> str:
    """One line per seat of every match (sorted by match id), columns :data:`RESULT_COLUMNS`."""
    rows = []
    for r in dedupe(results):
        ranks = r.ranks()
        for seat, bot in enumerate(r.seats):
            rows.append(
                (
                    r.match_id,
                    r.deal_group,
                    seat,
                    bot,
                    r.scores[seat],
                    ranks[seat] + 1,
                    int(r.winner == seat),
                    int(seat in r.forfeits),
                    r.strikes_of(seat),
                    r.rounds,
                    r.end_reason,
                    r.scoring,
                )
            )
    return _csv(RESULT_COLUMNS, rows)


def results_to_json(results: Iterable[MatchResult], indent: int | None = None) -> str:
    """A JSON list of :meth:`MatchResult.to_dict` (sorted by match id)."""
    return json.dumps([r.to_dict() for r in dedupe(results)], indent=indent, sort_keys=True)


def results_from_json(text: str) -> list[MatchResult]:
    """Inverse of :func:`results_to_json`."""
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("results JSON must be a list")
    return [MatchResult.from_dict(item) for item in data]


def _ci(ci: tuple[float, float] | None, fmt: str) -> str:
    return "" if ci is None else f"[{ci[0]:{fmt}}, {ci[1]:{fmt}}]"


def standings_to_text(standings: Standings) -> str:
    """A fixed-width leaderboard for terminals.

    The tier column marks bots the data cannot yet tell apart: rows with the same tier number
    are indistinguishable from that tier's first bot (see :mod:`arena.tournament.standings`).
    """
    pct = round(standings.confidence * 100)
    header = (
        "rank",
        "tier",
        "bot",
        "matches",
        "wins",
        "win%",
        f"{pct}% CI",
        "mean pts",
        f"{pct}% CI",
        "mu",
        "sigma",
        "ordinal",
    )
    lines: list[tuple[str, ...]] = [header]
    for r in standings.rows:
        win_ci = None if r.win_rate_ci is None else (100 * r.win_rate_ci[0], 100 * r.win_rate_ci[1])
        lines.append(
            (
                str(r.rank),
                str(r.tier),
                r.bot,
                str(r.matches),
                str(r.wins),
                "" if r.win_rate is None else f"{100 * r.win_rate:.1f}",
                _ci(win_ci, ".1f"),
                "" if r.mean_points is None else f"{r.mean_points:.1f}",
                _ci(r.points_ci, ".1f"),
                f"{r.mu:.2f}",
                f"{r.sigma:.2f}",
                f"{r.ordinal:.2f}",
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text_cols = {2}
    out = []
    for line in lines:
        cells = [
            c.ljust(w) if i in text_cols else c.rjust(w)
            for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    shared = [t for t in standings.tiers if len(t) > 1]
    if shared:
        out.append("")
        measure = "rating" if standings.order_by == "rating" else "win rate"
        out.append(
            f"Not yet told apart by {measure} ({pct}% confidence): "
            + "; ".join(" = ".join(t) for t in shared)
        )
    return "\n".join(out) + "\n"
