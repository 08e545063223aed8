"""Verdicts that explain themselves: for every pair of bots of a table, whether the results tell them apart and, for
the pairs they do not, about how many more matches would; and one sentence a new reader understands. Pure data and
wording: the numbers are the batch model's (:meth:`arena.tournament.stats.plackett_luce.BatchFit.verdicts`), computed
once; every reader shows what the organizer API sends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

BATCH_TEST = "batch"
"""The batch Plackett-Luce ratings' difference against its standard error (adjusted for who met whom)."""
SIGN_TEST = "sign"
"""The exact two-sided sign test over the deal groups each bot of a 2-bot field won."""


@dataclass(frozen=True)
class PairVerdict:
    """One pair (``bot_a`` ranked above ``bot_b``): told apart under Holm's control or not, its own p-value, and if
    not, about how many more matches would tell them apart (``None``: no difference, none would)."""

    bot_a: str
    bot_b: str
    told_apart: bool
    p_value: float
    more_matches: int | None
    test: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PairVerdict:
        more = data.get("more_matches")
        return cls(str(data["bot_a"]), str(data["bot_b"]), bool(data["told_apart"]), float(data["p_value"]),
                   None if more is None else int(more), str(data.get("test", BATCH_TEST)))


@dataclass(frozen=True)
class Verdicts:
    """Every pair of a table in row order (``(0, 1), (0, 2), ..., (1, 2), ...``) and the one-sentence summary."""

    pairs: tuple[PairVerdict, ...] = ()
    summary: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"pairs": [pair.to_dict() for pair in self.pairs], "summary": self.summary}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Verdicts:
        """What :meth:`to_dict` wrote (empty for ``None``: a table cached before verdicts)."""
        if not data:
            return cls()
        return cls(tuple(PairVerdict.from_dict(pair) for pair in data.get("pairs") or ()), str(data.get("summary", "")))


MAX_PAIRS = 500
"""The most pairs a :class:`Verdicts` keeps (the first in row order: the best-ranked bots' pairs); its summary
reads them all."""


def verdicts_of(pairs: Sequence[PairVerdict], matches: int) -> Verdicts:
    """The pairs (at most :data:`MAX_PAIRS`) with their summary sentence (:func:`summary`, over every pair)."""
    return Verdicts(tuple(pairs[:MAX_PAIRS]), summary(pairs, matches))


def _more(pair: PairVerdict) -> str:
    between = " between them" if pair.test == SIGN_TEST else " of this field, played as so far"
    return f"{pair.bot_a} vs {pair.bot_b} needs about {pair.more_matches:,} more matches{between}"


def summary(pairs: Sequence[PairVerdict], matches: int) -> str:
    """One sentence for a reader: which pairs are told apart and what would tell the closest remaining pair apart
    (empty for fewer than 2 bots)."""
    if not pairs:
        return ""
    if not matches:
        return "No match is recorded yet: no two bots are told apart."
    apart = [p for p in pairs if p.told_apart]
    waiting = [p for p in pairs if not p.told_apart]
    closest = min((p for p in waiting if p.more_matches is not None), key=lambda p: p.more_matches or 0,
                  default=None)
    if not waiting:
        return ("Every two bots are told apart (95 %)." if len(pairs) > 1
                else f"{pairs[0].bot_a} and {pairs[0].bot_b} are told apart (95 %).")
    if closest is None:
        still = ("they are even so far: no number of matches at the current difference would tell them apart"
                 if len(waiting) == 1 else "the pairs left are even so far: no number of matches at the current "
                 "differences would tell them apart")
        lead = "No two bots are told apart yet" if not apart else f"{len(apart)} of {len(pairs)} pairs are told apart"
        return f"{lead}: {still}."
    if not apart:
        return f"No two bots are told apart yet: at the current differences, {_more(closest)}."
    return (f"{len(apart)} of {len(pairs)} pairs are told apart (95 %); of the rest, at the current differences, "
            f"{_more(closest)}.")
