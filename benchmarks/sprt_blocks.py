"""Real duplicate-block scores for `python -m benchmarks sprt`: play gauntlet blocks in process and record their scores.

A *field* is one gauntlet set-up (candidate, baseline, opponents, seats, variant); :func:`record_field` plays
``blocks`` of its duplicate blocks with the built-in bots in this process (the gauntlet's own plan and scoring:
:func:`arena.service.gauntlet_runs.block_plan`, :func:`~arena.service.gauntlet_runs.score_block`) and returns the
scores.
:data:`DATA_FILE` keeps a small recorded sample (made by ``python -m benchmarks.sprt_blocks``), so the harness
resamples real scores without playing a match.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

DATA_FILE = Path(__file__).with_name("data") / "sprt-blocks.json"
RECORD_SEED = 2026
RECORD_SECRET = f"{RECORD_SEED:064x}"
"""The recording's fixed seed secret (a gauntlet draws one; a fixed one makes the recording reproduce)."""


@dataclass(frozen=True)
class Field:
    """One gauntlet set-up whose block scores are recorded: the bots by their built-in names, and the variant."""

    name: str
    candidate: str
    baseline: str
    opponents: tuple[str, ...]
    seats: int
    variant: str


@dataclass(frozen=True)
class RecordedField:
    """A field and the scores of its blocks, in play order."""

    field: Field
    scores: tuple[float, ...]


FIELDS: tuple[Field, ...] = (
    Field("heuristic-vs-weakened/heuristic/flip", "heuristic", "weakened", ("heuristic",), 2, "flip"),
    Field("weakened-vs-random/heuristic/flip", "weakened", "random", ("heuristic",), 2, "flip"),
    Field("weakened-vs-random/heuristic+random/classic", "weakened", "random", ("heuristic", "random"), 3,
          "classic"),
    Field("random-vs-random/random/flip", "random", "random", ("random",), 2, "flip"),
    Field("random-vs-weakened/random/classic", "random", "weakened", ("random",), 2, "classic"),
)
"""The recorded fields: bots of known strength (heuristic > weakened > random), both variants, 2 and 3 seats,
several opponent fields: a lopsided one (few zero blocks), a sparse one (a strong opponent beats both tested bots
on almost every deal: most blocks score 0), one with many values, and one of equal bots (true mean 0)."""


def record_field(spec_field: Field, blocks: int, seed: int = RECORD_SEED) -> RecordedField:
    """Play ``blocks`` duplicate blocks of ``spec_field`` in process and return their scores (aborted blocks are
    replayed, as the gauntlet does)."""
    from arena.engine import Rules
    from arena.engine.rules import Variant
    from arena.service.gauntlet_runs import MatchPlayerForGauntlet, block_plan, build_spec, score_block
    from bots import make_bot

    spec = build_spec(candidate=spec_field.candidate, baseline=spec_field.baseline, seats=spec_field.seats,
                      opponents=spec_field.opponents, rules=Rules(variant=Variant(spec_field.variant)), seed=seed,
                      gauntlet_id="record", seed_secret=f"{seed:064x}")  # RECORD_SECRET at the recording's seed
    player = MatchPlayerForGauntlet(None, make_bot)
    scores: list[float] = []
    try:
        for block in range(blocks):
            for attempt in range(1, 4):
                plan = block_plan(spec, block, attempt)
                score = score_block(spec, plan, [player(planned, spec) for planned in plan])
                if score is not None:
                    scores.append(score)
                    break
    finally:
        player.close()
    return RecordedField(spec_field, tuple(scores))


def load(path: Path = DATA_FILE) -> tuple[RecordedField, ...]:
    """The recorded sample of :data:`DATA_FILE` (or ``path``)."""
    data = json.loads(path.read_text())
    return tuple(RecordedField(Field(f["name"], f["candidate"], f["baseline"], tuple(f["opponents"]), int(f["seats"]),
                                     f["variant"]), tuple(float(s) for s in f["scores"]))
                 for f in data["fields"])


def save(recorded: Sequence[RecordedField], blocks: int, path: Path = DATA_FILE) -> None:
    fields = [{"name": r.field.name, "candidate": r.field.candidate, "baseline": r.field.baseline,
               "opponents": list(r.field.opponents), "seats": r.field.seats, "variant": r.field.variant,
               "mean": sum(r.scores) / len(r.scores), "scores": list(r.scores)} for r in recorded]
    made = (f"python -m benchmarks.sprt_blocks {blocks}: {blocks} duplicate blocks per field played in process with "
            "the built-in bots (arena.service.gauntlet_runs's block plan and scoring: each seat of a block its own "
            f"deal, "
            f"from seed {RECORD_SEED} and the secret {RECORD_SEED:064x}); a block score is the mean over the seats "
            "of the candidate's finishing points minus the baseline's on that seat's deal")
    path.write_text(json.dumps({"made_by": made, "fields": fields}, indent=1) + "\n")


def main(argv: Sequence[str]) -> None:
    blocks = int(argv[0]) if argv else 300
    # Kept only from a recording of this block design (each seat its own deal): older files are played again.
    current = DATA_FILE.exists() and "each seat of a block its own deal" in json.loads(DATA_FILE.read_text())["made_by"]
    kept = {r.field: r for r in load()} if current else {}
    recorded = []
    for spec_field in FIELDS:
        old = kept.get(spec_field)
        recorded.append(old if old is not None and len(old.scores) == blocks else record_field(spec_field, blocks))
        print(f"{spec_field.name}: {blocks} blocks", file=sys.stderr, flush=True)
    save(recorded, blocks)


if __name__ == "__main__":
    main(sys.argv[1:])
