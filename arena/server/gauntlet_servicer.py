"""The organizer API's gauntlets: start one (stored, then played by the workers), list them, follow one.

With an idempotency key and no id, the id is derived from the key, so a retry finds the first gauntlet and sends it
again (the worker resumes it from its stored blocks, or leaves it as it is once ended).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import grpc

from arena.protocol import arena_pb2
from arena.protocol.convert import rules_from_proto
from arena.service.enqueuer import Enqueuer
from arena.service.gauntlet_runs import (
    GauntletError,
    GauntletSpec,
    build_spec,
    start_gauntlet,
    stored_spec,
    stored_state,
)
from arena.service.matches import builtin_kind
from arena.service.visibility import ADMIN, Caller, sees_secrets
from arena.store import Store
from arena.store.gauntlet_store import GauntletRecord, StoredBlock, UnknownGauntlet
from arena.store.keys import check_name
from arena.tournament.spec import DEFAULT_DECISION_DEADLINE_MS
from arena.tournament.stats.sprt import AUTO_CAP_CEILING, DEFAULT_MIN_BLOCKS, DEFAULT_MU1, SprtConfig, SprtState

from .api_messages import gauntlet_blocks, gauntlet_message
from .refusals import OrganizerError, invalid, not_found

DEFAULT_LIMIT = 50
MAX_LIMIT = 1000
MAX_NAME_LENGTH = 100


def gauntlet_spec(msg: arena_pb2.GauntletSpec, gauntlet_id: str) -> GauntletSpec:
    """The checked spec of a request (INVALID_ARGUMENT naming the problem); a seed of 0 draws a secret one."""
    try:
        sprt = SprtConfig(mu0=msg.mu0, mu1=msg.mu1 or DEFAULT_MU1, alpha=msg.alpha or 0.05, beta=msg.beta or 0.05,
                          min_blocks=msg.min_blocks or DEFAULT_MIN_BLOCKS,
                          max_blocks=msg.max_blocks or max(AUTO_CAP_CEILING, msg.min_blocks),
                          auto_cap=not msg.max_blocks)
        return build_spec(candidate=msg.candidate, baseline=msg.baseline, seats=msg.seats_per_table or 2,
                          opponents=list(msg.opponents), rules=rules_from_proto(msg.rules), sprt=sprt,
                          seed=msg.seed or None,
                          decision_deadline_ms=msg.decision_deadline_ms or DEFAULT_DECISION_DEADLINE_MS,
                          gauntlet_id=gauntlet_id)
    except (ValueError, GauntletError) as error:
        raise invalid(str(error).replace("--", "")) from None


def with_progress(msg: arena_pb2.Gauntlet, state: SprtState, running: bool) -> arena_pb2.Gauntlet:
    """``msg`` with how far its test has to go: the blocks it expects at the current estimate (while running), the
    blocks it needs to be undecided only 1% of the time, the share undecided at the cap, and the cap in force (an
    automatic cap shows as ``spec.max_blocks`` 0)."""
    config = state.config
    if config.auto_cap:
        msg.spec.max_blocks = 0
    left = state.expected_blocks_left if running else None
    if left is not None:
        msg.expected_blocks_left = left
    need = state.needed_blocks
    if need is not None:
        msg.needed_blocks = need
    cap = min(need, config.max_blocks or need) if config.auto_cap and need is not None else config.max_blocks
    if cap:
        msg.cap_blocks = cap
        msg.undecided_at_cap = state.undecided_at(cap) or 0.0
    return msg


class Gauntlets:
    """Gauntlets over one store, played by the workers the enqueuer reaches."""

    def __init__(self, store: Store, enqueue: Enqueuer) -> None:
        self.store = store
        self.enqueue = enqueue

    def _message(self, record: GauntletRecord, caller: Caller,
                 blocks: Sequence[StoredBlock] | None = None) -> arena_pb2.Gauntlet:
        spec = stored_spec(self.store, record.id)
        state = stored_state(spec, self.store.gauntlets.blocks(record.id) if blocks is None else blocks)
        message = gauntlet_message(record, spec, state, sees_secrets(caller, record.ended),
                                   self.store.gauntlets.seed_material(record.id).salt)
        return with_progress(message, state, not record.ended)

    def _check_bots(self, spec: GauntletSpec) -> None:
        names = [c.name for c in (spec.candidate, spec.baseline) if not c.builtin]
        names += [o for o in spec.opponents if builtin_kind(o) is None]
        for name in names:
            if not self.store.bots.exists(name):
                raise not_found(f"unknown bot {name!r}: register it first (or name a built-in bot)")
            if not self.store.sessions.online(name):
                raise OrganizerError(grpc.StatusCode.FAILED_PRECONDITION,
                                     f"bot {name!r} is not connected: start it (uno-arena bot run ...) and try again")

    def start_gauntlet(self, request: arena_pb2.StartGauntletRequest) -> arena_pb2.StartGauntletResponse:
        key = request.idempotency_key
        if key:
            check_name(key, "idempotency key", MAX_NAME_LENGTH)
        if request.gauntlet_id:
            check_name(request.gauntlet_id, "gauntlet id", MAX_NAME_LENGTH)
        gid = request.gauntlet_id or ("g-" + hashlib.sha256(key.encode()).hexdigest()[:12] if key else "")
        if not request.HasField("spec"):
            raise invalid("spec is required (candidate and baseline at least)")
        spec = gauntlet_spec(request.spec, gid)
        started = self._retried(spec.gauntlet_id, key) if key else None
        if started is None:
            self._check_bots(spec)
            started = start_gauntlet(self.store, spec, key)  # an id taken: ALREADY_EXISTS
        if not started.ended:
            self.enqueue.gauntlet(started.id)  # a retry sends it again: the worker resumes or leaves it
        return arena_pb2.StartGauntletResponse(gauntlet=self._message(started, ADMIN))

    def _retried(self, gauntlet_id: str, key: str) -> GauntletRecord | None:
        """The gauntlet a call with this key stored under this id, if any (ALREADY_EXISTS for another key)."""
        try:
            existing = self.store.gauntlets.get(gauntlet_id)
        except UnknownGauntlet:
            return None
        if existing.idempotency_key != key:
            raise OrganizerError(grpc.StatusCode.ALREADY_EXISTS,
                                 f"gauntlet {gauntlet_id!r} exists already (started without this idempotency key)")
        return existing

    def list_gauntlets(self, request: arena_pb2.ListGauntletsRequest,
                       caller: Caller = ADMIN) -> arena_pb2.ListGauntletsResponse:
        limit = min(request.limit or DEFAULT_LIMIT, MAX_LIMIT)
        records = self.store.gauntlets.recent(limit)
        return arena_pb2.ListGauntletsResponse(gauntlets=[self._message(r, caller) for r in records])

    def get_gauntlet(self, request: arena_pb2.GetGauntletRequest,
                     caller: Caller = ADMIN) -> arena_pb2.GetGauntletResponse:
        try:
            record = self.store.gauntlets.get(check_name(request.gauntlet_id, "gauntlet id", MAX_NAME_LENGTH))
        except UnknownGauntlet as error:
            raise not_found(f"{error} (ListGauntlets lists them)") from None
        blocks = self.store.gauntlets.blocks(record.id)
        return arena_pb2.GetGauntletResponse(gauntlet=self._message(record, caller, blocks),
                                             blocks=gauntlet_blocks(blocks, request.after_block))
