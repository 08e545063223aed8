"""The lines a running process writes to one of its pipes, read by a thread, for tests that wait on them."""

from __future__ import annotations

import threading
from typing import IO


class Lines:
    """Every line a process wrote so far to ``stream`` (its stdout or stderr, opened as text)."""

    def __init__(self, stream: IO[str] | None) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str] | None) -> None:
        if stream is not None:
            for line in stream:
                self.lines.append(line)

    def count(self, text: str) -> int:
        """How many lines hold ``text``."""
        return sum(text in line for line in self.lines)

    def text(self) -> str:
        return "".join(self.lines)

    def join(self, timeout: float = 10.0) -> None:
        """Wait for the end of the stream (the process exited)."""
        self._thread.join(timeout)
