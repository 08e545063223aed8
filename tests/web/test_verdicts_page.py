"""The web shows the verdicts the organizer API sends (issue 38, item 3): the standings and the leaderboard say in
one sentence what is told apart, list the pairs told apart and, for the rest, about how many more matches would
tell them apart; rendered from the API's messages as they are, nothing recomputed."""

from __future__ import annotations

from arena.client import plain
from arena.protocol import arena_pb2
from arena.web.app import templates
from arena.web.views import PoolBoard, verdicts_of


def verdicts() -> arena_pb2.Verdicts:
    message = arena_pb2.Verdicts(summary="1 of 3 pairs are told apart (95 %); of the rest, at the current "
                                         "differences, heuristic vs weakened needs about 40 more matches.")
    message.pairs.add(bot_a="heuristic", bot_b="random", told_apart=True, p_value=0.001, test="batch")
    message.pairs.add(bot_a="heuristic", bot_b="weakened", told_apart=False, p_value=0.2, more_matches=40,
                      test="batch")
    message.pairs.add(bot_a="weakened", bot_b="random", told_apart=False, p_value=1.0, test="batch")
    return message


def test_the_standings_page_says_what_is_told_apart_and_what_would_tell_the_rest() -> None:
    response = arena_pb2.GetStandingsResponse(tournament_id="t", final=True, verdicts=verdicts())
    response.standings.add(rank=1, bot_name="heuristic", tier=1, matches=4)
    html = templates().get_template("standings_table.html").render(
        standings=plain(response), batch_note="", openskill_note="", interval_note="")
    assert "1 of 3 pairs are told apart" in html
    assert "Told apart (95%): heuristic &gt; random." in html
    assert "heuristic = weakened (about 40 more matches); even so far: weakened = random." in html


def test_the_leaderboard_shows_its_pools_verdicts() -> None:
    response = arena_pb2.GetLeaderboardResponse(verdicts=verdicts())
    board = PoolBoard(key="flip", label="UNO Flip", bots=3, matches=10, tiers=1, verdicts=verdicts_of(response))
    html = templates().get_template("leaderboard_pools.html").render(pools=[board])
    assert "heuristic vs weakened needs about 40 more matches" in html and "heuristic = weakened" in html
