"""The gauntlet: is the candidate better than the baseline? Duplicate blocks under a sequential test.

A block is ``2 * seats`` matches: for every seat ``s``, one deal (its seed derived from the gauntlet's seed, its
secret, the block number and ``s``: :func:`deal_seed`) played once with the candidate in seat ``s`` and once with
the baseline in seat ``s``, the opponents in the other seats in the same order (rotated with ``s``) and with the same
random streams in both matches (a built-in opponent is seeded from the block, seat and attempt, not from the
match), so the two matches differ only in the bot tested. Each seat has its own deal so that no tested bot ever
plays a deal twice: a remote candidate that remembers the hands it was dealt learns nothing about a later match
(with one deal for every seat, from its second seat on it would have held its opponents' hands). Which of the two
plays a seat's deal first alternates (:func:`block_plan`), so an opponent that remembers a deal favours neither.
The block's score is the mean over its seats of the candidate's finishing points minus the baseline's
(:func:`arena.tournament.stats.sprt.finish_points`), and the sequential test (:mod:`arena.tournament.stats.sprt`) takes
the
scores one by one until it accepts H1 ("better"), accepts H0 ("not better") or reaches the block cap.

Bots are named as in tournaments: built-in bots (``random``, ``weakened``, ``heuristic``, played in process
through :func:`arena.service.matches.make_seat`) or registered bots (played through the relay and the gateway
that holds their stream, which needs a store). ``NAME@VERSION`` asks for one version of a registered bot: the
version the bot announced in its hello must match in every match, else the gauntlet stops (``failed``). A
match the arena aborted (an infrastructure fault, never the bot's) does not count: its whole block is played
again as the next attempt, up to :data:`MAX_BLOCK_ATTEMPTS` times.

The seed and the secret (32 random bytes the arena draws for every gauntlet) stay secret until the gauntlet
ends; its commitment (:func:`arena.tournament.commitment.seed_commitment`, with a random salt) is published at
creation, and after the end anyone can check the revealed seed, salt and secret against it and recompute every
deal (``uno-arena gauntlet verify``).

With a store, the gauntlet, each block and the test state after it are kept (:mod:`arena.store.gauntlet_store`);
without one, built-in bots still play and nothing is kept.

The arena runs a gauntlet in its workers: :func:`start_gauntlet` stores it (once per idempotency key) and the
caller sends it to a worker, which calls :func:`resume_gauntlet`. Resuming plays from the blocks already stored
(the store writes block ``n`` only as the ``n``-th), so a redelivered or repeated task never counts a block
twice and two runners of one gauntlet agree block by block (the blocks are deterministic in the seed).
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
from arena.runner import LocalSeat, MatchConfig, MatchRecord, Seat, run_match
from arena.store import GauntletStore, Store
from arena.store.gauntlet_store import DuplicateGauntlet, GauntletRecord, GauntletSeed, StoredBlock
from arena.store.keys import BOT_NAME_RE, check_name
from arena.tournament._rng import derive_seed
from arena.tournament.commitment import SALT_BYTES, SECRET_BYTES, check_secret, seed_commitment
from arena.tournament.spec import DEFAULT_DECISION_DEADLINE_MS
from arena.tournament.stats.sprt import SprtConfig, SprtState, block_score, finish_points
from arena.tournament.status import GauntletStatus

from .matches import bot_seed, builtin_kind, make_seat

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
    """The candidate or the baseline: a participant name and, for a registered bot, the version asked for."""

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
    """What a gauntlet tests: candidate and baseline, the opponents (``seats - 1`` of them, cycled from the list
    given), the rules, the sequential test, the decision deadline, and the seed and secret (64 hex digits) of the
    deals."""

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
                   int(seed),
                   int(data.get("deadline_ms", DEFAULT_DECISION_DEADLINE_MS)), seed_secret)


def new_gauntlet_id() -> str:
    """A fresh gauntlet id: ``g-`` and the UTC time, plus 4 random hex digits."""
    return f"g-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(2)}"


def build_spec(*, candidate: str, baseline: str, seats: int, opponents: Sequence[str] = (),
               rules: Rules | None = None, sprt: SprtConfig | None = None, seed: int | None = None,
               decision_deadline_ms: int = DEFAULT_DECISION_DEADLINE_MS,
               gauntlet_id: str | None = None, seed_secret: str | None = None) -> GauntletSpec:
    """A checked :class:`GauntletSpec` (:class:`GauntletError` naming the problem). Built-in opponents get a tag
    (``heuristic#o1``) so that no name holds two seats; a registered opponent that is also tested is refused. The
    secret is drawn (32 random bytes) unless given (tests and benchmarks that replay one)."""
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
    gid = gauntlet_id or new_gauntlet_id()
    try:
        check_name(gid, "gauntlet name", max_length=100)
    except ValueError as error:
        raise GauntletError(str(error)) from None
    return GauntletSpec(gid, cand, base, tuple(seated), seats, rules or Rules(),
                        sprt or SprtConfig(), secrets.randbits(63) if seed is None else seed, decision_deadline_ms,
                        _checked_secret(seed_secret))


def _checked_secret(seed_secret: str | None) -> str:
    """``seed_secret`` when it is a valid secret (:class:`GauntletError` otherwise), a fresh random one when None."""
    secret = secrets.token_bytes(SECRET_BYTES).hex() if seed_secret is None else seed_secret
    try:
        check_secret(secret)
    except ValueError as error:
        raise GauntletError(str(error)) from None
    return secret


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
    """The deal of seat ``seat`` of block ``block`` (every attempt of the block plays it) of a gauntlet with seed
    ``seed`` and secret ``secret``."""
    return derive_seed("uno-arena/gauntlet-deal", seed, secret, block, seat)


def block_plan(spec: GauntletSpec, block: int, attempt: int = 1) -> list[PlannedMatch]:
    """The ``2 * seats`` matches of block ``block`` (from 0): per seat, the candidate's and the baseline's on the
    seat's deal, the candidate first when ``block + seat`` is even, else the baseline (an opponent that remembers the
    first match of a deal helps neither side). The table keeps its turn order (tested bot, then the opponents in
    order) and is rotated so that the tested bot sits in each seat once."""
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
    """One scored block: its number, score, the test state after it, and per match the points of the tested
    seat."""

    block: int
    score: float
    state: SprtState
    points: Mapping[str, float] = field(default_factory=dict)
    attempts: int = 1

    def stored(self) -> StoredBlock:
        """The block as the store keeps it."""
        return StoredBlock(self.block, self.score, self.state.llr, self.attempts, dict(self.points))


@dataclass(frozen=True)
class GauntletOutcome:
    """How a gauntlet ended: ``status``, the final test state, the
    blocks, and why it failed (``detail``)."""

    spec: GauntletSpec
    status: GauntletStatus
    state: SprtState
    blocks: tuple[BlockOutcome, ...]
    detail: str = ""
    stored: bool = False


PlayMatch = Callable[[PlannedMatch, GauntletSpec], MatchRecord]


class MatchPlayerForGauntlet:
    """Plays the gauntlet's matches on one event loop: built-in bots in process, registered ones through the
    relay of ``store``; ``make_bot`` makes the built-in ones."""

    def __init__(self, store: Store | None, make_bot: BotFactory) -> None:
        self.store = store
        self.make_bot = make_bot
        self._loop = asyncio.new_event_loop()

    def seat(self, name: str, seed_id: str) -> Seat:
        if self.store is not None:
            return make_seat(self.store, name, seed_id, self.make_bot)
        kind = builtin_kind(name)
        if kind is None:
            raise GauntletError(f"registered bot {name!r} plays through the relay: set REDIS_URL")
        return LocalSeat(self.make_bot(kind, bot_seed(seed_id, name)), name=name)

    def __call__(self, planned: PlannedMatch, spec: GauntletSpec) -> MatchRecord:
        seats = [self.seat(name, planned.match_id if index == planned.tested_seat else planned.opponents_seed_id)
                 for index, name in enumerate(planned.seats)]
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
    """The block's score, or ``None`` when a match of it was aborted (not scored). Raises
    :class:`GauntletError` when a registered bot played with another version than the one asked for."""
    candidate_points: list[float] = []
    baseline_points: list[float] = []
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
        points = finish_points(result, planned.tested_seat)
        (candidate_points if planned.role == "candidate" else baseline_points).append(points)
    return block_score(candidate_points, baseline_points)


def run_gauntlet(spec: GauntletSpec, store: Store | None = None, *, make_bot: BotFactory,
                 on_block: Callable[[BlockOutcome], None] | None = None,
                 play: PlayMatch | None = None) -> GauntletOutcome:
    """Play blocks until the test decides or reaches its cap (``spec.sprt.max_blocks``, or the automatic one of
    ``spec.sprt.auto_cap``: :attr:`arena.tournament.stats.sprt.SprtState.needed_blocks`; with no cap, the test goes on
    until it decides). ``on_block`` hears of every scored block; ``play`` plays one match (default: a
    :class:`MatchPlayerForGauntlet` on ``store`` with the built-in bots of ``make_bot``)."""
    check_bots(spec, store)
    gauntlets = store.gauntlets if store is not None else None
    state = SprtState(spec.sprt)
    if gauntlets is not None:
        gauntlets.create(spec.gauntlet_id, spec.to_dict(), seed=committed_seed(spec))
    return _play_on(spec, store, state, [], make_bot=make_bot, on_block=on_block, play=play)


@dataclass(frozen=True)
class StartedGauntlet:
    """What :func:`start_gauntlet` did: the stored gauntlet and whether this call created it."""

    record: GauntletRecord
    created: bool


def start_gauntlet(store: Store, spec: GauntletSpec, idempotency_key: str = "") -> StartedGauntlet:
    """Store a new running gauntlet for a worker to play (:func:`resume_gauntlet`). With an idempotency key, a
    retry finds the gauntlet the first call stored (same id and key): ``created`` is then False.
    :class:`arena.store.gauntlet_store.DuplicateGauntlet` for an id taken otherwise."""
    try:
        record = store.gauntlets.create(spec.gauntlet_id, spec.to_dict(),
                                        seed=committed_seed(spec), idempotency_key=idempotency_key)
        return StartedGauntlet(record, True)
    except DuplicateGauntlet:
        existing = store.gauntlets.get(spec.gauntlet_id)
        if not idempotency_key or existing.idempotency_key != idempotency_key:
            raise
        return StartedGauntlet(existing, False)


def committed_seed(spec: GauntletSpec) -> GauntletSeed:
    """The seed and secret of a new gauntlet, with a fresh random salt and the commitment to them."""
    salt = secrets.token_bytes(SALT_BYTES)
    commitment = seed_commitment(spec.seed, salt, bytes.fromhex(spec.seed_secret))
    return GauntletSeed(spec.seed, salt.hex(), spec.seed_secret, commitment)


def stored_spec(store: Store, gauntlet_id: str) -> GauntletSpec:
    """The spec of a stored gauntlet, with its seed and secret."""
    seed = store.gauntlets.seed_material(gauntlet_id)
    return GauntletSpec.from_dict(store.gauntlets.get(gauntlet_id).spec, seed.seed, seed.secret)


def stored_state(spec: GauntletSpec, blocks: Sequence[StoredBlock]) -> SprtState:
    """The test state after the stored blocks (their scores replayed in order)."""
    return SprtState(spec.sprt).extended(block.score for block in blocks)


def resume_gauntlet(store: Store, gauntlet_id: str, *, make_bot: BotFactory, play: PlayMatch | None = None,
                    stop_on: tuple[type[BaseException], ...] = ()) -> GauntletOutcome | None:
    """Play a stored gauntlet on from the blocks already stored, to its end; an ended gauntlet is left as it
    is. None when one of ``stop_on`` interrupted it (what was stored stays: a later call goes on from there)."""
    record = store.gauntlets.get(gauntlet_id)
    spec = stored_spec(store, gauntlet_id)
    blocks = store.gauntlets.blocks(gauntlet_id)
    state = stored_state(spec, blocks)
    if record.ended:
        return GauntletOutcome(spec, record.status, state, (), record.detail, True)
    if state.finished:  # every block stored, the final status lost with a worker
        return _ended(spec, store.gauntlets, STATUS_OF_OUTCOME[state.outcome], state, (), "")
    try:
        check_bots(spec, store)
        return _play_on(spec, store, state, [], make_bot=make_bot, play=play)
    except GauntletError as error:
        return _ended(spec, store.gauntlets, GauntletStatus.FAILED, state, (), str(error))
    except stop_on:
        return None


def _play_on(spec: GauntletSpec, store: Store | None, state: SprtState, blocks: list[BlockOutcome], *,
             make_bot: BotFactory, on_block: Callable[[BlockOutcome], None] | None = None,
             play: PlayMatch | None = None) -> GauntletOutcome:
    """Play blocks from ``state`` until the test ends (storing each block as the next one, with a store)."""
    gauntlets = store.gauntlets if store is not None else None
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
