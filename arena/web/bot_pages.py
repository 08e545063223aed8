"""A bot's page: who it is, the versions its Hellos named, its rating history per pool (an inline SVG chart of the
batch Plackett-Luce rating the leaderboards rank by), its recent matches and its incident counts; all read through the
organizer API, which computes every rating. Built-in bots are not registered: their page shows what the results
hold.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

import grpc

from arena.client import iso
from arena.web import views
from arena.web.reader import ArenaReader
from arena.web.views import MatchRow, PublicBot

MAX_TOURNAMENTS = 50
RECENT_MATCHES = 20
CHART_W, CHART_H, CHART_PAD = 560, 220, 36
CHART_COLORS = ("#0956bf", "#d72600", "#2f8a0f", "#6f2da8", "#f07f00", "#009b9b")


BUILTIN_VERSION = "builtin"
"""The version of a built-in bot's matches (it says no Hello)."""


class UnknownBot(LookupError):
    """Neither registered nor seen in any result."""


@dataclass(frozen=True)
class BotSummary:
    """Everything the bot page shows (``/api/bots/{name}``); ``bot`` None for a built-in one, ``incident_counts``
    None without the admin token."""

    name: str
    bot: PublicBot | None
    builtin: bool
    latency: dict[str, Any] | None
    versions: list[dict[str, Any]]
    history: list[dict[str, Any]]
    charts: list[dict[str, Any] | None]
    recent: list[dict[str, Any]]
    incident_counts: dict[str, int] | None


def bot_summary(arena: ArenaReader, name: str) -> BotSummary:
    bot = _registered(arena, name)
    history, played, recent = _played(arena, name)
    if bot is None and not played:
        raise UnknownBot(f"no bot named {name!r}: not registered and in no result")
    recent = sorted(recent, key=lambda m: (-(m["finished_at"] or 0.0), m["match_id"]))[:RECENT_MATCHES]
    return BotSummary(
        name=name, bot=bot, builtin=bot is None, latency=decision_latency(arena, recent),
        versions=versions_seen(arena, name) if bot is not None else builtin_versions(played), history=history,
        charts=[rating_chart(line, CHART_COLORS[n % len(CHART_COLORS)]) for n, line in enumerate(history)],
        recent=recent, incident_counts=arena.incident_counts(name) if bot else None)


def _registered(arena: ArenaReader, name: str) -> PublicBot | None:
    try:
        return arena.bot(name)
    except grpc.RpcError as error:
        if not isinstance(error, grpc.Call) or error.code() != grpc.StatusCode.NOT_FOUND:
            raise
        return None


def _played(arena: ArenaReader, name: str) -> tuple[list[dict[str, Any]], list[MatchRow], list[dict[str, Any]]]:
    """Over the newest :data:`MAX_TOURNAMENTS` tournaments the bot played in: its rating history per pool (each
    tournament's batch PL rating, oldest first, and the pool's now), its matches, and a line per match."""
    history: dict[str, dict[str, Any]] = {}
    played: list[MatchRow] = []
    recent: list[dict[str, Any]] = []
    tournaments = 0
    for tournament in arena.client.list_tournaments(page_size=1000):
        if tournaments >= MAX_TOURNAMENTS or not tournament.matches_done:
            continue
        row = next((r for r in arena.standings(tournament).standings if r.bot_name == name), None)
        if row is None or not row.matches:
            continue
        tournaments += 1
        line = history.setdefault(tournament.rating_pool, {"key": tournament.rating_pool, "points": [],
                                                           "label": arena.pool_label(tournament),
                                                           "competition": views.competition_of(tournament.rating_pool),
                                                           "now": _pool_rating(arena, tournament.rating_pool, name)})
        if row.HasField("batch"):  # the tournament's batch PL rating (unset before the bot has one)
            line["points"].append({"tournament_id": tournament.tournament_id,
                                   "at": iso(tournament.created_at), "rating": row.batch.rating,
                                   "low": row.batch.low, "high": row.batch.high, "matches": row.batch.matches})
        for match in arena.matches(tournament, bot=name):
            if name in match.seats:
                played.append(match)
                recent.append(_match_line(match, match.seats.index(name), tournament.tournament_id)
                              | {"ended": views.ended(tournament)})
    for line in history.values():
        line["points"].sort(key=lambda p: datetime.fromisoformat(p["at"]))
    return [line for line in history.values() if line["points"]], played, recent


def _pool_rating(arena: ArenaReader, pool: str, name: str) -> dict[str, Any] | None:
    """The bot's batch PL rating as the pool's leaderboard gives it now; None when it has none for it."""
    board = next((b for b in arena.leaderboards() if b.key == pool), None)
    row = next((r for r in board.rows if r.bot == name), None) if board is not None else None
    if row is None or row.batch is None:
        return None
    return asdict(row.batch) | {"ranked_by": board.ranked_by if board is not None else ""}


def versions_seen(arena: ArenaReader, name: str) -> list[dict[str, Any]]:
    """A registered bot's versions as the API lists them, with when each was first and last seen."""
    return [{"version": v.version or "(none)", "matches": v.matches,
             "first_seen": _utc(v.first_seen.seconds), "last_seen": _utc(v.last_seen.seconds)}
            for v in arena.bot_versions(name)]


def builtin_versions(played: list[MatchRow]) -> list[dict[str, Any]]:
    """A built-in bot's one version (it played: else it has no page)."""
    times = [match.finished_at or 0.0 for match in played]
    return [{"version": BUILTIN_VERSION, "matches": len(played), "first_seen": _utc(min(times)),
             "last_seen": _utc(max(times))}]


def decision_latency(arena: ArenaReader, recent: list[dict[str, Any]]) -> dict[str, Any] | None:
    """p50 and p99 of the bot's answer times (ms) over its recent matches whose replays are open (tournament
    ended); decisions the arena played for it (fallbacks) are left out. None without any."""
    latencies: list[int] = []
    matches = 0
    for line in recent:
        if not line["ended"]:
            continue
        try:
            replay = arena.replay(line["match_id"])
        except grpc.RpcError:
            continue
        matches += 1
        latencies += [step.latency_ms for step in replay.steps if step.seat == line["seat"] and not step.fallback]
    if not latencies:
        return None
    latencies.sort()

    def rank(q: float) -> int:
        return latencies[min(len(latencies) - 1, max(0, round(q * len(latencies) + 0.5) - 1))]

    return {"p50_ms": rank(0.5), "p99_ms": rank(0.99), "decisions": len(latencies), "matches": matches}


def _utc(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if epoch else "-"


def _match_line(match: MatchRow, seat: int, tournament_id: str) -> dict[str, Any]:
    outcome = "won" if match.winner == seat else "forfeited" if seat in match.forfeits else (
        "no result" if match.winner is None else "lost")
    return {"match_id": match.match_id, "tournament_id": tournament_id, "seat": seat,
            "opponents": [s for i, s in enumerate(match.seats) if i != seat], "outcome": outcome,
            "score": match.scores[seat] if seat < len(match.scores) else 0, "finished_at": match.finished_at,
            "timeouts": match.timeouts[seat] if seat < len(match.timeouts) else 0,
            "refusals": match.refusals[seat] if seat < len(match.refusals) else 0}


def rating_chart(line: dict[str, Any], color: str = CHART_COLORS[0]) -> dict[str, Any] | None:
    """An SVG-ready chart of one pool's rating history: each tournament's batch PL rating with its 95% interval as a
    bar, and the pool's rating now as a dashed line; None without points."""
    points = line["points"]
    if not points:
        return None
    now = line.get("now")
    low = min([p["low"] for p in points] + ([now["low"]] if now else []))
    high = max([p["high"] for p in points] + ([now["high"]] if now else []))
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    inner_w, inner_h = CHART_W - 2 * CHART_PAD, CHART_H - 2 * CHART_PAD

    def x(index: int) -> float:
        return round(CHART_PAD + (inner_w * index / (len(points) - 1) if len(points) > 1 else inner_w / 2), 1)

    def y(value: float) -> float:
        return round(CHART_PAD + inner_h * (high - value) / (high - low), 1)

    dots = [{"x": x(i), "y": y(p["rating"]), "y_low": y(p["low"]), "y_high": y(p["high"]),
             "label": f"{p['tournament_id']}: PL {p['rating']:+.2f} [{p['low']:+.2f}, {p['high']:+.2f}]"}
            for i, p in enumerate(points)]
    ticks = [{"y": y(v), "label": f"{v:+.1f}"} for v in (low, (low + high) / 2, high)]
    return {"width": CHART_W, "height": CHART_H, "pad": CHART_PAD, "label": line["label"], "color": color,
            "dots": dots, "polyline": " ".join(f"{d['x']},{d['y']}" for d in dots), "ticks": ticks,
            "now_y": y(now["rating"]) if now else None}
