"""The outside attacker of ``bench abuse --hosted``'s archive-bomb rows: a client process that submits an archive
bomb (:mod:`benchmarks.bombs`) through the organizer API (``SubmitBot``, as ``bot submit`` does) again and again.

``python -m benchmarks.bomb_client FORMAT ENTRIES TARGET``, then on stdin one JSON line: the bots to submit as, a
list of ``[name, token]`` (the tokens stay off the command line). It builds the bomb, says ``ready`` on stdout, and
submits from one thread per bot, each sending its next bomb 0.1 s after the last answer, until stdin closes; then it
prints one JSON line of :class:`BombStats` (every answer's gRPC status counted, the first detail of each, the
slowest answer, its own CPU time).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import grpc

from arena.client import ArenaClient
from benchmarks.bombs import BombFormat, bomb

PAUSE_S = 0.1


@dataclass
class BombStats:
    """What the attacker got back."""

    bomb: str = ""
    sent: int = 0
    codes: dict[str, int] = field(default_factory=dict)
    """Answers by gRPC status name (``OK`` for a stored version)."""
    first_detail: dict[str, str] = field(default_factory=dict)
    slowest_s: float = 0.0
    cpu_s: float = 0.0
    """CPU seconds this process used sending (the bomb's building not counted)."""

    def add(self, code: str, detail: str, seconds: float) -> None:
        self.sent += 1
        self.codes[code] = self.codes.get(code, 0) + 1
        self.first_detail.setdefault(code, detail[:300])
        self.slowest_s = max(self.slowest_s, seconds)


def _submitter(target: str, name: str, token: str, archive: bytes, stats: BombStats, lock: threading.Lock,
               stop: threading.Event) -> None:
    with ArenaClient(target, token) as client:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                client.submit_bot(name, archive)
                code, detail = "OK", "stored"
            except grpc.RpcError as error:
                code, detail = error.code().name, error.details() or ""
            with lock:
                stats.add(code, detail, time.perf_counter() - started)
            stop.wait(PAUSE_S)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bomb_client", description=__doc__)
    parser.add_argument("format", choices=[f.value for f in BombFormat])
    parser.add_argument("entries", type=int)
    parser.add_argument("target", help="the organizer API's address")
    parser.add_argument("--nice", type=int, default=0, help="lower this process's priority by this much")
    args = parser.parse_args(argv)
    if args.nice:
        os.nice(args.nice)
    bots = [(str(name), str(token)) for name, token in json.loads(sys.stdin.readline())]
    built = bomb(BombFormat(args.format), args.entries)
    stats = BombStats(bomb=built.describe())
    print("ready", flush=True)
    cpu0 = time.process_time()
    lock, stop = threading.Lock(), threading.Event()
    threads = [threading.Thread(target=_submitter, args=(args.target, name, token, built.data, stats, lock, stop),
                                daemon=True) for name, token in bots]
    for thread in threads:
        thread.start()
    sys.stdin.read()
    stop.set()
    for thread in threads:
        thread.join(90.0)
    with lock:
        stats.cpu_s = time.process_time() - cpu0
        print(json.dumps(asdict(stats)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
