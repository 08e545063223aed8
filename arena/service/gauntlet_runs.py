"""The gauntlet: is the candidate better than the baseline? Duplicate blocks under a sequential test
(docs/organizers.md, "Gauntlet: is my new version better?"): every seat of a block has its own deal
(:func:`deal_seed`), played with the candidate and with the baseline in that seat (:func:`block_plan`). A block with
a match the arena aborted is played again, up to :data:`MAX_BLOCK_ATTEMPTS` times. Workers play a stored gauntlet
(:func:`start_gauntlet`, :func:`resume_gauntlet`) on from its stored blocks: the store writes block ``n`` only as
the ``n``-th, so a repeated task never counts a block twice.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine import Rules
from arena.players import BUILTIN_NAMES, BotFactory
from arena.runner import MatchConfig, MatchRecord, run_match
from arena.store import GauntletStore, Store
from arena.store.gauntlet_store import DuplicateGauntlet, GauntletRecord, GauntletSeed, StoredBlock
from arena.store.keys import BOT_NAME_RE, check_name
from arena.tournament._rng import derive_seed
from arena.tournament.commitment import SALT_BYTES, SECRET_BYTES, check_secret, seed_commitment
from arena.tournament.spec import DEFAULT_DECISION_DEADLINE_MS
from arena.tournament.stats.sprt import SprtConfig, SprtState, block_score, finish_points
from arena.tournament.status import GauntletStatus

from .matches import builtin_kind, make_seat
from .seating import UnreachableParticipant

MAX_BLOCK_ATTEMPTS = 3
"""How many times a block with an aborted match is played again before the gauntlet fails."""
DEFAULT_OPPONENT = "heuristic"
CONTENDER_RE = re.compile(r"^(?P<name>[^@\s]+)(?:@(?P<version>[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}))?$")

STATUS_OF_OUTCOME = {"H1": GauntletStatus.ACCEPTED, "H0": GauntletStatus.REJECTED,
                     "inconclusive": GauntletStatus.INCONCLUSIVE}
"""The gauntlet's final status of each outcome of its sequential test (:attr:`SprtState.outcome`)."""


class GauntletError(ValueError):
    """The gauntlet cannot start or go on; the message says why."""


@dataclass(frozen=True)
class Contender:
    """The candidate or the baseline: a participant name and, for a registered bot, the version asked for (its
    Hello must announce it in every match, else the gauntlet fails)."""

    name: str
    version: str | None = None

    @property
    def builtin(self) -> bool:
        return builtin_kind(self.name) is not None

    def __str__(self) -> str:
        return self.name if self.version is None else f"{self.name}@{self.version}"

    @classmethod
    def parse(cls, text: str, role: str) -> Contender:
        """``BOT`` or ``BOT@VERSION``; :class:`GauntletError` naming ``role`` for anything else."""
        m = CONTENDER_RE.match(text.strip())
        if m is None:
            raise GauntletError(f"--{role} {text!r}: expected BOT or BOT@VERSION")
        contender = cls(m.group("name"), m.group("version"))
        if contender.builtin and contender.version is not None:
            raise GauntletError(f"--{role} {text!r}: built-in bots have no versions")
        if not contender.builtin and not BOT_NAME_RE.match(contender.name):
            raise GauntletError(f"--{role} {text!r}: not a built-in bot ({', '.join(sorted(BUILTIN_NAMES))}) "
                                "nor a valid registered bot name")
        return contender


@dataclass(frozen=True)
class GauntletSpec:
    """What a gauntlet tests; ``seed`` and ``seed_secret`` (64 hex digits) make the deals and stay secret until it
    ends."""

    gauntlet_id: str
    candidate: Contender
    baseline: Contender
    opponents: tuple[str, ...]
    seats: int
    rules: Rules
    sprt: SprtConfig
    seed: int
    decision_deadline_ms: int = DEFAULT_DECISION_DEADLINE_MS
    seed_secret: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, without the seed and the secret (they would let anyone replay the deals ahead)."""
        return {"id": self.gauntlet_id, "candidate": str(self.candidate), "baseline": str(self.baseline),
                "opponents": list(self.opponents), "seats": self.seats, "rules": self.rules.to_dict(),
                "sprt": self.sprt.to_dict(), "deadline_ms": self.decision_deadline_ms}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], seed: int, seed_secret: str = "") -> GauntletSpec:
        """Inverse of :meth:`to_dict`, given the seed and the secret kept apart."""
        return cls(str(data["id"]), Contender.parse(str(data["candidate"]), "candidate"),
                   Contender.parse(str(data["baseline"]), "baseline"), tuple(str(o) for o in data["opponents"]),
                   int(data["seats"]), Rules.from_dict(dict(data["rules"])), SprtConfig.from_dict(data["sprt"]),
                   int(seed), int(data.get("deadline_ms", DEFAULT_DECISION_DEADLINE_MS)), seed_secret)


def build_spec(*, candidate: str, baseline: str, seats: int, opponents: Sequence[str] = (),
               rules: Rules | None = None, sprt: SprtConfig | None = None, seed: int | None = None,
               decision_deadline_ms: int = DEFAULT_DECISION_DEADLINE_MS,
               gauntlet_id: str | None = None, seed_secret: str | None = None) -> GauntletSpec:
    """A checked :class:`GauntletSpec` (:class:`GauntletError` naming the problem). Built-in opponents get a tag
    (``heuristic#o1``) so that no name holds two seats. The secret is drawn unless given (to replay one)."""
    if not 2 <= seats <= 10:
        raise GauntletError(f"--seats must be between 2 and 10, got {seats}")
    if decision_deadline_ms <= 0:
        raise GauntletError(f"--deadline-ms must be positive, got {decision_deadline_ms}")
    cand = Contender.parse(candidate, "candidate")
    base = Contender.parse(baseline, "baseline")
    if not cand.builtin and not base.builtin and cand.name.casefold() == base.name.casefold():
        raise GauntletError(
            f"candidate and baseline are the same registered bot {cand.name!r}: one stream cannot be both; "
            "connect the new version under its own name")
    names = [o.strip() for o in opponents if o.strip()] or [DEFAULT_OPPONENT]
    seated: list[str] = []
    for index in range(seats - 1):
        name = names[index % len(names)]
        kind = builtin_kind(name)
        if kind is not None:
            seated.append(f"{kind}#o{index + 1}")
        elif not BOT_NAME_RE.match(name):
            raise GauntletError(f"--opponents: {name!r} is neither a built-in bot nor a valid registered bot name")
        elif name.casefold() in (cand.name.casefold(), base.name.casefold()):
            raise GauntletError(f"--opponents: {name!r} is tested; a registered bot holds one seat at a time")
        elif name in seated:
            raise GauntletError(f"--opponents: registered bot {name!r} cannot hold two seats; name more opponents "
                                f"or use built-in ones")
        else:
            seated.append(name)
    gid = gauntlet_id or f"g-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(2)}"
    secret = secrets.token_bytes(SECRET_BYTES).hex() if seed_secret is None else seed_secret
    try:
        check_name(gid, "gauntlet name", max_length=100)
        check_secret(secret)
    except ValueError as error:
        raise GauntletError(str(error)) from None
    return GauntletSpec(gid, cand, base, tuple(seated), seats, rules or Rules(),
                        sprt or SprtConfig(), secrets.randbits(63) if seed is None else seed, decision_deadline_ms,
                        secret)


@dataclass(frozen=True)
class PlannedMatch:
    """One match of a block: who sits where, the seed of the deal, and the id the opponents' streams use."""

    match_id: str
    seats: tuple[str, ...]
    seed: int
    tested_seat: int
    role: str
    """``"candidate"`` or ``"baseline"``."""
    opponents_seed_id: str


def deal_seed(seed: int, block: int, secret: str, seat: int) -> int:
    """The deal of seat ``seat`` of block ``block`` (every attempt of the block plays it)."""
    return derive_seed("uno-arena/gauntlet-deal", seed, secret, block, seat)


def block_plan(spec: GauntletSpec, block: int, attempt: int = 1) -> list[PlannedMatch]:
    """The ``2 * seats`` matches of block ``block`` (from 0): per seat, the candidate's and the baseline's on the
    seat's deal, the candidate first when ``block + seat`` is even. The table keeps its turn order (tested bot, then
    the opponents) and is rotated so that the tested bot sits in each seat once."""
    plan = []
    k = spec.seats
    tested = (("candidate", spec.candidate), ("baseline", spec.baseline))
    for seat in range(k):
        deal = deal_seed(spec.seed, block, spec.seed_secret, seat)
        for role, contender in tested if (block + seat) % 2 == 0 else tested[::-1]:
            around = (contender.name, *spec.opponents)  # the table in turn order, the tested bot first
            seats = [around[(index - seat) % k] for index in range(k)]
            base = f"{spec.gauntlet_id}-b{block:05d}-a{attempt}-s{seat}"
            plan.append(PlannedMatch(f"{base}-{role[0]}", tuple(seats), deal, seat, role, base))
    return plan


@dataclass(frozen=True)
class BlockOutcome:
    """One scored block: its score, the test state after it, and per match the points of the tested seat."""

    block: int
    score: float
    state: SprtState
    points: Mapping[str, float] = field(default_factory=dict)
    attempts: int = 1

    def stored(self) -> StoredBlock:
        return StoredBlock(self.block, self.score, self.state.llr, self.attempts, dict(self.points))


@dataclass(frozen=True)
class GauntletOutcome:
    """How a gauntlet ended, and why it failed (``detail``)."""

    spec: GauntletSpec
    status: GauntletStatus
    state: SprtState
    blocks: tuple[BlockOutcome, ...]
    detail: str = ""
    stored: bool = False


PlayMatch = Callable[[PlannedMatch, GauntletSpec], MatchRecord]


class MatchPlayerForGauntlet:
    """Plays the gauntlet's matches on one event loop: built-in bots in process, registered ones through the
    relay of ``store``."""

    def __init__(self, store: Store | None, make_bot: BotFactory) -> None:
        self.store = store
        self.make_bot = make_bot
        self._loop = asyncio.new_event_loop()

    def __call__(self, planned: PlannedMatch, spec: GauntletSpec) -> MatchRecord:
        try:
            seats = [make_seat(self.store, name, planned.match_id if index == planned.tested_seat
                               else planned.opponents_seed_id, self.make_bot)
                     for index, name in enumerate(planned.seats)]
        except UnreachableParticipant as error:
            raise GauntletError(str(error)) from None
        config = MatchConfig(match_id=planned.match_id, seed=planned.seed, rules=spec.rules,
                             decision_deadline_s=spec.decision_deadline_ms / 1000.0, tournament_id=spec.gauntlet_id,
                             group=planned.opponents_seed_id)
        return self._loop.run_until_complete(run_match(config, seats))

    def close(self) -> None:
        if self._loop.is_closed():
            return
        try:  # what is left on the loop ends first: the relay hub of the loop closes with its async generators
            for task in asyncio.all_tasks(self._loop):
                task.cancel()
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        finally:
            self._loop.close()


def check_bots(spec: GauntletSpec, store: Store | None) -> None:
    """Every registered bot of the gauntlet is registered and connected (:class:`GauntletError` otherwise)."""
    registered = [c.name for c in (spec.candidate, spec.baseline) if not c.builtin]
    registered += [o for o in spec.opponents if builtin_kind(o) is None]
    if not registered:
        return
    if store is None:
        raise GauntletError(f"registered bots ({', '.join(registered)}) play through the relay: set REDIS_URL")
    for name in registered:
        if not store.bots.exists(name):
            raise GauntletError(f"unknown bot {name!r}: register it first")
        if not store.sessions.online(name):
            raise GauntletError(f"bot {name!r} is not connected: start it (uno-arena bot run ...) and try again")


def score_block(spec: GauntletSpec, plan: Sequence[PlannedMatch], records: Sequence[MatchRecord]) -> float | None:
    """The block's score, or ``None`` when a match of it was aborted; :class:`GauntletError` when a registered bot
    played another version than the one asked for."""
    points: dict[str, list[float]] = {"candidate": [], "baseline": []}  # by role
    for planned, record in zip(plan, records, strict=True):
        result = record.to_result()
        if not result.end_reason.scored:
            return None
        contender = spec.candidate if planned.role == "candidate" else spec.baseline
        if contender.version is not None:
            played = record.bot_versions[planned.tested_seat] if record.bot_versions else "unknown"
            if played != contender.version:
                raise GauntletError(f"{planned.role} {contender.name} played version {played!r}, the gauntlet "
                                    f"asked for {contender.version!r}")
        points[planned.role].append(finish_points(result, planned.tested_seat))
    return block_score(points["candidate"], points["baseline"])


def run_gauntlet(spec: GauntletSpec, store: Store | None = None, *, make_bot: BotFactory,
                 on_block: Callable[[BlockOutcome], None] | None = None,
                 play: PlayMatch | None = None) -> GauntletOutcome:
    """Play a new gauntlet in this process until the test decides or reaches its cap. ``on_block`` hears of every
    scored block; ``play`` plays one match (default: a :class:`MatchPlayerForGauntlet`)."""
    check_bots(spec, store)
    if store is not None:
        start_gauntlet(store, spec)
    return _play_on(spec, store, SprtState(spec.sprt), make_bot=make_bot, on_block=on_block, play=play)


def start_gauntlet(store: Store, spec: GauntletSpec, idempotency_key: str = "") -> GauntletRecord:
    """Store a new running gauntlet for a worker to play (:func:`resume_gauntlet`), once per idempotency key (a
    retry gets the stored one; ``DuplicateGauntlet`` for an id taken otherwise). The seed and secret are stored with
    a fresh random salt and the commitment to them."""
    salt = secrets.token_bytes(SALT_BYTES)
    seed = GauntletSeed(spec.seed, salt.hex(), spec.seed_secret,
                        seed_commitment(spec.seed, salt, bytes.fromhex(spec.seed_secret)))
    try:
        return store.gauntlets.create(spec.gauntlet_id, spec.to_dict(), seed=seed, idempotency_key=idempotency_key)
    except DuplicateGauntlet:
        existing = store.gauntlets.get(spec.gauntlet_id)
        if not idempotency_key or existing.idempotency_key != idempotency_key:
            raise
        return existing


def stored_spec(store: Store, gauntlet_id: str) -> GauntletSpec:
    seed = store.gauntlets.seed_material(gauntlet_id)
    return GauntletSpec.from_dict(store.gauntlets.get(gauntlet_id).spec, seed.seed, seed.secret)


def stored_state(spec: GauntletSpec, blocks: Sequence[StoredBlock]) -> SprtState:
    """The test state after the stored blocks (their scores replayed in order)."""
    return SprtState(spec.sprt).extended(block.score for block in blocks)


def resume_gauntlet(store: Store, gauntlet_id: str, *, make_bot: BotFactory, play: PlayMatch | None = None,
                    stop_on: tuple[type[BaseException], ...] = ()) -> GauntletOutcome | None:
    """Play a stored gauntlet on from its stored blocks to its end (an ended one is left as it is); None when one of
    ``stop_on`` interrupted it (a later call goes on from there)."""
    record = store.gauntlets.get(gauntlet_id)
    spec = stored_spec(store, gauntlet_id)
    state = stored_state(spec, store.gauntlets.blocks(gauntlet_id))
    if record.ended:
        return GauntletOutcome(spec, record.status, state, (), record.detail, True)
    if state.finished:  # every block stored, the final status lost with a worker
        return _ended(spec, store.gauntlets, STATUS_OF_OUTCOME[state.outcome], state, (), "")
    try:
        check_bots(spec, store)
        return _play_on(spec, store, state, make_bot=make_bot, play=play)
    except GauntletError as error:
        return _ended(spec, store.gauntlets, GauntletStatus.FAILED, state, (), str(error))
    except stop_on:
        return None


def _play_on(spec: GauntletSpec, store: Store | None, state: SprtState, *, make_bot: BotFactory,
             on_block: Callable[[BlockOutcome], None] | None = None, play: PlayMatch | None = None) -> GauntletOutcome:
    """Play blocks from ``state`` until the test ends (storing each block as the next one, with a store)."""
    gauntlets = store.gauntlets if store is not None else None
    blocks: list[BlockOutcome] = []
    own_player = None
    if play is None:
        own_player = play = MatchPlayerForGauntlet(store, make_bot)
    try:
        while not state.finished:
            number = state.n
            outcome = _play_block(spec, number, state, play)
            if outcome is None:
                return _ended(spec, gauntlets, GauntletStatus.FAILED, state, blocks,
                              f"block {number}: matches aborted by the arena {MAX_BLOCK_ATTEMPTS} times")
            written = gauntlets is None or gauntlets.add_block(
                spec.gauntlet_id, number, outcome.stored(),
                STATUS_OF_OUTCOME.get(outcome.state.outcome, GauntletStatus.RUNNING))
            if not written and gauntlets is not None:  # another runner stored it first: go on from the store
                state = stored_state(spec, gauntlets.blocks(spec.gauntlet_id))
                continue
            state = outcome.state
            blocks.append(outcome)
            if on_block is not None:
                on_block(outcome)
    except GauntletError as error:
        return _ended(spec, gauntlets, GauntletStatus.FAILED, state, blocks, str(error))
    finally:
        if own_player is not None:
            own_player.close()
    return _ended(spec, gauntlets, STATUS_OF_OUTCOME[state.outcome], state, blocks, "")


def _play_block(spec: GauntletSpec, number: int, state: SprtState, player: PlayMatch) -> BlockOutcome | None:
    for attempt in range(1, MAX_BLOCK_ATTEMPTS + 1):
        plan = block_plan(spec, number, attempt)
        records = [player(planned, spec) for planned in plan]
        score = score_block(spec, plan, records)
        if score is not None:
            points = {planned.match_id: finish_points(record.to_result(), planned.tested_seat)
                      for planned, record in zip(plan, records, strict=True)}
            return BlockOutcome(number, score, state.updated(score), points, attempt)
    return None


def _ended(spec: GauntletSpec, gauntlets: GauntletStore | None, status: GauntletStatus, state: SprtState,
           blocks: Sequence[BlockOutcome], detail: str) -> GauntletOutcome:
    if gauntlets is not None:
        gauntlets.finish(spec.gauntlet_id, status, detail)
    return GauntletOutcome(spec, status, state, tuple(blocks), detail, gauntlets is not None)
