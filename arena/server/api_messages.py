"""The organizer API's messages: typed records of the arena mapped to ``uno_arena.v1`` messages (no I/O).

Every function takes what the store or the service returned (records, typed rows) and what the caller may see
(:mod:`arena.service.visibility`), and builds one message; the servicer never reads a record by key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from arena.protocol import arena_pb2, game_pb2
from arena.protocol.convert import action_to_proto, end_reason_to_proto, events_to_proto, rules_to_proto, seats_to_proto
from arena.protocol.specs import tournament_spec_to_proto
from arena.protocol.statuses import COMPETITION_STATE_OF, GAUNTLET_STATE_OF, TOURNAMENT_STATE_OF
from arena.service.competitions import LadderRow
from arena.service.gauntlet_runs import GauntletSpec
from arena.service.leaderboards import Leaderboard, PoolInfo
from arena.service.lifecycle import SeedReveal
from arena.service.replays import replay_steps
from arena.store import BotRecord, CompetitionRecord, Incident, Replay, StoredResult, TournamentStandings
from arena.store.gauntlet_store import GauntletRecord, StoredBlock
from arena.store.result_store import Progress
from arena.store.schedule_store import Schedule
from arena.store.tournament_store import TournamentRecord
from arena.tournament import TournamentSpec
from arena.tournament.competition import CompetitionSpec
from arena.tournament.cron import parse_cron
from arena.tournament.leaderboard import LeaderRow
from arena.tournament.standings import HeadToHead, StandingRow
from arena.tournament.stats.plackett_luce import BatchRating
from arena.tournament.stats.sprt import SprtState
from arena.tournament.stats.verdicts import Verdicts


def set_time(field: Timestamp, seconds: float | str | None) -> None:
    """Set a Timestamp field from Unix seconds (left unset for 0 or none)."""
    if seconds not in (None, "") and float(seconds or 0):
        field.FromNanoseconds(int(float(seconds or 0) * 1e9))


def bot_message(record: BotRecord, private: bool, connected: bool = False) -> arena_pb2.Bot:
    """A bot: the public fields (id, name, registration time, deleted), and the private ones when ``private``."""
    msg = arena_pb2.Bot(bot_id=record.name, name=record.name, deleted=record.deleted)
    set_time(msg.created_at, record.created_at)
    if private:
        msg.description = record.owner
        msg.connected = connected
        msg.bot_version = record.version
        msg.revoked = record.revoked
    return msg


def tournament_message(record: TournamentRecord, progress: Progress, run: Mapping[str, str], reveal: SeedReveal,
                       secrets_shown: bool) -> arena_pb2.Tournament:
    """A tournament; its spec's seed only when ``secrets_shown``. The number of matches is the one stored at
    creation (the design is never recomputed)."""
    spec = TournamentSpec.from_dict(record.spec)
    msg = arena_pb2.Tournament(
        tournament_id=record.tournament_id,
        spec=tournament_spec_to_proto(spec),
        state=TOURNAMENT_STATE_OF[record.status],
        matches_total=int(record.extra.get("matches_total") or 0) or progress.scheduled,
        matches_done=progress.done,
        matches_failed=progress.counters.get("aborted", 0),
        schedule_id=run.get("schedule_id", ""),
        detail=run.get("detail", ""),
        seed_commitment=reveal.commitment,
        revealed_seed=reveal.seed,
        seed_salt=reveal.salt,
        seed_secret=reveal.secret,
        rating_pool=spec.rating_pool,
        deals_known=record.extra.get("deals_known") == "1",
        deals_of=record.extra.get("deals_of", ""),
    )
    if not secrets_shown:
        msg.spec.seed = 0
    set_time(msg.created_at, record.created_at)
    set_time(msg.started_at, run.get("started_at"))
    set_time(msg.finished_at, run.get("finished_at"))
    return msg


def schedule_message(schedule: Schedule, spec: TournamentSpec, upcoming: datetime) -> arena_pb2.Schedule:
    """A schedule, its template shown as ``spec`` (the template's own seed, no name) and its next run."""
    msg = arena_pb2.Schedule(schedule_id=schedule.schedule_id, cron=schedule.cron,
                             time_zone=parse_cron(schedule.cron).zone_name, spec=tournament_spec_to_proto(spec))
    msg.spec.name = ""
    msg.spec.seed = int(schedule.spec.get("seed", 0))
    set_time(msg.next_run_at, upcoming.astimezone(UTC).timestamp())
    set_time(msg.created_at, schedule.created_at)
    return msg


def competition_message(record: CompetitionRecord) -> arena_pb2.Competition:
    spec = CompetitionSpec.from_dict(record.spec)
    msg = arena_pb2.Competition(
        competition_id=record.competition_id,
        state=COMPETITION_STATE_OF[record.status],
        rules=rules_to_proto(spec.rules), seats_per_table=spec.seats,
        entrants=list(spec.entrants), blocks=record.blocks, matches_per_minute=spec.matches_per_minute,
        rating_pool=spec.pool, bots_without_memory=spec.bots_without_memory)
    set_time(msg.created_at, record.created_at)
    return msg


def ladder_entry(row: LadderRow) -> arena_pb2.LadderEntry:
    """A ladder entry (rank, tier and batch rating as the pool's leaderboard; the OpenSkill fact: ``rating`` = ``mu``
    inside ``[rating_low, rating_high]``)."""
    entry = arena_pb2.LadderEntry(
        rank=row.rank, bot=row.bot, version=row.version, matches=row.matches, connected=row.connected,
        rating=row.rating, mu=row.mu, sigma=row.sigma, rating_low=row.low, rating_high=row.high, tier=row.tier,
        indistinguishable=row.indistinguishable, batch=batch_message(row.batch) if row.batch is not None else None)
    set_time(entry.since, row.since)
    set_time(entry.retired_at, row.retired_at)
    return entry


def ranking_of(ranked_by_batch: bool) -> arena_pb2.LeaderboardRanking:
    """The enum value naming the rating a leaderboard or a ladder ranks by."""
    return arena_pb2.LEADERBOARD_RANKING_BATCH if ranked_by_batch else arena_pb2.LEADERBOARD_RANKING_OPENSKILL


def incident_message(incident: Incident) -> arena_pb2.BotIncident:
    msg = arena_pb2.BotIncident(seq=incident.seq, kind=incident.kind, match_id=incident.match_id,
                                decision_number=max(0, incident.decision), request_id=incident.request_id,
                                detail=incident.detail, strike=max(0, incident.strike))
    set_time(msg.at, incident.at)
    return msg


def summary_message(tournament_id: str, stored: StoredResult, seed_shown: bool = True) -> arena_pb2.MatchSummary:
    """A stored result as a MatchSummary message (its deal seed 0 unless ``seed_shown``)."""
    result = stored.result
    msg = arena_pb2.MatchSummary(
        match_id=result.match_id,
        tournament_id=tournament_id,
        seats=seats_to_proto(result.seats),
        seed=stored.seed if seed_shown else 0,
        result=result_message(stored),
        reason=end_reason_to_proto(result.end_reason),
    )
    set_time(msg.finished_at, stored.finished_at or None)
    return msg


def result_message(stored: StoredResult) -> game_pb2.MatchResult:
    result = stored.result
    return game_pb2.MatchResult(scores=result.scores, winner=result.winner, rounds=result.rounds,
                                forfeited_seats=result.forfeits, timeouts=stored.timeouts, refusals=stored.refusals)


def replay_message(record: Replay, result: StoredResult | None, viewer: int | None) -> arena_pb2.Replay:
    """A stored match record replayed step by step (:func:`arena.service.replays.replay_steps`), omniscient or
    as seat ``viewer`` saw it."""
    walk = replay_steps(record, viewer)
    msg = arena_pb2.Replay(
        match_id=record.match_id,
        tournament_id=record.tournament_id,
        rules=rules_to_proto(walk.rules),
        seats=seats_to_proto(record.seats),
        seed=walk.seed if viewer is None else 0,
        viewer=viewer,
    )
    msg.opening.extend(events_to_proto(walk.opening))
    for item in walk.steps:
        step = arena_pb2.ReplayStep(decision_number=item.number, seat=item.seat, action=action_to_proto(item.action),
                                    events=events_to_proto(item.events))
        if item.latency_ms is not None:
            step.fallback = item.fallback
            step.refusal = item.refusal
            step.latency_ms = max(0, round(item.latency_ms))
        msg.steps.append(step)
    source = result if result is not None else StoredResult.from_replay(record)
    msg.result.CopyFrom(result_message(source))
    msg.reason = end_reason_to_proto(source.result.end_reason)
    return msg


def standing_message(row: StandingRow, standings: TournamentStandings) -> arena_pb2.Standing:
    """One row of a tournament's standings with its bot's counters."""
    bot = row.bot
    low, high = row.rating_ci
    win_low, win_high = row.win_rate_ci or (None, None)
    batch = next((rating for rating in standings.batch if rating.bot == bot), None)
    return arena_pb2.Standing(
        rank=row.rank, bot_id=bot, bot_name=bot, matches=row.matches, wins=row.wins, points=row.points,
        rating=row.mu, rating_sigma=row.sigma, rating_low=low, rating_high=high, forfeits=row.forfeits,
        timeouts=standings.timeouts.get(bot, 0), refusals=standings.refusals.get(bot, 0),
        decisions=standings.decisions.get(bot, 0), tier=row.tier, indistinguishable=list(row.indistinguishable),
        win_rate=row.win_rate, win_rate_low=win_low, win_rate_high=win_high, mean_points=row.mean_points,
        batch=batch_message(batch) if batch is not None else None,
    )


def verdicts_message(verdicts: Verdicts) -> arena_pb2.Verdicts:
    """Every pair's verdict and the summary sentence (:mod:`arena.tournament.stats.verdicts`)."""
    msg = arena_pb2.Verdicts(summary=verdicts.summary)
    for pair in verdicts.pairs:
        msg.pairs.add(bot_a=pair.bot_a, bot_b=pair.bot_b, told_apart=pair.told_apart, p_value=pair.p_value,
                      test=pair.test, more_matches=pair.more_matches)
    return msg


def batch_message(rating: BatchRating) -> arena_pb2.BatchRating:
    """A bot's batch rating as :func:`arena.tournament.stats.plackett_luce.batch_ratings` made it."""
    return arena_pb2.BatchRating(rating=rating.rating, low=rating.low, high=rating.high, rank=rating.rank,
                                 best_rank=rating.best_rank, worst_rank=rating.worst_rank, matches=rating.matches)


def head_to_head_messages(cells: Sequence[HeadToHead]) -> list[arena_pb2.HeadToHead]:
    return [arena_pb2.HeadToHead(bot_name=cell.bot, opponent=cell.opponent, matches=cell.matches, wins=cell.wins,
                                 losses=cell.losses, points_for=cell.points_for, points_against=cell.points_against)
            for cell in cells]


def pool_message(info: PoolInfo) -> arena_pb2.RatingPool:
    msg = arena_pb2.RatingPool(pool_id=info.pool_id, label=info.label, rules=rules_to_proto(info.rules),
                               seats_per_table=info.seats, competition_id=info.competition_id, bots=info.bots,
                               matches=info.matches)
    set_time(msg.updated_at, info.updated_at)
    return msg


def leaderboard_entry(row: LeaderRow, connected: bool, version: str,
                      batch: BatchRating | None = None) -> arena_pb2.LeaderboardEntry:
    """One leaderboard row as it is (every number from :func:`arena.tournament.leaderboard.leaderboard`, the
    batch rating from the pool's cached batch ratings)."""
    tally = row.tally
    win_low, win_high = row.win_rate_ci or (None, None)
    return arena_pb2.LeaderboardEntry(
        rank=row.rank, bot_name=row.bot, rating=row.rating.value, rating_sigma=row.rating.sigma,
        rating_low=row.rating.low, rating_high=row.rating.high, tier=row.tier,
        indistinguishable=list(row.indistinguishable), matches=tally.matches, wins=tally.wins, points=tally.points,
        win_rate=row.win_rate, win_rate_low=win_low, win_rate_high=win_high,
        forfeits=tally.forfeits, timeouts=tally.timeouts, refusals=tally.refusals, decisions=tally.decisions,
        connected=connected, bot_version=version, batch=batch_message(batch) if batch is not None else None,
        win_rate_clustered=True)


def leaderboard_message(board: Leaderboard) -> arena_pb2.GetLeaderboardResponse:
    entries = [leaderboard_entry(row, board.presence[row.bot].connected, board.presence[row.bot].version,
                                 board.batch.get(row.bot)) for row in board.rows]
    return arena_pb2.GetLeaderboardResponse(
        pool=pool_message(board.pool), entries=entries, ranked_by=ranking_of(board.ranked_by_batch),
        verdicts=verdicts_message(board.verdicts) if board.ranked_by_batch else None)


def gauntlet_message(record: GauntletRecord, spec: GauntletSpec, state: SprtState,
                     seed_shown: bool, salt: str = "") -> arena_pb2.Gauntlet:
    """A stored gauntlet: what it tests (its seed, secret and commitment salt ``salt`` only when ``seed_shown``), the
    commitment to them, and its test's state."""
    sprt = spec.sprt
    lower, upper = sprt.bounds
    msg = arena_pb2.Gauntlet(
        gauntlet_id=record.id,
        spec=arena_pb2.GauntletSpec(
            candidate=str(spec.candidate), baseline=str(spec.baseline), opponents=list(spec.opponents),
            seats_per_table=spec.seats, rules=rules_to_proto(spec.rules), alpha=sprt.alpha,
            beta=sprt.beta, mu0=sprt.mu0, mu1=sprt.mu1, max_blocks=sprt.max_blocks or 0, min_blocks=sprt.min_blocks,
            seed=spec.seed if seed_shown else 0, decision_deadline_ms=spec.decision_deadline_ms),
        state=GAUNTLET_STATE_OF[record.status],
        detail=record.detail, blocks=state.n, llr=state.llr, llr_lower=lower, llr_upper=upper,
        mean_score=state.mean, seed_commitment=record.seed_commitment,
        seed_salt=salt if seed_shown else "", seed_secret=spec.seed_secret if seed_shown else "")
    set_time(msg.created_at, record.created_at)
    set_time(msg.updated_at, record.updated_at)
    return msg


def gauntlet_blocks(blocks: Sequence[StoredBlock], after: int) -> list[arena_pb2.GauntletBlock]:
    """The stored blocks numbered after ``after`` (blocks are numbered from 1 on the wire: block 0 stored is 1)."""
    return [arena_pb2.GauntletBlock(block=b.block + 1, score=b.score, llr=b.llr, attempts=b.attempts)
            for b in blocks if b.block + 1 > after]
