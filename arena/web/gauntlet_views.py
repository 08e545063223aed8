"""What the gauntlet pages show, shaped from the organizer API's ``Gauntlet`` and ``GauntletBlock`` messages (pure
functions: no I/O): every number is the API's as it is (blocks, LLR and bounds, state, mean block score); here they
become typed dataclasses (the JSON twins' response models too), the verdict in words and a chart of the LLR.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.protocol import arena_pb2
from arena.protocol.convert import rules_from_proto
from arena.protocol.statuses import gauntlet_status
from arena.tournament.leaderboard import pool_label
from arena.web.views import counted, from_message

ESTIMATE_NOTE = ("The estimate is the mean block score so far: finishing points per match the candidate gained over "
                 "the baseline on the same deals and seats (1 for first, 0 for last). It is not corrected for the "
                 "early stop: a test that stops early for H1 stopped on a lucky streak, so the mean overstates the "
                 "gain (an early H0 understates it). Read it as a description of the blocks played.")
LLR_NOTE = ("The test (a generalized sequential probability ratio test over the block scores) accepts H1 once the "
            "LLR reaches the upper bound and H0 once it falls to the lower one; the bounds follow from alpha and "
            "beta. A cap on the blocks leaves it inconclusive.")
CHART_W, CHART_H, CHART_PAD = 640, 240, 40


@dataclass(frozen=True)
class GauntletBlockRow:
    """One scored block: its number (from 1), its score, the LLR after it, its attempts."""

    block: int
    score: float
    llr: float
    attempts: int


@dataclass(frozen=True)
class GauntletRow:
    """A ``Gauntlet``: what it tests, how far its test is, and its verdict."""

    gauntlet_id: str
    state: str
    """running, accepted, rejected, inconclusive, failed or unspecified."""
    verdict: str
    detail: str
    candidate: str
    baseline: str
    opponents: list[str]
    seats: int
    rules: str
    blocks: int
    max_blocks: int
    min_blocks: int
    llr: float
    llr_lower: float
    llr_upper: float
    llr_position: float
    """Where the LLR stands from the lower bound (0) to the upper (1), clipped."""
    mean_score: float
    """The estimate: the mean block score so far (:data:`ESTIMATE_NOTE`)."""
    alpha: float
    beta: float
    mu0: float
    mu1: float
    decision_deadline_ms: int
    created_at: str | None
    updated_at: str | None
    seed_commitment: str
    seed: int
    """The seed, revealed once the gauntlet ended (0 before)."""
    seed_salt: str
    seed_secret: str
    expected_blocks_left: int | None = None
    """The blocks the test expects to need before a decision at the current estimate (None when unknown)."""
    needed_blocks: int = 0
    """The blocks after which, at the current estimate, at most 2% of such tests are still undecided."""
    undecided_at_cap: float = 0.0
    cap_blocks: int = 0
    """The cap in force: the spec's ``max_blocks``, or the automatic cap as the API estimates it now."""


@dataclass(frozen=True)
class GauntletList:
    """The gauntlets, newest first."""

    gauntlets: list[GauntletRow] = field(default_factory=list)


@dataclass(frozen=True)
class GauntletPage:
    """One gauntlet with its blocks, the first first, and the notes that explain its numbers."""

    gauntlet: GauntletRow
    blocks: list[GauntletBlockRow]
    estimate_note: str = ESTIMATE_NOTE
    llr_note: str = LLR_NOTE


def state_word(state: int) -> str:
    status = gauntlet_status(state)
    return "unspecified" if status is None else status.value


def verdict_text(message: arena_pb2.Gauntlet) -> str:
    """The state in words, as `uno-arena gauntlet` words its verdict."""
    cap = message.cap_blocks or message.spec.max_blocks
    words = {
        arena_pb2.GAUNTLET_STATE_ACCEPTED: "accepted: the candidate is better (H1)",
        arena_pb2.GAUNTLET_STATE_REJECTED: "rejected: the candidate is not better (H0)",
        arena_pb2.GAUNTLET_STATE_INCONCLUSIVE: f"inconclusive: no decision within {counted(cap, 'block')}",
        arena_pb2.GAUNTLET_STATE_RUNNING: "running: no decision yet",
        arena_pb2.GAUNTLET_STATE_FAILED: "failed: it could not go on",
    }
    return words.get(message.state, state_word(message.state))


def _position(llr: float, lower: float, upper: float) -> float:
    if upper <= lower:
        return 0.5
    return min(1.0, max(0.0, (llr - lower) / (upper - lower)))


SPEC_FIELDS = ("candidate", "baseline", "max_blocks", "min_blocks", "alpha", "beta", "mu0", "mu1",
               "decision_deadline_ms", "seed")
"""The fields of a :class:`GauntletRow` that its ``GauntletSpec`` holds (the rest are the ``Gauntlet``'s own)."""


def gauntlet_row(message: arena_pb2.Gauntlet) -> GauntletRow:
    spec = message.spec
    seats = spec.seats_per_table or 2
    return from_message(
        GauntletRow, message, state=state_word(message.state), verdict=verdict_text(message),
        opponents=list(spec.opponents), seats=seats, rules=pool_label(rules_from_proto(spec.rules), seats),
        llr_position=_position(message.llr, message.llr_lower, message.llr_upper),
        cap_blocks=message.cap_blocks or spec.max_blocks, **{name: getattr(spec, name) for name in SPEC_FIELDS})


def gauntlet_page(response: arena_pb2.GetGauntletResponse) -> GauntletPage:
    return GauntletPage(gauntlet_row(response.gauntlet),
                        sorted((from_message(GauntletBlockRow, b) for b in response.blocks), key=lambda b: b.block))


@dataclass(frozen=True)
class LlrChart:
    """An SVG-ready chart of the LLR block by block, between its two bounds."""

    width: int
    height: int
    pad: int
    polyline: str
    upper_y: float
    lower_y: float
    zero_y: float
    x_end: float
    ticks: list[tuple[float, str]]
    last_x: float
    last_y: float


def llr_chart(row: GauntletRow, blocks: Sequence[GauntletBlockRow]) -> LlrChart | None:
    """The LLR after each block (from 0 before the first), scaled so that both bounds show; None without a block."""
    if not blocks:
        return None
    values = [0.0] + [b.llr for b in blocks]
    low = min([row.llr_lower, *values])
    high = max([row.llr_upper, *values])
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    span_blocks = max(len(values) - 1, 1)
    inner_w, inner_h = CHART_W - 2 * CHART_PAD, CHART_H - 2 * CHART_PAD

    def x(index: int) -> float:
        return round(CHART_PAD + inner_w * min(index, span_blocks) / span_blocks, 1)

    def y(value: float) -> float:
        return round(CHART_PAD + inner_h * (high - value) / (high - low), 1)

    points = [(x(i), y(v)) for i, v in enumerate(values)]
    ticks = [(y(v), f"{v:+.2f}") for v in (row.llr_lower, 0.0, row.llr_upper)]
    return LlrChart(width=CHART_W, height=CHART_H, pad=CHART_PAD,
                    polyline=" ".join(f"{px},{py}" for px, py in points), upper_y=y(row.llr_upper),
                    lower_y=y(row.llr_lower), zero_y=y(0.0), x_end=x(span_blocks), ticks=ticks,
                    last_x=points[-1][0], last_y=points[-1][1])
