"""`uno-arena tournament ...`, `uno-arena replay`, `uno-arena bots ...`: thin clients of ArenaService.

Every command talks to the organizer API (``uno_arena.v1.ArenaService``) at ``--target`` (default
``$UNO_ARENA_TARGET``, else ``localhost:50051``) and sends ``authorization: Bearer TOKEN`` with the token
of ``--token-file FILE`` (the admin token, or a bot's own token for what a bot may read), else
``$UNO_ARENA_ADMIN_TOKEN``, else the file ``$UNO_ARENA_ADMIN_TOKEN_FILE`` names (no token: anonymous calls,
public data only). Nothing here touches Redis or Celery.

    uno-arena bots register NAME [--description TEXT]      # prints the token, once
    uno-arena bots list [--json] [--include-deleted]
    uno-arena bots rotate-token NAME [--output FILE]       # a new token; the old one stops working at once
    uno-arena bots revoke NAME                             # no token works until rotate-token
    uno-arena bots delete NAME                             # for good: results stay, the name stays taken
    uno-arena tournament create --bots random,heuristic,mybot [--seats 3] [--deals 4] [--duplicate]
                                [--seed 7] [--deadline-ms 500] [--variant classic] [--target-score 200]
                                [--name ID] [--idempotency-key KEY] [--watch]
    uno-arena tournament schedule --cron "0 3 * * *" --bots ... (same spec options)
    uno-arena tournament watch TOURNAMENT_ID
    uno-arena tournament standings TOURNAMENT_ID [--json]
    uno-arena tournament export TOURNAMENT_ID [--format csv|json] [--output FILE]
    uno-arena tournament cancel TOURNAMENT_ID [--reason TEXT]
    uno-arena tournament verify TOURNAMENT_ID              # once ended: seed commitment, every match replayed
    uno-arena replay MATCH_ID [--seat N] [--json]

Exit status: 0 on success, 1 when the server refuses the request (its status and message are
printed), 2 for bad command-line input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from arena.client import (
    DEFAULT_TARGET,
    TARGET_ENV,
    Client,
    default_target,
    standings_text,
    state_name,
    watch,
)
from arena.commands import subparsers_of


def _run(args: argparse.Namespace, body: Callable[[Client, argparse.Namespace], int]) -> int:
    """Run ``body`` with a client; an RPC error prints its status and message and exits 1."""
    import grpc

    from arena.client import token_from

    try:
        client = Client(args.target, token_from(token_file=getattr(args, "token_file", None)),
                        tls=getattr(args, "tls", False), tls_ca=getattr(args, "tls_ca", None))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        return body(client, args)
    except grpc.RpcError as error:
        code = error.code() if hasattr(error, "code") else None
        details = error.details() if hasattr(error, "details") else str(error)
        name = code.name if code is not None else "ERROR"
        if code == grpc.StatusCode.UNAVAILABLE:
            details = f"{details} (is `uno-arena serve` running at {args.target}?)"
        print(f"error: {name}: {details}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        client.close()


def _add_target(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target",
        default=None,
        help=f"ArenaService address (default ${TARGET_ENV}, else {DEFAULT_TARGET})",
    )
    parser.add_argument(
        "--token-file",
        default=None,
        metavar="FILE",
        help="file holding the token to send (the admin's, or a bot's for what a bot may read); default "
             "$UNO_ARENA_ADMIN_TOKEN, else the file $UNO_ARENA_ADMIN_TOKEN_FILE names; none: anonymous",
    )
    parser.add_argument("--tls", action="store_true",
                        help="connect with TLS (system roots; default $UNO_ARENA_TLS=1)")
    parser.add_argument("--tls-ca", default=None, metavar="FILE",
                        help="PEM CA (or self-signed server certificate) to trust; implies --tls "
                             "(default $UNO_ARENA_TLS_CA)")


def _fix_target(args: argparse.Namespace) -> None:
    if getattr(args, "target", None) is None:
        args.target = default_target()


# -- formatting ----------------------------------------------------------------------------------


def _when(ts: Any) -> str:
    if ts is None or (ts.seconds == 0 and ts.nanos == 0):
        return "-"
    return datetime.fromtimestamp(ts.seconds + ts.nanos / 1e9, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _json(message: Any) -> str:
    from google.protobuf.json_format import MessageToJson

    return str(MessageToJson(message, preserving_proto_field_name=True, indent=2))


# -- bots ----------------------------------------------------------------------------------------


def cmd_bots_list(args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    def body(client: Client, args: argparse.Namespace) -> int:
        bots: list[Any] = []
        token = ""
        while True:
            page = client.call("ListBots", arena_pb2.ListBotsRequest(page_size=500, page_token=token,
                                                                      include_deleted=args.include_deleted))
            bots.extend(page.bots)
            token = page.next_page_token
            if not token:
                break
        if args.json:
            print(_json(arena_pb2.ListBotsResponse(bots=bots)))
            return 0
        if not bots:
            print("no bots registered (built-in bots need no registration: random, heuristic)")
            return 0
        print(f"{'name':<32} {'version':<12} {'connected':<9} {'registered':<23} description")
        for bot in bots:
            mark = " [deleted]" if bot.deleted else " [revoked]" if bot.revoked else ""
            print(
                f"{bot.name:<32} {bot.bot_version:<12} {'yes' if bot.connected else 'no':<9} "
                f"{_when(bot.created_at):<23} {bot.description}{mark}"
            )
        return 0

    return _run(args, body)


def _print_token(token: str, output: str | None) -> None:
    from arena.client import write_secret_file

    if output:
        write_secret_file(output, token + "\n")
        print(f"token written to {output} (mode 0600); pass it with --token-file {output}")
    else:
        print(f"token (shown once, keep it secret): {token}")


def cmd_bots_rotate(args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    def body(client: Client, args: argparse.Namespace) -> int:
        reply = client.call("RotateBotToken", arena_pb2.RotateBotTokenRequest(name=args.name))
        print(f"new token for bot {reply.bot.name!r}: the previous one no longer works and its streams were closed")
        _print_token(reply.token, args.output)
        return 0

    return _run(args, body)


def cmd_bots_revoke(args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    def body(client: Client, args: argparse.Namespace) -> int:
        reply = client.call("RevokeBot", arena_pb2.RevokeBotRequest(name=args.name))
        print(f"revoked the token of bot {reply.bot.name!r}: no token works until `uno-arena bots rotate-token "
              f"{reply.bot.name}`")
        return 0

    return _run(args, body)


def cmd_bots_delete(args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    def body(client: Client, args: argparse.Namespace) -> int:
        reply = client.call("DeleteBot", arena_pb2.DeleteBotRequest(name=args.name))
        print(f"deleted bot {reply.bot.name!r}: its results stay; the name cannot be registered again")
        return 0

    return _run(args, body)


def cmd_bots_register(args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    def body(client: Client, args: argparse.Namespace) -> int:
        reply = client.call("RegisterBot", arena_pb2.RegisterBotRequest(name=args.name, description=args.description))
        print(f"registered bot {reply.bot.name!r}")
        _print_token(reply.token, getattr(args, "output", None))
        return 0

    return _run(args, body)


# -- tournaments ---------------------------------------------------------------------------------


def _add_spec_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bots", required=True, help="comma-separated participants (registered or built-in bots)")
    parser.add_argument("--name", default="", help="tournament id (schedule id for `schedule`); default: generated")
    parser.add_argument("--seats", type=int, default=2, metavar="N", help="seats per table, 2-10 (default 2)")
    parser.add_argument("--deals", type=int, default=1, metavar="N", help="deals per table (default 1)")
    parser.add_argument("--duplicate", action="store_true", help="replay every deal once per seat rotation")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed, reproduces the tournament exactly "
                        "(0: the arena draws a secret one, revealed when the tournament ends)")
    parser.add_argument("--deadline-ms", type=int, default=0, help="decision deadline (0: server default, 1000)")
    parser.add_argument("--idempotency-key", default="", help="a retry with the same key creates nothing new "
                        "(create: default a random key, reused by the automatic retries after a timeout)")
    rules = parser.add_argument_group("rule options (RULES.md; unset: the engine's default)")
    rules.add_argument("--variant", choices=("flip", "classic"), default="flip")
    rules.add_argument("--no-bluffing", action="store_true", help="refuse illegal wild draws (T3)")
    rules.add_argument("--uno-penalty", choices=("auto", "catch"), default=None)
    rules.add_argument("--target-score", type=int, default=None, metavar="POINTS", help="match target (E4, 500)")
    rules.add_argument("--scoring", choices=("winner", "lowest"), default=None)
    rules.add_argument("--start-flip", choices=("replace", "flip"), default=None)
    rules.add_argument("--pairing", choices=("physical", "shuffled"), default=None)


def spec_message(args: argparse.Namespace) -> Any:
    """The TournamentSpec message the spec options describe (validation is the server's)."""
    from arena.protocol import arena_pb2, game_pb2

    rules = game_pb2.Rules(variant=game_pb2.VARIANT_CLASSIC if args.variant == "classic" else game_pb2.VARIANT_FLIP)
    if args.no_bluffing:
        rules.bluffing = False
    if args.target_score is not None:
        rules.target = args.target_score
    if args.uno_penalty:
        rules.uno_penalty = game_pb2.UNO_PENALTY_CATCH if args.uno_penalty == "catch" else game_pb2.UNO_PENALTY_AUTO
    if args.scoring:
        rules.scoring = game_pb2.SCORING_LOWEST if args.scoring == "lowest" else game_pb2.SCORING_WINNER
    if args.start_flip:
        rules.start_flip = game_pb2.START_FLIP_FLIP if args.start_flip == "flip" else game_pb2.START_FLIP_REPLACE
    if args.pairing:
        rules.pairing = game_pb2.PAIRING_SHUFFLED if args.pairing == "shuffled" else game_pb2.PAIRING_PHYSICAL
    for name in ("seats", "deals", "seed", "deadline_ms"):
        if getattr(args, name) < 0:
            raise ValueError(f"--{name.replace('_', '-')} must not be negative")
    return arena_pb2.TournamentSpec(
        name=args.name,
        participants=[b.strip() for b in args.bots.split(",") if b.strip()],
        rules=rules,
        seats_per_table=args.seats,
        deals_per_table=args.deals,
        duplicate_deals=args.duplicate,
        seed=args.seed,
        decision_deadline_ms=args.deadline_ms,
    )


def _run_with_spec(args: argparse.Namespace, body: Callable[[Client, argparse.Namespace, Any], int]) -> int:
    """Build the tournament spec from the options (exit 2 naming a bad one), then run ``body`` with it."""
    try:
        spec = spec_message(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return _run(args, lambda client, a: body(client, a, spec))


CREATE_ATTEMPTS = 3
"""`tournament create` tries this often when the answer does not come (DEADLINE_EXCEEDED, UNAVAILABLE)."""


def cmd_tournament_create(args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    def body(client: Client, args: argparse.Namespace, spec: Any) -> int:
        import uuid

        import grpc

        # Always an idempotency key (generated here unless given): a retry after a timeout or a lost answer
        # returns the tournament the first try created, never a second one.
        key = args.idempotency_key or f"cli-{uuid.uuid4().hex}"
        request = arena_pb2.CreateTournamentRequest(spec=spec, idempotency_key=key)
        for attempt in range(1, CREATE_ATTEMPTS + 1):
            try:
                reply = client.call("CreateTournament", request)
                break
            except grpc.RpcError as error:
                code = error.code() if hasattr(error, "code") else None
                if code not in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE):
                    raise
                if attempt == CREATE_ATTEMPTS:
                    print(f"the tournament may have been created: run the same command with --idempotency-key {key} "
                          "to get it (nothing new is created)", file=sys.stderr)
                    raise
                print(f"no answer ({code.name if code else 'error'}); retrying with the same idempotency key",
                      file=sys.stderr)
        t = reply.tournament
        seed = t.spec.seed or t.revealed_seed
        shown = str(seed) if seed else "secret until it ends"
        print(f"tournament {t.tournament_id}: {t.matches_total} matches, seed {shown}, {state_name(t.state)}")
        if t.seed_commitment:
            print(f"seed commitment: {t.seed_commitment} (check with `uno-arena tournament verify {t.tournament_id}` "
                  "once it ended)")
        if args.watch:
            return watch(client, t.tournament_id, sys.stdout)
        return 0

    return _run_with_spec(args, body)


def cmd_tournament_schedule(args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    def body(client: Client, args: argparse.Namespace, spec: Any) -> int:
        reply = client.call(
            "ScheduleTournament",
            arena_pb2.ScheduleTournamentRequest(
                spec=spec, cron=args.cron, time_zone=args.time_zone, idempotency_key=args.idempotency_key
            ),
        )
        s = reply.schedule
        print(f"schedule {s.schedule_id}: '{s.cron}' ({s.time_zone}); next run {_when(s.next_run_at)}")
        return 0

    return _run_with_spec(args, body)


def cmd_tournament_watch(args: argparse.Namespace) -> int:
    return _run(args, lambda client, a: watch(client, a.tournament_id, sys.stdout, quiet=a.quiet))


def cmd_tournament_standings(args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    def body(client: Client, args: argparse.Namespace) -> int:
        reply = client.call("GetStandings", arena_pb2.GetStandingsRequest(tournament_id=args.tournament_id))
        print(_json(reply) if args.json else standings_text(reply))
        return 0

    return _run(args, body)


def cmd_tournament_cancel(args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    def body(client: Client, args: argparse.Namespace) -> int:
        request = arena_pb2.CancelTournamentRequest(tournament_id=args.tournament_id, reason=args.reason)
        t = client.call("CancelTournament", request).tournament
        print(f"tournament {t.tournament_id}: {state_name(t.state)} after {t.matches_done} of {t.matches_total} "
              f"matches ({t.detail})")
        return 0

    return _run(args, body)


def cmd_tournament_export(args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    fmt = arena_pb2.EXPORT_FORMAT_JSON if args.format == "json" else arena_pb2.EXPORT_FORMAT_CSV

    def body(client: Client, args: argparse.Namespace) -> int:
        request = arena_pb2.ExportResultsRequest(tournament_id=args.tournament_id, format=fmt)
        reply = client.call("ExportResults", request)
        if args.output in (None, "-"):
            sys.stdout.buffer.write(reply.data)
            sys.stdout.flush()
        else:
            with open(args.output, "wb") as handle:
                handle.write(reply.data)
            print(f"wrote {len(reply.data)} bytes to {args.output}", file=sys.stderr)
        return 0

    return _run(args, body)


# -- replays -------------------------------------------------------------------------------------


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
        lines.append(
            f"#{step.decision_number} seat {step.seat} ({who}): {step.action.text}{flags} {step.latency_ms} ms{refusal}"
        )
        lines += [f"  {e.text}" for e in step.events]
    r = replay.result
    winner = f"seat {r.winner} ({names.get(r.winner, '?')})" if r.HasField("winner") else "none"
    lines.append(
        f"end: {game_pb2.EndReason.Name(replay.reason).removeprefix('END_REASON_').lower()}; "
        f"scores {list(r.scores)}; winner {winner}; rounds {r.rounds}"
    )
    return "\n".join(lines)


def cmd_replay(args: argparse.Namespace) -> int:
    from arena.protocol import arena_pb2

    def body(client: Client, args: argparse.Namespace) -> int:
        request = arena_pb2.GetReplayRequest(match_id=args.match_id)
        if args.seat is not None:
            request.seat = args.seat
        reply = client.call("GetReplay", request)
        print(_json(reply.replay) if args.json else replay_text(reply.replay))
        return 0

    return _run(args, body)


# -- registration --------------------------------------------------------------------------------


def _wrap(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        _fix_target(args)
        return func(args)

    return run


def register(commands: Any) -> None:
    """Add `tournament`, `replay` and `bots` (list, register) to the `uno-arena` sub-commands."""
    tournament = subparsers_of(commands, "tournament", "create, schedule, watch and read tournaments", "tournament_cmd")

    create = tournament.add_parser("create", help="create a round-robin tournament and start it now")
    _add_spec_options(create)
    create.add_argument("--watch", action="store_true", help="follow it to the end and print the standings")
    _add_target(create)
    create.set_defaults(func=_wrap(cmd_tournament_create))

    sched = tournament.add_parser("schedule", help="start a tournament on every tick of a cron expression")
    _add_spec_options(sched)
    sched.add_argument("--cron", required=True, help="five fields, UTC: minute hour day month weekday")
    sched.add_argument("--time-zone", default="", help="IANA time zone of the cron fields, e.g. Europe/Helsinki "
                                                        "(default UTC)")
    _add_target(sched)
    sched.set_defaults(func=_wrap(cmd_tournament_schedule))

    w = tournament.add_parser("watch", help="follow a tournament's progress until it ends")
    w.add_argument("tournament_id")
    w.add_argument("--quiet", action="store_true", help="print only the final standings")
    _add_target(w)
    w.set_defaults(func=_wrap(cmd_tournament_watch))

    st = tournament.add_parser("standings", help="standings (provisional while running)")
    st.add_argument("tournament_id")
    st.add_argument("--json", action="store_true")
    _add_target(st)
    st.set_defaults(func=_wrap(cmd_tournament_standings))

    cancel = tournament.add_parser("cancel", help="cancel a pending or running tournament (no further match starts)")
    cancel.add_argument("tournament_id")
    cancel.add_argument("--reason", default="", help="kept as the tournament's detail")
    _add_target(cancel)
    cancel.set_defaults(func=_wrap(cmd_tournament_cancel))

    ex = tournament.add_parser("export", help="export results as CSV (one line per match and seat) or JSON")
    ex.add_argument("tournament_id")
    ex.add_argument("--format", choices=("csv", "json"), default="csv")
    ex.add_argument("--output", "-o", default=None, help="file to write (default: standard output)")
    _add_target(ex)
    ex.set_defaults(func=_wrap(cmd_tournament_export))

    if "replay" not in commands.choices:
        rp = commands.add_parser("replay", help="a match's replay, omniscient or as one seat saw it")
        rp.add_argument("match_id")
        rp.add_argument("--seat", type=int, default=None, help="the seat whose view to show")
        rp.add_argument("--json", action="store_true")
        _add_target(rp)
        rp.set_defaults(func=_wrap(cmd_replay))

    bots = subparsers_of(commands, "bots", "register and list bots", "bots_cmd")
    if "list" not in bots.choices:
        ls = bots.add_parser("list", help="registered bots, with their version and whether they are connected")
        ls.add_argument("--json", action="store_true")
        ls.add_argument("--include-deleted", action="store_true", help="deleted bots too (admin only)")
        _add_target(ls)
        ls.set_defaults(func=_wrap(cmd_bots_list))
    if "register" not in bots.choices:
        reg = bots.add_parser("register", help="register a bot; prints its token (shown once)")
        reg.add_argument("name")
        reg.add_argument("--description", default="")
        reg.add_argument("--output", "-o", default=None, metavar="FILE",
                         help="write the token to FILE (mode 0600) instead of printing it")
        _add_target(reg)
        reg.set_defaults(func=_wrap(cmd_bots_register))
    for name, func, text in (
        ("rotate-token", cmd_bots_rotate, "a new token for a bot; the old one stops working at once (admin)"),
        ("revoke", cmd_bots_revoke, "no token of the bot works until rotate-token (admin)"),
        ("delete", cmd_bots_delete, "delete a bot for good: results stay, the name stays taken (admin)"),
    ):
        if name not in bots.choices:
            sub = bots.add_parser(name, help=text)
            sub.add_argument("name")
            if name == "rotate-token":
                sub.add_argument("--output", "-o", default=None, metavar="FILE",
                                 help="write the token to FILE (mode 0600) instead of printing it")
            _add_target(sub)
            sub.set_defaults(func=_wrap(func))
