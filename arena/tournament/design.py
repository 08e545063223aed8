"""Table designs: which bots share a table, and in which seat order.

Two designs, both pure functions of (field size ``n``, table size ``k``, a seeded stream):

* **Complete** (:func:`complete_tables`): every k-subset of the field is one table. Every pair
  of bots shares exactly ``C(n-2, k-2)`` tables and every bot plays ``C(n-1, k-1)`` tables.
  With 2 seats this is the classic round robin (every pair once). Tables are oriented by cyclic
  orbits, so seat balance is exact when ``gcd(n, k) == 1`` or when every rotation is played
  equally often; otherwise the few tables of short orbits are balanced greedily.

* **Cyclic balanced** (:func:`cyclic_tables`): used when there are too many k-subsets. The
  bots are numbered ``0..n-1`` (the numbering is a seeded shuffle of the field, done by the
  caller) and ``m`` *base blocks* (ordered k-tuples of distinct residues mod n) are developed
  through all ``n`` cyclic shifts: table ``(b, s)`` seats ``x_0+s, ..., x_{k-1}+s (mod n)``.
  What this guarantees, exactly and always:

  - every bot plays exactly ``m*k`` tables;
  - every bot sits at every base position (seat) exactly ``m`` times, so seat balance is exact
    whatever cyclic rotations the deals apply afterwards.

  The number of tables two bots ``u, v`` share depends only on their difference ``v-u mod n``:
  it is the number of ordered pairs inside the base blocks with that difference. The base blocks
  are found by a deterministic seeded local search that makes these counts as equal as
  possible (minimum sum of squares, then minimum spread), starting from
  ``m = ceil(pair_meetings * (n-1) / (k*(k-1)))`` (the mean is then at least ``pair_meetings``)
  and adding a few blocks when that is too tight (:func:`balanced_base_blocks`). A spread of
  0 is a cyclic difference family and exists only for some ``(n, k)``; the search reaches a
  spread of at most 1 in the cases the tests cover (and then every pair shares at least
  ``pair_meetings`` tables), but a spread of 1 is a target, not a theorem.

:func:`balance_seats` orients the short-orbit tables of the complete design when the number of
deals is not a multiple of the table size (then cyclic rotations alone cannot balance seats): a greedy
sequence of small assignment problems (Hungarian method) that keeps every bot's seat counts as
even as it can. Exact balance is impossible in general (a bot's number of matches need not be a
multiple of k); the tests check a spread of at most 2 matches between a bot's seats.

The spreads that are guaranteed, or checked by the tests, are summarised in
:mod:`arena.tournament.schedule`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import TypeVar

from ._rng import SeededStream

T = TypeVar("T")
MAX_K = 10
Table = tuple[int, ...]


def complete_tables(n: int, k: int, rotations: int = 0, stream: SeededStream | None = None,
                    balance_direction: bool = False) -> list[Table]:
    """Every k-subset of ``range(n)`` once, oriented for seat balance, grouped by cyclic orbit.

    The k-subsets fall into orbits under the shift ``x -> x+1 (mod n)``. A full orbit (n
    subsets) is oriented as the shifts of one ordered representative, so every bot holds every
    base position exactly once in it: seats are exactly balanced whatever rotations are played.
    Short orbits (only when ``gcd(n, k) > 1``) are oriented by :func:`balance_seats` for
    ``rotations`` leftover rotations (no change when ``rotations`` is 0).

    ``balance_direction`` (k >= 3): the representatives are reordered by :func:`orient_developed`, and
    the short orbits, when no leftover rotations constrain them, by :func:`orient_tables`, so that every pair
    sits in both next-seat orders as equally as the search gets. Without it every table seats its bots in the
    circular order of their numbers, so a bot always sits right after its predecessor mod n.
    """
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
    """The k-subsets of ``range(n)`` by cyclic orbit: one sorted representative per full orbit, and every member
    (sorted) of the short ones."""
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
            short.extend(tuple(sorted(m)) for m in sorted(members))
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
    counts = [[0] * MAX_K for _ in range(n)]
    k = 0
    for order in tables:
        k = len(order)
        for p, b in enumerate(order):
            for r in range(rotations):
                counts[b][(p - r) % k] += 1
    spread = max(max(row[:k]) - min(row[:k]) for row in counts) if k else 0
    return spread, sum(c * c for row in counts for c in row)


PERSIST_ROUNDS = 12
"""Extra search rounds of :func:`balanced_base_blocks` under the balanced seating (see there)."""

PERSIST_MAX_FIELD = 64
"""The longer search runs for fields of at most this many bots: there it costs milliseconds; at 256 bots and tables
of 10 it multiplied the search (about 1.5 s) by 16, on the organizer's thread, for a request anyone with an admin
token could repeat. Larger fields keep the first search's design (the documented spread bound, 2, holds)."""


def blocks_needed(n: int, k: int, pair_meetings: int) -> int:
    """Number of base blocks so that the mean pair meeting count is at least ``pair_meetings``."""
    return max(1, math.ceil(pair_meetings * (n - 1) / (k * (k - 1))))


def difference_counts(blocks: Sequence[Sequence[int]], n: int) -> list[int]:
    """``counts[d]`` = ordered pairs (i != j) in the blocks with ``x_j - x_i == d (mod n)``.

    In the cyclic development of ``blocks`` two bots whose numbers differ by ``d`` share exactly
    ``counts[d]`` tables (``counts[0]`` is always 0).
    """
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
    """Increase of sum(counts**2) when ``z`` joins a block holding ``others`` (exact)."""
    extra: dict[int, int] = {}
    cost = 0
    for y in others:
        for d in ((z - y) % n, (y - z) % n):
            e = extra.get(d, 0)
            cost += 2 * (counts[d] + e) + 1
            extra[d] = e + 1
    return cost


def _local_search(blocks: list[list[int]], counts: list[int], n: int, order: list[tuple[int, int]]) -> None:
    """First-improvement search on single-element replacements, minimising sum(counts**2).

    For speed, every candidate is first scored by ``sum(counts[z - y])`` over the other members
    (counts are symmetric, so this is the cost without the rare coincidences between the new
    differences), computed for all ``z`` at once from rotated copies of ``counts``; the few
    best candidates are then scored exactly.
    """
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
    """Base blocks whose cyclic development makes every pair meet ``pair_meetings`` times or a bit more.

    Starts with ``m0 = blocks_needed(n, k, pair_meetings)`` blocks and accepts the first ``m``
    whose difference counts have a spread of at most 1 (then every pair meets at least
    ``pair_meetings`` times). When the search finds no such blocks (for some ``(n, k, m)`` none
    exist; when the mean is barely above ``pair_meetings`` they are hard to find) it tries
    larger ``m`` in steps of about 3% of ``m0``, and failing that keeps the best candidate in
    which every pair meets at least ``pair_meetings`` times (then smallest spread, fewest blocks).

    ``persist`` more rounds (the balanced seating passes :data:`PERSIST_ROUNDS`) first search again, at that
    candidate's ``m`` and one more, for blocks with a spread of at most 1 in which every pair meets; they run
    only when the search above failed, so every design it found stays the same, and only for fields of at most
    :data:`PERSIST_MAX_FIELD` bots.
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
    """Minimum-cost perfect assignment of a square matrix (Hungarian method, O(k^3)).

    Returns ``col`` with ``col[row]`` the column given to each row. Deterministic: ties go to
    the lowest index found first.
    """
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


def balance_seats(tables: Sequence[Sequence[int]], n: int, rotations: int, passes: int = 20) -> list[Table]:
    """Orient every table so that seats stay balanced when only rotations ``0..rotations-1`` are played.

    A greedy pass assigns, table after table, the bots to base positions by a minimum-cost
    assignment where the cost of putting bot ``b`` at base position ``p`` is the number of times
    ``b`` already sits in the seats that position will occupy. Then improvement passes re-solve
    each table against all the others while that lowers the sum of squared seat counts
    (coordinate descent; it stops at a local optimum or after ``passes`` passes).
    """
    if rotations <= 0:
        return [tuple(t) for t in tables]
    counts = [[0] * MAX_K for _ in range(n)]

    def seats_of(k: int) -> list[list[int]]:
        return [[(p - r) % k for r in range(rotations)] for p in range(k)]

    def place(order: Sequence[int], step: int) -> None:
        held = seats_of(len(order))
        for p, b in enumerate(order):
            for s in held[p]:
                counts[b][s] += step

    def best_order(table: Sequence[int]) -> list[int]:
        k = len(table)
        held = seats_of(k)
        # cost of the increase of sum(counts**2): sum of (2c + 1) over the seats taken
        cost = [[sum(2 * counts[b][s] + 1 for s in held[p]) for p in range(k)] for b in table]
        col = assignment(cost)
        order = [0] * k
        for row, p in enumerate(col):
            order[p] = table[row]
        return order

    def local_cost(order: Sequence[int]) -> int:
        held = seats_of(len(order))
        return sum(2 * counts[b][s] + 1 for p, b in enumerate(order) for s in held[p])

    return [tuple(o) for o in _greedy_then_descend(tables, best_order, local_cost, place, passes)]


# --- direction balance: who sits right after whom ------------------------------------------------------------------

MAX_ALL_CYCLES_K = 6
"""Up to this table size every cyclic seat order of a table is a candidate; above it a fixed sample."""
SAMPLED_CYCLES = 120


def next_seat_differences(order: Sequence[int], n: int) -> list[int]:
    """``(order[i+1] - order[i]) mod n`` around the table: the residue differences of its "next seat" pairs."""
    k = len(order)
    return [(order[(i + 1) % k] - order[i]) % n for i in range(k)]


def cyclic_orders(table: Sequence[int]) -> list[Table]:
    """Candidate seat orders of one table, one per directed cycle (the first member stays first).

    All ``(k-1)!`` of them up to :data:`MAX_ALL_CYCLES_K` seats; above, a fixed sample of
    :data:`SAMPLED_CYCLES` cycles (each with its reversal) drawn from a stream keyed by the table, so the
    candidates are a pure function of the table.
    """
    first, rest = table[0], list(table[1:])
    if len(table) <= MAX_ALL_CYCLES_K:
        return [(first, *p) for p in itertools.permutations(rest)]
    stream = SeededStream("cycles", list(table))
    orders: list[Table] = [tuple(table), (first, *reversed(rest))]
    while len(orders) < SAMPLED_CYCLES:
        p = stream.sample(rest, len(rest))
        orders += [(first, *p), (first, *reversed(p))]
    return orders


def _imbalance_delta(imbalance: Sequence[int], diffs: Sequence[int], n: int, sign: int) -> int:
    """Change of ``sum(imbalance**2)`` when edges of the given differences are added (sign 1) or removed (-1)."""
    change: dict[int, int] = {}
    for d in diffs:
        if 2 * d != n:  # a pair n/2 apart meets in both orders within the same development
            change[d] = change.get(d, 0) + sign
            change[n - d] = change.get(n - d, 0) - sign
    return sum((imbalance[d] + c) ** 2 - imbalance[d] ** 2 for d, c in change.items())


def _apply(imbalance: list[int], diffs: Sequence[int], n: int, sign: int) -> None:
    for d in diffs:
        if 2 * d != n:
            imbalance[d] += sign
            imbalance[n - d] -= sign


def orient_developed(blocks: Sequence[Sequence[int]], n: int, passes: int = 20) -> list[Table]:
    """Reorder every base block so that, over its development through all shifts mod ``n``, every pair
    ``(a, b)`` has ``b`` right after ``a`` as often as ``a`` right after ``b`` (or as near as the search gets).

    In a development, ``b`` is right after ``a`` in ``N[b - a]`` tables, where ``N[d]`` counts the next-seat
    differences ``d`` of the base blocks (:func:`next_seat_differences`). The imbalance of the pairs ``d``
    apart is ``N[d] - N[n - d]``; a greedy pass gives each block the cyclic order (:func:`cyclic_orders`) that
    least raises the sum of squared imbalances, then passes re-choose each block against the others while
    that sum falls (deterministic: ties keep the earlier candidate). Any order of a block keeps what the
    development guarantees (every bot at every base position equally often, the same pair meetings).
    """
    imbalance = [0] * n
    chosen: list[Table] = []
    for block in blocks:
        best = min(cyclic_orders(block), key=lambda o: _imbalance_delta(imbalance, next_seat_differences(o, n), n, 1))
        _apply(imbalance, next_seat_differences(best, n), n, 1)
        chosen.append(best)
    for _ in range(passes):
        changed = False
        for i, current in enumerate(chosen):
            _apply(imbalance, next_seat_differences(current, n), n, -1)
            base = _imbalance_delta(imbalance, next_seat_differences(current, n), n, 1)
            best, cost = current, base
            for order in cyclic_orders(current):
                delta = _imbalance_delta(imbalance, next_seat_differences(order, n), n, 1)
                if delta < cost:
                    best, cost = order, delta
            _apply(imbalance, next_seat_differences(best, n), n, 1)
            if best != current:
                chosen[i] = best
                changed = True
        if not changed:
            break
    return chosen


def orient_tables(tables: Sequence[Sequence[int]], n: int, start: Sequence[Sequence[int]] | None = None,
                  passes: int = 20) -> list[Table]:
    """The same balancing as :func:`orient_developed` for single tables (no development), pair by pair.

    ``start[a][b]`` is the imbalance ``(b right after a) - (a right after b)`` the other tables already
    give (zero when omitted). Used for the complete design's short orbits, whose seats the rotations of the
    deals balance whatever their order.
    """
    imb = [list(row) for row in start] if start is not None else [[0] * n for _ in range(n)]

    def edges(order: Sequence[int]) -> list[tuple[int, int]]:
        return [(order[i], order[(i + 1) % len(order)]) for i in range(len(order))]

    def delta(order: Sequence[int], sign: int) -> int:
        change: dict[tuple[int, int], int] = {}
        for a, b in edges(order):
            key, s = ((a, b), sign) if a < b else ((b, a), -sign)
            change[key] = change.get(key, 0) + s
        return sum((imb[a][b] + c) ** 2 - imb[a][b] ** 2 for (a, b), c in change.items())

    def apply(order: Sequence[int], sign: int) -> None:
        for a, b in edges(order):
            imb[a][b] += sign
            imb[b][a] -= sign

    chosen: list[Table] = []
    for table in tables:
        best = min(cyclic_orders(table), key=lambda o: delta(o, 1))
        apply(best, 1)
        chosen.append(best)
    for _ in range(passes):
        changed = False
        for i, current in enumerate(chosen):
            apply(current, -1)
            best, cost = current, delta(current, 1)
            for order in cyclic_orders(current):
                d = delta(order, 1)
                if d < cost:
                    best, cost = order, d
            apply(best, 1)
            if best != current:
                chosen[i] = best
                changed = True
        if not changed:
            break
    return chosen


def next_seat_imbalance(n: int, tables: Sequence[Sequence[int]]) -> list[list[int]]:
    """``imb[a][b]`` = tables where ``b`` sits right after ``a`` minus tables where ``a`` sits right after ``b``."""
    imb = [[0] * n for _ in range(n)]
    for order in tables:
        k = len(order)
        if k < 3:
            continue  # two seats: each is the other's next seat
        for i in range(k):
            a, b = order[i], order[(i + 1) % k]
            imb[a][b] += 1
            imb[b][a] -= 1
    return imb



def rotate_for_seats(tables: Sequence[Sequence[int]], n: int, rotations: int, passes: int = 20) -> list[Table]:
    """Rotate every table (its cyclic order, so who sits after whom, stays) so that seats stay balanced when
    only rotations ``0..rotations-1`` are played: greedy, then coordinate descent on the sum of squared seat
    counts, as :func:`balance_seats` does over all orders."""
    counts = [[0] * MAX_K for _ in range(n)]

    def place(order: Sequence[int], sign: int) -> None:
        k = len(order)
        for p, b in enumerate(order):
            for r in range(rotations):
                counts[b][(p - r) % k] += sign

    def cost(order: Sequence[int]) -> int:
        k = len(order)
        return sum(2 * counts[b][(p - r) % k] + 1 for p, b in enumerate(order) for r in range(rotations))

    def best(order: Sequence[int]) -> Table:
        return min((rotate(order, c) for c in range(len(order))), key=cost)

    return [tuple(o) for o in _greedy_then_descend(tables, best, cost, place, passes)]


def _greedy_then_descend(tables: Sequence[Sequence[int]], best: Callable[[Sequence[int]], Sequence[int]],
                         cost: Callable[[Sequence[int]], int], place: Callable[[Sequence[int], int], None],
                         passes: int) -> list[Sequence[int]]:
    """Each table's order by ``best`` given the tables placed before it (``place(order, +1)`` counts it), then
    coordinate descent: each table taken out (``place(order, -1)``) and put back in its best order while that
    lowers its ``cost``, for at most ``passes`` passes or until a pass changes nothing."""
    chosen: list[Sequence[int]] = []
    for table in tables:
        order = best(table)
        place(order, 1)
        chosen.append(order)
    for _ in range(passes):
        changed = False
        for i, current in enumerate(chosen):
            place(current, -1)
            candidate = best(current)
            if cost(candidate) < cost(current):
                chosen[i] = current = candidate
                changed = True
            place(current, 1)
        if not changed:
            break
    return chosen
