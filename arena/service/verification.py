"""Verifying an ended tournament: its seed commitment, its schedule re-derived from the revealed seed and secret, and
every scored match replayed from its derived deal seed (:func:`arena.engine.walk.walk`) to the stored scores, winner
and rounds. Pure over typed data; ``uno-arena tournament verify`` feeds it from the organizer API.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from arena.engine import Action, Match, Rules, parse_action
from arena.engine.walk import WalkError, walk
from arena.tournament import MatchSpec, TournamentSpec, schedule
from arena.tournament.commitment import check_commitment, check_secret
from arena.tournament.status import TournamentStatus


class ReplayUnavailable(Exception):
    """No usable replay of a match (none kept, or the server refused it); the message says why."""


@dataclass(frozen=True)
class TournamentFacts:
    """What verification reads of a tournament: its spec as published (without its secret) and what it revealed."""

    tournament_id: str
    state: TournamentStatus
    spec: TournamentSpec
    seed_commitment: str
    revealed_seed: int
    seed_salt: str
    seed_secret: str = ""
    deals_known: bool = False
    """It replays known deals: its commitment is checked as any other, but it hid nothing."""


@dataclass(frozen=True)
class ReplayFacts:
    """What verification reads of a match's omniscient replay: ``rules`` None when invalid (``rules_error``), every
    decision as ``(seat, action text)``."""

    seed: int
    rules: Rules | None
    seats: tuple[str, ...]
    decisions: tuple[tuple[int, str], ...]
    rules_error: str = ""


@dataclass
class Verification:
    """The problems found (``(where, what)``) and the counts of the summary."""

    problems: list[tuple[str, str]] = field(default_factory=list)
    scheduled: int = 0
    replayed: int = 0
    unscored: int = 0
    missing: int = 0
    committed: bool = False
    deals_known: bool = False

    @property
    def consistent(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class RecordedMatch:
    seats: tuple[str, ...]
    seed: int
    scores: tuple[int, ...]
    winner: int | None
    rounds: int
    forfeits: tuple[int, ...]
    scored: bool


def replay_problems(replay: ReplayFacts, match: MatchSpec, stored: RecordedMatch) -> list[str]:
    """What is wrong with one match's omniscient replay against its scheduled match and its stored result."""
    problems: list[str] = []
    rules = match.rules
    if replay.seed != match.seed:
        problems.append(f"the replay's seed {replay.seed} is not the derived deal seed {match.seed}")
    if replay.rules is None:
        problems.append(f"the replay's rules are invalid: {replay.rules_error}")
    elif replay.rules != rules:
        problems.append("the replay's rules are not the tournament's")
    if list(replay.seats) != list(match.seats):
        problems.append(f"the replay's seats {list(replay.seats)} are not the scheduled {list(match.seats)}")
    engine = Match(players=len(match.seats), seed=match.seed, rules=rules)
    at = [0]

    def parsed() -> Iterator[tuple[int | None, Action]]:
        for seat, text in replay.decisions:
            at[0] += 1
            yield seat, parse_action(text, rules.variant)

    try:
        for _step in walk(engine, parsed()):
            pass
    except ValueError as error:  # WalkError (the engine refuses it) or an action text that does not parse
        seat, text = replay.decisions[at[0] - 1]
        cause = error.error if isinstance(error, WalkError) else error
        problems.append(f"decision {at[0]}: seat {seat} {text!r} does not replay from the derived seed: {cause}")
        return problems
    winner = engine.match_winner if engine.match_winner not in stored.forfeits else None
    expected = {"scores": list(engine.scores), "winner": winner, "rounds": engine.round_number}
    recorded = {"scores": list(stored.scores), "winner": stored.winner, "rounds": stored.rounds}
    for name, value in expected.items():
        if recorded[name] != value:
            problems.append(f"replaying the recorded actions gives {name} {value}, the stored result says "
                            f"{recorded[name]}")
    return problems


def verify_tournament(t: TournamentFacts, results: Mapping[str, RecordedMatch],
                      replay_of: Callable[[str], ReplayFacts],
                      on_problem: Callable[[str, str], None] | None = None) -> Verification:
    """Check an ended tournament (see the module docstring; once finished, every scheduled match must be recorded).
    ``on_problem(where, what)`` hears each problem as it is found."""
    out = Verification(deals_known=t.deals_known)

    def problem(where: str, text: str) -> None:
        out.problems.append((where, text))
        if on_problem is not None:
            on_problem(where, text)

    out.committed = check_commitment(t.seed_commitment, t.revealed_seed, t.seed_salt, t.seed_secret)
    if not out.committed:
        problem(t.tournament_id, f"the revealed seed {t.revealed_seed}, salt {t.seed_salt!r} and secret "
                                 f"{t.seed_secret!r} do not match the commitment {t.seed_commitment}")
    if t.spec.seed != t.revealed_seed:
        problem(t.tournament_id, f"the spec's seed {t.spec.seed} is not the revealed seed {t.revealed_seed}")
    try:
        check_secret(t.seed_secret)
    except ValueError as error:
        problem(t.tournament_id, f"the revealed secret cannot derive a schedule: {error}")
        return out
    scheduled = {m.match_id: m for m in schedule(replace(t.spec, seed_secret=t.seed_secret))}
    out.scheduled = len(scheduled)
    for mid in sorted(set(results) - set(scheduled)):
        problem(mid, "a recorded result of a match that is not in the schedule")
    missing = [mid for mid in scheduled if mid not in results]
    out.missing = len(missing)
    if missing and t.state is TournamentStatus.FINISHED:
        for mid in missing:
            problem(mid, "scheduled but no result is recorded")
    for mid, match in scheduled.items():
        stored = results.get(mid)
        if stored is None:
            continue
        if list(stored.seats) != list(match.seats):
            problem(mid, f"the stored seats {list(stored.seats)} are not the scheduled {list(match.seats)}")
        if stored.seed != match.seed:
            problem(mid, f"the stored seed {stored.seed} is not the derived deal seed {match.seed}")
        if not stored.scored:
            out.unscored += 1
            continue
        try:
            replay = replay_of(mid)
        except ReplayUnavailable as error:
            problem(mid, f"no usable replay: {error}")
            continue
        for text in replay_problems(replay, match, stored):
            problem(mid, text)
        out.replayed += 1
    return out


@dataclass(frozen=True)
class GauntletSeedCheck:
    """Whether a gauntlet's revealed seed, salt and secret match its commitment, and the deal seeds they reproduce
    (``deals[block][seat]``)."""

    committed: bool
    deals: tuple[tuple[int, ...], ...]


def verify_gauntlet_seed(commitment: str, seed: int, salt: str, secret: str, blocks: int,
                         seats: int) -> GauntletSeedCheck:
    """Check an ended gauntlet's revealed seed against its commitment and re-derive its deals."""
    from .gauntlet_runs import deal_seed

    committed = check_commitment(commitment, seed, salt, secret)
    deals = tuple(tuple(deal_seed(seed, block, secret, seat) for seat in range(seats)) for block in range(blocks))
    return GauntletSeedCheck(committed, deals)
