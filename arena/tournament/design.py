"""Table designs: which bots share a table, and in which seat order (pure functions of n, k and a seeded stream).

* **Complete** (:func:`complete_tables`): every k-subset once; every pair shares ``C(n-2, k-2)`` tables. Tables are
  oriented by cyclic orbits, so seats balance exactly when ``gcd(n, k) == 1`` or every rotation is played; the
  short orbits are balanced greedily (:func:`balance_seats`: a sequence of small assignment problems).
* **Cyclic balanced** (:func:`cyclic_tables`): ``m`` base blocks (ordered k-tuples of residues mod n) developed
  through all ``n`` shifts. Every bot plays exactly ``m*k`` tables and holds every base position ``m`` times, so
  seats balance whatever rotations the deals apply. Two bots ``d`` apart share as many tables as the blocks hold
  ordered pairs with that difference; a seeded local search makes those counts as equal as it can
  (:func:`balanced_base_blocks`). A spread of at most 1 is a target the tests check, not a theorem.

The next-seat orders are balanced too (:func:`orient_developed`, :func:`orient_tables`): every pair should sit in
both orders as equally as the design allows. The resulting guarantees are listed in docs/organizers.md.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from ._rng import SeededStream

T = TypeVar("T")
MAX_K = 10
DESCENT_PASSES = 20
Table = tuple[int, ...]


def complete_tables(n: int, k: int, rotations: int = 0, stream: SeededStream | None = None,
                    balance_direction: bool = False) -> list[Table]:
    """Every k-subset of ``range(n)`` once, grouped by cyclic orbit: a full orbit is the shifts of one ordered
    representative (every bot holds every base position once in it); the short orbits (``gcd(n, k) > 1``) are
    oriented by :func:`balance_seats` for ``rotations`` leftover rotations. ``balance_direction`` (k >= 3) also
    balances the next-seat orders (without it a bot always sits right after its predecessor mod n)."""
    representatives, short = _orbits(n, k)
    balance_direction = balance_direction and k >= 3
    if balance_direction:
        representatives = orient_developed(representatives, n)
    full = [tuple((x + s) % n for x in rep) for rep in representatives for s in range(n)]
    if short and rotations <= 0 and balance_direction:
        return full + orient_tables(short, n, start=next_seat_imbalance(n, full))
    if not short or rotations <= 0:
        return full + short
    return full + _short_for_seats(short, full, n, rotations, stream, balance_direction)


def _orbits(n: int, k: int) -> tuple[list[Table], list[Table]]:
    """One sorted representative per full cyclic orbit, and every member (sorted) of the short orbits."""
    seen: set[Table] = set()
    representatives: list[Table] = []
    short: list[Table] = []
    for subset in itertools.combinations(range(n), k):
        if subset in seen:
            continue
        members = {tuple(sorted((x + s) % n for x in subset)) for s in range(n)}
        seen.update(members)
        if len(members) == n:
            representatives.append(subset)
        else:
            short.extend(sorted(members))
    return representatives, short


def _short_for_seats(short: list[Table], full: list[Table], n: int, rotations: int, stream: SeededStream | None,
                     balance_direction: bool) -> list[Table]:
    """The short orbits' orders for ``rotations`` leftover rotations: the best seat balance of a few seeded
    attempts, or the next-seat balanced orders only rotated when their seat spread is as good."""
    best: tuple[int, int, list[Table]] | None = None
    for attempt in range(1 if stream is None else 6):
        order = list(short)
        if attempt and stream is not None:
            stream.shuffle(order)
        oriented = balance_seats(order, n, rotations)
        key = _seat_quality(oriented, n, rotations)
        if best is None or key < best[:2]:
            best = (key[0], key[1], oriented)
    assert best is not None
    if balance_direction:
        turned = rotate_for_seats(orient_tables(short, n, start=next_seat_imbalance(n, full)), n, rotations)
        if _seat_quality(turned, n, rotations)[0] <= best[0]:
            return turned
    return best[2]


def _seat_quality(tables: Sequence[Sequence[int]], n: int, rotations: int) -> tuple[int, int]:
    """(max seat-count spread of a bot, sum of squared seat counts) for leftover rotations."""
    counts, place, _ = _seat_counts(n, rotations)
    for order in tables:
        place(order, 1)
    k = len(tables[-1]) if tables else 0
    spread = max(max(row[:k]) - min(row[:k]) for row in counts) if k else 0
    return spread, sum(c * c for row in counts for c in row)


PERSIST_ROUNDS = 12
"""Extra search rounds of :func:`balanced_base_blocks` under the balanced seating (see there)."""

PERSIST_MAX_FIELD = 64
"""The longer search runs only up to this many bots: at 256 bots and tables of 10 it multiplied the search (about
1.5 s, on the organizer's thread) by 16. Larger fields keep the first search's design (the spread bound, 2, holds)."""


def blocks_needed(n: int, k: int, pair_meetings: int) -> int:
    """Number of base blocks so that the mean pair meeting count is at least ``pair_meetings``."""
    return max(1, math.ceil(pair_meetings * (n - 1) / (k * (k - 1))))


def difference_counts(blocks: Sequence[Sequence[int]], n: int) -> list[int]:
    """``counts[d]`` = ordered pairs in the blocks with ``x_j - x_i == d (mod n)``: the tables two bots ``d`` apart
    share in the development."""
    counts = [0] * n
    for block in blocks:
        for a in block:
            for b in block:
                if a != b:
                    counts[(b - a) % n] += 1
    return counts


def _spread(counts: Sequence[int]) -> int:
    values = counts[1:]
    return max(values) - min(values)


def _added_cost(counts: Sequence[int], others: Sequence[int], z: int, n: int) -> int:
    """Increase of sum(counts**2) when ``z`` joins a block holding ``others``."""
    extra: dict[int, int] = {}
    cost = 0
    for y in others:
        for d in ((z - y) % n, (y - z) % n):
            e = extra.get(d, 0)
            cost += 2 * (counts[d] + e) + 1
            extra[d] = e + 1
    return cost


def _local_search(blocks: list[list[int]], counts: list[int], n: int, order: list[tuple[int, int]]) -> None:
    """First-improvement search on single-element replacements, minimising sum(counts**2). For speed every
    candidate is first scored approximately, by ``sum(counts[z - y])`` over the other members, for all ``z`` at once;
    the few best are then scored exactly."""
    improved = True
    while improved:
        improved = False
        for bi, j in order:
            block = blocks[bi]
            x = block[j]
            others = [y for idx, y in enumerate(block) if idx != j]
            for y in others:
                counts[(x - y) % n] -= 1
                counts[(y - x) % n] -= 1
            rotated = [counts[n - y :] + counts[: n - y] for y in others]  # rotated[i][z] = counts[z - y_i]
            approx = [sum(col) for col in zip(*rotated, strict=True)]
            for y in block:
                approx[y] = 1 << 60  # members are not candidates
            lowest = min(approx)
            shortlist = [z for z in range(n) if approx[z] <= lowest + 1][:16]
            best_z = x
            best_cost = _added_cost(counts, others, x, n)
            for z in shortlist:
                cost = _added_cost(counts, others, z, n)
                if cost < best_cost:
                    best_cost, best_z = cost, z
            for y in others:
                counts[(best_z - y) % n] += 1
                counts[(y - best_z) % n] += 1
            if best_z != x:
                block[j] = best_z
                improved = True


def _anneal(blocks: list[list[int]], counts: list[int], n: int, stream: SeededStream, moves: int) -> None:
    """Seeded simulated annealing on sum(counts**2); leaves the best (spread, sum) state found."""
    m = len(blocks)
    k = len(blocks[0])
    sumsq = sum(c * c for c in counts)
    best_key = (_spread(counts), sumsq)
    best_blocks = [list(b) for b in blocks]
    temperature = 2.0
    cooling = (0.05 / temperature) ** (1.0 / max(1, moves))
    for _ in range(moves):
        temperature *= cooling
        block = blocks[stream.below(m)]
        j = stream.below(k)
        z = stream.below(n)
        if z in block:
            continue
        x = block[j]
        changes: dict[int, int] = {}
        for idx, y in enumerate(block):
            if idx != j:
                for d, step in (((x - y) % n, -1), ((y - x) % n, -1), ((z - y) % n, 1), ((y - z) % n, 1)):
                    changes[d] = changes.get(d, 0) + step
        delta = sum((counts[d] + c) ** 2 - counts[d] ** 2 for d, c in changes.items())
        if delta > 0:
            # accept a worse state with probability about exp(-delta / T), from the seeded stream
            threshold = math.exp(-delta / temperature)
            if stream.next64() >= threshold * (1 << 64):
                continue
        block[j] = z
        for d, c in changes.items():
            counts[d] += c
        sumsq += delta
        if delta < 0 or (delta == 0 and _spread(counts) < best_key[0]):
            key = (_spread(counts), sumsq)
            if key < best_key:
                best_key = key
                best_blocks = [list(b) for b in blocks]
                if key[0] <= 1:
                    break
    blocks[:] = best_blocks
    counts[:] = difference_counts(blocks, n)


def base_blocks(n: int, k: int, m: int, stream: SeededStream, restarts: int = 4) -> list[Table]:
    """``m`` ordered base blocks of ``k`` distinct residues mod ``n`` with near-equal difference counts."""
    if not 2 <= k <= n:
        raise ValueError(f"need 2 <= k <= n, got n={n}, k={k}")
    best: tuple[int, int, list[list[int]]] | None = None
    for _ in range(restarts):
        blocks = [stream.sample(range(n), k) for _ in range(m)]
        counts = difference_counts(blocks, n)
        order = [(bi, j) for bi in range(m) for j in range(k)]
        stream.shuffle(order)
        _local_search(blocks, counts, n, order)
        if _spread(counts) > 1:
            _anneal(blocks, counts, n, stream, 40 * m * k * k + 2000)
            _local_search(blocks, counts, n, order)
        key = (_spread(counts), sum(c * c for c in counts))
        if best is None or key < best[:2]:
            best = (key[0], key[1], [list(b) for b in blocks])
        if key[0] <= 1:
            break
    assert best is not None
    return [tuple(b) for b in best[2]]


def balanced_base_blocks(n: int, k: int, pair_meetings: int, stream: SeededStream, persist: int = 0) -> list[Table]:
    """Base blocks whose development makes every pair meet ``pair_meetings`` times or a bit more.

    From ``m0 = blocks_needed(...)`` blocks, the first ``m`` whose difference counts spread by at most 1; else
    larger ``m`` in steps of about 3% of ``m0``; else the best candidate in which every pair meets enough (then
    smallest spread, fewest blocks). ``persist`` more rounds (:data:`PERSIST_ROUNDS`) search again at that
    candidate's ``m`` and one more, only when the first search failed (so every design it found stays the same).
    """
    m0 = blocks_needed(n, k, pair_meetings)
    step = max(1, math.ceil(0.03 * m0))
    best: tuple[tuple[int, int, int], list[Table]] | None = None
    for attempt in range(8):
        m = m0 + attempt * step
        blocks = base_blocks(n, k, m, stream, restarts=3 if attempt == 0 else 2)
        counts = difference_counts(blocks, n)
        spread = _spread(counts)
        covered = min(counts[1:]) >= pair_meetings
        if spread <= 1:
            return blocks
        key = (0 if covered else 1, spread, m)
        if best is None or key < best[0]:
            best = (key, blocks)
        if best[0][0] == 0 and attempt >= 2:
            break
    assert best is not None
    fallback_m = len(best[1])
    for _ in range(persist if n <= PERSIST_MAX_FIELD else 0):
        for m in (fallback_m, fallback_m + 1):
            if m > m0 + 7 * step:
                continue  # never more blocks than the loop above may try (limits.matches_upper_bound)
            blocks = base_blocks(n, k, m, stream, restarts=2)
            counts = difference_counts(blocks, n)
            if _spread(counts) <= 1 and min(counts[1:]) >= pair_meetings:
                return blocks
    return best[1]


def cyclic_tables(n: int, blocks: Sequence[Sequence[int]]) -> list[Table]:
    """Develop the base blocks through every shift mod ``n`` (block-major, then shift)."""
    return [tuple((x + s) % n for x in block) for block in blocks for s in range(n)]


def assignment(cost: Sequence[Sequence[int]]) -> list[int]:
    """Minimum-cost perfect assignment of a square matrix (Hungarian method, O(k^3)): ``col[row]`` for each row;
    ties go to the lowest index found first."""
    size = len(cost)
    inf = float("inf")
    u = [0.0] * (size + 1)
    v = [0.0] * (size + 1)
    match = [0] * (size + 1)  # match[col] = row (1-based), 0 = free
    way = [0] * (size + 1)
    for row in range(1, size + 1):
        match[0] = row
        col0 = 0
        minv = [inf] * (size + 1)
        used = [False] * (size + 1)
        while True:
            used[col0] = True
            row0 = match[col0]
            delta = inf
            col1 = 0
            for col in range(1, size + 1):
                if not used[col]:
                    cur = cost[row0 - 1][col - 1] - u[row0] - v[col]
                    if cur < minv[col]:
                        minv[col] = cur
                        way[col] = col0
                    if minv[col] < delta:
                        delta = minv[col]
                        col1 = col
            for col in range(size + 1):
                if used[col]:
                    u[match[col]] += delta
                    v[col] -= delta
                else:
                    minv[col] -= delta
            col0 = col1
            if match[col0] == 0:
                break
        while True:
            col1 = way[col0]
            match[col0] = match[col1]
            col0 = col1
            if col0 == 0:
                break
    result = [0] * size
    for col in range(1, size + 1):
        result[match[col] - 1] = col - 1
    return result


def rotate(order: Sequence[T], rotation: int) -> tuple[T, ...]:
    """Seat order after ``rotation``: seat ``i`` holds ``order[(i + rotation) % k]``."""
    k = len(order)
    return tuple(order[(i + rotation) % k] for i in range(k))


def balance_seats(tables: Sequence[Sequence[int]], n: int, rotations: int) -> list[Table]:
    """Orient every table so that seats stay balanced when only rotations ``0..rotations-1`` are played: each table
    by a minimum-cost assignment of its bots to base positions (the cost: the seats that position will give the bot
    it already holds), then coordinate descent on the sum of squared seat counts."""
    if rotations <= 0:
        return [tuple(t) for t in tables]
    counts, place, cost = _seat_counts(n, rotations)

    def by_assignment(table: Sequence[int]) -> list[list[int]]:  # the one candidate order
        k = len(table)
        # what each bot at each base position adds to sum(counts**2): 2c + 1 over the seats it takes
        costs = [[sum(2 * counts[b][(p - r) % k] + 1 for r in range(rotations)) for p in range(k)] for b in table]
        order = [0] * k
        for row, p in enumerate(assignment(costs)):
            order[p] = table[row]
        return [order]

    return [tuple(o) for o in _greedy_then_descend(tables, by_assignment, cost, place)]


def _seat_counts(n: int, rotations: int) -> tuple[list[list[int]], Callable[[Sequence[int], int], None],
                                                   Callable[[Sequence[int]], int]]:
    """Seat counts of ``n`` bots under rotations ``0..rotations-1``, how to place (sign 1) or remove (-1) a table's
    order, and what an order would add to the sum of squared counts."""
    counts = [[0] * MAX_K for _ in range(n)]

    def place(order: Sequence[int], sign: int) -> None:
        k = len(order)
        for p, b in enumerate(order):
            for r in range(rotations):
                counts[b][(p - r) % k] += sign

    def cost(order: Sequence[int]) -> int:
        k = len(order)
        return sum(2 * counts[b][(p - r) % k] + 1 for p, b in enumerate(order) for r in range(rotations))

    return counts, place, cost


# --- direction balance: who sits right after whom ------------------------------------------------------------------

MAX_ALL_CYCLES_K = 6
"""Up to this table size every cyclic seat order of a table is a candidate; above it a fixed sample."""
SAMPLED_CYCLES = 120


def next_seat_differences(order: Sequence[int], n: int) -> list[int]:
    """``(order[i+1] - order[i]) mod n`` around the table: the residue differences of its "next seat" pairs."""
    k = len(order)
    return [(order[(i + 1) % k] - order[i]) % n for i in range(k)]


def cyclic_orders(table: Sequence[int]) -> list[Table]:
    """Candidate seat orders of one table, one per directed cycle (the first member stays first): all ``(k-1)!``
    up to :data:`MAX_ALL_CYCLES_K` seats, above a sample (with reversals) from a stream keyed by the table."""
    first, rest = table[0], list(table[1:])
    if len(table) <= MAX_ALL_CYCLES_K:
        return [(first, *p) for p in itertools.permutations(rest)]
    stream = SeededStream("cycles", list(table))
    orders: list[Table] = [tuple(table), (first, *reversed(rest))]
    while len(orders) < SAMPLED_CYCLES:
        p = stream.sample(rest, len(rest))
        orders += [(first, *p), (first, *reversed(p))]
    return orders


def orient_developed(blocks: Sequence[Sequence[int]], n: int) -> list[Table]:
    """Reorder every base block so that, over its development mod ``n``, every pair ``(a, b)`` has ``b`` right after
    ``a`` as often as the reverse (or as near as the search gets).

    ``b`` is right after ``a`` in ``N[b - a]`` tables, ``N[d]`` counting the blocks' next-seat differences ``d``
    (:func:`next_seat_differences`), so the pairs ``d`` apart are off by ``N[d] - N[n - d]``: each block takes the
    cyclic order (:func:`cyclic_orders`) that least raises the sum of squared imbalances (greedy, then descent).
    Any order of a block keeps what the development guarantees (seats, pair meetings).
    """
    imbalance = [0] * n

    def cost(order: Sequence[int]) -> int:
        change: dict[int, int] = {}
        for d in next_seat_differences(order, n):
            if 2 * d != n:  # a pair n/2 apart meets in both orders within the same development
                change[d] = change.get(d, 0) + 1
                change[n - d] = change.get(n - d, 0) - 1
        return sum((imbalance[d] + c) ** 2 - imbalance[d] ** 2 for d, c in change.items())

    def place(order: Sequence[int], sign: int) -> None:
        for d in next_seat_differences(order, n):
            if 2 * d != n:
                imbalance[d] += sign
                imbalance[n - d] -= sign

    return [tuple(o) for o in _greedy_then_descend(blocks, cyclic_orders, cost, place)]


def orient_tables(tables: Sequence[Sequence[int]], n: int, start: Sequence[Sequence[int]] | None = None) -> list[Table]:
    """The same balancing as :func:`orient_developed` for single tables (no development), pair by pair.

    ``start[a][b]`` is the imbalance ``(b right after a) - (a right after b)`` the other tables already
    give (zero when omitted). Used for the complete design's short orbits, whose seats the rotations of the
    deals balance whatever their order.
    """
    imb = [list(row) for row in start] if start is not None else [[0] * n for _ in range(n)]

    def cost(order: Sequence[int]) -> int:
        change: dict[tuple[int, int], int] = {}
        for a, b in zip(order, (*order[1:], order[0]), strict=True):
            key, s = ((a, b), 1) if a < b else ((b, a), -1)
            change[key] = change.get(key, 0) + s
        return sum((imb[a][b] + c) ** 2 - imb[a][b] ** 2 for (a, b), c in change.items())

    def place(order: Sequence[int], sign: int) -> None:
        _place_next_seats(imb, order, sign)

    return [tuple(o) for o in _greedy_then_descend(tables, cyclic_orders, cost, place)]


def next_seat_imbalance(n: int, tables: Sequence[Sequence[int]]) -> list[list[int]]:
    """``imb[a][b]`` = tables where ``b`` sits right after ``a`` minus tables where ``a`` sits right after ``b``."""
    imb = [[0] * n for _ in range(n)]
    for order in tables:
        _place_next_seats(imb, order, 1)  # two seats: each is the other's next seat, which cancels out
    return imb


def _place_next_seats(imb: list[list[int]], order: Sequence[int], sign: int) -> None:
    """Add (sign 1) or remove (-1) the next-seat pairs of one table's ``order`` to ``imb``."""
    for a, b in zip(order, (*order[1:], order[0]), strict=True):
        imb[a][b] += sign
        imb[b][a] -= sign


def rotate_for_seats(tables: Sequence[Sequence[int]], n: int, rotations: int) -> list[Table]:
    """:func:`balance_seats` over the rotations of every table only (who sits after whom stays)."""
    _, place, cost = _seat_counts(n, rotations)
    return [tuple(o) for o in _greedy_then_descend(tables, lambda order: [rotate(order, c) for c in range(len(order))],
                                                   cost, place)]


def _greedy_then_descend(tables: Sequence[Sequence[int]],
                         candidates: Callable[[Sequence[int]], Iterable[Sequence[int]]],
                         cost: Callable[[Sequence[int]], int],
                         place: Callable[[Sequence[int], int], None]) -> list[Sequence[int]]:
    """Each table's order: the first of its ``candidates`` orders of least ``cost`` given the tables placed before
    it (``place(order, 1)`` counts it), then coordinate descent: each table taken out (``place(order, -1)``) and put
    back in its best order while that lowers its ``cost``, for at most :data:`DESCENT_PASSES` passes."""
    chosen: list[Sequence[int]] = []
    for table in tables:
        order = min(candidates(table), key=cost)
        place(order, 1)
        chosen.append(order)
    for _ in range(DESCENT_PASSES):
        changed = False
        for i, current in enumerate(chosen):
            place(current, -1)
            candidate = min(candidates(current), key=cost)
            if cost(candidate) < cost(current):
                chosen[i] = current = candidate
                changed = True
            place(current, 1)
        if not changed:
            break
    return chosen
