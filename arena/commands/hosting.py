"""`uno-arena bot submit|submissions|output|prune` (an author's submitted bots) and `uno-arena host` (the bot host:
it checks new submissions in the sandbox and runs every hosted bot's newest admitted version). docs/hosting.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from arena.client import ArenaClient
from arena.commands import add_metrics_options, fail, positive_float, positive_int, subparsers_of
from arena.commands.api import api_command, with_client
from arena.commands.archive_dir import add_archive_dir_option
from arena.commands.tables import utc_time

DEFAULT_HOST_METRICS_PORT = 9104
DEFAULT_GATEWAY_SOCKET = "/run/uno-arena/gateway.sock"


def _archive(path: str) -> bytes:
    """The bytes to submit: a folder packed, or an archive file as it is; ValueError naming the problem."""
    from arena.submissions import SubmissionRejected, pack_folder

    where = Path(path)
    if where.is_dir():
        try:
            return pack_folder(where)
        except SubmissionRejected as error:
            raise ValueError(f"{path}: {error}") from None
    if not where.is_file():
        raise ValueError(f"{path}: no such folder or archive (give a folder, a .tar.gz, .tgz, .tar or .zip)")
    return where.read_bytes()


def cmd_bot_submit(args: argparse.Namespace) -> int:
    try:
        archive = _archive(args.path)
    except (ValueError, OSError) as error:
        return fail(error)

    def body(client: ArenaClient, args: argparse.Namespace) -> int:
        submission = client.submit_bot(args.name, archive)
        print(f"submitted {args.name} version {submission.version} ({submission.runtime}: "
              f"{' '.join(submission.command)}), sha256 {submission.sha256}, {submission.size} bytes")
        print(f"the bot host checks it in the sandbox: see `uno-arena bot submissions {args.name}`")
        return 0

    return with_client(body, as_author=True)(args)


def bot_submissions(client: ArenaClient, args: argparse.Namespace) -> int:
    from arena.client import plain, submission_state

    reply = client.list_submissions(args.name)
    if args.json:
        import json

        print(json.dumps(plain(reply)))
        return 0
    if not reply.submissions:
        print(f"no submissions of bot {args.name!r}: submit one with `uno-arena bot submit {args.name} PATH`")
    for s in reply.submissions:
        waiting = f", number {s.queue_position} in the queue of checks" if s.queue_position else ""
        print(f"version {s.version} {submission_state(s.state)}{waiting} ({s.runtime}: {' '.join(s.command)}) "
              f"sha256 {s.sha256[:16]} submitted {utc_time(s.submitted_at)}")
        for line in s.reason.splitlines():
            print(f"  | {line}")
    hosted = reply.hosted
    if hosted.state:
        print(f"hosted process: {hosted.state}, version {hosted.version}, {hosted.restarts} restarts, since "
              f"{utc_time(hosted.since)}" + (f": {hosted.detail}" if hosted.detail else ""))
    return 0


def bot_output(client: ArenaClient, args: argparse.Namespace) -> int:
    output = client.get_bot_output(args.name)
    if not output:
        print(f"no output of a hosted process of bot {args.name!r}")
        return 0
    sys.stdout.write(output.decode("utf-8", "replace"))
    sys.stdout.flush()
    return 0


def _limits(args: argparse.Namespace) -> Any:
    from arena.hosting.sandbox import Limits

    mib = 1024 * 1024
    return Limits(cpu_seconds=args.cpu_seconds, memory_bytes=args.memory_mib * mib, processes=args.processes,
                  open_files=args.open_files, file_size_bytes=args.file_size_mib * mib, tmp_bytes=args.tmp_mib * mib,
                  tmp_inodes=args.tmp_inodes, lifetime_s=float(args.lifetime), connect_s=float(args.connect_timeout),
                  bot_memory_bytes=args.bot_memory_mib * mib, bot_cpus=args.bot_cpus)


def cmd_bot_prune(args: argparse.Namespace) -> int:
    """Delete a bot's old versions, straight in the arena's store (an operator's command: it needs $REDIS_URL)."""
    from arena.commands.archive_dir import ArchiveDirError, use_archive_dir
    from arena.store import Store, StoreConfigError, UnknownBot

    if not os.environ.get("REDIS_URL", "").strip():
        return fail("no Redis: set REDIS_URL to the arena's Redis (bot prune is the admin's, on the store)")
    if args.keep < 0:
        return fail("--keep must be 0 or more")
    with Store.from_url() as store:
        try:
            store.check_reachable()
            use_archive_dir(store, args.archive_dir)
            name = store.bots.get(args.name).name
        except (StoreConfigError, ArchiveDirError, UnknownBot) as error:
            return fail(error)
        deleted = store.submissions.keep_newest(name, args.keep)
        swept = store.submissions.sweep()
    kept = ", ".join(str(v) for v in deleted) or "none"
    print(f"{name}: deleted versions {kept}; {len(swept)} archive(s) no version refers to removed")
    return 0


def cmd_host(args: argparse.Namespace) -> int:
    from arena.commands.archive_dir import ArchiveDirError, use_archive_dir
    from arena.commands.gateway import run_until_signal
    from arena.hosting.host import BotHost, HostConfig, HostMetrics
    from arena.hosting.identity import uid_range
    from arena.hosting.sandbox import sandbox_missing
    from arena.metrics import MetricsPortError, start_exporter
    from arena.store import Store, StoreConfigError
    from arena.store.identities import UidRangeConflict

    missing = sandbox_missing()  # a real bwrap run: a container may forbid the namespaces (docs/hosting.md)
    if missing:
        return fail(missing)
    if not os.path.exists(args.gateway_socket):
        return fail(f"--gateway-socket {args.gateway_socket}: no such socket: start the gateway with "
                    f"`uno-arena serve --unix-socket {args.gateway_socket}` first")
    if not os.environ.get("REDIS_URL", "").strip():
        return fail("no Redis: set REDIS_URL to the arena's Redis (the gateway's)")
    store = Store.from_url()
    metrics = HostMetrics()
    try:
        store.check_reachable()
        if os.geteuid() == 0:  # the sandboxes' uids: every host of this arena must agree on the range
            uid_range(store)
        archive_dir = use_archive_dir(store, args.archive_dir, writable=False)
        server = start_exporter(DEFAULT_HOST_METRICS_PORT, args.metrics_port, args.metrics_address, metrics.registry)
    except (StoreConfigError, MetricsPortError, ArchiveDirError, UidRangeConflict, ValueError) as error:
        store.close()
        return fail(error)
    work_dir = args.work_dir or os.path.join(os.getcwd(), "uno-arena-host")

    async def main(stop: asyncio.Event) -> int:
        config = HostConfig(args.gateway_socket, work_dir, _limits(args), check_wait_s=float(args.check_wait),
                            check_time_cap_s=float(args.check_time_cap), parallel_checks=args.parallel_checks,
                            cgroups=not args.no_cgroups)
        host = BotHost(store, config, metrics)
        print(f"uno-arena host: gateway unix:{os.path.abspath(args.gateway_socket)}, packages in {work_dir}, "
              f"archives in {archive_dir}; "
              f"metrics on :{server.port if server else '-'}/metrics; {host.cgroups.support.describe()}",
              flush=True)
        await host.run(stop, args.poll)
        print("stopped: every hosted process ended", flush=True)
        return 0

    try:
        return run_until_signal(main, " while stopping the hosted bots: exiting now")
    finally:
        if server is not None:
            server.close()
        store.close()


def register(commands: Any) -> None:
    bot = subparsers_of(commands, "bot", "run, check and register remote bots", "bot_command")
    submit = api_command(bot, "submit", cmd_bot_submit, "name",
                         help="submit a bot's code (a folder or an archive with uno-bot.toml) for the "
                              "bot host to run in its sandbox (docs/hosting.md)")
    submit.add_argument("path", help="a folder, or a .tar.gz/.tgz/.tar/.zip archive, with uno-bot.toml at its top")

    api_command(bot, "submissions", with_client(bot_submissions, as_author=True), "name", json="",
                help="a bot's submitted versions, their verdicts (and why), its hosted process")

    prune = bot.add_parser("prune", help="the admin: delete a bot's old submitted versions (all but the newest N "
                                         "and the one running), freeing its quota; archives no version refers to "
                                         "are removed. Works on the arena's Redis ($REDIS_URL) and archive folder")
    prune.add_argument("name")
    prune.add_argument("--keep", type=int, default=1, help="newest versions to keep (default 1)")
    add_archive_dir_option(prune)
    prune.set_defaults(func=cmd_bot_prune)

    api_command(bot, "output", with_client(bot_output, as_author=True), "name",
                help="the last output (stdout and stderr) of a bot's hosted process")

    host = commands.add_parser("host", help="the bot host: runs submitted bots in a bubblewrap sandbox")
    host.add_argument("--gateway-socket", default=DEFAULT_GATEWAY_SOCKET, metavar="PATH",
                      help="the gateway's Unix socket (`uno-arena serve --unix-socket PATH`; default "
                           f"{DEFAULT_GATEWAY_SOCKET})")
    add_archive_dir_option(host)
    host.add_argument("--work-dir", default=None, metavar="DIR",
                      help="where unpacked packages and sandbox specs go (default ./uno-arena-host)")
    add_metrics_options(host, DEFAULT_HOST_METRICS_PORT)
    limits = host.add_argument_group("limits of every hosted process (docs/hosting.md)")
    limits.add_argument("--cpu-seconds", type=positive_int, default=600, help="CPU time per process (RLIMIT_CPU)")
    limits.add_argument("--memory-mib", type=positive_int, default=1024, help="address space (RLIMIT_AS)")
    limits.add_argument("--processes", type=positive_int, default=64, help="processes of the bot's uid (RLIMIT_NPROC)")
    limits.add_argument("--open-files", type=positive_int, default=256, help="open files (RLIMIT_NOFILE)")
    limits.add_argument("--file-size-mib", type=positive_int, default=16, help="largest file (RLIMIT_FSIZE)")
    limits.add_argument("--tmp-mib", type=positive_int, default=16, help="size of its private /tmp")
    limits.add_argument("--tmp-inodes", type=positive_int, default=4096,
                        help="files and folders its private /tmp may hold (a root host: the tmpfs's nr_inodes)")
    limits.add_argument("--lifetime", type=positive_int, default=86400,
                        help="seconds of wall clock a process lives before it is started again")
    limits.add_argument("--connect-timeout", type=positive_int, default=30,
                        help="seconds a process has to connect to the gateway before it is killed")
    limits.add_argument("--bot-memory-mib", type=positive_int, default=1024,
                        help="memory of the whole bot, all its processes together (its cgroup)")
    limits.add_argument("--bot-cpus", type=positive_float, default=1.0,
                        help="CPUs the whole bot may use at most (its cgroup; every bot has the same CPU weight)")
    limits.add_argument("--no-cgroups", action="store_true",
                        help="no cgroup per bot even where the machine allows one (per-process limits only)")
    host.add_argument("--check-wait", type=positive_int, default=20,
                      help="seconds the check of a new submission waits for its bot to connect")
    host.add_argument("--check-time-cap", type=positive_int, default=90,
                      help="seconds one check may take past that wait (its verdict says so when it ran out)")
    host.add_argument("--parallel-checks", type=positive_int, default=2,
                      help="checks run at once (taken in turn per author; a bot's newest waiting version only)")
    host.add_argument("--poll", type=float, default=2.0, help=argparse.SUPPRESS)
    host.set_defaults(func=cmd_host, long_running=True)
