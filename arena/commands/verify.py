"""`uno-arena tournament verify ID`: check an ended tournament's seed commitment and replay every match.

Over the organizer API only (anyone may run it once the tournament ended; before, only the admin could
read what it needs, and the seed is not revealed yet):

1. the tournament (``WatchTournament``'s first message): ``seed_commitment``, ``revealed_seed``, ``seed_salt``;
   the commitment must be ``hex(SHA-256(salt || seed as 8-byte big-endian))``
   (:func:`arena.tournament.commitment.check_commitment`);
2. the spec and the recorded results (``ExportResults`` as JSON): the spec's seed must be the revealed one;
   the schedule is re-derived from the spec (:func:`arena.tournament.schedule`: tables, seats and each
   match's deal seed ``derive_seed("deal", seed, table, deal)``), and every recorded result must be a
   scheduled match with the scheduled seats and deal seed (and, once finished, every scheduled match must
   have a result);
3. every scored match's omniscient replay (``GetReplay``): its seed must be the derived deal seed, its rules
   and seats the scheduled ones, and its recorded actions, replayed with the engine from that seed, must be
   legal and end with the stored scores, winner and number of rounds.

It prints one line per problem (naming the match) and a summary; exit status 0 only when everything is
consistent, 1 otherwise (or when the server refuses a call), 2 for bad command-line input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from arena.client import Client
from arena.commands import subparsers_of
from arena.commands.api import add_server_options as _add_target
from arena.commands.api import run_client as _run


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


def verify_tournament(client: Client, tournament_id: str, out: TextIO) -> int:
    """Check one tournament (:func:`arena.service.verification.verify_tournament`, over the organizer API); prints
    the problems and a summary, returns the exit status."""
    from arena.client import state_name
    from arena.protocol import arena_pb2
    from arena.service.verification import ReplayUnavailable, TournamentFacts
    from arena.service.verification import verify_tournament as verify
    from arena.store import StoredResult
    from arena.tournament import TournamentSpec

    stream = client.call("WatchTournament", arena_pb2.WatchTournamentRequest(tournament_id=tournament_id),
                         timeout=None)
    try:
        t = next(iter(stream)).tournament
    finally:
        stream.cancel()
    state = state_name(t.state)
    if state not in ("finished", "failed", "cancelled"):
        print(f"tournament {tournament_id} is {state}: its seed is revealed when it ends; verify it then", file=out)
        return 1
    export = client.call("ExportResults", arena_pb2.ExportResultsRequest(
        tournament_id=tournament_id, format=arena_pb2.EXPORT_FORMAT_JSON))
    document = json.loads(export.data)
    facts = TournamentFacts(tournament_id, state, TournamentSpec.from_dict(document["tournament"]["spec"]),
                            t.seed_commitment, t.revealed_seed, t.seed_salt)
    results = {str(r.get("match_id")): StoredResult.from_dict(r) for r in document["matches"]}

    def replay_of(match_id: str) -> Any:
        try:
            return _replay_facts(client.call("GetReplay", arena_pb2.GetReplayRequest(match_id=match_id)).replay)
        except Exception as error:  # grpc.RpcError: no replay kept, or one that does not replay
            code = error.code().name if hasattr(error, "code") else type(error).__name__
            details = error.details() if hasattr(error, "details") else str(error)
            raise ReplayUnavailable(f"{code}: {details}") from None

    found = verify(facts, results, replay_of, lambda where, text: print(f"{where}: {text}", file=out, flush=True))
    verdict = "consistent" if found.consistent else f"{len(found.problems)} problem(s)"
    unplayed = f", {found.missing} not played ({state})" if found.missing and state != "finished" else ""
    print(f"tournament {tournament_id} ({state}): seed {t.revealed_seed}, commitment "
          f"{'ok' if found.committed else 'FAILED'}; {found.scheduled} scheduled matches re-derived, "
          f"{found.replayed} replayed, {found.unscored} not scored{unplayed}: {verdict}", file=out)
    return 0 if found.consistent else 1


def cmd_tournament_verify(args: argparse.Namespace) -> int:
    return _run(args, lambda client, a: verify_tournament(client, a.tournament_id, sys.stdout))


def register(commands: Any) -> None:
    """Add `tournament verify` to the `uno-arena` sub-commands."""
    tournament = subparsers_of(commands, "tournament", "create, schedule, watch and read tournaments", "tournament_cmd")
    v = tournament.add_parser("verify", help="check an ended tournament's seed commitment and replay every match")
    v.add_argument("tournament_id")
    _add_target(v)
    v.set_defaults(func=cmd_tournament_verify)
