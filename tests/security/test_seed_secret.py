"""Seeds no bot can recover (issue 23, item 6): every deal derives from the tournament seed and a secret the
arena draws at creation, the commitment covers both, and verification checks both."""

from __future__ import annotations

import hashlib
import secrets
from collections import Counter
from dataclasses import replace

import pytest

from arena.engine import Match, Rules
from arena.service.verification import RecordedMatch, TournamentFacts, verify_tournament
from arena.tournament import MatchSpec, TournamentSpec, schedule
from arena.tournament._rng import derive_seed
from arena.tournament.commitment import check_commitment, seed_commitment
from arena.tournament.status import TournamentStatus

SMALL_SEEDS = range(10_001)


def first_hand(match_seed: int, seat: int, rules: Rules) -> Counter[str]:
    """What a bot sees of a deal before its first decision: the cards dealt to its seat."""
    return Counter(str(card) for card in Match(players=2, seed=match_seed, rules=rules).hand(seat))


def brute_force(match: MatchSpec, seat: int, seeds: range = SMALL_SEEDS) -> list[int]:
    """A bot's attack: every small tournament seed through the public derivation of its match's deal seed (the
    table and deal it knows from the match id), kept when it deals the bot's own first hand."""
    rules = match.rules
    seen = first_hand(match.seed, seat, rules)
    return [s for s in seeds
            if first_hand(derive_seed("deal", s, match.table, match.deal), seat, rules) == seen]


@pytest.mark.slow
def test_a_small_seed_is_found_from_a_first_hand_without_a_secret_and_not_with_one() -> None:
    spec = TournamentSpec("t-small", ("alpha", "beta"), deals=2, seed=7)
    plain = schedule(spec)[0]
    assert brute_force(plain, 0, range(1000)) == [7]  # the attack works on a deal without a secret
    keyed = schedule(replace(spec, seed_secret=secrets.token_hex(32)))[0]
    assert keyed.seats == plain.seats and keyed.seed != plain.seed
    assert brute_force(keyed, 0) == []


def test_seed_and_secret_reproduce_every_deal_and_one_seed_with_two_secrets_deals_differently() -> None:
    spec = TournamentSpec("t-rep", ("alpha", "beta", "gamma"), deals=3, duplicate=True, seed=7,
                          seed_secret="ab" * 32)
    again = TournamentSpec.from_dict(spec.to_dict())
    assert again == spec and schedule(again) == schedule(spec)
    other = schedule(replace(spec, seed_secret="cd" * 32))
    assert [m.seats for m in other] == [m.seats for m in schedule(spec)]  # the tables follow the seed alone
    assert not {m.seed for m in other} & {m.seed for m in schedule(spec)}
    # A spec without a secret (a local run) derives its deals from the seed alone.
    old = replace(spec, seed_secret="")
    assert [m.seed for m in schedule(old)] == [derive_seed("deal", 7, m.table, m.deal) for m in schedule(old)]


def test_commitment_covers_the_secret() -> None:
    salt, secret, seed = bytes(range(32)), bytes(range(32, 64)), 7
    commitment = seed_commitment(seed, salt, secret)
    assert commitment == hashlib.sha256(salt + seed.to_bytes(8, "big") + secret).hexdigest()
    assert check_commitment(commitment, seed, salt.hex(), secret.hex())
    altered = bytes([secret[0] ^ 1]) + secret[1:]
    assert not check_commitment(commitment, seed, salt.hex(), altered.hex())
    assert not check_commitment(commitment, seed, salt.hex(), "")  # the secret cannot be left out
    assert not check_commitment(commitment, seed, salt.hex(), "not hex")


def _facts(spec: TournamentSpec, salt: bytes, secret_hex: str, commitment: str) -> TournamentFacts:
    published = replace(spec, seed_secret="")  # the organizer API never shows the secret in the spec
    return TournamentFacts(spec.tournament_id, TournamentStatus.CANCELLED, published, commitment, spec.seed,
                           salt.hex(), secret_hex)


def _recorded(match: MatchSpec) -> RecordedMatch:
    return RecordedMatch(match.seats, match.seed, (0, 0), None, 0, (), scored=False)


def test_verify_checks_the_secret() -> None:
    salt, secret = secrets.token_bytes(32), secrets.token_bytes(32)
    spec = TournamentSpec("t-ver", ("alpha", "beta"), seed=7, seed_secret=secret.hex())
    commitment = seed_commitment(spec.seed, salt, secret)
    results = {m.match_id: _recorded(m) for m in schedule(spec)}

    def no_replay(match_id: str) -> object:
        raise AssertionError("unscored matches are not replayed")

    honest = verify_tournament(_facts(spec, salt, secret.hex(), commitment), results, no_replay)  # type: ignore[arg-type]
    assert honest.consistent and honest.committed and honest.scheduled == 1

    altered = ("0" if secret.hex()[0] != "0" else "1") + secret.hex()[1:]
    found = verify_tournament(_facts(spec, salt, altered, commitment), results, no_replay)  # type: ignore[arg-type]
    assert not found.committed
    texts = [text for _where, text in found.problems]
    assert any("do not match the commitment" in t for t in texts)
    assert any("is not the derived deal seed" in t for t in texts)
    malformed = verify_tournament(_facts(spec, salt, "xyz", commitment), results, no_replay)  # type: ignore[arg-type]
    assert not malformed.consistent and any("secret" in text for _where, text in malformed.problems)
