"""What the pages show, shaped from the organizer API's answers (pure functions of plain data: no I/O).

* :func:`leaderboards`: one leaderboard per rating pool (variant and rule options), from the standings of the
  pool's tournaments: each bot's pool rating is the one of the newest tournament it played in (the organizer
  carries the pool's rating over from tournament to tournament), its counts the sums over the pool's tournaments.
  Rows are ordered by rating; tiers follow :mod:`arena.tournament.standings` (a tier opens with its first bot and
  takes every following bot whose rating the data cannot tell apart from it,
  :func:`arena.tournament.standings.indistinguishable`); the win rate's interval is the Wilson interval of
  :mod:`arena.tournament.stats`.
* :func:`tournament_progress`: done/total, matches/s and time left of a tournament.
* :func:`pool_of`: the rating pool key and a label of a tournament's rules.
* :func:`tables_of`: a tournament's tables as its recorded matches show them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from arena.tournament.competition import POOL_PREFIX
from arena.tournament.spec import rating_pool_key
from arena.tournament.standings import indistinguishable
from arena.tournament.stats import wilson_interval, z_quantile

CONFIDENCE = 0.95
TIER_NOTE = ("A tier holds the bots the data cannot yet tell apart: a tier opens with its first bot and takes every "
             "following bot whose pool rating is within the 95% interval of the difference from that bot's. More "
             "matches split tiers.")
RELIABILITY_NOTE = ("Reliability: timeouts, refused answers and forfeits per 1,000 decisions asked of the bot (matches "
                    "recorded before the arena counted decisions are left out of the rate).")
_RULE_LABELS = {
    "bluffing": lambda v: "" if v else "no bluffing",
    "uno_penalty": lambda v: "" if v == "auto" else f"UNO penalty {v}",
    "target": lambda v: f"target {v}",
    "scoring": lambda v: "" if v == "winner" else f"scoring {v}",
    "start_flip": lambda v: "" if v == "replace" else f"start flip {v}",
    "pairing": lambda v: "" if v == "physical" else f"pairing {v}",
    "max_decisions_per_round": lambda v: "",
}


def pool_of(rules: Any, rating_pool: str = "") -> tuple[str, str]:
    """The rating pool of a tournament (``rating_pool`` as the API names it, else the pool of its rules, a
    ``uno_arena.v1.Rules`` message) and a label for people, e.g. ``("flip:3f2a...", "UNO Flip, target 200")``;
    a competition's pool is labelled with the competition's name."""
    from arena.protocol.convert import rules_from_proto

    engine_rules = rules_from_proto(rules).to_dict()
    variant = engine_rules.pop("variant")
    key = rating_pool or rating_pool_key(variant, engine_rules)
    words = [_RULE_LABELS[name](value) for name, value in engine_rules.items() if name in _RULE_LABELS]
    label = ", ".join(["UNO Flip" if variant == "flip" else "classic UNO", *(w for w in words if w)])
    if key.startswith(POOL_PREFIX):
        label = f"competition {key.removeprefix(POOL_PREFIX)} ({label})"
    return key, label


def timestamp(value: str | None) -> float | None:
    """Seconds since the epoch of an ISO 8601 time as :func:`arena.client.plain` writes them (None stays None)."""
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def tournament_progress(tournament: Mapping[str, Any], now: float) -> dict[str, Any]:
    """Done/total, percent, matches/s since the start and the time left at that pace (None when unknown)."""
    total = int(tournament.get("matches_total") or 0)
    done = int(tournament.get("matches_done") or 0)
    started = timestamp(tournament.get("started_at"))
    finished = timestamp(tournament.get("finished_at"))
    end = finished if finished else now
    elapsed = (end - started) if started else None
    rate = done / elapsed if elapsed and elapsed > 0 and done else None
    running = tournament.get("state") == "running"
    left = (total - done) / rate if rate and running and total > done else None
    return {
        "done": done, "total": total, "failed": int(tournament.get("matches_failed") or 0),
        "percent": round(100.0 * done / total, 1) if total else 0.0,
        "matches_per_s": round(rate, 2) if rate else None,
        "seconds_left": round(left) if left is not None else None,
        "elapsed_s": round(elapsed, 1) if elapsed is not None else None,
        "state": tournament.get("state", ""),
    }


def duration_text(seconds: float | None) -> str:
    """``1h 02m``, ``3m 05s``, ``12s``; ``-`` when unknown."""
    if seconds is None:
        return "-"
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def leaderboards(played: Iterable[tuple[Mapping[str, Any], Mapping[str, Any], str, str]],
                 connected: Mapping[str, bool], versions: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One leaderboard per rating pool, the pool with the most matches first.

    ``played``: ``(tournament, standings, pool_key, pool_label)`` per tournament with recorded matches, as plain
    data (``Tournament`` and ``GetStandingsResponse``), in any order; ``connected``: bot name -> connected now
    (bots missing from it are built-in or unknown: ``None``); ``versions``: a registered bot's current version (the
    ``bot_version`` of its latest Hello), when known."""
    pools: dict[str, dict[str, Any]] = {}
    for tournament, standings, key, label in sorted(played, key=lambda item: _created(item[0])):
        pool = pools.setdefault(key, {"key": key, "label": label, "bots": {}, "tournaments": 0, "matches": 0})
        pool["tournaments"] += 1
        pool["matches"] += int(tournament.get("matches_done") or 0)
        for row in standings.get("standings", []):
            name = row["bot_name"]
            bot = pool["bots"].setdefault(name, {"bot": name, "matches": 0, "wins": 0, "timeouts": 0, "refusals": 0,
                                                 "forfeits": 0, "decisions": 0, "counted_incidents": 0})
            for counter in ("matches", "wins", "timeouts", "refusals", "forfeits", "decisions"):
                bot[counter] += int(row.get(counter) or 0)
            if row.get("decisions"):  # the incidents of tournaments whose decisions were counted make the rate
                bot["counted_incidents"] += sum(int(row.get(c) or 0) for c in ("timeouts", "refusals", "forfeits"))
            if row.get("matches"):  # the newest tournament it played in carries the pool's rating
                bot.update(rating=row["rating"], sigma=row["rating_sigma"], rating_low=row["rating_low"],
                           rating_high=row["rating_high"], last_tournament=tournament["tournament_id"])
    return sorted((_board(pool, connected, versions or {}) for pool in pools.values()),
                  key=lambda b: (-b["matches"], b["label"]))


def _created(tournament: Mapping[str, Any]) -> tuple[float, str]:
    return timestamp(tournament.get("created_at")) or 0.0, str(tournament.get("tournament_id", ""))


def _board(pool: Mapping[str, Any], connected: Mapping[str, bool], versions: Mapping[str, str]) -> dict[str, Any]:
    rated = [bot for bot in pool["bots"].values() if "rating" in bot]
    rated.sort(key=lambda bot: (-bot["rating"], bot["bot"]))
    z = z_quantile(CONFIDENCE)
    rows: list[dict[str, Any]] = []
    tier, leader = 0, None
    for rank, bot in enumerate(rated, 1):
        if leader is None or not indistinguishable(leader["rating"], leader["sigma"], bot["rating"], bot["sigma"], z):
            tier, leader = tier + 1, bot
        matches = bot["matches"]
        interval = wilson_interval(bot["wins"], matches, CONFIDENCE) if matches else None
        rows.append({
            "rank": rank, "tier": tier, "bot": bot["bot"],
            "rating": round(bot["rating"], 2), "rating_low": round(bot["rating_low"], 2),
            "rating_high": round(bot["rating_high"], 2), "sigma": round(bot["sigma"], 3),
            "matches": matches, "wins": bot["wins"],
            "win_rate": round(bot["wins"] / matches, 4) if matches else None,
            "win_rate_low": round(interval[0], 4) if interval else None,
            "win_rate_high": round(interval[1], 4) if interval else None,
            "timeouts": bot["timeouts"], "refusals": bot["refusals"], "forfeits": bot["forfeits"],
            "decisions": bot["decisions"],
            "incidents_per_1000": (round(1000.0 * bot["counted_incidents"] / bot["decisions"], 2)
                                   if bot["decisions"] else None),
            "connected": connected.get(bot["bot"]),
            "version": versions.get(bot["bot"]) or None,
            "last_tournament": bot["last_tournament"],
        })
    return {"key": pool["key"], "label": pool["label"], "tournaments": pool["tournaments"],
            "matches": pool["matches"], "rows": rows, "tiers": tier}


_TABLE_RE = re.compile(r":d(\d+):t(\d+):r(\d+)$")


def tables_of(matches: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The tables of a tournament as its recorded matches show them (match ids ``...:dDEAL:tTABLE:rROTATION``):
    per table, its bots, the deals and matches recorded, and each bot's wins there; by table number. (The tables
    still to play are not known before the end: the schedule derives from the secret seed.)"""
    found: dict[int, dict[str, Any]] = {}
    for match in matches:
        parsed = _TABLE_RE.search(str(match.get("match_id", "")))
        if parsed is None:
            continue
        table = found.setdefault(int(parsed.group(2)), {"table": int(parsed.group(2)), "bots": sorted(match["seats"]),
                                                        "deals": set(), "matches": 0, "wins": {}})
        table["deals"].add(int(parsed.group(1)))
        table["matches"] += 1
        winner = match.get("winner")
        if winner is not None:
            name = match["seats"][winner]
            table["wins"][name] = table["wins"].get(name, 0) + 1
    return [dict(t, deals=len(t["deals"]), wins=[(b, t["wins"].get(b, 0)) for b in t["bots"]])
            for _, t in sorted(found.items())]


def page_of(items: Sequence[Any], page: int, size: int) -> tuple[list[Any], int]:
    """Items of page ``page`` (from 1) of ``size`` each, and the number of pages (at least 1); ValueError for a
    page out of range."""
    if size <= 0:
        raise ValueError(f"page size must be positive, got {size}")
    pages = max(1, -(-len(items) // size))
    if not 1 <= page <= pages:
        raise ValueError(f"page {page} does not exist (1 to {pages})")
    return list(items[(page - 1) * size: page * size]), pages


def now_utc() -> float:
    return datetime.now(UTC).timestamp()
