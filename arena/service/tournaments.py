"""Tournaments as the organizer creates and ends them: participants checked, the seed chosen and committed to,
creation once per idempotency key, cancelling, and what may be known of the seed."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from arena.store import CreateResult, Store, TournamentRecord
from arena.store.runstate import RunState
from arena.tournament import TournamentSpec, count_matches
from arena.tournament.commitment import SALT_BYTES, SECRET_BYTES, seed_commitment
from arena.tournament.limits import quoted
from arena.tournament.spec import SAFE_DUPLICATE_ORDERS
from arena.tournament.status import ACTIVE_TOURNAMENT, TournamentStatus

from .seating import is_builtin


class UnknownParticipants(ValueError):
    """Participants that are neither built-in bots nor registered bots."""

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
    """Raise :class:`UnknownParticipants` unless every participant is built-in or registered."""
    unknown = [n for n in participants if not is_builtin(n) and not store.bots.exists(n)]
    if unknown:
        raise UnknownParticipants(unknown)


def duplicate_orders_for(participants: Sequence[str]) -> str:
    """How a tournament that leaves it unset plays duplicate deals: ``"across"`` (no bot sees a deal twice) when a
    participant is a remote bot, which may remember the hands it was dealt; ``"rotate"`` among built-in bots only
    (they keep no memory between matches)."""
    return SAFE_DUPLICATE_ORDERS if any(not is_builtin(name) for name in participants) else "rotate"


def create_tournament(
    store: Store, spec: TournamentSpec, *, idempotency_key: str | None = None, schedule_id: str = "",
    matches_total: int | None = None,
) -> CreateResult:
    """Validate the participants and create the tournament (status pending), once per key.

    Seed 0 means the arena chooses: a secret random seed (:func:`choose_seed`), stored with the tournament
    (a retry under the same idempotency key returns the stored tournament and seed, never a new one). The
    secret every deal seed derives from (``seed_secret``: 32 fresh random bytes, whatever the seed, so that a
    small seed is no help to a bot and two tournaments with one seed deal differently) is stored in its spec, and
    the commitment to both (:func:`arena.tournament.commitment.seed_commitment`, with a fresh random salt) with
    it; the seed, the secret and the salt stay secret until the tournament ends (:func:`seed_reveal`).
    ``matches_total``: the number of matches when the caller counted them (else counted here), stored so
    that reading the tournament never recomputes its design.

    Nothing is written when validation fails. ``created`` is ``False`` when the idempotency key
    was used before (the first tournament's id is returned).
    """
    check_participants(store, spec.participants)
    requested = spec.to_dict()
    secret = secrets.token_bytes(SECRET_BYTES)
    spec = replace(spec, seed=choose_seed(spec.seed), seed_secret=secret.hex())
    salt = secrets.token_bytes(SALT_BYTES)
    extra = {
        "seed_salt": salt.hex(),
        "seed_commitment": seed_commitment(spec.seed, salt, secret),
        "matches_total": str(count_matches(spec) if matches_total is None else matches_total),
    }
    created = store.tournaments.create(spec.tournament_id, spec.to_dict(), idempotency_key=idempotency_key,
                                       requested=requested, extra=extra)
    if created.created and schedule_id:
        RunState(store, created.tournament_id).set_once("schedule_id", schedule_id)
    return created


def choose_seed(seed: int) -> int:
    """The seed of a new tournament: ``seed`` when given (non-zero), else a secret random one from the operating
    system's CSPRNG (:mod:`secrets`; never derived from ids, names, keys or times), 1 to 2**63 - 1."""
    if seed:
        return seed
    return secrets.randbelow(2**63 - 1) + 1


@dataclass(frozen=True)
class SeedReveal:
    """A tournament's seed commitment, and once it ended its seed, salt and secret (0 and empty before; the
    secret empty too for a tournament created before secrets existed)."""

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
