"""`uno-arena competition ...`: continuous competitions (a rating pool with its rules and a ladder that runs itself:
docs/organizers.md), thin clients of the organizer API. Exit status: 0 on success, 1 when the arena refuses, 2 for
bad command-line input.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.client import ArenaClient, one_line, plain
from arena.client.legends import BATCH_NOTE, OPENSKILL_NOTE, batch_scope
from arena.commands import add_rule_options, fail, not_negative, rules_from_args, subparsers_of
from arena.commands.api import EVERY_FIELD, api_command, run_client, with_client
from arena.commands.tables import aligned, batch_cells, ranked_by_text, utc_time, verdict_lines
from arena.protocol import arena_pb2
from arena.protocol.statuses import COMPETITION_STATE_OF, competition_status
from arena.tournament.status import CompetitionStatus

STATE_BY_ACTION = {"pause": COMPETITION_STATE_OF[CompetitionStatus.PAUSED],
                   "resume": COMPETITION_STATE_OF[CompetitionStatus.ACTIVE],
                   "close": COMPETITION_STATE_OF[CompetitionStatus.CLOSED]}


def state_name(state: int) -> str:
    """A competition state for people: its :class:`~arena.tournament.status.CompetitionStatus` word, else
    ``unspecified``."""
    return str(competition_status(state) or "unspecified")


def _variant(rules: Any) -> str:
    from arena.protocol.convert import rules_from_proto

    return rules_from_proto(rules).variant


def cmd_create(args: argparse.Namespace) -> int:
    from arena.protocol.convert import rules_to_proto

    try:
        request = arena_pb2.CreateCompetitionRequest(
            competition_id=args.name, rules=rules_to_proto(rules_from_args(args)),
            entrants=[n.strip() for n in args.entrants.split(",") if n.strip()],
            matches_per_minute=args.matches_per_minute or 0.0, max_blocks=args.max_blocks or 0,
            decision_deadline_ms=args.decision_deadline_ms or 0, blocks_per_bot=args.blocks_per_bot or 0,
            seed=args.seed or 0, bots_without_memory=args.bots_without_memory)
        if args.seats is not None:
            request.seats_per_table = args.seats
    except ValueError as error:  # a bad rule option, a negative number
        return fail(error)

    def body(client: ArenaClient, args: argparse.Namespace) -> int:
        c = client.create_competition(request)
        who = ", ".join(c.entrants) if c.entrants else "every registered bot"
        if c.bots_without_memory:
            who += " (built-in and hosted bots only, each match in a fresh sandbox)"
        print(f"competition {c.competition_id}: {_variant(c.rules)}, {c.seats_per_table} seats, entrants: {who}; "
              f"rating pool {c.rating_pool}; the scheduler starts blocks while entrants are connected")
        return 0

    return run_client(args, body)


def competition_list(client: ArenaClient, args: argparse.Namespace) -> int:
    competitions = client.list_competitions()
    if args.json:
        print(json.dumps([plain(c) for c in competitions], indent=2))
        return 0
    if not competitions:
        print("no competitions")
    for c in competitions:
        print(f"{c.competition_id:<24} {state_name(c.state):<7} {_variant(c.rules):<7} {c.seats_per_table} seats  "
              f"{c.blocks:>6} blocks  entrants: {', '.join(c.entrants) or 'open'}"
              + ("  (bots without memory)" if c.bots_without_memory else ""))
    return 0


def standings_lines(response: arena_pb2.GetCompetitionStandingsResponse, retired: bool) -> list[str]:
    """The lines of `competition standings`: the ladder's entries as the arena ranks them, the legend, then
    (``retired``) the retired versions."""
    rows: list[tuple[str, ...]] = [("rank", "tier", "bot", "version", "PL", "PL 95% CI", "PL ranks", "OpenSkill",
                                    "matches", "connected")]
    for e in response.entries:
        rows.append((str(e.rank), str(e.tier or "-"), one_line(e.bot), one_line(e.version),
                     *batch_cells(e.batch if e.HasField("batch") else None), f"{e.rating:.2f}", str(e.matches),
                     "yes" if e.connected else "no"))
    lines = [*aligned(rows, frozenset({2, 3})), ranked_by_text(response.ranked_by),
             *(verdict_lines(response.verdicts) if response.HasField("verdicts") else []),
             "Each version of a bot is its own entry, rated from nothing; entries not rated yet come last.",
             f"{BATCH_NOTE} {batch_scope(response.competition.competition_id)}", OPENSKILL_NOTE]
    if retired and response.retired:
        lines += ["", "retired versions (the OpenSkill rating each ended with):"]
        lines += [f"  {one_line(e.bot)}@{one_line(e.version)}: mu {e.mu:.2f}, sigma {e.sigma:.2f}, {e.matches} "
                  f"matches, retired {utc_time(e.retired_at)}" for e in response.retired]
    return lines


def competition_standings(client: ArenaClient, args: argparse.Namespace) -> int:
    response = client.get_competition_standings(args.name)
    print(json.dumps(plain(response), indent=2) if args.json else "\n".join(standings_lines(response, args.retired)))
    return 0


def competition_state(client: ArenaClient, args: argparse.Namespace) -> int:
    answer = client.set_competition_state(args.name, STATE_BY_ACTION[args.competition_command])
    print(f"competition {answer.competition.competition_id}: {state_name(answer.previous_state)} -> "
          f"{state_name(answer.competition.state)}")
    return 0


def register(commands: Any) -> None:
    """Add `competition create|list|standings|pause|resume|close`."""
    sub = subparsers_of(commands, "competition", "continuous competitions: a rating pool and a ladder that runs "
                        "itself", "competition_command")
    create = api_command(sub, "create", cmd_create, "name", help="a new competition (active at once; admin)")
    create.add_argument("--entrants", default="", help="comma-separated bots (default: every registered bot)")
    create.add_argument("--seats", type=not_negative(int), default=None, help="seats per table (default 2)")
    create.add_argument("--deadline-ms", dest="decision_deadline_ms", type=not_negative(int), default=None,
                        metavar="MS", help="decision deadline (default: the arena's)")
    create.add_argument("--matches-per-minute", type=not_negative(float), default=None,
                        help="the ladder's global rate limit (default: the arena's)")
    create.add_argument("--max-blocks", type=not_negative(int), default=None,
                        help="blocks in flight at most (default: the arena's)")
    create.add_argument("--blocks-per-bot", type=not_negative(int), default=None,
                        help="blocks one bot plays at once at most (default: the arena's)")
    create.add_argument("--seed", type=not_negative(int), default=None,
                        help="the ladder's seed (deals and tie-breaks); default: a secret random one")
    create.add_argument("--bots-without-memory", action="store_true",
                        help="only built-in and hosted bots play, the hosted ones each match in a fresh sandbox "
                             "of the bot host (docs/hosting.md)")
    add_rule_options(create)
    api_command(sub, "list", with_client(competition_list), json=EVERY_FIELD, help="every competition")
    standings = api_command(sub, "standings", with_client(competition_standings), "name", json=EVERY_FIELD,
                            help="the ladder's entries by rating")
    standings.add_argument("--retired", action="store_true", help="also the retired versions")
    for action, text in (("pause", "no new blocks until resumed (admin)"), ("resume", "start blocks again (admin)"),
                         ("close", "no new blocks, for good (blocks in flight still count; admin)")):
        api_command(sub, action, with_client(competition_state), "name", help=text)
