"""A bot's page: who it is, the versions it said it was (from each match's hello), its rating history per pool
(an inline SVG chart), its recent matches and its incident counts; all read through the organizer API.

Built-in bots (``random``, ``heuristic``, ...) are not registered: their page shows what the results hold.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import grpc

from arena.web import views
from arena.web.reader import ENDED_STATES, ArenaReader

MAX_TOURNAMENTS = 50
RECENT_MATCHES = 20
CHART_W, CHART_H, CHART_PAD = 560, 220, 36
CHART_COLORS = ("#0956bf", "#d72600", "#2f8a0f", "#6f2da8", "#f07f00", "#009b9b")


class UnknownBot(LookupError):
    """Neither registered nor seen in any result."""


def bot_summary(arena: ArenaReader, name: str) -> dict[str, Any]:
    """Everything the bot page shows, as plain data; :class:`UnknownBot` for a name the arena never saw."""
    try:
        bot: dict[str, Any] | None = arena.bot(name)
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.NOT_FOUND:
            raise
        bot = None
    history: dict[str, dict[str, Any]] = {}
    versions: dict[str, dict[str, Any]] = {}
    recent: list[dict[str, Any]] = []
    played = 0
    for tournament in arena.all_tournaments():
        if played >= MAX_TOURNAMENTS or not tournament["matches_done"]:
            continue
        standings = arena.standings(tournament)
        row = next((r for r in standings["standings"] if r["bot_name"] == name), None)
        if row is None or not row["matches"]:
            continue
        played += 1
        pool = tournament["pool"]
        line = history.setdefault(pool["key"], {"key": pool["key"], "label": pool["label"], "points": []})
        line["points"].append({"tournament_id": tournament["tournament_id"], "at": tournament["created_at"],
                               "rating": row["rating"], "low": row["rating_low"], "high": row["rating_high"]})
        for match in arena.matches(tournament):
            if name not in match["seats"]:
                continue
            seat = match["seats"].index(name)
            version = (match.get("bot_versions") or [""] * len(match["seats"]))[seat] or "(none)"
            when = match.get("finished_at") or 0.0
            seen = versions.setdefault(version, {"version": version, "first": when, "last": when, "matches": 0})
            seen["first"], seen["last"] = min(seen["first"], when), max(seen["last"], when)
            seen["matches"] += 1
            recent.append(_match_line(match, seat, tournament["tournament_id"])
                          | {"ended": tournament["state"] in ENDED_STATES})
    if bot is None and not played:
        raise UnknownBot(f"no bot named {name!r}: not registered and in no result")
    for line in history.values():
        line["points"].sort(key=lambda p: views.timestamp(p["at"]) or 0.0)
    recent.sort(key=lambda m: (-(m["finished_at"] or 0.0), m["match_id"]))
    for seen in versions.values():
        seen["first_seen"], seen["last_seen"] = _utc(seen["first"]), _utc(seen["last"])
    recent = recent[:RECENT_MATCHES]
    return {
        "name": name, "bot": bot, "builtin": bot is None, "latency": decision_latency(arena, recent),
        "versions": sorted(versions.values(), key=lambda v: v["first"]),
        "history": list(history.values()),
        "charts": [rating_chart(line, CHART_COLORS[n % len(CHART_COLORS)]) for n, line in enumerate(history.values())],
        "recent": recent, "incident_counts": arena.incident_counts(name) if bot else None,
    }


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


def _match_line(match: dict[str, Any], seat: int, tournament_id: str) -> dict[str, Any]:
    winner = match.get("winner")
    outcome = "won" if winner == seat else "forfeited" if seat in (match.get("forfeits") or []) else (
        "no result" if winner is None else "lost")
    return {"match_id": match["match_id"], "tournament_id": tournament_id, "seat": seat,
            "opponents": [s for i, s in enumerate(match["seats"]) if i != seat], "outcome": outcome,
            "score": match["scores"][seat], "finished_at": match.get("finished_at"),
            "timeouts": (match.get("timeouts") or [0] * (seat + 1))[seat],
            "refusals": (match.get("refusals") or [0] * (seat + 1))[seat]}


def rating_chart(line: dict[str, Any], color: str = CHART_COLORS[0]) -> dict[str, Any] | None:
    """An SVG-ready chart of one pool's rating history: a polyline through the rating after each tournament, the
    95% interval of each as a vertical bar, scaled into :data:`CHART_W` x :data:`CHART_H`; None without points."""
    points = line["points"]
    if not points:
        return None
    low = min(p["low"] for p in points)
    high = max(p["high"] for p in points)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    inner_w, inner_h = CHART_W - 2 * CHART_PAD, CHART_H - 2 * CHART_PAD

    def x(index: int) -> float:
        return round(CHART_PAD + (inner_w * index / (len(points) - 1) if len(points) > 1 else inner_w / 2), 1)

    def y(value: float) -> float:
        return round(CHART_PAD + inner_h * (high - value) / (high - low), 1)

    dots = [{"x": x(i), "y": y(p["rating"]), "y_low": y(p["low"]), "y_high": y(p["high"]),
             "label": f"{p['tournament_id']}: {p['rating']:.1f} [{p['low']:.1f}, {p['high']:.1f}]"}
            for i, p in enumerate(points)]
    ticks = [{"y": y(v), "label": f"{v:.0f}"} for v in (low, (low + high) / 2, high)]
    return {"width": CHART_W, "height": CHART_H, "pad": CHART_PAD, "label": line["label"], "color": color,
            "dots": dots, "polyline": " ".join(f"{d['x']},{d['y']}" for d in dots), "ticks": ticks}
