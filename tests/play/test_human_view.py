"""A person at a seat of `uno-arena play` sees exactly that seat's view: checked card by card as it is printed."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from arena.engine import Match, Rules
from arena.play import HumanSeat, PlayerLeft, build_bots, play_match
from arena.terminal import Painter
from bots import make_bot
from tests.play.leakcheck import WatchedOutput

_CHOICE = re.compile(r"\(0-(\d+),")


def answers(seed: int, prompts: list[str]) -> Callable[[str], str]:
    """A person who picks a random listed action and presses Enter at pauses; every prompt is kept."""
    rng = random.Random(seed)

    def read(prompt: str) -> str:
        prompts.append(prompt)
        found = _CHOICE.search(prompt)
        return str(rng.randint(0, int(found.group(1)))) if found else ""

    return read


def human_match(rules: Rules, players: int, seed: int, color: bool, viewer: int | None = 0,
                prompts: list[str] | None = None) -> tuple[Match, WatchedOutput]:
    match = Match(players=players, seed=seed, rules=rules)
    out = WatchedOutput(match, 0)
    painter = Painter(color)
    read = answers(seed, [] if prompts is None else prompts)
    bots = build_bots(["heuristic", "random"] * 5, seed, 0, painter, read, out, make_bot)[:players]
    human = bots[0]
    assert isinstance(human, HumanSeat)
    play_match(bots, seed, rules, out, painter, viewer=viewer, pause=human.pause, match=match)
    return match, out


CASES = [
    (Rules(variant="flip", target=150), 3, 1),
    (Rules(variant="flip", target=150, pairing="shuffled"), 4, 2),
    (Rules(variant="flip", target=100, uno_penalty="catch", start_flip="flip"), 2, 3),
    (Rules(variant="classic", target=150), 3, 4),
    (Rules(variant="flip", target=100, bluffing=False), 5, 5),
]


@pytest.mark.parametrize("color", [False, True], ids=["plain", "painted"])
@pytest.mark.parametrize(("rules", "players", "seed"), CASES)
def test_the_human_never_sees_a_card_its_seat_may_not(rules: Rules, players: int, seed: int, color: bool) -> None:
    match, out = human_match(rules, players, seed, color)
    assert match.decision == "match_over"
    assert out.checked > 100
    assert out.leaks == []
    text = out.getvalue()
    assert "final scores:" in text.splitlines()[-1]
    assert "hands at the end of the round" in text


def test_the_check_catches_the_table_log() -> None:
    """The same check on the whole table's log (no viewer) finds cards seat 0 never saw: it is not vacuous."""
    match, out = human_match(Rules(variant="flip", target=150), 3, 1, color=False, viewer=None)
    assert match.decision == "match_over"
    assert out.leaks, "the omniscient log shows other seats' draws, which the check must flag"


def test_other_seats_draws_show_only_the_faces_the_table_saw() -> None:
    _, out = human_match(Rules(variant="flip", target=150), 3, 1, color=False)
    lines = out.getvalue().splitlines()
    others = [line for line in lines if re.match(r"(heuristic|random) draws", line)]
    assert others and all(":" not in line for line in others)
    assert any("(the table sees " in line for line in others)
    own = [line for line in lines if line.startswith("you draw a card: ")]
    assert own  # the human's own draws show the cards


def test_plain_words_and_a_score_table() -> None:
    _, out = human_match(Rules(variant="flip", target=150), 3, 1, color=False)
    text = out.getvalue()
    assert "seat=" not in text and "count=" not in text  # no internal event notation
    assert re.search(r"^you play ", text, re.M) and re.search(r"^(heuristic|random) plays ", text, re.M)
    assert re.search(r"^  seat  player +score", text, re.M)
    assert re.search(r"^ +0  human \(you\) +\d+", text, re.M)


def _decisions_with_a_choice(match: Match, seat: int) -> tuple[int, int]:
    """(decisions of ``seat`` with more than one legal action, with exactly one) in the finished match."""
    replay = match.replay()
    again = Match(players=match.players, seed=match.seed, rules=match.rules)
    many = one = 0
    for actor, text in replay["actions"]:
        if actor == seat:
            count = len(again.legal_actions())
            many, one = (many + 1, one) if count > 1 else (many, one + 1)
        if actor < 0:
            again.next_round()
        else:
            again.apply(actor, next(a for a in again.legal_actions(actor) if a.text == text))
    return many, one


def test_asked_only_when_there_is_a_choice_and_paused_between_rounds() -> None:
    prompts: list[str] = []
    match, out = human_match(Rules(variant="flip", target=200), 3, 7, color=False, prompts=prompts)
    many, one = _decisions_with_a_choice(match, 0)
    assert one > 0
    assert sum(p.startswith("your choice") for p in prompts) == many
    assert out.getvalue().count("your only choice: ") == one
    assert sum(p.startswith("press Enter for the next round") for p in prompts) == match.round_number - 1


@pytest.mark.parametrize(("answer", "code"), [("q", 1), ("quit", 1)])
def test_a_quit_word_leaves_the_match(answer: str, code: int) -> None:
    painter = Painter(False)
    out = WatchedOutput(Match(players=2, seed=3), 0)
    bots = build_bots(["random", "random"], 3, 0, painter, lambda prompt: answer, out, make_bot)
    human = bots[0]
    assert isinstance(human, HumanSeat)
    with pytest.raises(PlayerLeft) as left:
        play_match(bots, 3, Rules(target=500), out, painter, viewer=0, pause=human.pause)
    assert left.value.exit_code == code and "left the match" in str(left.value)


def test_end_of_input_leaves_the_match_instead_of_playing_for_the_person() -> None:
    def closed(prompt: str) -> str:
        raise EOFError

    painter = Painter(False)
    out = WatchedOutput(Match(players=2, seed=3), 0)
    bots = build_bots(["random", "random"], 3, 0, painter, closed, out, make_bot)
    with pytest.raises(PlayerLeft) as left:
        play_match(bots, 3, Rules(target=500), out, painter, viewer=0)
    assert left.value.exit_code == 1 and "Ctrl-D" in str(left.value)


def test_bad_arguments_are_named() -> None:
    painter = Painter(False)
    bots = build_bots(["random", "random"], 1, None, painter, input, WatchedOutput(Match(players=2), 0), make_bot)
    with pytest.raises(ValueError, match="seat 5 is not a seat of a 2-player match"):
        play_match(bots, 1, Rules(), WatchedOutput(Match(players=2), 0), painter, viewer=5)
    with pytest.raises(ValueError, match="2 bots for a 3-player match"):
        play_match(bots, 1, Rules(), WatchedOutput(Match(players=2), 0), painter, match=Match(players=3))
