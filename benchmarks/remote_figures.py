"""The figures of `python -m benchmarks remote` from what a run recorded (pure: no I/O).

A match occupies ``[finished_at - duration_s, finished_at]``: ``duration_s`` is the runner's own clock from
the match's start to its end, ``finished_at`` the worker's wall clock when it made the result, just before it
recorded it (both in the stored result, as ExportResults gives it). From these intervals:

- matches in flight, mean: the sum of the durations over the wall time of the tournament (Little's law: the
  time-average of the number of matches being played);
- matches in flight, max: the most intervals that overlap at one instant (an interval that ends where another
  starts does not overlap it);
- bot utilisation: seat-seconds in matches (each match's duration times its seats) over the seat-seconds the
  bots offer, bots x capacity (each bot's ``max_concurrent_matches``) x wall time;
- the bound the bots allow: bots x capacity / seats tables at once, which no number of workers can exceed;
- per decision: a run's Redis commands or bytes over its decisions;
- the ideal: the same matches with the durations they took, released in schedule order by the dispatcher's own
  rule (:func:`arena.tournament.dispatch.matches_to_start`) the instant their bots have a free slot, with no
  start-up and no round trip: the wall time no dispatcher could beat for this schedule and these durations, and
  its mean in flight. A 4-seat table needs its four bots free at once and match lengths vary (a few seconds to
  several times that), so even the ideal stays below the bound, most at the start and the end;
- RSS per match in flight: the workers' RSS of the run less the baseline's (the same run, one match per
  worker process), over the extra mean in flight; not given when the run has hardly more matches in flight
  than the baseline (:data:`MIN_EXTRA_IN_FLIGHT`), where the quotient would be noise.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.tournament.dispatch import WaitingMatch, matches_to_start

MIN_EXTRA_IN_FLIGHT = 0.5
"""The least extra mean in flight (run over baseline) for which RSS per match in flight is given."""


@dataclass(frozen=True)
class MatchSpan:
    """One recorded match: when it was played, at how many seats, how many decisions it asked."""

    start: float
    end: float
    seats: int
    decisions: int

    @property
    def duration(self) -> float:
        return self.end - self.start


def span(finished_at: float, duration_s: float, seats: int, decisions: int) -> MatchSpan:
    """The span of a match that finished at ``finished_at`` after ``duration_s``."""
    return MatchSpan(finished_at - duration_s, finished_at, seats, decisions)


def in_flight_mean(spans: Iterable[MatchSpan], wall_s: float) -> float:
    """Time-averaged matches in flight: the durations summed over ``wall_s`` (NaN without wall time)."""
    return ratio(sum(s.duration for s in spans), wall_s)


def in_flight_max(spans: Iterable[MatchSpan]) -> int:
    """The most matches in flight at one instant (ends are counted before starts at the same instant)."""
    events = sorted([(s.start, 1) for s in spans] + [(s.end, -1) for s in spans], key=lambda e: (e[0], e[1]))
    most = current = 0
    for _when, change in events:
        current += change
        most = max(most, current)
    return most


def seat_seconds(spans: Iterable[MatchSpan]) -> float:
    """The time every seat of every match was taken, summed."""
    return sum(s.duration * s.seats for s in spans)


def utilisation(spans: Iterable[MatchSpan], bots: int, capacity: int, wall_s: float) -> float:
    """Seat-seconds in matches over the seat-seconds ``bots`` of ``capacity`` matches each offer in ``wall_s``."""
    return ratio(seat_seconds(spans), bots * capacity * wall_s)


def table_bound(bots: int, capacity: int, seats: int) -> float:
    """Tables the bots can fill at once: bots x capacity / seats."""
    return ratio(bots * capacity, seats)


def decisions_of(spans: Sequence[MatchSpan]) -> int:
    return sum(s.decisions for s in spans)


def ratio(amount: float, over: float) -> float:
    """``amount / over``; NaN when ``over`` is not positive (nothing to divide by: no figure)."""
    return amount / over if over > 0 else math.nan


def rss_per_match(rss: float, baseline_rss: float, in_flight: float, baseline_in_flight: float) -> float:
    """Worker RSS per extra match in flight (see the module docstring); NaN when there are too few extra."""
    extra = in_flight - baseline_in_flight
    if math.isnan(extra) or extra < MIN_EXTRA_IN_FLIGHT:
        return math.nan
    return (rss - baseline_rss) / extra


@dataclass(frozen=True)
class PlayedMatch:
    """A recorded match as the ideal needs it: its remote bots and how long it took."""

    match_id: str
    bots: frozenset[str]
    duration_s: float


def ideal_wall(matches: Sequence[PlayedMatch], capacity: int) -> float:
    """The wall time of ``matches`` (in schedule order) when every match starts the instant the dispatcher's rule
    lets it, each bot offering ``capacity`` matches at once, and takes its recorded duration (see the module
    docstring)."""
    waiting = [WaitingMatch(m.match_id, m.bots) for m in matches]
    duration = {m.match_id: m.duration_s for m in matches}
    free = {bot: capacity for m in matches for bot in m.bots}
    ends: list[tuple[float, str, frozenset[str]]] = []
    now = 0.0
    while waiting or ends:
        for match in matches_to_start(waiting, free, len(waiting), len(waiting)):
            waiting.remove(match)
            for bot in match.bots:
                free[bot] -= 1
            heapq.heappush(ends, (now + duration[match.match_id], match.match_id, match.bots))
        if not ends:
            break  # a match whose bots offer no slot at all: cannot happen with capacity >= 1
        now, _match_id, bots = heapq.heappop(ends)
        for bot in bots:
            free[bot] += 1
    return now
