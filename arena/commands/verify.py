"""`uno-arena tournament verify ID`: check an ended tournament's seed commitment, its schedule against every recorded
result and every scored match's replay, over the organizer API only (docs/organizers.md, Verification).
"""

from __future__ import annotations

import argparse
from typing import Any

from arena.client import ArenaClient
from arena.commands import subparsers_of
from arena.commands.api import api_command, with_client
from arena.protocol import arena_pb2


def _replay_facts(replay: Any) -> Any:
    """What verification reads of a ``Replay`` message (:class:`arena.service.verification.ReplayFacts`)."""
    from arena.protocol.convert import rules_from_proto
    from arena.service.verification import ReplayFacts

    try:
        rules, error = rules_from_proto(replay.rules), ""
    except ValueError as invalid:
        rules, error = None, str(invalid)
    seats = tuple(s.bot_name for s in sorted(replay.seats, key=lambda s: s.seat))
    return ReplayFacts(replay.seed, rules, seats, tuple((step.seat, step.action.text) for step in replay.steps), error)


def recorded_match(summary: arena_pb2.MatchSummary) -> Any:
    """What verification reads of a ``MatchSummary`` (:class:`arena.service.verification.RecordedMatch`)."""
    from arena.protocol.convert import end_reason_from_proto
    from arena.service.verification import RecordedMatch

    result = summary.result
    reason = end_reason_from_proto(summary.reason)
    scored = reason is not None and reason.scored
    return RecordedMatch(tuple(s.bot_name for s in sorted(summary.seats, key=lambda s: s.seat)), summary.seed,
                         tuple(result.scores), result.winner if result.HasField("winner") else None, result.rounds,
                         tuple(result.forfeited_seats), scored)


def tournament_verify(client: ArenaClient, args: argparse.Namespace) -> int:
    """Check one tournament (:func:`arena.service.verification.verify_tournament`, over the organizer API); prints
    the problems and a summary, returns the exit status."""
    import grpc

    from arena.client import state_name
    from arena.protocol.specs import tournament_spec_from_proto
    from arena.protocol.statuses import tournament_status
    from arena.service.verification import ReplayUnavailable, TournamentFacts
    from arena.service.verification import verify_tournament as verify
    from arena.tournament.status import TournamentStatus

    tournament_id = args.tournament_id
    t = client.get_tournament(tournament_id)
    state = tournament_status(t.state)
    if state is None or not state.ended:
        print(f"tournament {tournament_id} is {state_name(t.state)}: its seed is revealed when it ends; verify it then")
        return 1
    try:
        spec = tournament_spec_from_proto(t.spec, tournament_id)
    except ValueError as error:
        print(f"{tournament_id}: the tournament's spec is invalid: {error}")
        return 1
    facts = TournamentFacts(tournament_id, state, spec, t.seed_commitment, t.revealed_seed, t.seed_salt,
                            t.seed_secret, deals_known=t.deals_known)
    results = {m.match_id: recorded_match(m) for m in client.list_matches(tournament_id, page_size=1000)}

    def replay_of(match_id: str) -> Any:
        try:
            return _replay_facts(client.get_replay(match_id))
        except grpc.RpcError as error:  # no replay kept, or one that does not replay
            code = error.code().name if isinstance(error, grpc.Call) else type(error).__name__
            details = error.details() if isinstance(error, grpc.Call) else str(error)
            raise ReplayUnavailable(f"{code}: {details}") from None

    found = verify(facts, results, replay_of, lambda where, text: print(f"{where}: {text}", flush=True))
    verdict = "consistent" if found.consistent else f"{len(found.problems)} problem(s)"
    ended_early = found.missing and state is not TournamentStatus.FINISHED
    unplayed = f", {found.missing} not played ({state})" if ended_early else ""
    print(f"tournament {tournament_id} ({state}): seed {t.revealed_seed}, commitment "
          f"{'ok' if found.committed else 'FAILED'}; {found.scheduled} scheduled matches re-derived, "
          f"{found.replayed} replayed, {found.unscored} not scored{unplayed}: {verdict}")
    if found.deals_known:
        from arena.commands.tournaments import deals_known_line

        print(deals_known_line(t))
    return 0 if found.consistent else 1


def register(commands: Any) -> None:
    """Add `tournament verify` to the `uno-arena` sub-commands."""
    tournament = subparsers_of(commands, "tournament", "create, schedule, watch and read tournaments", "tournament_cmd")
    api_command(tournament, "verify", with_client(tournament_verify), "tournament_id",
                help="check an ended tournament's seed commitment and replay every match")
