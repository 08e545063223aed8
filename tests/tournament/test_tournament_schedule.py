"""Schedules: round robin coverage, seat and pair balance, duplicate deals, determinism, ids, batches."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import arena
from arena.tournament import (
    MatchSpec,
    TournamentSpec,
    batches,
    count_matches,
    schedule,
    tables,
)
from benchmarks.seating import schedule_stats


def bots(n: int) -> tuple[str, ...]:
    return tuple(f"bot{i:02d}" for i in range(n))


def seat_counts(matches: list[MatchSpec]) -> dict[str, Counter[int]]:
    counts: dict[str, Counter[int]] = defaultdict(Counter)
    for m in matches:
        for seat, bot in enumerate(m.seats):
            counts[bot][seat] += 1
    return counts


def seat_spread(matches: list[MatchSpec], k: int) -> int:
    counts = seat_counts(matches)
    return max(max(c[s] for s in range(k)) - min(c[s] for s in range(k)) for c in counts.values())


# --- round robin coverage ---------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 13, 70])
def test_two_seats_every_pair_once_per_deal(n: int) -> None:
    spec = TournamentSpec("rr", bots(n), seats=2, deals=3)
    matches = schedule(spec)
    pairs = Counter(frozenset(m.seats) for m in matches)
    assert len(pairs) == math.comb(n, 2)  # no cap with 2 seats, even past max_tables
    assert set(pairs.values()) == {3}
    assert len(matches) == count_matches(spec)


@pytest.mark.parametrize(("n", "k"), [(3, 3), (5, 3), (6, 4), (7, 3), (9, 5), (10, 10), (12, 4)])
def test_complete_design_every_subset_once_per_deal(n: int, k: int) -> None:
    spec = TournamentSpec("c", bots(n), seats=k, deals=2)
    matches = schedule(spec)
    subsets = Counter(frozenset(m.seats) for m in matches)
    assert len(subsets) == math.comb(n, k)
    assert set(subsets.values()) == {2}
    stats = schedule_stats(matches, spec.participants)
    assert stats.pair_matches == (2 * math.comb(n - 2, k - 2),) * 2


@given(
    n=st.integers(2, 11),
    k=st.integers(2, 10),
    deals=st.integers(1, 6),
    duplicate=st.booleans(),
    seed=st.integers(0, 2**40),
)
@settings(max_examples=120, deadline=None)
def test_complete_design_balance(n: int, k: int, deals: int, duplicate: bool, seed: int) -> None:
    k = min(k, n)
    spec = TournamentSpec("h", bots(n), seats=k, deals=deals, duplicate=duplicate, seed=seed)
    matches = schedule(spec)
    stats = schedule_stats(matches, spec.participants)
    assert stats.matches == len(matches) == count_matches(spec)
    assert stats.matches_per_bot[0] == stats.matches_per_bot[1]
    assert stats.pair_matches[0] == stats.pair_matches[1]
    if duplicate or deals % k == 0 or math.gcd(n, k) == 1:
        assert stats.seat_spread == 0  # exact seat balance
    else:
        assert stats.seat_spread <= 2  # near balance (exactness is impossible in general)


# --- balanced (cyclic) design -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "k", "meet"),
    [
        (12, 3, 1),
        (20, 4, 1),
        (20, 4, 2),
        (25, 6, 1),
        (30, 5, 3),
        (36, 4, 1),
        (40, 10, 1),
        (60, 5, 1),
        (101, 3, 1),
    ],
)
def test_balanced_design_properties(n: int, k: int, meet: int) -> None:
    spec = TournamentSpec("b", bots(n), seats=k, deals=1, seed=n * k, max_tables=100, pair_meetings=meet)
    assert math.comb(n, k) > spec.max_tables
    base = tables(spec)
    # every bot plays the same number of tables, in every seat equally often
    per_bot = Counter(b for t in base for b in t)
    assert len(set(per_bot.values())) == 1 and set(per_bot) == set(spec.participants)
    per_seat = Counter((b, s) for t in base for s, b in enumerate(t))
    assert len(set(per_seat.values())) == 1 and len(per_seat) == n * k
    # pairs meet as equally as possible: spread at most 1, each at least `meet` times
    pairs = Counter(frozenset(p) for t in base for p in itertools.combinations(t, 2))
    counts = [pairs[frozenset(p)] for p in itertools.combinations(spec.participants, 2)]
    assert max(counts) - min(counts) <= 1
    assert min(counts) >= meet


@given(n=st.integers(8, 30), k=st.integers(3, 6), deals=st.integers(1, 4), seed=st.integers(0, 1000))
@example(n=30, k=6, deals=1, seed=332)
@settings(max_examples=40, deadline=None)
def test_balanced_design_seats_exact_for_any_deals(n: int, k: int, deals: int, seed: int) -> None:
    spec = TournamentSpec("b", bots(n), seats=k, deals=deals, seed=seed, max_tables=1)
    stats = schedule_stats(schedule(spec), spec.participants)
    assert stats.seat_spread == 0
    assert stats.matches_per_bot[0] == stats.matches_per_bot[1]
    assert stats.pair_matches[0] >= deals  # every pair shares at least one table
    # The design's contract (balanced_base_blocks): a table spread of at most 1 per deal when its search finds
    # one, else the candidate where every pair meets (smallest spread, fewest blocks). Rare seeds ended there
    # before the balanced seating's longer search (n=30, k=6, seed 332 met every pair once or three times:
    # tests/tournament/test_tournament_seating.py pins it at one table now); the documented bound is 2.
    assert stats.pair_matches[1] - stats.pair_matches[0] <= 2 * deals


def test_large_field_uses_balanced_design() -> None:
    spec = TournamentSpec("big", bots(40), seats=4, deals=1, seed=3)
    assert math.comb(40, 4) > spec.max_tables
    base = tables(spec)
    assert len(base) < math.comb(40, 4)
    assert len(base) % 40 == 0


# --- duplicate deals ----------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "k"), [(2, 2), (5, 2), (5, 3), (6, 4), (7, 7), (12, 5)])
def test_duplicate_every_bot_holds_every_hand(n: int, k: int) -> None:
    spec = TournamentSpec("dup", bots(n), seats=k, deals=3, duplicate=True, seed=11)
    matches = schedule(spec)
    groups: dict[str, list[MatchSpec]] = defaultdict(list)
    for m in matches:
        groups[m.group].append(m)
    assert len(groups) == len(tables(spec)) * 3
    seeds = set()
    for members in groups.values():
        assert len(members) == k
        assert len({m.seed for m in members}) == 1  # same cards dealt in every rotation
        assert len({frozenset(m.seats) for m in members}) == 1  # same table
        held = {(bot, seat) for m in members for seat, bot in enumerate(m.seats)}
        assert len(held) == k * k  # every bot in every seat = holds every hand of the deal
        seeds.add(members[0].seed)
    assert len(seeds) == len(groups)  # different deals get different cards
    assert seat_spread(matches, k) == 0


@pytest.mark.parametrize("k", [2, 3, 4])
def test_duplicate_all_orders(k: int) -> None:
    spec = TournamentSpec("all", bots(5), seats=k, deals=1, duplicate=True, duplicate_orders="all")
    matches = schedule(spec)
    groups: dict[str, list[MatchSpec]] = defaultdict(list)
    for m in matches:
        groups[m.group].append(m)
    assert groups
    for members in groups.values():
        assert len(members) == math.factorial(k)
        assert len({m.seats for m in members}) == math.factorial(k)
        assert len({m.seed for m in members}) == 1


@pytest.mark.parametrize(("n", "k", "deals"), [(2, 2, 3), (6, 2, 4), (7, 3, 3), (8, 4, 2), (30, 6, 2)])
def test_duplicate_across_no_bot_plays_a_deal_twice(n: int, k: int, deals: int) -> None:
    """"across" duplicates: a deal's tables share no bot (each bot sees a deal at most once), the bots in one seat
    of one deal hold the same hand, and the schedule is the one without duplicates but for the seeds."""
    spec = TournamentSpec("across", bots(n), seats=k, deals=deals, duplicate=True, duplicate_orders="across",
                          seed=5, seed_secret="ab" * 32)
    matches = schedule(spec)
    single = schedule(TournamentSpec("across", bots(n), seats=k, deals=deals, seed=5))
    assert [(m.match_id, m.seats) for m in matches] == [(m.match_id, m.seats) for m in single]
    assert spec.matches_per_deal == 1 and count_matches(spec) == len(matches)
    by_seed: dict[int, list[MatchSpec]] = defaultdict(list)
    for m in matches:
        by_seed[m.seed].append(m)
    for members in by_seed.values():
        seated = [bot for m in members for bot in m.seats]
        assert len(seated) == len(set(seated))  # no bot twice on one deal
        assert len({m.deal for m in members}) == 1
    if n >= 2 * k:
        assert max(len(members) for members in by_seed.values()) >= 2  # some deal is shared by several tables
    assert seat_spread(matches, k) == seat_spread(single, k)


def test_duplicate_across_seeds_follow_the_secret() -> None:
    secret = "cd" * 32
    spec = TournamentSpec("s", bots(6), duplicate=True, duplicate_orders="across", seed=3, seed_secret=secret)
    again = TournamentSpec("s", bots(6), duplicate=True, duplicate_orders="across", seed=3, seed_secret=secret)
    other = TournamentSpec("s", bots(6), duplicate=True, duplicate_orders="across", seed=3, seed_secret="ce" * 32)
    assert [m.seed for m in schedule(spec)] == [m.seed for m in schedule(again)]
    assert not {m.seed for m in schedule(spec)} & {m.seed for m in schedule(other)}


def test_without_duplicate_every_match_has_its_own_seed() -> None:
    spec = TournamentSpec("solo", bots(6), seats=3, deals=4)
    matches = schedule(spec)
    assert len({m.seed for m in matches}) == len(matches)
    assert all(0 <= m.seed < 2**63 for m in matches)


def test_deals_rotate_the_seat_order_without_duplicate() -> None:
    spec = TournamentSpec("rot", bots(3), seats=3, deals=3)
    matches = schedule(spec)
    assert len(matches) == 3
    assert {m.seats for m in matches} == {
        matches[0].seats,
        matches[0].seats[1:] + matches[0].seats[:1],
        matches[0].seats[2:] + matches[0].seats[:2],
    }


# --- determinism and ids ------------------------------------------------------------------------


def _digest(matches: list[MatchSpec]) -> str:
    text = json.dumps([m.to_dict() for m in matches], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def test_same_spec_same_schedule_and_field_order_does_not_matter() -> None:
    spec = TournamentSpec("d", bots(9), seats=3, deals=2, duplicate=True, seed=5)
    shuffled = TournamentSpec("d", tuple(reversed(bots(9))), seats=3, deals=2, duplicate=True, seed=5)
    assert schedule(spec) == schedule(spec) == schedule(shuffled)
    other = TournamentSpec("d", bots(9), seats=3, deals=2, duplicate=True, seed=6)
    assert _digest(schedule(other)) != _digest(schedule(spec))


_CHILD = """
import hashlib, json, sys
from arena.tournament import TournamentSpec, schedule
specs = [
    TournamentSpec("x", tuple(f"b{i}" for i in range(7)), seats=3, deals=2, duplicate=True, seed=99),
    TournamentSpec("y", tuple(f"b{i}" for i in range(30)), seats=4, deals=1, seed=99),
]
text = json.dumps([[m.to_dict() for m in schedule(s)] for s in specs], sort_keys=True)
print(hashlib.sha256(text.encode()).hexdigest())
"""


@pytest.mark.integration
def test_schedule_is_identical_across_processes() -> None:
    root = str(Path(arena.__file__).resolve().parent.parent)
    digests = set()
    for hash_seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=root)
        out = subprocess.run(
            [sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True, timeout=120
        )
        digests.add(out.stdout.strip())
    assert len(digests) == 1
    specs = [
        TournamentSpec("x", tuple(f"b{i}" for i in range(7)), seats=3, deals=2, duplicate=True, seed=99),
        TournamentSpec("y", tuple(f"b{i}" for i in range(30)), seats=4, deals=1, seed=99),
    ]
    text = json.dumps([[m.to_dict() for m in schedule(s)] for s in specs], sort_keys=True)
    assert digests == {hashlib.sha256(text.encode()).hexdigest()}


def test_match_ids_are_unique_sorted_and_well_formed() -> None:
    spec = TournamentSpec("ids", bots(6), seats=3, deals=3, duplicate=True)
    matches = schedule(spec)
    ids = [m.match_id for m in matches]
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)  # schedule order is id order
    first = matches[0]
    assert first.match_id == f"ids:d0000:t{first.table:06d}:r00"
    assert first.group == "ids:d0000:t000000"
    assert all(m.match_id.startswith(m.group + ":r") for m in matches)


def test_match_spec_carries_rules_and_deadline_and_round_trips() -> None:
    spec = TournamentSpec("r", bots(4), variant="classic", options={"target": 200}, decision_deadline_ms=300)
    matches = schedule(spec)
    assert matches
    for m in matches:
        assert m.rules == spec.rules and m.rules.variant == "classic" and m.rules.target == 200
        assert m.decision_deadline_ms == 300
        again = MatchSpec.from_dict(json.loads(json.dumps(m.to_dict())))
        assert again == m
        assert hash(again) == hash(m)


# --- batches ------------------------------------------------------------------------------------


@given(count=st.integers(0, 60), size=st.integers(1, 25))
@settings(max_examples=100, deadline=None)
def test_batches_cover_in_order(count: int, size: int) -> None:
    spec = TournamentSpec("bt", bots(12), seats=2, deals=1)
    matches = schedule(spec)[:count]
    parts = batches(matches, size)
    assert [m for part in parts for m in part] == matches
    assert all(1 <= len(part) <= size for part in parts)
    assert len(parts) == math.ceil(count / size)


@pytest.mark.parametrize("size", [0, -1, 1.5, True])
def test_batches_reject_bad_size(size: object) -> None:
    with pytest.raises(ValueError, match="batch size"):
        batches([], size)  # type: ignore[arg-type]
