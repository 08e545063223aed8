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
from collections.abc import Mapping
from typing import Any, TextIO

from arena.client import Client
from arena.commands import subparsers_of
from arena.commands.api import add_server_options as _add_target
from arena.commands.api import run_client as _run


def replay_problems(replay: Any, match: Any, stored: Mapping[str, Any]) -> list[str]:
    """What is wrong with one match's omniscient replay (a ``Replay`` message) against its scheduled
    :class:`~arena.tournament.MatchSpec` and its stored result; empty when it replays to the stored result."""
    from arena.engine import Match, Rules, parse_action
    from arena.engine.actions import NEXT_ROUND
    from arena.protocol.convert import rules_from_proto

    problems: list[str] = []
    rules = Rules.from_dict(dict(match.rules))
    if replay.seed != match.seed:
        problems.append(f"the replay's seed {replay.seed} is not the derived deal seed {match.seed}")
    try:
        if rules_from_proto(replay.rules) != rules:
            problems.append("the replay's rules are not the tournament's")
    except ValueError as error:
        problems.append(f"the replay's rules are invalid: {error}")
    seats = [s.bot_name for s in sorted(replay.seats, key=lambda s: s.seat)]
    if seats != list(match.seats):
        problems.append(f"the replay's seats {seats} are not the scheduled {list(match.seats)}")
    engine = Match(players=len(match.seats), seed=match.seed, rules=rules)
    for step in replay.steps:
        try:
            if engine.decision == "round_over":
                engine.apply(None, NEXT_ROUND)
            engine.apply(step.seat, parse_action(step.action.text, rules.variant))
        except ValueError as error:
            problems.append(f"decision {step.decision_number}: seat {step.seat} {step.action.text!r} does not "
                            f"replay from the derived seed: {error}")
            return problems
    forfeits = [int(s) for s in stored.get("forfeits") or ()]
    winner = engine.match_winner if engine.match_winner not in forfeits else None
    expected = {"scores": list(engine.scores), "winner": winner, "rounds": engine.round_number}
    for name, value in expected.items():
        recorded = stored.get(name)
        if name == "scores":
            recorded = [int(v) for v in recorded or ()]
        if recorded != value:
            problems.append(f"replaying the recorded actions gives {name} {value}, the stored result says {recorded}")
    return problems


def verify_tournament(client: Client, tournament_id: str, out: TextIO) -> int:
    """Check one tournament (see the module docstring); prints the problems and a summary, returns the exit
    status."""
    from arena.client import state_name
    from arena.protocol import arena_pb2
    from arena.tournament import TournamentSpec, schedule
    from arena.tournament.commitment import check_commitment

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
    problems: list[str] = []

    def problem(where: str, text: str) -> None:
        problems.append(f"{where}: {text}")
        print(f"{where}: {text}", file=out, flush=True)

    if not t.seed_commitment:
        problem(tournament_id, "no seed commitment was published (created before commitments existed)")
    elif not check_commitment(t.seed_commitment, t.revealed_seed, t.seed_salt):
        problem(tournament_id, f"the revealed seed {t.revealed_seed} and salt {t.seed_salt!r} do not match the "
                               f"commitment {t.seed_commitment}")
    export = client.call("ExportResults", arena_pb2.ExportResultsRequest(
        tournament_id=tournament_id, format=arena_pb2.EXPORT_FORMAT_JSON))
    document = json.loads(export.data)
    spec = TournamentSpec.from_dict(document["tournament"]["spec"])
    if spec.seed != t.revealed_seed:
        problem(tournament_id, f"the spec's seed {spec.seed} is not the revealed seed {t.revealed_seed}")
    scheduled = {m.match_id: m for m in schedule(spec)}
    results = {str(r.get("match_id")): r for r in document["matches"]}
    replayed = unscored = 0
    for mid in sorted(set(results) - set(scheduled)):
        problem(mid, "a recorded result of a match that is not in the schedule")
    missing = [mid for mid in scheduled if mid not in results]
    if missing and state == "finished":
        for mid in missing:
            problem(mid, "scheduled but no result is recorded")
    for mid, match in scheduled.items():
        stored = results.get(mid)
        if stored is None:
            continue
        if [str(s) for s in stored.get("seats") or ()] != list(match.seats):
            problem(mid, f"the stored seats {stored.get('seats')} are not the scheduled {list(match.seats)}")
        if int(stored.get("seed") or 0) != match.seed:
            problem(mid, f"the stored seed {stored.get('seed')} is not the derived deal seed {match.seed}")
        if str(stored.get("end_reason")) in ("aborted", "cancelled"):
            unscored += 1
            continue
        try:
            replay = client.call("GetReplay", arena_pb2.GetReplayRequest(match_id=mid)).replay
        except Exception as error:  # grpc.RpcError: no replay kept, or one that does not replay
            code = error.code().name if hasattr(error, "code") else type(error).__name__
            details = error.details() if hasattr(error, "details") else str(error)
            problem(mid, f"no usable replay: {code}: {details}")
            continue
        for text in replay_problems(replay, match, stored):
            problem(mid, text)
        replayed += 1
    verdict = "consistent" if not problems else f"{len(problems)} problem(s)"
    unplayed = f", {len(missing)} not played ({state})" if missing and state != "finished" else ""
    committed = bool(t.seed_commitment) and check_commitment(t.seed_commitment, t.revealed_seed, t.seed_salt)
    mark = "ok" if committed else "FAILED"
    print(f"tournament {tournament_id} ({state}): seed {t.revealed_seed}, commitment {mark}; "
          f"{len(scheduled)} scheduled matches re-derived, {replayed} replayed, {unscored} not scored{unplayed}: "
          f"{verdict}", file=out)
    return 0 if not problems else 1


def cmd_tournament_verify(args: argparse.Namespace) -> int:
    return _run(args, lambda client, a: verify_tournament(client, a.tournament_id, sys.stdout))


def register(commands: Any) -> None:
    """Add `tournament verify` to the `uno-arena` sub-commands."""
    tournament = subparsers_of(commands, "tournament", "create, schedule, watch and read tournaments", "tournament_cmd")
    v = tournament.add_parser("verify", help="check an ended tournament's seed commitment and replay every match")
    v.add_argument("tournament_id")
    _add_target(v)
    v.set_defaults(func=cmd_tournament_verify)
