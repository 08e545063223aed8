"""What the pages show, shaped from the organizer API's messages (pure functions: no I/O).

Every fact comes from the API as it is: a pool's leaderboard (:class:`PoolBoard`, from ``GetLeaderboard``: rank,
tier, rating and interval, batch rating with interval and rank range, win rate and interval, counters), a
tournament's standings, its matches. Here they only become
small dataclasses for the templates and the JSON twins, and a few things for people:

* :func:`pool_board`: a ``GetLeaderboardResponse`` as rows (the bots' connected state and version beside them);
* :func:`tournament_data`: a ``Tournament`` as JSON-ready data with its pool's label;
* :func:`match_row`: a ``MatchSummary`` as a row;
* :func:`tournament_progress`: done/total, matches/s and time left of a tournament;
* :func:`tables_of`: a tournament's tables as its recorded matches show them;
* :func:`page_of`, :func:`duration_text`, :func:`timestamp`, :func:`plural` and :func:`counted` (``1 tournament``,
  ``2 tournaments``: the templates' ``plural`` and ``counted``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from arena.client import plain, state_name, submission_state
from arena.protocol import arena_pb2, game_pb2
from arena.protocol.convert import rules_from_proto
from arena.protocol.statuses import COMPETITION_STATUS_OF, ENDED_TOURNAMENT_STATES
from arena.tournament.competition import POOL_PREFIX
from arena.tournament.leaderboard import pool_label
from arena.tournament.stats.verdicts import PairVerdict, Verdicts

TIER_NOTE = ("A tier holds the bots the data cannot yet tell apart (95%): the arena computes tiers, ratings and "
             "intervals once, and every reader shows them as they are. More matches split tiers.")
ORDER_NOTE = ("Why the order can disagree with the win rate: bots are ranked by rating (PL, fitted on every match "
              "of the pool at once; a competition's on its current entries, as its ladder), which weighs who each "
              "match was against (beating strong bots counts more) and every place of each finish; the win rate is "
              "raw: wins over matches, whoever the opponents were.")
RELIABILITY_NOTE = ("Reliability: timeouts, refused answers and forfeits over every match of the pool, beside the "
                    "decisions asked of the bot.")


@dataclass(frozen=True)
class PublicBot:
    """What the pages show of a registered bot (:data:`arena.web.reader.PUBLIC_BOT_FIELDS`)."""

    bot_id: str
    name: str
    description: str
    created_at: str | None
    connected: bool
    bot_version: str
    deleted: bool


def public_bot(message: arena_pb2.Bot) -> PublicBot:
    return PublicBot(bot_id=message.bot_id, name=message.name, description=message.description,
                     created_at=iso(message.created_at) if message.HasField("created_at") else None,
                     connected=message.connected, bot_version=message.bot_version, deleted=message.deleted)


@dataclass(frozen=True)
class IncidentRow:
    """One line of a bot's incident log (a ``BotIncident``), for its author."""

    seq: int
    at: str | None
    kind: str
    match_id: str
    decision_number: int
    detail: str


def incident_row(message: arena_pb2.BotIncident) -> IncidentRow:
    return IncidentRow(seq=message.seq, at=iso(message.at) if message.HasField("at") else None, kind=message.kind,
                       match_id=message.match_id, decision_number=message.decision_number, detail=message.detail)


@dataclass(frozen=True)
class SubmissionRow:
    """One submitted version of a bot (a ``Submission``), for its author."""

    version: int
    state: str
    """checking, admitted, rejected or stopped (:func:`arena.client.submission_state`)."""
    runtime: str
    command: str
    sha256: str
    size: int
    submitted_at: str | None
    reason: str
    queue_position: int = 0
    """Its place in the host's queue of checks (1: next), 0 when not waiting."""


def submission_row(message: arena_pb2.Submission) -> SubmissionRow:
    return SubmissionRow(version=message.version, state=submission_state(message.state), runtime=message.runtime,
                         command=" ".join(message.command), sha256=message.sha256, size=message.size,
                         submitted_at=iso(message.submitted_at) if message.HasField("submitted_at") else None,
                         reason=message.reason, queue_position=message.queue_position)


@dataclass(frozen=True)
class HostedRow:
    """What the bot host last said of the bot's process (a ``HostedProcess``)."""

    state: str
    version: int
    restarts: int
    detail: str
    since: str | None


def hosted_row(message: arena_pb2.HostedProcess) -> HostedRow | None:
    """None for a bot the host never ran."""
    if not message.state:
        return None
    return HostedRow(state=message.state, version=message.version, restarts=message.restarts, detail=message.detail,
                     since=iso(message.since) if message.HasField("since") else None)


@dataclass(frozen=True)
class BatchCells:
    """A ``BatchRating`` as the API gives it: the batch Plackett-Luce rating, its 95 % interval and rank range."""

    rating: float
    low: float
    high: float
    rank: int
    best_rank: int
    worst_rank: int
    matches: int


def batch_cells(message: Any) -> BatchCells | None:
    """The ``batch`` field of a ``LeaderboardEntry`` (None when unset)."""
    if not message.HasField("batch"):
        return None
    b = message.batch
    return BatchCells(b.rating, b.low, b.high, b.rank, b.best_rank, b.worst_rank, b.matches)


@dataclass(frozen=True)
class LeaderboardRow:
    """One ``LeaderboardEntry`` as the API gives it, with the bot's state now: ``connected`` None for a bot that
    is not registered (a built-in one), ``version`` its current version when known."""

    rank: int
    tier: int
    bot: str
    rating: float
    rating_sigma: float
    indistinguishable: list[str]
    matches: int
    wins: int
    points: int
    win_rate: float | None
    win_rate_low: float | None
    win_rate_high: float | None
    timeouts: int
    refusals: int
    forfeits: int
    decisions: int
    connected: bool | None
    version: str | None
    win_rate_clustered: bool = True
    batch: BatchCells | None = None


def verdicts_of(message: Any) -> Verdicts | None:
    """The ``verdicts`` field of a leaderboard or a ladder (None when unset), as the tournament maths' own type."""
    if not message.HasField("verdicts"):
        return None
    pairs = [PairVerdict(p.bot_a, p.bot_b, p.told_apart, p.p_value, p.more_matches if p.HasField("more_matches")
                         else None, p.test) for p in message.verdicts.pairs]
    return Verdicts(tuple(pairs), message.verdicts.summary)


@dataclass(frozen=True)
class PoolBoard:
    """One rating pool's leaderboard, a page of its rows."""

    key: str
    label: str
    bots: int
    matches: int
    tiers: int
    rows: list[LeaderboardRow] = field(default_factory=list)
    page: int = 1
    pages: int = 1
    competition: str | None = None
    ranked_by: str = "OpenSkill"
    """The rating the rank and tiers follow, as the page names it: ``PL`` or ``OpenSkill`` (the API's
    ``ranked_by``)."""
    verdicts: Verdicts | None = None


def _optional(message: Any, name: str) -> float | None:
    return float(getattr(message, name)) if message.HasField(name) else None


def leaderboard_row(entry: arena_pb2.LeaderboardEntry, bots: Mapping[str, PublicBot]) -> LeaderboardRow:
    """A ``LeaderboardEntry`` as a row; ``bots``: the registered bots by name (their connected state, version)."""
    bot = bots.get(entry.bot_name)
    return LeaderboardRow(
        rank=entry.rank, tier=entry.tier, bot=entry.bot_name, rating=entry.rating, rating_sigma=entry.rating_sigma,
        indistinguishable=list(entry.indistinguishable),
        matches=entry.matches, wins=entry.wins, points=entry.points, win_rate=_optional(entry, "win_rate"),
        win_rate_low=_optional(entry, "win_rate_low"), win_rate_high=_optional(entry, "win_rate_high"),
        timeouts=entry.timeouts, refusals=entry.refusals, forfeits=entry.forfeits, decisions=entry.decisions,
        connected=bot.connected if bot is not None else None,
        version=(bot.bot_version or None) if bot is not None else None,
        win_rate_clustered=entry.win_rate_clustered, batch=batch_cells(entry))


def pool_board(response: arena_pb2.GetLeaderboardResponse, bots: Mapping[str, PublicBot]) -> PoolBoard:
    """A pool's leaderboard as the API ranks it (every row; :func:`page_of` pages them)."""
    rows = [leaderboard_row(entry, bots) for entry in response.entries]
    pool = response.pool
    return PoolBoard(key=pool.pool_id, label=pool.label or pool.pool_id, bots=len(rows), matches=pool.matches,
                     tiers=max((row.tier for row in rows), default=0), rows=rows,
                     competition=pool.competition_id or None,
                     ranked_by=ranking_name(response.ranked_by),
                     verdicts=verdicts_of(response))


def iso(value: Any) -> str:
    """A ``google.protobuf.Timestamp`` as ISO 8601 UTC, as :func:`arena.client.plain` writes it."""
    return str(value.ToDatetime(tzinfo=UTC).isoformat().replace("+00:00", "Z"))


def tournament_data(message: arena_pb2.Tournament, label: str) -> dict[str, Any]:
    """A ``Tournament`` as JSON-ready data (:func:`arena.client.plain`), with its rating pool (``pool``: key, the
    label the API gives it, and the competition whose block it is, else None)."""
    data = plain(message)
    data["pool"] = {"key": message.rating_pool, "label": label or rules_label(message),
                    "competition": competition_of(message.rating_pool)}
    return data


def ended(message: arena_pb2.Tournament) -> bool:
    """Finished, cancelled or failed: nothing of it changes any more."""
    return message.state in ENDED_TOURNAMENT_STATES


@dataclass(frozen=True)
class MatchRow:
    """One recorded match (a ``MatchSummary``) for the pages: seats by name, result, why it ended."""

    match_id: str
    seats: list[str]
    scores: list[int]
    winner: int | None
    rounds: int
    end_reason: str
    forfeits: list[int]
    timeouts: list[int]
    refusals: list[int]
    finished_at: float | None


def match_row(summary: arena_pb2.MatchSummary) -> MatchRow:
    seats = [seat.bot_name for seat in sorted(summary.seats, key=lambda s: s.seat)]
    result = summary.result
    reason = str(game_pb2.EndReason.Name(summary.reason)).removeprefix("END_REASON_").lower()
    finished = summary.finished_at.ToDatetime(tzinfo=UTC).timestamp() if summary.HasField("finished_at") else None
    return MatchRow(match_id=summary.match_id, seats=seats, scores=list(result.scores),
                    winner=result.winner if result.HasField("winner") else None, rounds=result.rounds,
                    end_reason=reason, forfeits=list(result.forfeited_seats), timeouts=list(result.timeouts),
                    refusals=list(result.refusals), finished_at=finished)


def timestamp(value: str | None) -> float | None:
    """Seconds since the epoch of an ISO 8601 time as :func:`arena.client.plain` writes them (None stays None)."""
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def _seconds(message: Any, name: str) -> float | None:
    if not message.HasField(name):
        return None
    return float(getattr(message, name).ToDatetime(tzinfo=UTC).timestamp())


@dataclass(frozen=True)
class Progress:
    """How far a tournament is: done/total, percent, matches/s since the start, the time left at that pace and the
    time it ran (None when unknown)."""

    done: int
    total: int
    failed: int
    percent: float
    matches_per_s: float | None
    seconds_left: int | None
    elapsed_s: float | None
    state: str


def tournament_progress(tournament: arena_pb2.Tournament, now: float) -> Progress:
    """A tournament's :class:`Progress` at ``now``."""
    total, done = tournament.matches_total, tournament.matches_done
    started, finished = _seconds(tournament, "started_at"), _seconds(tournament, "finished_at")
    end = finished if finished else now
    elapsed = (end - started) if started else None
    rate = done / elapsed if elapsed and elapsed > 0 and done else None
    running = tournament.state == arena_pb2.TOURNAMENT_STATE_RUNNING
    left = (total - done) / rate if rate and running and total > done else None
    return Progress(done=done, total=total, failed=tournament.matches_failed,
                    percent=round(100.0 * done / total, 1) if total else 0.0,
                    matches_per_s=round(rate, 2) if rate else None,
                    seconds_left=round(left) if left is not None else None,
                    elapsed_s=round(elapsed, 1) if elapsed is not None else None,
                    state=state_name(tournament.state) if tournament.state else "")


def plural(count: float, word: str, words: str = "") -> str:
    """``word`` for a count of 1, else ``words`` (``word`` + ``s`` when not given): ``plural(n, "match",
    "matches")``."""
    return word if count == 1 else (words or f"{word}s")


def counted(count: float, word: str, words: str = "") -> str:
    """The count and its noun: ``1 tournament``, ``2 tournaments`` (:func:`plural`)."""
    return f"{count} {plural(count, word, words)}"


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


_TABLE_RE = re.compile(r":d(\d+):t(\d+):r(\d+)$")


@dataclass(frozen=True)
class TableRow:
    """One table of a tournament as its recorded matches show it: its bots, the deals and matches recorded, and each
    bot's wins there (in the bots' order)."""

    table: int
    bots: list[str]
    deals: int
    matches: int
    wins: list[tuple[str, int]]


def tables_of(matches: Iterable[MatchRow]) -> list[TableRow]:
    """The tables of a tournament as its recorded matches show them (match ids ``...:dDEAL:tTABLE:rROTATION``):
    per table, its bots, the deals and matches recorded, and each bot's wins there; by table number. (The tables
    still to play are not known before the end: the schedule derives from the secret seed.)"""
    found: dict[int, dict[str, Any]] = {}
    for match in matches:
        parsed = _TABLE_RE.search(match.match_id)
        if parsed is None:
            continue
        table = found.setdefault(int(parsed.group(2)), {"table": int(parsed.group(2)), "bots": sorted(match.seats),
                                                        "deals": set(), "matches": 0, "wins": {}})
        table["deals"].add(int(parsed.group(1)))
        table["matches"] += 1
        if match.winner is not None:
            name = match.seats[match.winner]
            table["wins"][name] = table["wins"].get(name, 0) + 1
    return [TableRow(t["table"], t["bots"], len(t["deals"]), t["matches"],
                     [(b, t["wins"].get(b, 0)) for b in t["bots"]]) for _, t in sorted(found.items())]


def page_of(items: Sequence[Any], page: int, size: int) -> tuple[list[Any], int]:
    """Items of page ``page`` (from 1) of ``size`` each, and the number of pages (at least 1); ValueError for a
    page out of range."""
    if size <= 0:
        raise ValueError(f"page size must be positive, got {size}")
    pages = max(1, -(-len(items) // size))
    if not 1 <= page <= pages:
        raise ValueError(f"page {page} does not exist (1 to {pages})")
    return list(items[(page - 1) * size: page * size]), pages


# -- competitions -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompetitionRow:
    """A ``Competition`` for the pages: its id, state, rules as the pool's label names them, entrants, blocks."""

    competition_id: str
    state: str
    rules: str
    seats: int
    entrants: list[str]
    blocks: int
    matches_per_minute: float
    created_at: str | None
    rating_pool: str
    bots_without_memory: bool = False
    """Only built-in and hosted bots play, the hosted ones each match in a fresh sandbox."""


def competition_row(message: arena_pb2.Competition) -> CompetitionRow:
    status = COMPETITION_STATUS_OF.get(message.state)
    return CompetitionRow(competition_id=message.competition_id, state=status.value if status else "unspecified",
                          rules=pool_label(rules_from_proto(message.rules), message.seats_per_table),
                          seats=message.seats_per_table, entrants=list(message.entrants), blocks=message.blocks,
                          matches_per_minute=message.matches_per_minute,
                          created_at=iso(message.created_at) if message.HasField("created_at") else None,
                          rating_pool=message.rating_pool, bots_without_memory=message.bots_without_memory)


@dataclass(frozen=True)
class LadderRow:
    """One ``LadderEntry``: one version of one bot on a competition's ladder (rank 0 once retired): its rank, tier
    and batch rating as the pool's leaderboard, its OpenSkill rating (``rating``, ``sigma``)."""

    rank: int
    tier: int
    bot: str
    version: str
    rating: float
    sigma: float
    matches: int
    connected: bool
    since: str | None
    retired_at: str | None
    indistinguishable: list[str] = field(default_factory=list)
    batch: BatchCells | None = None


def ladder_row(entry: arena_pb2.LadderEntry) -> LadderRow:
    return LadderRow(rank=entry.rank, tier=entry.tier, bot=entry.bot, version=entry.version, rating=entry.rating,
                     sigma=entry.sigma, matches=entry.matches, connected=entry.connected,
                     since=iso(entry.since) if entry.HasField("since") else None,
                     retired_at=iso(entry.retired_at) if entry.HasField("retired_at") else None,
                     indistinguishable=list(entry.indistinguishable), batch=batch_cells(entry))


@dataclass(frozen=True)
class CompetitionBoard:
    """``GetCompetitionStandings`` as the pages show it: the competition, its ladder's current entries as the API
    ranks them, its retired versions newest first, and the rating the rank follows (``PL`` or ``OpenSkill``)."""

    competition: CompetitionRow
    entries: list[LadderRow]
    retired: list[LadderRow]
    ranked_by: str
    verdicts: Verdicts | None = None


def competition_board(response: arena_pb2.GetCompetitionStandingsResponse) -> CompetitionBoard:
    return CompetitionBoard(competition_row(response.competition), [ladder_row(e) for e in response.entries],
                            [ladder_row(e) for e in response.retired], ranking_name(response.ranked_by),
                            verdicts_of(response))


def ranking_name(ranked_by: int) -> str:
    """The API's ``LeaderboardRanking`` as the pages name it."""
    return "PL" if ranked_by == arena_pb2.LEADERBOARD_RANKING_BATCH else "OpenSkill"


def rules_label(tournament: arena_pb2.Tournament) -> str:
    """A tournament's rating pool named as the API names pools (:func:`arena.tournament.leaderboard.pool_label`:
    ``UNO Flip · target 200 · 2 seats``; a competition's pool by the competition's name), for a pool the API does
    not list yet (nothing rated in it)."""
    competition = competition_of(tournament.rating_pool)
    if competition is not None:
        return competition
    return pool_label(rules_from_proto(tournament.spec.rules), tournament.spec.seats_per_table or 2)


def competition_of(rating_pool: str) -> str | None:
    """The competition whose block a tournament of ``rating_pool`` is (``competition:NAME``), else None."""
    return rating_pool.removeprefix(POOL_PREFIX) if rating_pool.startswith(POOL_PREFIX) else None
