"""The schedule of a tournament: :func:`schedule` expands a :class:`TournamentSpec` into matches.

Tables (which bots play together):
  * 2 seats: every pair of bots is one table (the classic round robin), whatever the field size.
  * k > 2 seats: every k-subset is one table when there are at most ``spec.max_tables`` of
    them; otherwise the cyclic balanced design of :mod:`arena.tournament.design`.
  The bots are numbered by a seeded shuffle of the sorted field, and the table order is
  shuffled too, so that no bot is favoured by its name.

Deals and seat orders (k = seats, d = deals per table):
  * ``duplicate=False``: one match per (table, deal); deal ``j`` plays the table's base order
    rotated by ``j mod k``.
  * ``duplicate=True``: every (table, deal) is played k times, once per cyclic rotation of the
    seat order (``duplicate_orders="rotate"``), or k! times, once per seat order
    (``duplicate_orders="all"``, k <= 4). All matches of one deal share one match seed, so the
    engine deals the same hands to the same seats (and picks the same dealer), and every bot of
    the table holds every hand of the deal. With "rotate" the cyclic neighbours stay the same
    (A always plays after B); "all" also varies who sits after whom. A bot that remembers the hands it
    was dealt knows, in a later seat order, its opponents' hands: unsafe with remote bots.
  * ``duplicate=True, duplicate_orders="across"`` (safe with remote bots): one match per (table, deal)
    as without duplicates, but the tables are split into *classes* of tables that share no bot
    (:func:`table_classes`, greedy in table order) and every table of a class plays deal ``j`` from one
    seed: the bots in one seat at different tables of the class hold the same hand. No bot plays a deal
    twice (its tables are in different classes), so there is nothing to remember; the comparison the
    duplicate gives is between different bots in the same seat, as in the gauntlet.

Who sits right after whom (k > 2): seat ``i+1`` plays after seat ``i`` (the initial direction), so it takes seat
``i``'s skips and draws. Rotations keep that order, so it is the base order's. The base orders are chosen so that
every pair sits in both orders (b right after a, a right after b) as equally as the design allows
(:func:`arena.tournament.design.orient_developed`, :func:`~arena.tournament.design.orient_tables`), and odd rounds
play the base order reversed (:func:`reversed_round`): a round is one deal with rotated duplicate deals or in the
cyclic design, k deals in the complete design (an incomplete last round is never reversed). Exact (every pair
equally often in both orders) when the reversed rounds cancel the others: an even number of deals with rotated
duplicate deals or in the cyclic design, a multiple of 2k deals in the complete design. Otherwise a pair is off by
at most what the design leaves (docs/benchmarks.md, seating: 1 table per unreversed deal in the cyclic design for
k >= 4, 2 for k = 3; in the complete design 3 for k = 3, 2 for k = 4, 1 for k = 5, 6 when the deals fill rounds, up
to 6 when the seat balance of an incomplete last round constrains the orders). Tables in the design's own (circular)
order, never reversed, left some pair sitting one way round in all its shared matches.

What is guaranteed (checked by the tests):
  * every bot plays the same number of matches; every pair shares the same number of matches
    in the complete design;
  * balanced design: every pair shares at least ``pair_meetings`` tables; the counts differ by at most 1
    when the search finds such a design, else by at most 2 (the fallback of
    :func:`arena.tournament.design.balanced_base_blocks`; tested on seeds for n up to 30, k 3..6); measured
    at n = 30, k = 6: a spread of 1 for 207 of 207 seeds (docs/benchmarks.md);
  * seats: exactly balanced (every bot in every seat equally often) with rotated duplicate deals, when
    d is a multiple of k, in the balanced design, and when ``gcd(n, k) == 1``; otherwise within
    2 matches (a bot's match count need not even be a multiple of k).

Seeds: the match seed is ``derive_seed("deal", seed, secret, table, deal)`` (with "across":
``derive_seed("deal-across", seed, secret, class, deal)``, the class of the table) (SHA-256 of canonical
JSON, a 63-bit integer; the same in every process), identical for all rotations of one deal, where
``secret`` is the tournament's ``seed_secret`` (:mod:`arena.tournament.commitment`): without it a bot
could try every small seed against its first hand. A spec without a secret (a local run) derives
``derive_seed("deal", seed, table, deal)``. The engine derives every round's deal from (match seed, round
number). The tables and seat orders follow from the seed alone (every bot sees its matches' seats anyway, and the
number of tables is known before creation).

Match ids are ``"{tournament_id}:d{deal:04d}:t{table:06d}:r{rotation:02d}"`` and the deal group
of a match is the id without ``":r.."``. The list is in schedule order (deal, table, rotation),
which is also the lexicographic order of the ids while deals < 10,000 and tables < 1,000,000:
early results cover every table, and ratings apply results in this order.
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
    """The id of one match (see the module docstring for the format)."""
    return f"{deal_group_id(tournament_id, deal, table)}:r{rotation:02d}"


def deal_group_id(tournament_id: str, deal: int, table: int) -> str:
    """The id shared by every seat order of one deal at one table."""
    return f"{tournament_id}:d{deal:04d}:t{table:06d}"


@dataclass(frozen=True)
class MatchSpec:
    """One match to play: who sits where, the seed, the rules and the decision deadline.

    ``seats[0]`` is seat 0. ``rotation`` names the seat order: without duplicate deals it is
    ``deal mod k`` (the rotation applied to the table's base order); with duplicate deals it is
    the cyclic rotation ``0..k-1`` or, with ``duplicate_orders="all"``, the index ``0..k!-1`` of
    the permutation.
    """

    match_id: str
    tournament_id: str
    table: int
    deal: int
    rotation: int
    seats: tuple[str, ...]
    seed: int
    rules: Rules
    decision_deadline_ms: int = DEFAULT_DECISION_DEADLINE_MS
    """Stored as ``deadline_ms`` in :meth:`to_dict`."""
    time_bank_ms: int = field(default=0, compare=False)
    """Each seat's time bank in the match (the tournament's; not in :meth:`to_dict`, like the attempt)."""
    lag_compensation_cap_ms: int = field(default=DEFAULT_LAG_COMPENSATION_CAP_MS, compare=False)
    """The most lag compensation per decision (the tournament's)."""
    attempt: int = field(default=1, compare=False)
    """Which attempt of this match a worker plays (from 1; run state, not schedule: not in :meth:`to_dict`, not
    compared). A match aborted by the arena is played again as the next attempt, which the bots are told."""

    @property
    def group(self) -> str:
        """The deal group id (same for every seat order of this deal at this table)."""
        return deal_group_id(self.tournament_id, self.deal, self.table)

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.seats)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_dict` gives back an equal match."""
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
        """Inverse of :meth:`to_dict`."""
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
    """The match seed of every seat order of one deal at one table (see the module docstring); with ``"across"``
    duplicates ``table`` is the table's class (:func:`table_classes`)."""
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
    """Whether ``deal`` plays the reversed base order (more than 2 seats; see the module doc).

    A round is one deal with rotated duplicate deals (every rotation is played) or in the cyclic design (every bot holds
    every base position equally often, so any seat order of a deal keeps seats exact), otherwise ``k`` deals (the
    complete design's rotations). Odd complete rounds are reversed; an incomplete last round (deals not a multiple
    of ``k``) never is, so the rotations the complete design's seat balancing planned for it are the ones played.
    """
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
    if not spec.rotated:
        r = deal % k
        return [(r, rotate(base, r))]
    return [(r, rotate(base, r)) for r in range(k)]


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
    n, k = len(spec.participants), spec.seats
    if k > 2 and math.comb(n, k) > spec.max_tables:
        return len(tables(spec)) * spec.deals * spec.matches_per_deal
    return math.comb(n, k) * spec.deals * spec.matches_per_deal


def batches(matches: Sequence[MatchSpec], size: int) -> list[list[MatchSpec]]:
    """Split ``matches`` into consecutive batches of at most ``size`` (order kept, none empty)."""
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(f"batch size must be a positive integer, got {size!r}")
    return [list(matches[i : i + size]) for i in range(0, len(matches), size)]
