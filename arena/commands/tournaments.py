"""`uno-arena tournament ...`, `schedule ...`, `replay`, `bots ...` and `bot log`: thin clients of the organizer
API (docs/organizers.md). Exit status: 0 on success, 1 when the arena refuses (its status and message printed), 2
for bad command-line input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from arena.client import ArenaClient, one_line, plain, state_name
from arena.commands import add_rule_options, fail, not_negative, positive_int, rules_from_args, subparsers_of
from arena.commands.api import EVERY_FIELD, api_command, run_client, with_client
from arena.commands.tables import ELIDED, aligned, standings_text, utc_time, watch
from arena.tournament.spec import DEFAULT_LAG_COMPENSATION_CAP_MS, DUPLICATE_ORDERS, SAFE_DUPLICATE_ORDERS
from arena.tournament.status import TournamentStatus


def _json(message: Any) -> str:
    from google.protobuf.json_format import MessageToJson

    return str(MessageToJson(message, preserving_proto_field_name=True, indent=2))


# -- bots ----------------------------------------------------------------------------------------


def bots_list(client: ArenaClient, args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    bots = list(client.list_bots(include_deleted=args.include_deleted))
    if args.json:
        print(_json(arena_pb2.ListBotsResponse(bots=bots)))
    elif not bots:
        print("no bots registered (built-in bots need no registration: random, heuristic)")
    else:
        print("\n".join(bots_table(bots)))
    return 0


def bots_show(client: ArenaClient, args: argparse.Namespace) -> int:
    bot = client.get_bot(args.name)
    if args.json:
        print(_json(bot))
        return 0
    state = "deleted" if bot.deleted else "revoked" if bot.revoked else "connected" if bot.connected else "offline"
    print(f"{bot.name}: {state}; current version {bot.bot_version or '-'}")
    if bot.description:
        print(f"description: {one_line(bot.description)}")
    if bot.versions:
        print("versions seen (first seen, last seen):")
        for seen in bot.versions:
            print(f"  {one_line(seen.version)[:40]:<40} {utc_time(seen.first_seen)}  {utc_time(seen.last_seen)}")
    elif not bot.bot_version:
        print("(versions are shown to the admin and to the bot itself)")
    return 0


BOTS_TABLE_WIDTHS = (32, 24)
"""The widest the name and version columns of `bots list` get; a longer value is cut, ending in :data:`ELIDED`."""


def bots_table(bots: list[Any]) -> list[str]:
    """The lines of `bots list`: a header, one row per bot (``ListBots`` messages), and a note when a value was
    cut to :data:`BOTS_TABLE_WIDTHS` (so columns stay aligned whatever the bots send as their version)."""
    rows = [(one_line(bot.name), one_line(bot.bot_version), "yes" if bot.connected else "no", utc_time(bot.created_at),
             (one_line(bot.description)
              + (" [deleted]" if bot.deleted else " [revoked]" if bot.revoked else "")).strip())
            for bot in bots]
    lines = aligned([("name", "version", "connected", "registered", "description"), *rows], caps=BOTS_TABLE_WIDTHS)
    if any(len(row[i]) > cap for row in rows for i, cap in enumerate(BOTS_TABLE_WIDTHS)):
        lines.append(f"({ELIDED} marks a value cut to fit its column; --json shows every value whole)")
    return lines


def _print_token(token: str, output: str | None) -> None:
    from arena.client.connection import write_secret_file

    if output:
        write_secret_file(output, token + "\n")
        print(f"token written to {output} (mode 0600); pass it with --token-file {output}")
    else:
        print(f"token (shown once, keep it secret): {token}")


def bots_rotate(client: ArenaClient, args: argparse.Namespace) -> int:
    reply = client.rotate_bot_token(args.name)
    print(f"new token for bot {reply.bot.name!r}: the previous one no longer works and its streams were closed")
    _print_token(reply.token, args.output)
    return 0


def bots_revoke(client: ArenaClient, args: argparse.Namespace) -> int:
    bot = client.revoke_bot(args.name)
    print(f"revoked the token of bot {bot.name!r}: no token works until `uno-arena bots rotate-token {bot.name}`")
    return 0


def bots_delete(client: ArenaClient, args: argparse.Namespace) -> int:
    bot = client.delete_bot(args.name)
    print(f"deleted bot {bot.name!r}: its results stay; the name cannot be registered again")
    return 0


def bots_register(client: ArenaClient, args: argparse.Namespace) -> int:
    reply = client.register_bot(args.name, args.description)
    print(f"registered bot {reply.bot.name!r}")
    _print_token(reply.token, args.output)
    return 0


def bot_log(client: ArenaClient, args: argparse.Namespace) -> int:
    """`bot log NAME`: the bot's incident log; ``--follow`` keeps printing new incidents until Ctrl-C."""
    from arena.protocol import arena_pb2

    if args.follow:
        _follow_bot_log(client, args.name, args.limit, args.poll)
        return 0
    reply = client.get_bot_log(args.name, limit=args.limit)
    if args.json:
        print(_json(arena_pb2.GetBotLogResponse(incidents=reply.incidents, last_seq=reply.last_seq)))
        return 0
    if not reply.incidents:
        print(f"no incidents logged for bot {args.name!r}")
    for incident in reply.incidents:
        print(_incident_line(incident))
    return 0


def cmd_bot_log(args: argparse.Namespace) -> int:
    if args.limit < 0 or args.limit > 1000:
        return fail(f"--limit must be between 0 and 1000, got {args.limit}")
    return with_client(bot_log, as_author=True)(args)


def _incident_line(incident: Any) -> str:
    """One line of a bot's incident log (a ``BotIncident`` message) for people: number, time, kind, where, what."""
    from arena.store.incident_store import incident_line

    at = float(incident.at.seconds) if incident.HasField("at") else 0.0
    return incident_line(incident.seq, at, incident.kind, incident.match_id, incident.decision_number,
                         incident.request_id, incident.strike, incident.detail)


def _follow_bot_log(client: ArenaClient, name: str, limit: int, poll_s: float) -> None:
    """Print bot ``name``'s newest incidents, then each new one (polling every ``poll_s``), until Ctrl-C."""
    import time

    response = client.get_bot_log(name, limit=limit)
    last = response.last_seq
    while True:
        for incident in response.incidents:
            print(_incident_line(incident), flush=True)
            last = max(last, incident.seq)
        if not response.incidents or last >= response.last_seq:  # caught up: wait for more
            time.sleep(poll_s)
        response = client.get_bot_log(name, after_seq=last)


def _add_spec_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bots", required=True, help="comma-separated participants (registered or built-in bots)")
    parser.add_argument("--name", default="", help="tournament id (schedule id for `schedule`); default: generated")
    parser.add_argument("--seats", type=positive_int, default=2, metavar="N", help="seats per table, 2-10 (default 2)")
    parser.add_argument("--deals", type=positive_int, default=1, metavar="N",
                        help="deals per table, at least 1 (default 1)")
    parser.add_argument("--duplicate", action="store_true",
                        help="duplicate deals: with remote bots each deal at tables that share no bot (safe), among "
                             "built-in bots once per seat rotation")
    parser.add_argument("--duplicate-orders", choices=DUPLICATE_ORDERS, default="",
                        help="how --duplicate plays a deal: across (tables sharing no bot; safe with remote bots), "
                             "rotate (every seat rotation at one table) or all (every seat order, up to 4 seats); "
                             "default: across with remote bots, else rotate")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed; deals derive from it and a secret the "
                        "arena draws (0: the arena draws the seed too; both revealed when the tournament ends)")
    parser.add_argument("--deadline-ms", dest="decision_deadline_ms", type=int, default=0,
                        help="decision deadline (0: the arena's default)")
    parser.add_argument("--time-bank-ms", type=int, default=0, metavar="MS",
                        help="each seat's time bank per match: time over the deadline comes out of it (default 0)")
    parser.add_argument("--lag-cap-ms", dest="lag_compensation_cap_ms", type=int, default=None, metavar="MS",
                        help="the most lag compensation per decision, from the bot's measured round trip "
                             f"(default {DEFAULT_LAG_COMPENSATION_CAP_MS}; 0: none)")
    parser.add_argument("--idempotency-key", default="", help="a retry with the same key creates nothing new "
                        "(default a random key, reused by the automatic retries after a timeout)")
    add_rule_options(parser)


def spec_message(args: argparse.Namespace) -> Any:
    """The TournamentSpec message the spec options describe (ValueError for a bad rule option or a negative
    number; the rest is the arena's to check)."""
    from arena.protocol import arena_pb2
    from arena.protocol.convert import rules_to_proto

    for flag, value in (("--seed", args.seed), ("--deadline-ms", args.decision_deadline_ms),
                        ("--time-bank-ms", args.time_bank_ms), ("--lag-cap-ms", args.lag_compensation_cap_ms)):
        if (value or 0) < 0:
            raise ValueError(f"{flag} must not be negative")
    return arena_pb2.TournamentSpec(
        name=args.name,
        participants=[b.strip() for b in args.bots.split(",") if b.strip()],
        rules=rules_to_proto(rules_from_args(args)),
        seats_per_table=args.seats,
        deals_per_table=args.deals,
        duplicate_deals=args.duplicate,
        duplicate_orders=args.duplicate_orders,
        seed=args.seed,
        decision_deadline_ms=args.decision_deadline_ms,
        time_bank_ms=args.time_bank_ms,
        **({} if args.lag_compensation_cap_ms is None else {"lag_compensation_cap_ms": args.lag_compensation_cap_ms}),
    )


def duplicate_warning(participants: Sequence[str], duplicate: bool, orders: str = "") -> str:
    """The warning for rotated duplicate deals among remote bots (empty when there is none): a later seat order deals
    a bot's opponents the hands it was dealt before, which a bot that remembers can use (docs/organizers.md). Only
    an explicit ``--duplicate-orders rotate|all`` gets there: unset, the arena plays them ``across``."""
    from arena.service.seating import is_builtin

    remote = [name for name in participants if not is_builtin(name)]
    if not duplicate or not remote or orders in ("", SAFE_DUPLICATE_ORDERS):
        return ""
    return (f"warning: --duplicate-orders {orders} with remote bots ({', '.join(remote[:5])}"
            f"{', ...' if len(remote) > 5 else ''}): a bot that remembers its hands knows its opponents' hands in "
            f"later seat orders; between bots you do not trust use --duplicate-orders {SAFE_DUPLICATE_ORDERS} (the "
            "default; docs: organizers, 'Duplicate deals and remote bots')")


def _run_with_spec(args: argparse.Namespace, body: Callable[[ArenaClient, argparse.Namespace, Any], int]) -> int:
    """Run ``body`` with the tournament spec of the options (exit 2 naming a bad one), warning of duplicate deals."""
    try:
        spec = spec_message(args)
    except ValueError as error:
        return fail(error)
    warning = duplicate_warning(list(spec.participants), spec.duplicate_deals, spec.duplicate_orders)
    if warning:
        print(warning, file=sys.stderr)
    return run_client(args, lambda client, a: body(client, a, spec))


DEFAULT_CONNECT_WAIT_S = 10.0
"""`tournament create --require-connected`: seconds the arena waits for the participants (the arena's default)."""


def cmd_tournament_create(args: argparse.Namespace) -> int:
    from arena.client import new_idempotency_key

    def body(client: ArenaClient, args: argparse.Namespace, spec: Any) -> int:
        import grpc

        # Always an idempotency key (made here unless given, so it can be named): a retry after a timeout or a
        # lost answer returns the tournament the first try created, never a second one.
        key = args.idempotency_key or new_idempotency_key()

        def on_retry(code: grpc.StatusCode) -> None:
            print(f"no answer ({code.name}); retrying with the same idempotency key", file=sys.stderr)

        try:
            reply = client.create_tournament(spec, idempotency_key=key, require_connected=args.require_connected,
                                             connect_wait_s=args.connect_wait if args.require_connected else None,
                                             on_retry=on_retry, deals_of=args.deals_of,
                                             seed_secret=args.seed_secret)
        except grpc.RpcError as error:
            if isinstance(error, grpc.Call) and error.code() in (grpc.StatusCode.DEADLINE_EXCEEDED,
                                                                 grpc.StatusCode.UNAVAILABLE):
                print(f"the tournament may have been created: run the same command with --idempotency-key {key} "
                      "to get it (nothing new is created)", file=sys.stderr)
            raise
        t = reply.tournament
        if reply.not_connected:
            print(f"warning: not connected: {', '.join(reply.not_connected)}; they forfeit every match they are not "
                  "connected for (`uno-arena bots list` shows who is connected; --require-connected refuses instead)",
                  file=sys.stderr)
        seed = t.spec.seed or t.revealed_seed
        shown = str(seed) if seed else "secret until it ends"
        print(f"tournament {t.tournament_id}: {t.matches_total} matches, seed {shown}, {state_name(t.state)}")
        if t.seed_commitment:
            print(f"seed commitment: {t.seed_commitment} (check with `uno-arena tournament verify {t.tournament_id}` "
                  "once it ended)")
        if t.deals_known:
            print(deals_known_line(t))
        if spec.duplicate_deals and not t.spec.duplicate_deals:
            from arena.service.tournaments import NO_SHARED_DEAL

            print(f"note: --duplicate: {NO_SHARED_DEAL}", file=sys.stderr)
        if args.watch:
            return watch(client, t.tournament_id, sys.stdout)
        return 0

    if args.seed_secret and args.deals_of:
        return fail("give --deals-of or --seed-secret, not both")
    if args.seed_secret and not args.seed:
        return fail("--seed-secret needs the seed it goes with: add --seed S")
    args.seed_secret = args.seed_secret.strip().lower()
    return _run_with_spec(args, body)


def deals_known_line(t: Any) -> str:
    """The line a tournament that replays known deals carries (create, standings, verify)."""
    source = f"those of tournament {t.deals_of}" if t.deals_of else "a seed and secret given by the admin"
    return (f"deals known in advance: this tournament replays {source}, so its commitment hides nothing; its results "
            "compare bots on the same deals, not on deals nobody could know")


def cmd_tournament_schedule(args: argparse.Namespace) -> int:
    def body(client: ArenaClient, args: argparse.Namespace, spec: Any) -> int:
        s = client.schedule_tournament(spec, args.cron, time_zone=args.time_zone,
                                       idempotency_key=args.idempotency_key)
        print(f"schedule {s.schedule_id}: '{s.cron}' ({s.time_zone}); next run {utc_time(s.next_run_at)}")
        return 0

    return _run_with_spec(args, body)


def statuses_of(text: str) -> list[TournamentStatus]:
    """An argparse type: comma-separated tournament states, each a :class:`TournamentStatus` word."""
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in {status.value for status in TournamentStatus}]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown state {', '.join(unknown) or repr(text)}: use "
                                         f"{', '.join(TournamentStatus)} (comma-separated)")
    return [TournamentStatus(name) for name in names]


LIST_CELL_WIDTH = 40
"""`tournament list` and `schedule list`: the widest a cell gets before it is cut (ending in :data:`ELIDED`)."""


def _cells(rows: list[tuple[str, ...]]) -> list[str]:
    return aligned([tuple(map(one_line, row)) for row in rows], caps=[LIST_CELL_WIDTH] * (len(rows[0]) - 1))


def tournaments_table(tournaments: list[Any]) -> list[str]:
    """The lines of `tournament list`: a header and one row per tournament (``Tournament`` messages)."""
    header = ("id", "state", "matches", "bots", "created", "schedule", "detail")
    return _cells([header, *(
        (t.tournament_id, state_name(t.state), f"{t.matches_done}/{t.matches_total}", ",".join(t.spec.participants),
         utc_time(t.created_at), t.schedule_id or "-", t.detail)
        for t in tournaments
    )])


def tournament_list(client: ArenaClient, args: argparse.Namespace) -> int:
    from itertools import islice

    from arena.protocol.statuses import TOURNAMENT_STATE_OF

    states = [TOURNAMENT_STATE_OF[status] for status in args.status or ()]
    tournaments = list(islice(client.list_tournaments(states), args.limit))
    if args.json:
        print(json.dumps([plain(t) for t in tournaments], indent=2))
    elif not tournaments:
        which = f" {' or '.join(args.status)}" if args.status else ""
        print(f"no{which} tournaments")
    else:
        print("\n".join(tournaments_table(tournaments)))
    return 0


def schedule_list(client: ArenaClient, args: argparse.Namespace) -> int:
    schedules = client.list_schedules()
    if args.json:
        print(json.dumps([plain(s) for s in schedules], indent=2))
    elif not schedules:
        print("no schedules (create one with `uno-arena tournament schedule --cron ... --bots ...`)")
    else:
        rows = [(s.schedule_id, s.cron, utc_time(s.next_run_at), ",".join(s.spec.participants)) for s in schedules]
        print("\n".join(_cells([("id", "cron", "next run", "bots"), *rows])))
    return 0


def schedule_delete(client: ArenaClient, args: argparse.Namespace) -> int:
    s = client.delete_schedule(args.schedule_id)
    print(f"deleted schedule {s.schedule_id} ('{s.cron}'): it starts no further tournament; the tournaments it "
          "started go on")
    return 0


def tournament_watch(client: ArenaClient, args: argparse.Namespace) -> int:
    return watch(client, args.tournament_id, sys.stdout, quiet=args.quiet)


def tournament_standings(client: ArenaClient, args: argparse.Namespace) -> int:
    reply = client.get_standings(args.tournament_id)
    if args.json:
        print(json.dumps(plain(reply), indent=2))
        return 0
    print(standings_text(reply))
    t = client.get_tournament(args.tournament_id)
    if t.deals_known:
        print(deals_known_line(t))
    return 0


def tournament_cancel(client: ArenaClient, args: argparse.Namespace) -> int:
    t = client.cancel_tournament(args.tournament_id, args.reason)
    print(f"tournament {t.tournament_id}: {state_name(t.state)} after {t.matches_done} of {t.matches_total} "
          f"matches ({t.detail})")
    return 0


def tournament_export(client: ArenaClient, args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    fmt = arena_pb2.EXPORT_FORMAT_JSON if args.format == "json" else arena_pb2.EXPORT_FORMAT_CSV
    reply = client.export_results(args.tournament_id, fmt)
    if args.output in (None, "-"):
        sys.stdout.buffer.write(reply.data)
        sys.stdout.flush()
    else:
        with open(args.output, "wb") as handle:
            handle.write(reply.data)
        print(f"wrote {len(reply.data)} bytes to {args.output}", file=sys.stderr)
    return 0


def replay_text(replay: Any) -> str:
    from arena.protocol import game_pb2

    names = {s.seat: s.bot_name for s in replay.seats}
    view = f"as seat {replay.viewer} saw it" if replay.HasField("viewer") else f"omniscient, seed {replay.seed}"
    lines = [f"match {replay.match_id} ({view})", "seats: " + ", ".join(f"{s}={n}" for s, n in sorted(names.items()))]
    lines += [f"  {e.text}" for e in replay.opening]
    for step in replay.steps:
        flags = " [fallback]" if step.fallback else ""
        refusal = f" refused: {step.refusal}" if step.refusal else ""
        who = names.get(step.seat, "?")
        lines.append(f"#{step.decision_number} seat {step.seat} ({who}): {step.action.text}{flags} "
                     f"{step.latency_ms} ms{refusal}")
        lines += [f"  {e.text}" for e in step.events]
    r = replay.result
    winner = f"seat {r.winner} ({names.get(r.winner, '?')})" if r.HasField("winner") else "none"
    lines.append(f"end: {game_pb2.EndReason.Name(replay.reason).removeprefix('END_REASON_').lower()}; "
                 f"scores {list(r.scores)}; winner {winner}; rounds {r.rounds}")
    return "\n".join(lines)


def replay(client: ArenaClient, args: argparse.Namespace) -> int:
    found = client.get_replay(args.match_id, args.seat)
    print(_json(found) if args.json else replay_text(found))
    return 0


def time_zone_option(value: str) -> str:
    """``--time-zone VALUE`` (an IANA name; "", "Z" or "UTC" for UTC), checked here so that the error names the flag
    (the arena's own speaks of the ``CRON_TZ=`` prefix it stores the zone as)."""
    from arena.tournament.cron import CronError, parse_cron, with_time_zone

    if value in ("", "Z"):  # arena.server.organizer.UTC_NAMES that are no IANA name
        return value
    try:
        parse_cron(with_time_zone("0 0 * * *", value))
    except CronError:
        raise argparse.ArgumentTypeError(
            f"unknown time zone {value!r}: expected an IANA name such as 'Europe/Helsinki' or 'UTC'") from None
    return value


def register(commands: Any) -> None:
    """Add `tournament`, `schedule`, `replay`, `bot log` and `bots` to the `uno-arena` sub-commands."""
    tournament = subparsers_of(commands, "tournament", "create, schedule, watch and read tournaments", "tournament_cmd")

    create = api_command(tournament, "create", cmd_tournament_create,
                         help="create a round-robin tournament and start it now")
    _add_spec_options(create)
    create.add_argument("--deals-of", default="", metavar="TOURNAMENT",
                        help="replay the deals of this ended tournament (its revealed seed and secret) with today's "
                             "bots: give the same bots, seats, deals and rules to meet every deal again (admin)")
    create.add_argument("--seed-secret", default="", metavar="HEX",
                        help="with --seed S: replay the deals of that seed and this revealed secret (64 hex digits), "
                             "e.g. a tournament's from another arena (admin)")
    create.add_argument("--watch", action="store_true", help="follow it to the end and print the standings")
    create.add_argument("--require-connected", action="store_true",
                        help="refuse when a registered participant is not connected after --connect-wait (default: "
                             "create it anyway and warn, naming them: they forfeit the matches they miss)")
    create.add_argument("--connect-wait", type=not_negative(float), default=DEFAULT_CONNECT_WAIT_S, metavar="SECONDS",
                        help=f"with --require-connected: how long the arena waits for them to connect (default "
                             f"{DEFAULT_CONNECT_WAIT_S:g})")

    ls = api_command(tournament, "list", with_client(tournament_list), json=EVERY_FIELD,
                     help="tournaments, newest first (anyone; seeds only once they ended)")
    ls.add_argument("--status", type=statuses_of, action="extend", default=None, metavar="STATE[,STATE]",
                    help=f"only tournaments in these states ({', '.join(TournamentStatus)})")
    ls.add_argument("--limit", type=positive_int, default=None, metavar="N", help="at most N tournaments")

    schedules = subparsers_of(commands, "schedule", "list and delete cron schedules (create them with `tournament "
                              "schedule`)", "schedule_cmd")
    api_command(schedules, "list", with_client(schedule_list), json=EVERY_FIELD,
                help="every schedule with its next run (admin)")
    api_command(schedules, "delete", with_client(schedule_delete), "schedule_id",
                help="delete a schedule: no further tournament starts from it (admin)")

    sched = api_command(tournament, "schedule", cmd_tournament_schedule,
                        help="start a tournament on every tick of a cron expression")
    _add_spec_options(sched)
    sched.add_argument("--cron", required=True, help="five fields, UTC: minute hour day month weekday")
    sched.add_argument("--time-zone", default="", type=time_zone_option,
                       help="IANA time zone of the cron fields, e.g. Europe/Helsinki (default UTC)")

    w = api_command(tournament, "watch", with_client(tournament_watch), "tournament_id",
                    help="follow a tournament's progress until it ends")
    w.add_argument("--quiet", action="store_true", help="print only the final standings")
    api_command(tournament, "standings", with_client(tournament_standings), "tournament_id",
                json=f"{EVERY_FIELD} (null when unknown)",
                help="standings (provisional while running)")
    cancel = api_command(tournament, "cancel", with_client(tournament_cancel), "tournament_id",
                         help="cancel a pending or running tournament (no further match starts)")
    cancel.add_argument("--reason", default="", help="kept as the tournament's detail")
    ex = api_command(tournament, "export", with_client(tournament_export), "tournament_id",
                     help="export results as CSV (one line per match and seat) or JSON")
    ex.add_argument("--format", choices=("csv", "json"), default="csv")
    ex.add_argument("--output", "-o", default=None, help="file to write (default: standard output)")

    rp = api_command(commands, "replay", with_client(replay), "match_id", json="",
                     help="a match's replay, omniscient or as one seat saw it")
    rp.add_argument("--seat", type=int, default=None, help="the seat whose view to show")

    bot = subparsers_of(commands, "bot", "run, check and register remote bots", "bot_command")
    log = api_command(bot, "log", cmd_bot_log, "name", json="",
                      help="a bot's incident log: refusals, timeouts, fallbacks, forfeits, disconnects "
                           "(the bot's own token, or the admin's)")
    log.add_argument("--follow", "-f", action="store_true", help="keep printing new incidents until Ctrl-C")
    log.add_argument("--limit", type=int, default=0, help="the newest N incidents (default 100, at most 1000)")
    log.add_argument("--poll", type=float, default=2.0, help=argparse.SUPPRESS)

    bots = subparsers_of(commands, "bots", "register and list bots", "bots_cmd")
    ls = api_command(bots, "list", with_client(bots_list), json="",
                     help="registered bots, with their version and whether they are connected")
    ls.add_argument("--include-deleted", action="store_true", help="deleted bots too (admin only)")
    api_command(bots, "show", with_client(bots_show), "name", json="",
                help="one bot: its state and every version it connected with")
    reg = api_command(bots, "register", with_client(bots_register), "name",
                      help="register a bot; prints its token (shown once)")
    reg.add_argument("--description", default="")
    rotate = api_command(bots, "rotate-token", with_client(bots_rotate), "name",
                         help="a new token for a bot; the old one stops working at once (admin)")
    for parser in (reg, rotate):
        parser.add_argument("--output", "-o", default=None, metavar="FILE",
                            help="write the token to FILE (mode 0600) instead of printing it")
    api_command(bots, "revoke", with_client(bots_revoke), "name",
                help="no token of the bot works until rotate-token (admin)")
    api_command(bots, "delete", with_client(bots_delete), "name",
                help="delete a bot for good: results stay, the name stays taken (admin)")
