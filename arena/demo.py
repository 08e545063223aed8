"""`uno-arena demo`: the whole arena on one machine with nothing installed but the package (docs/getting-started.md,
The demo): Redis, the gateway, a worker, the scheduler, the web front, remote bots and the bot host with a bot
submitted from source, each a process of its own (:func:`arena.local_arena.local_arena`); then a round-robin
tournament, its standings and throughput, and one run's results and replays in a folder of its own.

Every option is checked before anything starts, by the organizer API's own rules (:func:`checked_spec`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from arena.client import ArenaClient
from arena.local_arena import LocalArena, local_arena, redis_problem

REMOTE_BOTS = (("remote-heuristic", "heuristic"), ("remote-random", "random"))
BUILTIN_PARTICIPANTS = ("heuristic", "random")
HOSTED_BOT = "hosted-example"
"""The bot the demo submits from source: in the place of the last remote bot, so the tournament keeps its size with
or without the sandbox."""
HOSTED_WAIT_S = 120.0
"""How long the demo waits for its submitted bot's verdict and connection (the check in the sandbox: about 10 s on a
loaded 2-core machine)."""


@dataclass
class DemoOptions:
    seats: int = 3
    deals: int = 6
    duplicate: bool = True
    target_score: int = 200
    variant: str = "flip"
    seed: int = 2026
    out_dir: Path | None = None
    """Where results and replays go: a new or empty folder; None: a new folder under the temporary folder."""
    keep_running: bool = False
    web_port: int | None = None
    """The web front's port; None: :data:`WEB_PORT` when free, else a free one."""


class DemoOptionError(ValueError):
    """A demo option the arena would refuse, or a web port it cannot have: the message names the option."""


SCHEDULER_TICK_S = 2.0
"""The demo's scheduler ticks this often (a deployment's every 10 s): a competition created against it starts
its first blocks within seconds."""


def hosted_example_folder() -> Path:
    import bots

    return Path(bots.__file__).parent / "hosted_example"


def remote_bots(hosted: bool) -> tuple[tuple[str, str], ...]:
    """The remote bots the demo runs (name, brain): the last plays only without the submitted bot."""
    return REMOTE_BOTS[:-1] if hosted else REMOTE_BOTS


def participants(hosted: bool) -> list[str]:
    return [*BUILTIN_PARTICIPANTS, *(name for name, _ in remote_bots(hosted)), *([HOSTED_BOT] if hosted else [])]


def checked_spec(options: DemoOptions, hosted: bool = False) -> Any:
    """The demo tournament's ``TournamentSpec`` message, checked as the organizer API checks a request, and the web
    port (in range, free when given); :class:`DemoOptionError` naming a bad option."""
    from arena.engine import Rules, Variant
    from arena.protocol import arena_pb2
    from arena.protocol.convert import rules_to_proto
    from arena.protocol.specs import tournament_spec_from_proto
    from arena.tournament import limits

    bots = participants(hosted)
    if not 2 <= options.seats <= len(bots):
        raise DemoOptionError(f"--seats must be between 2 and {len(bots)} (the demo's {len(bots)} bots), got "
                              f"{options.seats}")
    if not 1 <= options.deals <= limits.MAX_DEALS:
        raise DemoOptionError(f"--deals must be between 1 and {limits.MAX_DEALS}, got {options.deals}")
    if not 1 <= options.target_score <= limits.MAX_TARGET:
        raise DemoOptionError(f"--target-score must be between 1 and {limits.MAX_TARGET}, got {options.target_score}")
    if not 0 <= options.seed < 2**63:
        raise DemoOptionError(f"--seed must be between 0 and 2**63 - 1, got {options.seed}")
    if options.web_port is not None:
        if not 1 <= options.web_port <= 65535:
            raise DemoOptionError(f"--web-port must be between 1 and 65535, got {options.web_port}")
        if not _port_free(options.web_port):
            raise DemoOptionError(f"--web-port {options.web_port} is in use: give a free port (or leave --web-port "
                                  f"out: {WEB_PORT} when free, else another)")
    spec = arena_pb2.TournamentSpec(
        name=f"demo-{int(time.time())}", participants=bots,
        rules=rules_to_proto(Rules(variant=Variant(options.variant), target=options.target_score)),
        seats_per_table=options.seats, deals_per_table=options.deals, duplicate_deals=options.duplicate,
        seed=options.seed, decision_deadline_ms=DEMO_DEADLINE_MS)
    try:  # what the organizer API checks besides (the tournament's size)
        limits.check_numbers(participants=len(bots), seats=options.seats, deals=options.deals,
                             decision_deadline_ms=DEMO_DEADLINE_MS, rules={"target": options.target_score})
        checked = tournament_spec_from_proto(spec, "demo")
        limits.check_size(len(checked.participants), checked.seats, checked.deals, checked.matches_per_deal,
                          checked.max_tables, checked.pair_meetings)
    except ValueError as error:
        raise DemoOptionError(f"the demo's tournament: {error}") from None
    return spec


DEMO_DEADLINE_MS = 1000


OUTPUT_PREFIX = "uno-arena-demo-"
OUTPUT_FILES = "results.csv, results.json and replays/"


class OutputFolderError(ValueError):
    """The folder given for the demo's output cannot take one run's results."""


def output_folder(path: Path | None) -> Path:
    """The folder for one run's results and replays, created: ``path`` if it is new or empty (else
    :class:`OutputFolderError`: a previous run's replays would mix in), or a new one under the temporary folder."""
    if path is None:
        return Path(tempfile.mkdtemp(prefix=OUTPUT_PREFIX))
    if path.exists() and not path.is_dir():
        raise OutputFolderError(f"--out {path}: not a folder")
    if path.is_dir() and any(path.iterdir()):
        raise OutputFolderError(f"--out {path}: the folder is not empty; the demo writes {OUTPUT_FILES} of one "
                                "run there, so give a new or empty folder (or leave --out out: a new folder "
                                "under the temporary folder)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputFolderError(f"--out {path}: cannot create the folder: {error.strerror or error}") from None
    return path


def run_demo(options: DemoOptions, out: TextIO, watch: Callable[[ArenaClient, str, TextIO], int]) -> int:
    """Run the demo, following its tournament with ``watch(client, tournament_id, out)`` (the CLI's
    :func:`arena.commands.tables.watch`: its progress, then its standings; 0 when it finished)."""
    say = functools.partial(print, file=out)
    import grpc

    from arena.client import rpc_error_line
    from arena.hosting.sandbox import sandbox_missing

    try:  # the options first: a typo stops the demo before anything starts (the sandbox probe is a process)
        spec = checked_spec(options)
        problem = redis_problem() if os.environ.get("REDIS_URL", "").strip() else None  # else: an embedded one
        if problem is not None:
            raise DemoOptionError(f"{problem} (or unset REDIS_URL: the demo then runs a Redis of its own)")
        out_dir = output_folder(options.out_dir)
    except (DemoOptionError, OutputFolderError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    missing = sandbox_missing()
    if not missing:  # the same number of bots: the checks above hold for it
        spec = checked_spec(options, hosted=True)
    say(f"output       {out_dir}/  ({OUTPUT_FILES} of this run)")
    started = time.monotonic()
    try:
        with local_arena(worker_concurrency=2, scheduler_tick_s=SCHEDULER_TICK_S, unix_socket=not missing) as arena:
            client = arena.client
            say(f"redis        {arena.redis_url}" + ("  (embedded)" if arena.embedded_redis else ""))
            say(f"gateway      {arena.address}  metrics http://127.0.0.1:{arena.gateway_metrics_port}/metrics")
            say(f"worker       2 processes  metrics http://127.0.0.1:{arena.worker_metrics_port}/metrics")
            say(f"scheduler    fires cron schedules and competitions' ladder rounds (every {SCHEDULER_TICK_S:g} s)")
            if not missing:  # first: its check in the sandbox runs while the rest starts
                start_hosted_bot(arena)
            web_url = start_web(arena, options.web_port)
            say(f"web          {web_url}/  (leaderboard, the tournament live, replays, bots, status)")
            names = [name for name, _ in remote_bots(not missing)]
            for name, brain in remote_bots(not missing):
                arena.start_remote_bot(name, brain)
            arena.wait_for_bots(names)
            say(f"remote bots  {', '.join(names)} (own processes, over gRPC)")
            spec = hosted_bot(arena, options, spec, missing, out)
            say(f"environment  {environment_line(arena)}  (the CLI of another shell reaches this arena)")
            created = client.create_tournament(spec, idempotency_key=spec.name)
            tournament_id = created.tournament.tournament_id
            total = created.tournament.matches_total
            say(f"tournament   {tournament_id}: {len(spec.participants)} bots, {options.seats} seats per table, "
                f"{options.deals} deals, {duplicate_words(options.duplicate, created.tournament.spec)}: {total} "
                "matches")
            say(f"follow it    {web_url}/tournaments/{tournament_id}", flush=True)
            begun = time.monotonic()
            status = watch(client, tournament_id, out)
            elapsed = time.monotonic() - begun
            decisions = _write_outputs(client, tournament_id, out_dir)
            say(f"\nthroughput   {total} matches in {elapsed:.1f} s: {total / elapsed:.2f} matches/s, "
                f"{decisions / elapsed:,.0f} decisions/s")
            say(f"results      {out_dir}/results.csv, {out_dir}/results.json")
            say(f"replays      {out_dir}/replays/  (one JSON per match; while the arena runs: "
                f"uno-arena replay MATCH_ID [--seat N])")
            say(f"metrics      http://127.0.0.1:{arena.gateway_metrics_port}/metrics (gateway), "
                f"http://127.0.0.1:{arena.worker_metrics_port}/metrics (workers)"
                + ("" if options.keep_running else "; --keep-running keeps them up"))
            if options.keep_running:
                keep_running(arena, web_url, out, [n for n in spec.participants if n not in BUILTIN_PARTICIPANTS])
            say(f"done in {time.monotonic() - started:.0f} s; results and replays in {out_dir}/; everything "
                f"started was stopped (process logs: {arena.work_dir})")
            return status
    except (RuntimeError, grpc.RpcError) as error:
        reason = rpc_error_line(error, "the demo's gateway") if isinstance(error, grpc.RpcError) else str(error)
        print(f"demo failed: {reason}", file=sys.stderr)
        if options.out_dir is None:  # the folder made for this run, if nothing was written to it
            with contextlib.suppress(OSError):
                out_dir.rmdir()
        return 1


def start_hosted_bot(arena: LocalArena) -> None:
    """Register :data:`HOSTED_BOT`, submit its source folder with its own token (``SubmitBot``, as `uno-arena bot
    submit` does) and start the bot host, which checks it in the sandbox and runs it once admitted."""
    from arena.submissions import pack_folder

    token = arena.register(HOSTED_BOT)
    with ArenaClient(arena.address, token) as author:
        author.submit_bot(HOSTED_BOT, pack_folder(hosted_example_folder()))
    arena.start_host("--poll", "0.5")


def hosted_bot_problem(arena: LocalArena, timeout_s: float = HOSTED_WAIT_S) -> str:
    """'' once :data:`HOSTED_BOT` is admitted and connected; else why not, in one line (the verdict's reason, or
    not within ``timeout_s``)."""
    from arena.protocol import arena_pb2

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        arena.processes.check_alive()
        submission = arena.client.list_submissions(HOSTED_BOT).submissions[-1]
        if submission.state == arena_pb2.SUBMISSION_STATE_REJECTED:
            return "rejected: " + "; ".join(line.strip() for line in submission.reason.splitlines())[:300]
        if submission.state == arena_pb2.SUBMISSION_STATE_ADMITTED and HOSTED_BOT in arena.connected():
            return ""
        time.sleep(0.5)
    return f"not admitted and connected within {timeout_s:g} s (the host's log: {arena.work_dir}/host.log)"


def hosted_bot(arena: LocalArena, options: DemoOptions, spec: Any, missing: str, out: TextIO) -> Any:
    """Say whether the submitted bot plays (``missing``: what the sandbox lacks; it was not submitted); the spec to
    play. When it did not make it (rejected, or not connected in time), the remote bot it replaced plays instead."""
    if missing:
        print(f"hosted bot   skipped: {missing}; the demo plays without a submitted bot (docs/hosting.md)", file=out)
        return spec
    problem = hosted_bot_problem(arena)
    if not problem:
        print(f"hosted bot   {HOSTED_BOT}: submitted from source ({hosted_example_folder()}), checked and run by "
              "the bot host in its bubblewrap sandbox", file=out)
        return spec
    name, brain = REMOTE_BOTS[-1]
    print(f"hosted bot   {HOSTED_BOT} left out: {problem}; {name} plays instead", file=out)
    arena.start_remote_bot(name, brain)
    arena.wait_for_bots([name])
    return checked_spec(replace(options, web_port=None), hosted=False)  # the web front has its port by now


def duplicate_words(asked: bool, spec: Any) -> str:
    """Whether the tournament plays duplicate deals, as its record says (the arena drops them where no deal can be
    shared: :func:`arena.service.tournaments.duplicate_unplayed`)."""
    if spec.duplicate_deals:
        return "duplicate on"
    return "duplicate off" + (" (every table shares a bot with every other: no deal can be shared)" if asked else "")


def environment_line(arena: LocalArena) -> str:
    """The ``export`` that points the CLI of another shell at ``arena`` (its admin token by file, never inline)."""
    return (f"export UNO_ARENA_TARGET={arena.address} UNO_ARENA_ADMIN_TOKEN_FILE={arena.admin_token_file} "
            f"REDIS_URL={arena.redis_url}")


def keep_running(arena: LocalArena, web_url: str, out: TextIO, registered: list[str]) -> None:
    """Keep the arena up until Ctrl-C or SIGTERM (SystemExit: :func:`arena.local_arena.local_arena`), saying what to
    try meanwhile with the demo's ``registered`` bots and how to stop it."""
    say = functools.partial(print, file=out)
    say(f"admin token  {arena.admin_token_file} (mode 0600)")
    say(f"web          {web_url}/leaderboard")
    say("\nto use it from another shell:")
    say(f"  {environment_line(arena)}")
    say(f"  uno-arena competition create ladder --entrants {','.join(registered)}   # blocks start within seconds")
    say(f'  uno-arena tournament schedule --name nightly --bots heuristic,{registered[-1]} --cron "*/5 * * * *"')
    say(f"\nrunning; press Ctrl-C (or kill -TERM {os.getpid()}) to stop everything it started", flush=True)
    with contextlib.suppress(KeyboardInterrupt, SystemExit):  # Ctrl-C, or SIGTERM: a stop as asked, status 0
        while True:
            time.sleep(1)
            arena.processes.check_alive()


WEB_PORT = 8080


def _port_free(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def start_web(arena: Any, port: int | None = None) -> str:
    """Start `uno-arena web` against the arena (on ``port``; None: :data:`WEB_PORT` when free, else a free one)
    and wait until it answers; returns its base URL."""
    import urllib.request

    from arena.processes import cli_argv, free_port, wait_until

    if port is None:
        port = WEB_PORT if _port_free(WEB_PORT) else free_port()
    arena.processes.start("web", [*cli_argv(), "web", "--port", str(port), "--server", arena.address], arena.env)
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    wait_until(answers, "the web front", arena.processes)
    return url


def _write_outputs(client: ArenaClient, tournament_id: str, out_dir: Path) -> int:
    """Results as CSV and JSON, and every match's replay as JSON; returns the number of decisions played."""
    import json

    from google.protobuf.json_format import MessageToDict

    from arena.protocol import arena_pb2

    for fmt, name in ((arena_pb2.EXPORT_FORMAT_CSV, "results.csv"), (arena_pb2.EXPORT_FORMAT_JSON, "results.json")):
        (out_dir / name).write_bytes(client.export_results(tournament_id, fmt).data)
    replays = out_dir / "replays"
    replays.mkdir(exist_ok=True)
    decisions = 0
    for match in client.list_matches(tournament_id):
        replay = client.get_replay(match.match_id)
        decisions += len(replay.steps)
        (replays / f"{match.match_id.replace(':', '_')}.json").write_text(
            json.dumps(MessageToDict(replay, preserving_proto_field_name=True), indent=1))
    return decisions
