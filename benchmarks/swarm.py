"""Many remote bots in one process: one Python-kit connection (stream) per bot, all on one asyncio loop.

    python -m benchmarks.swarm --target HOST:PORT --tokens-file FILE [--brain random|heuristic|raw]
                                [--stats-file OUT.json] [--ramp-s SECONDS] [--max-concurrent N] [--think-ms T]

``FILE`` has one bot a line: ``NAME TOKEN`` (blank lines and ``#`` comments are ignored). Every bot is a
:class:`bots.kit.BotClient` with its own channel and stream, so the gateway sees exactly what it would see
from as many bot processes, at a fraction of the memory. Brains: ``random`` and ``heuristic`` are the
built-in bots through the full kit (observations converted to engine types, one bot object per match and
seat); ``raw`` answers a random index straight from the protobuf request (the cheapest possible bot, to
load the arena rather than the bots' CPU). ``--max-concurrent``: the matches each bot offers to play at once (its
Hello's ``max_concurrent_matches``); ``--think-ms``: each bot waits that long before each answer, asynchronously
(its other matches and the other bots go on meanwhile), like a bot that thinks.

The swarm plays until SIGTERM or SIGINT, then closes every stream and writes its figures as JSON to
``--stats-file`` (also on a fatal error): bots, bots that were welcomed, sessions (reconnects are sessions
beyond the first), decisions, matches, errors the arena sent in-band (its notices that an answer came too
late, DEADLINE_EXCEEDED, are counted apart: they follow from timeouts), fatal refusals, this process's RSS.
`python -m benchmarks load` and `python -m benchmarks remote` start a few of these (:mod:`benchmarks.fleet`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from arena.gc_tuning import configure_gc
from benchmarks.procfs import process_memory

BRAINS = ("random", "heuristic", "raw")
TIMEOUT_NOTICE = "DEADLINE_EXCEEDED"


@dataclass
class SwarmStats:
    """What one swarm process did (the JSON of ``--stats-file``)."""

    pid: int = 0
    bots: int = 0
    welcomed: int = 0
    sessions: int = 0
    reconnects: int = 0
    decisions: int = 0
    matches_started: int = 0
    matches_ended: int = 0
    errors: int = 0
    timeout_notices: int = 0  # in-band DEADLINE_EXCEEDED: the arena telling a bot it was too late
    fatal: int = 0
    error_samples: list[str] = field(default_factory=list)
    rss_bytes: int = 0
    peak_rss_bytes: int = 0

    @classmethod
    def read(cls, path: Path) -> SwarmStats | None:
        """The figures a swarm process wrote to ``path`` (``--stats-file``); None when it left none."""
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        return cls(**known)


def read_tokens(path: Path) -> list[tuple[str, str]]:
    """``(name, token)`` pairs of a tokens file (``NAME TOKEN`` a line)."""
    pairs = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        parts = text.split()
        if len(parts) != 2:
            raise ValueError(f"{path}:{number}: expected 'NAME TOKEN', got {text!r}")
        pairs.append((parts[0], parts[1]))
    return pairs


def write_tokens(path: Path, pairs: Sequence[tuple[str, str]]) -> None:
    """Write a tokens file that :func:`read_tokens` reads (mode 0600: tokens are secrets)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        for name, token in pairs:
            handle.write(f"{name} {token}\n")


def _raw_random(rng: random.Random) -> object:
    def choose(request: object) -> int:
        return rng.randrange(len(request.legal_actions))  # type: ignore[attr-defined]

    return choose


async def run_swarm(target: str, bots: Sequence[tuple[str, str]], brain: str = "random", *,
                    stop: asyncio.Event | None = None, ramp_s: float = 0.0,
                    max_concurrent_matches: int = 16, think_s: float = 0.0) -> SwarmStats:
    """Connect every bot to ``target`` and play until ``stop`` is set; the figures of all of them. ``think_s``:
    each bot's wait before each answer (asynchronous)."""
    from bots import BUILTIN_BOTS
    from bots.kit import BotClient, KitError, bot_factory

    if brain not in BRAINS:
        raise ValueError(f"unknown brain {brain!r} (known: {', '.join(BRAINS)})")
    stop = stop or asyncio.Event()
    factory = bot_factory(BUILTIN_BOTS["random" if brain == "raw" else brain])
    clients: list[BotClient] = []
    stats = SwarmStats(pid=os.getpid(), bots=len(bots))

    async def one(index: int, name: str, token: str) -> None:
        if ramp_s > 0 and len(bots) > 1:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(ramp_s * index / (len(bots) - 1)):
                    await stop.wait()
        if stop.is_set():
            return
        raw = _raw_random(random.Random(f"{name}")) if brain == "raw" else None
        client = BotClient(target, token, factory, bot_version=f"swarm-{brain}",
                           max_concurrent_matches=max_concurrent_matches, raw=raw,  # type: ignore[arg-type]
                           think_s=think_s)
        clients.append(client)
        try:
            await client.run(stop)
        except KitError as error:
            stats.fatal += 1
            if len(stats.error_samples) < 20:
                stats.error_samples.append(f"{name}: {error}")

    await asyncio.gather(*(one(i, name, token) for i, (name, token) in enumerate(bots)))
    for client in clients:
        s = client.stats
        stats.welcomed += 1 if s.sessions else 0
        stats.sessions += s.sessions
        stats.reconnects += max(0, s.sessions - 1)
        stats.decisions += s.decisions
        stats.matches_started += s.matches_started
        stats.matches_ended += s.matches_ended
        for text in s.errors:
            if text.startswith(TIMEOUT_NOTICE):
                stats.timeout_notices += 1
                continue
            stats.errors += 1
            if len(stats.error_samples) < 20:
                stats.error_samples.append(text)
    stats.rss_bytes, stats.peak_rss_bytes = process_memory(os.getpid())
    return stats


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.swarm", description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, help="the gateway, HOST:PORT")
    parser.add_argument("--tokens-file", required=True, type=Path, help="one 'NAME TOKEN' a line")
    parser.add_argument("--brain", choices=BRAINS, default="random")
    parser.add_argument("--stats-file", type=Path, default=None, help="write the figures here as JSON on exit")
    parser.add_argument("--ramp-s", type=float, default=0.0, help="spread the connections over this many seconds")
    parser.add_argument("--max-concurrent", type=int, default=16, help="matches each bot offers to play at once")
    parser.add_argument("--think-ms", type=float, default=0.0, help="each bot waits this long before each answer")
    args = parser.parse_args(argv)
    configure_gc()
    bots = read_tokens(args.tokens_file)

    async def run() -> SwarmStats:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        return await run_swarm(args.target, bots, args.brain, stop=stop, ramp_s=args.ramp_s,
                               max_concurrent_matches=args.max_concurrent, think_s=args.think_ms / 1000.0)

    stats = asyncio.run(run())
    text = json.dumps(asdict(stats))
    if args.stats_file is not None:
        tmp = args.stats_file.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.replace(args.stats_file)
    print(text, file=sys.stderr, flush=True)
    return 1 if stats.fatal else 0


if __name__ == "__main__":
    sys.exit(main())
