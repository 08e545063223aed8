"""What the pages show, shaped from the organizer API's messages (pure functions: no I/O).

Every fact comes from the API as it is (ranks, tiers, ratings and intervals are computed once, by the arena); here
they only become small dataclasses for the templates and the JSON twins, and a few words for people (progress,
durations, a tournament's tables, ``1 tournament`` / ``2 tournaments``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC
from typing import TYPE_CHECKING, Any, TypeVar

from arena.client import plain, state_name, submission_state
from arena.protocol import arena_pb2, game_pb2
from arena.protocol.convert import rules_from_proto
from arena.protocol.statuses import COMPETITION_STATUS_OF, ENDED_TOURNAMENT_STATES
from arena.tournament.competition import POOL_PREFIX
from arena.tournament.leaderboard import pool_label
from arena.tournament.stats.verdicts import PairVerdict, Verdicts

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

D = TypeVar("D", bound="DataclassInstance")

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
    """What the pages show of a registered bot (with the admin client too: never whether it is revoked)."""

    bot_id: str
    name: str
    description: str
    created_at: str | None
    connected: bool
    bot_version: str
    deleted: bool


def from_message(cls: type[D], message: Any, **given: Any) -> D:
    """A dataclass whose fields are ``message``'s of the same names as :func:`arena.client.plain` reads them (a
    repeated field as a list, an unset one as None, a timestamp in ISO 8601), but those ``given``."""
    values = plain(message) | given
    return cls(**{f.name: values[f.name] for f in fields(cls)})


@dataclass(frozen=True)
class IncidentRow:
    seq: int
    at: str | None
    kind: str
    match_id: str
    decision_number: int
    detail: str


@dataclass(frozen=True)
class SubmissionRow:
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
    return from_message(SubmissionRow, message, state=submission_state(message.state),
                        command=" ".join(message.command))


@dataclass(frozen=True)
class HostedRow:
    state: str
    version: int
    restarts: int
    detail: str
    since: str | None


def hosted_row(message: arena_pb2.HostedProcess) -> HostedRow | None:
    """None for a bot the host never ran."""
    if not message.state:
        return None
    return from_message(HostedRow, message)


@dataclass(frozen=True)
class BatchCells:
    """The batch Plackett-Luce rating, its 95 % interval and rank range."""

    rating: float
    low: float
    high: float
    rank: int
    best_rank: int
    worst_rank: int
    matches: int


def batch_cells(message: Any) -> BatchCells | None:
    return from_message(BatchCells, message.batch) if message.HasField("batch") else None


@dataclass(frozen=True)
class LeaderboardRow:
    """One ``LeaderboardEntry``, with the bot's state now (``connected`` None for a built-in bot)."""

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
    batch: BatchCells | None = None


def verdicts_of(message: Any) -> Verdicts | None:
    """The ``verdicts`` field of a leaderboard or a ladder, as the tournament maths' own type."""
    if not message.HasField("verdicts"):
        return None
    pairs = tuple(from_message(PairVerdict, pair) for pair in message.verdicts.pairs)
    return Verdicts(pairs, message.verdicts.summary)


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
    """The rating the rank and tiers follow: ``PL`` or ``OpenSkill``."""
    verdicts: Verdicts | None = None


def leaderboard_row(entry: arena_pb2.LeaderboardEntry, bots: Mapping[str, PublicBot]) -> LeaderboardRow:
    bot = bots.get(entry.bot_name)
    return from_message(LeaderboardRow, entry, bot=entry.bot_name, connected=bot.connected if bot is not None else None,
                        version=(bot.bot_version or None) if bot is not None else None, batch=batch_cells(entry))


def pool_board(response: arena_pb2.GetLeaderboardResponse, bots: Mapping[str, PublicBot]) -> PoolBoard:
    rows = [leaderboard_row(entry, bots) for entry in response.entries]
    pool = response.pool
    return PoolBoard(key=pool.pool_id, label=pool.label or pool.pool_id, bots=len(rows), matches=pool.matches,
                     tiers=max((row.tier for row in rows), default=0), rows=rows,
                     competition=pool.competition_id or None,
                     ranked_by=ranking_name(response.ranked_by),
                     verdicts=verdicts_of(response))


def tournament_data(message: arena_pb2.Tournament, label: str) -> dict[str, Any]:
    """A ``Tournament`` as plain data, with its rating pool (``pool``: key, label, competition or None)."""
    data = plain(message)
    data["pool"] = {"key": message.rating_pool, "label": label or rules_label(message),
                    "competition": competition_of(message.rating_pool)}
    return data


def ended(message: arena_pb2.Tournament) -> bool:
    """Finished, cancelled or failed: nothing of it changes any more."""
    return message.state in ENDED_TOURNAMENT_STATES


@dataclass(frozen=True)
class MatchRow:
    """One recorded match: seats by name, result, why it ended."""

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
    reason = str(game_pb2.EndReason.Name(summary.reason)).removeprefix("END_REASON_").lower()
    return from_message(MatchRow, summary.result, match_id=summary.match_id, seats=seats, end_reason=reason,
                        forfeits=list(summary.result.forfeited_seats), finished_at=_seconds(summary, "finished_at"))


def _seconds(message: Any, name: str) -> float | None:
    if not message.HasField(name):
        return None
    return float(getattr(message, name).ToDatetime(tzinfo=UTC).timestamp())


@dataclass(frozen=True)
class Progress:
    """How far a tournament is: matches/s since the start, the time left at that pace and the time it ran (None when
    unknown)."""

    done: int
    total: int
    failed: int
    percent: float
    matches_per_s: float | None
    seconds_left: int | None
    elapsed_s: float | None
    state: str


def tournament_progress(tournament: arena_pb2.Tournament, now: float) -> Progress:
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
    """``word`` for a count of 1, else ``words`` (``word`` + ``s`` when not given)."""
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
    """One table of a tournament as its recorded matches show it (wins in the bots' order)."""

    table: int
    bots: list[str]
    deals: int
    matches: int
    wins: list[tuple[str, int]]


def tables_of(matches: Iterable[MatchRow]) -> list[TableRow]:
    """The tables of a tournament as its recorded matches show them (match ids ``...:dDEAL:tTABLE:rROTATION``), by
    table number (the tables still to play are not known before the end: the schedule derives from the secret
    seed)."""
    by_table: dict[int, list[tuple[int, MatchRow]]] = {}  # (deal, match)
    for match in matches:
        parsed = _TABLE_RE.search(match.match_id)
        if parsed is not None:
            by_table.setdefault(int(parsed.group(2)), []).append((int(parsed.group(1)), match))
    rows = []
    for table, played in sorted(by_table.items()):
        bots = sorted(played[0][1].seats)
        wins = Counter(m.seats[m.winner] for _, m in played if m.winner is not None)
        rows.append(TableRow(table, bots, len({deal for deal, _ in played}), len(played), [(b, wins[b]) for b in bots]))
    return rows


def page_of(items: Sequence[Any], page: int, size: int) -> tuple[list[Any], int]:
    """Items of page ``page`` (from 1) of ``size`` each, and the number of pages (at least 1); ValueError for a
    page out of range."""
    pages = max(1, -(-len(items) // size))
    if not 1 <= page <= pages:
        raise ValueError(f"page {page} does not exist (1 to {pages})")
    return list(items[(page - 1) * size: page * size]), pages


# -- competitions -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompetitionRow:
    """A ``Competition``, its rules as the pool's label names them."""

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
    return from_message(CompetitionRow, message, state=status.value if status else "unspecified",
                        rules=pool_label(rules_from_proto(message.rules), message.seats_per_table),
                        seats=message.seats_per_table)


@dataclass(frozen=True)
class LadderRow:
    """One ``LadderEntry``: one version of one bot on a competition's ladder (rank 0 once retired); ``rating`` and
    ``sigma`` its OpenSkill rating."""

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


@dataclass(frozen=True)
class CompetitionBoard:
    """``GetCompetitionStandings``: its ladder's current entries as ranked, its retired versions newest first."""

    competition: CompetitionRow
    entries: list[LadderRow]
    retired: list[LadderRow]
    ranked_by: str
    verdicts: Verdicts | None = None


def competition_board(response: arena_pb2.GetCompetitionStandingsResponse) -> CompetitionBoard:
    entries, retired = ([from_message(LadderRow, e, batch=batch_cells(e)) for e in listed]
                        for listed in (response.entries, response.retired))
    return CompetitionBoard(competition_row(response.competition), entries, retired,
                            ranking_name(response.ranked_by), verdicts_of(response))


def ranking_name(ranked_by: int) -> str:
    """The API's ``LeaderboardRanking`` as the pages name it."""
    return "PL" if ranked_by == arena_pb2.LEADERBOARD_RANKING_BATCH else "OpenSkill"


def rules_label(tournament: arena_pb2.Tournament) -> str:
    """A tournament's rating pool named as the API names pools (``UNO Flip · target 200 · 2 seats``; a competition's
    by its name), for a pool the API does not list yet (nothing rated in it)."""
    return competition_of(tournament.rating_pool) or pool_label(rules_from_proto(tournament.spec.rules),
                                                                tournament.spec.seats_per_table or 2)


def competition_of(rating_pool: str) -> str | None:
    """The competition whose block a tournament of ``rating_pool`` is (``competition:NAME``), else None."""
    return rating_pool.removeprefix(POOL_PREFIX) if rating_pool.startswith(POOL_PREFIX) else None
