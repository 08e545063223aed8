"""The schedule of a tournament: :func:`schedule` expands a :class:`TournamentSpec` into matches (pure).

Tables: with 2 seats every pair; with k > 2 every k-subset while there are at most ``spec.max_tables``, else the
cyclic balanced design (:mod:`arena.tournament.design`). The bots are numbered by a seeded shuffle and the table
order is shuffled too, so no bot is favoured by its name. Deals: one match per (table, deal), its base order rotated
by ``deal mod k``; rotated duplicates replay a deal in every rotation (or, ``"all"``, every seat order) from one match
seed; ``"across"`` plays deal ``j`` once at every table of a class of tables that share no bot (:func:`table_classes`),
so no bot meets a deal twice. Odd rounds play the base order reversed (:func:`reversed_round`) so every pair sits in
both next-seat orders. What is guaranteed, and measured, is in docs/organizers.md (fair schedules, fair seating) and
docs/benchmarks.md (seating).

Match ids are ``"{tournament_id}:d{deal:04d}:t{table:06d}:r{rotation:02d}"``; the deal group is the id without
``":r.."``. The list is in schedule order (deal, table, rotation), which is also the ids' lexicographic order while
deals < 10,000 and tables < 1,000,000: early results cover every table, and ratings apply results in this order.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine.rules import Rules

from ._rng import SeededStream, derive_seed
from .design import (
    PERSIST_ROUNDS,
    balanced_base_blocks,
    complete_tables,
    cyclic_tables,
    orient_developed,
    rotate,
)
from .spec import DEFAULT_DECISION_DEADLINE_MS, DEFAULT_LAG_COMPENSATION_CAP_MS, TournamentSpec


def match_id(tournament_id: str, deal: int, table: int, rotation: int) -> str:
    return f"{deal_group_id(tournament_id, deal, table)}:r{rotation:02d}"


def deal_group_id(tournament_id: str, deal: int, table: int) -> str:
    """The id shared by every seat order of one deal at one table."""
    return f"{tournament_id}:d{deal:04d}:t{table:06d}"


@dataclass(frozen=True)
class MatchSpec:
    """One match to play. ``rotation`` names the seat order: ``deal mod k`` without rotated duplicates, else the
    rotation ``0..k-1`` (or, with ``duplicate_orders="all"``, the permutation's index ``0..k!-1``)."""

    match_id: str
    tournament_id: str
    table: int
    deal: int
    rotation: int
    seats: tuple[str, ...]
    seed: int
    rules: Rules
    decision_deadline_ms: int = DEFAULT_DECISION_DEADLINE_MS
    """Stored as ``deadline_ms`` in :meth:`to_dict`; the fields below are not stored nor compared."""
    time_bank_ms: int = field(default=0, compare=False)
    lag_compensation_cap_ms: int = field(default=DEFAULT_LAG_COMPENSATION_CAP_MS, compare=False)
    attempt: int = field(default=1, compare=False)
    """From 1: a match aborted by the arena is played again as the next attempt, which the bots are told."""

    @property
    def group(self) -> str:
        return deal_group_id(self.tournament_id, self.deal, self.table)

    @property
    def players(self) -> int:
        return len(self.seats)

    def to_dict(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "tournament_id": self.tournament_id,
            "table": self.table,
            "deal": self.deal,
            "rotation": self.rotation,
            "seats": list(self.seats),
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "deadline_ms": self.decision_deadline_ms,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchSpec:
        return cls(
            match_id=str(data["match_id"]),
            tournament_id=str(data["tournament_id"]),
            table=int(data["table"]),
            deal=int(data["deal"]),
            rotation=int(data["rotation"]),
            seats=tuple(str(s) for s in data["seats"]),
            seed=int(data["seed"]),
            rules=Rules.from_dict(dict(data["rules"])),
            decision_deadline_ms=int(data.get("deadline_ms", DEFAULT_DECISION_DEADLINE_MS)),
        )


def table_classes(base_orders: Sequence[Sequence[str]]) -> list[int]:
    """The class of every table (``"across"`` duplicates): each table joins the first class none of whose tables
    seats one of its bots, else opens a new class. Tables of one class share no bot."""
    seated: list[set[str]] = []
    classes: list[int] = []
    for table in base_orders:
        bots = set(table)
        number = next((c for c, used in enumerate(seated) if not used & bots), len(seated))
        if number == len(seated):
            seated.append(set())
        seated[number] |= bots
        classes.append(number)
    return classes


def deal_seed(spec: TournamentSpec, table: int, deal: int) -> int:
    """The match seed of every seat order of one deal at one table (with ``"across"``, ``table`` is the table's
    class): SHA-256 of the seed, the tournament's secret (:mod:`arena.tournament.commitment`; none in local runs),
    table and deal. The tables and seat orders follow from the seed alone."""
    if spec.shared_across_tables:
        return derive_seed("deal-across", spec.seed, spec.seed_secret, table, deal)
    if spec.seed_secret:
        return derive_seed("deal", spec.seed, spec.seed_secret, table, deal)
    return derive_seed("deal", spec.seed, table, deal)


def uses_cyclic_design(spec: TournamentSpec) -> bool:
    """Whether the tables are the cyclic balanced design (more than 2 seats, more k-subsets than ``max_tables``)."""
    return spec.seats > 2 and math.comb(len(spec.participants), spec.seats) > spec.max_tables


def tables(spec: TournamentSpec) -> list[tuple[str, ...]]:
    """The base seat order of every table, in table order (table ``i`` is ``tables(spec)[i]``)."""
    bots = sorted(spec.participants)
    n, k = len(bots), spec.seats
    stream = SeededStream("schedule", spec.seed, n, k)
    order = list(bots)
    stream.shuffle(order)
    if uses_cyclic_design(spec):
        blocks = balanced_base_blocks(n, k, spec.pair_meetings, stream, PERSIST_ROUNDS)
        numbered = cyclic_tables(n, orient_developed(blocks, n))
    else:
        leftover = 0 if spec.rotated else spec.deals % k
        numbered = complete_tables(n, k, leftover, stream, balance_direction=True)
        stream.shuffle(numbered)
    return [tuple(order[i] for i in t) for t in numbered]


def reversed_round(spec: TournamentSpec, deal: int) -> bool:
    """Whether ``deal`` plays the reversed base order: odd rounds, a round being one deal with rotated duplicates or
    in the cyclic design, else ``k`` deals; an incomplete last round never is (its seat balance was planned)."""
    k = spec.seats
    if k <= 2 or (spec.duplicate and spec.duplicate_orders == "all"):
        return False
    if spec.rotated or uses_cyclic_design(spec):
        return deal % 2 == 1
    round_index = deal // k
    return round_index % 2 == 1 and (round_index + 1) * k <= spec.deals


def _seat_orders(base: tuple[str, ...], spec: TournamentSpec, deal: int) -> list[tuple[int, tuple[str, ...]]]:
    k = len(base)
    if spec.rotated and spec.duplicate_orders == "all":
        return list(enumerate(itertools.permutations(base)))
    if reversed_round(spec, deal):
        base = base[::-1]
    rotations = range(k) if spec.rotated else (deal % k,)
    return [(r, rotate(base, r)) for r in rotations]


def schedule(spec: TournamentSpec) -> list[MatchSpec]:
    """Every match of the tournament, in schedule order (deal, table, rotation); deterministic."""
    base_orders = tables(spec)
    seed_of = table_classes(base_orders) if spec.shared_across_tables else list(range(len(base_orders)))
    rules = spec.rules
    matches: list[MatchSpec] = []
    for deal in range(spec.deals):
        for table, base in enumerate(base_orders):
            seed = deal_seed(spec, seed_of[table], deal)
            for rotation, seats in _seat_orders(base, spec, deal):
                matches.append(
                    MatchSpec(
                        match_id=match_id(spec.tournament_id, deal, table, rotation),
                        tournament_id=spec.tournament_id,
                        table=table,
                        deal=deal,
                        rotation=rotation,
                        seats=tuple(seats),
                        seed=seed,
                        rules=rules,
                        decision_deadline_ms=spec.decision_deadline_ms,
                        time_bank_ms=spec.time_bank_ms,
                        lag_compensation_cap_ms=spec.lag_compensation_cap_ms,
                    )
                )
    return matches


def count_matches(spec: TournamentSpec) -> int:
    """Number of matches :func:`schedule` returns, without building them (cheap for k = 2 / complete)."""
    count = len(tables(spec)) if uses_cyclic_design(spec) else math.comb(len(spec.participants), spec.seats)
    return count * spec.deals * spec.matches_per_deal


def batches(matches: Sequence[MatchSpec], size: int) -> list[list[MatchSpec]]:
    """Split ``matches`` into consecutive batches of at most ``size`` (order kept, none empty)."""
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(f"batch size must be a positive integer, got {size!r}")
    return [list(matches[i : i + size]) for i in range(0, len(matches), size)]
