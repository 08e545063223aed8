"""Tournaments as the organizer creates and ends them: participants checked, the seed chosen and committed to,
creation once per idempotency key, cancelling, and what may be known of the seed; and tournaments that replay
known deals (an ended tournament's revealed seed and secret, or ones an admin gives), marked as such."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from arena.store import CreateResult, Store, TournamentRecord
from arena.store.runstate import RunState
from arena.tournament import TournamentSpec, count_matches
from arena.tournament.commitment import SALT_BYTES, SECRET_BYTES, check_secret, seed_commitment
from arena.tournament.limits import quoted
from arena.tournament.schedule import table_classes, tables
from arena.tournament.spec import SAFE_DUPLICATE_ORDERS
from arena.tournament.status import ACTIVE_TOURNAMENT, TournamentStatus

from .seating import is_builtin


class UnknownParticipants(ValueError):
    def __init__(self, unknown: Sequence[str]) -> None:
        names = ", ".join(quoted(n, 40) for n in unknown[:10])
        if len(unknown) > 10:
            names += f" and {len(unknown) - 10} more"
        super().__init__(
            f"unknown bot(s): {names}; register them first, or use a built-in bot "
            "('random', 'heuristic', optionally tagged like 'random#2')"
        )
        self.unknown = list(unknown)


def check_participants(store: Store, participants: Iterable[str]) -> None:
    unknown = [n for n in participants if not is_builtin(n) and not store.bots.exists(n)]
    if unknown:
        raise UnknownParticipants(unknown)


NO_SHARED_DEAL = ("no duplicate deals are played: with a remote bot in the field a deal is shared only by tables that "
                  "seat none of the same bots, and every table here shares a bot with every other (two such tables "
                  "need at least twice as many bots as seats)")
"""Why a tournament asked for duplicate deals plays none (:func:`duplicate_unplayed`)."""


def duplicate_unplayed(spec: TournamentSpec) -> str:
    """Why ``spec``'s duplicate deals would not be played ('' when they are, or none were asked for): ``"across"``
    shares a deal only among tables that share no bot, so with one table per class no deal is played twice."""
    if not spec.shared_across_tables:
        return ""
    classes = table_classes(tables(spec))
    return NO_SHARED_DEAL if len(set(classes)) == len(classes) else ""


def duplicate_orders_for(participants: Sequence[str]) -> str:
    """How a tournament that leaves it unset plays duplicate deals: ``"across"`` (no bot sees a deal twice) when a
    participant is a remote bot, which may remember its hands; ``"rotate"`` among built-in bots only."""
    return SAFE_DUPLICATE_ORDERS if any(not is_builtin(name) for name in participants) else "rotate"


@dataclass(frozen=True)
class KnownDeals:
    """Deals known before a tournament starts: the seed and secret of an ended tournament (``deals_of``, its id) or
    the ones an admin gave (``deals_of`` empty); a tournament created with them is marked ``deals_known``."""

    seed: int
    secret: str
    deals_of: str = ""


class DealsStillSecret(ValueError):
    """``--deals-of`` a tournament that has not ended: its seed and secret are still secret."""

    def __init__(self, tournament_id: str, state: TournamentStatus) -> None:
        super().__init__(f"tournament {quoted(tournament_id, 60)} is {state.value}: its seed and secret stay secret "
                         "until it ends; replay its deals once it has ended")


def deals_of(store: Store, tournament_id: str) -> KnownDeals:
    """The revealed seed and secret of an ended tournament (:class:`DealsStillSecret` before it ended)."""
    record = store.tournaments.get(tournament_id)
    reveal = seed_reveal(record)
    if not reveal.revealed:
        raise DealsStillSecret(tournament_id, record.status)
    return KnownDeals(reveal.seed, reveal.secret, tournament_id)


def known_deals(seed: int, secret_hex: str) -> KnownDeals:
    """A seed and secret an admin gave (``ValueError`` naming the fix for a zero seed or a malformed secret)."""
    if not seed:
        raise ValueError("a seed secret needs its seed: give the tournament's seed too (--seed S)")
    try:
        check_secret(secret_hex)
    except ValueError:
        raise ValueError(f"a seed secret must be {2 * SECRET_BYTES} lowercase hex digits (a tournament's revealed "
                         f"seed_secret), got {quoted(secret_hex, 80)}") from None
    return KnownDeals(seed, secret_hex)


def create_tournament(
    store: Store, spec: TournamentSpec, *, idempotency_key: str | None = None, schedule_id: str = "",
    matches_total: int | None = None, known: KnownDeals | None = None,
) -> CreateResult:
    """Validate the participants and create the tournament (status pending), once per idempotency key (a retry
    gets the first one, ``created`` False); nothing is written when validation fails.

    Seed 0: a secret random seed (:func:`choose_seed`). Whatever the seed, a fresh 32-byte secret every deal derives
    from, and the commitment to both with a fresh salt, are stored; they stay secret until the tournament ends
    (:func:`seed_reveal`). ``known``: replay those deals instead (the record is marked ``deals_known``).
    ``matches_total``: the count when the caller has it. Duplicate deals that would not be played are stored as
    ``duplicate=False``, with the reason in ``duplicate_unplayed``.
    """
    check_participants(store, spec.participants)
    if known is not None and spec.seed not in (0, known.seed):
        raise ValueError(f"seed {spec.seed} is not the seed of the deals replayed ({known.seed}): leave --seed out")
    requested = spec.to_dict()
    unplayed = duplicate_unplayed(spec)
    if unplayed:  # the record tells what is played: no "duplicate deals" for a tournament that shares none
        spec = replace(spec, duplicate=False)
    if known is None:
        secret = secrets.token_bytes(SECRET_BYTES)
        spec = replace(spec, seed=choose_seed(spec.seed), seed_secret=secret.hex())
    else:
        secret = bytes.fromhex(known.secret)
        spec = replace(spec, seed=known.seed, seed_secret=known.secret)
    salt = secrets.token_bytes(SALT_BYTES)
    extra = {
        "seed_salt": salt.hex(),
        "seed_commitment": seed_commitment(spec.seed, salt, secret),
        "matches_total": str(count_matches(spec) if matches_total is None else matches_total),
        **({} if known is None else {"deals_known": "1", "deals_of": known.deals_of}),
        **({"duplicate_unplayed": unplayed} if unplayed else {}),
    }
    created = store.tournaments.create(spec.tournament_id, spec.to_dict(), idempotency_key=idempotency_key,
                                       requested=requested, extra=extra)
    if created.created and schedule_id:
        RunState(store, created.tournament_id).set_once("schedule_id", schedule_id)
    return created


def choose_seed(seed: int) -> int:
    """The seed of a new tournament: ``seed`` when non-zero, else a secret random one from the operating system's
    CSPRNG (never derived from ids, names, keys or times), 1 to 2**63 - 1."""
    return seed or secrets.randbelow(2**63 - 1) + 1


@dataclass(frozen=True)
class SeedReveal:
    """A tournament's seed commitment, and once it ended its seed, salt and secret (0 and empty before)."""

    commitment: str
    revealed: bool
    seed: int = 0
    salt: str = ""
    secret: str = ""


def seed_reveal(record: TournamentRecord) -> SeedReveal:
    """What anyone may know of a tournament's seed: the commitment always; seed, salt and secret once it ended."""
    commitment = record.extra.get("seed_commitment", "")
    if not record.status.ended:
        return SeedReveal(commitment, False)
    return SeedReveal(commitment, True, int(record.spec.get("seed", 0)), record.extra.get("seed_salt", ""),
                      str(record.spec.get("seed_secret", "")))


def cancel_tournament(store: Store, tournament_id: str, reason: str) -> bool:
    """Pending or running -> cancelled (workers start no further match), the reason kept as the run's detail;
    ``False`` when the tournament had already ended."""
    if not store.tournaments.set_status(tournament_id, TournamentStatus.CANCELLED, expected=ACTIVE_TOURNAMENT):
        return False
    RunState(store, tournament_id).set(detail=f"cancelled: {reason}", finished_at=repr(time.time()))
    return True


def spec_of(store: Store, tournament_id: str) -> TournamentSpec:
    return TournamentSpec.from_dict(store.tournaments.get(tournament_id).spec)
