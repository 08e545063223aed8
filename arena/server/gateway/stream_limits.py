"""The gateway's limits on what a bot sends: messages per stream (:class:`TokenBucket`), new streams per token
(:class:`StreamLimiter`, checked by :class:`arena.server.auth.BotAuthInterceptor`) and refused messages per stream
(:class:`FloodWindow`: past it the stream is closed)."""

from __future__ import annotations

import time
from collections import OrderedDict, deque

RETRIES_PER_REQUEST = 5
"""Refused answers to one pending request that do not count toward the flood limit (a bot may correct itself)."""


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; :meth:`take` as many as there are, up to ``n``."""

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.level = float(burst)
        self.stamp = time.monotonic()

    def take(self, n: int) -> int:
        """Take up to ``n`` tokens; returns how many were taken."""
        now = time.monotonic()
        level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        taken = min(n, int(level))
        self.level = level - taken
        return taken


class StreamLimiter:
    """At most ``limit`` new streams per token in any ``window_s`` (sliding window, memory bounded)."""

    MAX_TOKENS = 100_000

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit, self.window_s = limit, window_s
        self._opened: OrderedDict[str, deque[float]] = OrderedDict()

    def check(self, token: str) -> float:
        """0.0 when a new stream of ``token`` is allowed now (and counted), else the seconds to wait."""
        if self.limit <= 0:
            return 0.0
        now = time.monotonic()
        times = self._opened.get(token)
        if times is None:
            times = self._opened[token] = deque()
            if len(self._opened) > self.MAX_TOKENS:
                self._opened.popitem(last=False)
        else:
            self._opened.move_to_end(token)
        while times and times[0] <= now - self.window_s:
            times.popleft()
        if len(times) >= self.limit:
            return max(0.001, times[0] + self.window_s - now)
        times.append(now)
        return 0.0


class FloodWindow:
    """The refused messages of one stream in the last ``window_s``: more than ``limit`` is a flood."""

    __slots__ = ("limit", "times", "window_s")

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit, self.window_s = limit, window_s
        self.times: deque[float] = deque()

    def hit(self) -> int:
        """Count one refused message now; returns how many the window holds when that is a flood, else 0."""
        now = time.monotonic()
        times = self.times
        times.append(now)
        while times and times[0] < now - self.window_s:
            times.popleft()
        return len(times) if len(times) > self.limit else 0
