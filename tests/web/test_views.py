"""The web front's pure parts: a rating pool's leaderboard as the API gives it, a match row, a tournament's
progress, paging, the card macro and the escaping of every name, the live feed's sharing, the card values of the
game page, and the `uno-arena web` command line."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from arena.cli import build_parser, main
from arena.protocol import arena_pb2, game_pb2
from arena.web.app import STATIC_DIR, templates
from arena.web.live import LiveFeed
from arena.web.views import (
    LeaderboardRow,
    MatchRow,
    PoolBoard,
    PublicBot,
    TableRow,
    duration_text,
    match_row,
    page_of,
    pool_board,
    tables_of,
    tournament_progress,
)

XSS = "<script>alert(1)</script>"


def entry(rank: int, tier: int, name: str, rating: float, sigma: float, matches: int, wins: int,
          **counters: int) -> arena_pb2.LeaderboardEntry:
    message = arena_pb2.LeaderboardEntry(
        rank=rank, tier=tier, bot_name=name, rating=rating, rating_sigma=sigma, rating_low=rating - 1.96 * sigma,
        rating_high=rating + 1.96 * sigma, matches=matches, wins=wins, timeouts=counters.get("timeouts", 0),
        refusals=counters.get("refusals", 0), forfeits=counters.get("forfeits", 0),
        decisions=counters.get("decisions", 0))
    if matches:
        message.win_rate, message.win_rate_low, message.win_rate_high = wins / matches, 0.1, 0.9
    return message


def public(name: str, connected: bool, version: str) -> PublicBot:
    return PublicBot(bot_id=f"id-{name}", name=name, description="", created_at=None, connected=connected,
                     bot_version=version, deleted=False)


def test_a_pool_board_shows_the_leaderboard_as_the_api_gives_it() -> None:
    response = arena_pb2.GetLeaderboardResponse(
        pool=arena_pb2.RatingPool(pool_id="flip:x", label="UNO Flip · target 200", bots=3, matches=20),
        entries=[entry(1, 1, "b", 35.0, 1.0, 20, 11, timeouts=3, refusals=2, decisions=400),
                 entry(2, 1, "c", 34.0, 1.0, 10, 1, forfeits=1, decisions=250),
                 entry(3, 2, "a", 25.0, 8.0, 0, 0)])
    response.entries[0].indistinguishable.append("c")
    board = pool_board(response, {"a": public("a", True, "2.1"), "b": public("b", False, "")})
    assert (board.key, board.label, board.matches, board.bots, board.tiers) == ("flip:x", "UNO Flip · target 200",
                                                                                 20, 3, 2)
    assert [(row.rank, row.tier, row.bot) for row in board.rows] == [(1, 1, "b"), (2, 1, "c"), (3, 2, "a")]
    b = board.rows[0]
    assert (b.rating, b.rating_sigma) == (35.0, 1.0)  # as given, not recomputed (OpenSkill's interval: not shown)
    assert (b.matches, b.wins, b.timeouts, b.refusals, b.decisions) == (20, 11, 3, 2, 400)
    assert (b.win_rate, b.win_rate_low, b.win_rate_high) == (0.55, 0.1, 0.9) and b.indistinguishable == ["c"]
    assert board.rows[2].win_rate is None and board.rows[2].win_rate_low is None  # unset without matches
    assert [row.connected for row in board.rows] == [False, None, True]  # None: not registered (built-in)
    assert [row.version for row in board.rows] == [None, None, "2.1"]  # the current version, when the API shows it
    unlabelled = pool_board(arena_pb2.GetLeaderboardResponse(pool=arena_pb2.RatingPool(pool_id="p")), {})
    assert (unlabelled.label, unlabelled.tiers, unlabelled.rows) == ("p", 0, [])


def test_a_match_summary_becomes_a_row_by_seat() -> None:
    summary = arena_pb2.MatchSummary(
        match_id="t:d0000:t000001:r00", tournament_id="t",
        seats=[game_pb2.Seat(seat=1, bot_name="a"), game_pb2.Seat(seat=0, bot_name="b")],
        result=game_pb2.MatchResult(scores=[120, 30], winner=0, rounds=3, timeouts=[0, 2], refusals=[1, 0]),
        reason=game_pb2.END_REASON_COMPLETED)
    summary.finished_at.FromSeconds(1767225600)
    row = match_row(summary)
    assert (row.seats, row.scores, row.winner, row.rounds, row.end_reason) == (["b", "a"], [120, 30], 0, 3,
                                                                               "completed")
    assert (row.timeouts, row.refusals, row.forfeits, row.finished_at) == ([0, 2], [1, 0], [], 1767225600.0)
    aborted = match_row(arena_pb2.MatchSummary(match_id="m", reason=game_pb2.END_REASON_ABORTED))
    assert aborted.winner is None and aborted.finished_at is None and aborted.end_reason == "aborted"


def test_progress_gives_the_pace_and_the_time_left() -> None:
    running = arena_pb2.Tournament(matches_total=100, matches_done=25, matches_failed=1,
                                   state=arena_pb2.TOURNAMENT_STATE_RUNNING)
    start = 1767225600  # 2026-01-01T00:00:00Z
    running.started_at.FromSeconds(start)
    progress = tournament_progress(running, now=start + 50)
    assert (progress.percent, progress.matches_per_s, progress.seconds_left) == (25.0, 0.5, 150)
    assert (progress.failed, progress.state, progress.elapsed_s) == (1, "running", 50.0)
    pending = tournament_progress(arena_pb2.Tournament(matches_total=10, state=arena_pb2.TOURNAMENT_STATE_PENDING),
                                  now=start)
    assert pending.matches_per_s is None and pending.seconds_left is None
    assert [duration_text(s) for s in (None, 12, 185, 3725)] == ["-", "12s", "3m 05s", "1h 02m"]


def test_pages_of_a_list_and_a_page_out_of_range() -> None:
    assert page_of(list(range(5)), 2, 2) == ([2, 3], 3)
    assert page_of([], 1, 10) == ([], 1)
    with pytest.raises(ValueError, match="page 4 does not exist"):
        page_of(list(range(5)), 4, 2)


def test_the_card_macro_draws_both_faces_a_back_and_text_for_every_card() -> None:
    macro = templates().env.from_string('{% from "cards.html" import card %}'
                                        "{{ card(c, 'light') }}|{{ card(c, 'dark') }}|{{ card(none, 'dark') }}")
    flip = {"light": {"color": "red", "kind": "skip", "text": "red-skip"},
            "dark": {"color": "teal", "kind": "flip", "text": "teal-flip"}, "text": "red-skip/teal-flip"}
    light, dark, back = macro.render(c=flip).split("|")
    assert "card-red side-light" in light and 'aria-label="red skip"' in light and ">red skip<" in light
    assert "card-teal side-dark" in dark and 'aria-label="teal flip"' in dark
    assert 'data-card="red-skip/teal-flip"' in light
    assert "card-back side-dark" in back and "card back" in back


def test_every_name_is_escaped() -> None:
    row = LeaderboardRow(rank=1, tier=1, bot=XSS, rating=1.0, rating_sigma=0.5, indistinguishable=[XSS], matches=1,
                         wins=1, points=10, win_rate=1.0, win_rate_low=0.2,
                         win_rate_high=1.0, timeouts=0, refusals=0, forfeits=0, decisions=3, connected=True,
                         version=XSS)
    pools = [PoolBoard(key="p", label=XSS, bots=1, matches=1, tiers=1, rows=[row])]
    html = templates().get_template("leaderboard_pools.html").render(pools=pools)
    assert XSS not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    card = templates().env.from_string('{% from "cards.html" import card %}{{ card(c, "light") }}')
    assert "<script>" not in card.render(c={"color": "red", "kind": XSS, "text": XSS})


def test_a_live_feed_reads_once_for_every_viewer_and_ends_with_the_last_value() -> None:
    reads: list[int] = []

    def read() -> dict[str, int]:
        reads.append(1)
        return {"n": len(reads)}

    async def follow_two() -> list[list[str]]:
        feed = LiveFeed(read, poll_s=0.01, done=lambda value: value["n"] >= 3)

        async def viewer() -> list[str]:
            return [message async for message in feed.follow() if not message.startswith(":")]

        return list(await asyncio.gather(viewer(), viewer()))

    first, second = asyncio.run(follow_two())
    assert len(reads) == 3  # one read per interval, shared by both viewers
    assert first == second
    updates = [json.loads(m.split("\n")[1].removeprefix("data: ")) for m in first if m.startswith("event: update")]
    assert updates == [{"n": 1}, {"n": 2}, {"n": 3}] and first[-1].startswith("event: end")


def test_the_web_command_is_registered_and_refuses_a_bad_port(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["web", "--port", "9000", "--address", "0.0.0.0"])
    assert (args.port, args.address) == (9000, "0.0.0.0")
    assert main(["web", "--port", "70000"]) == 2
    assert "--port 70000 is not a TCP port" in capsys.readouterr().err


def test_a_kept_value_is_answered_while_the_background_read_replaces_it() -> None:
    from arena.web.reader import _Fresh
    from tests.support.waiting import wait_until

    reads: list[int] = []

    def read() -> int:
        reads.append(1)
        return len(reads)

    kept = _Fresh(ttl_s=0.0, max_age_s=3600.0)  # always stale, never too old to show
    assert kept.get("k", read) == 1  # the first read is waited for
    assert kept.get("k", read) == 1  # then the kept value, while a background read runs
    wait_until(lambda: kept.get("k", read) >= 2, 10, "the background read to replace the value")
    too_old = _Fresh(ttl_s=0.0, max_age_s=0.0)  # nothing kept is young enough: every read is waited for
    assert [too_old.get("k", read) for _ in range(2)] == [len(reads) - 1, len(reads)]


def test_a_rating_chart_keeps_every_point_its_interval_and_the_pool_line_inside_the_picture() -> None:
    from arena.web.bot_pages import CHART_H, CHART_PAD, CHART_W, rating_chart

    line = {"label": "UNO Flip", "now": {"rating": 2.5, "low": 2.0, "high": 3.5}, "points": [
        {"tournament_id": "t1", "rating": 0.5, "low": -1.0, "high": 2.0},
        {"tournament_id": "t2", "rating": 1.0, "low": 0.4, "high": 1.6}]}  # each tournament's PL, 95% interval
    chart = rating_chart(line)
    assert chart is not None and [d["x"] for d in chart["dots"]] == [CHART_PAD, CHART_W - CHART_PAD]
    for dot in chart["dots"]:
        assert CHART_PAD <= dot["y_high"] < dot["y"] < dot["y_low"] <= CHART_H - CHART_PAD  # higher is up
    assert CHART_PAD <= chart["now_y"] < chart["dots"][1]["y"]  # the pool's rating now: above t2's, inside
    assert chart["dots"][1]["label"] == "t2: PL +1.00 [+0.40, +1.60]"
    without_pool = rating_chart({"label": "no pool line", "points": line["points"]})
    assert without_pool is not None and without_pool["now_y"] is None
    assert rating_chart({"label": "none", "points": []}) is None


def test_counts_take_the_noun_their_number_asks_for() -> None:
    from arena.web.views import counted, plural

    assert [counted(n, "tournament") for n in (0, 1, 2)] == ["0 tournaments", "1 tournament", "2 tournaments"]
    assert (plural(1, "match", "matches"), plural(3, "match", "matches")) == ("match", "matches")
    assert (plural(1, "entry", "entries"), plural(0, "entry", "entries")) == ("entry", "entries")


def test_a_gauntlet_is_shaped_as_the_api_gives_it() -> None:
    from arena.web.gauntlet_views import gauntlet_page, llr_chart

    g = arena_pb2.Gauntlet(gauntlet_id="g1", state=arena_pb2.GAUNTLET_STATE_INCONCLUSIVE, blocks=2, llr=0.5,
                           llr_lower=-2.0, llr_upper=3.0, mean_score=0.25,
                           spec=arena_pb2.GauntletSpec(candidate=XSS, baseline="random", seats_per_table=3,
                                                       max_blocks=2, alpha=0.05, beta=0.05, mu1=0.05))
    page = gauntlet_page(arena_pb2.GetGauntletResponse(gauntlet=g, blocks=[
        arena_pb2.GauntletBlock(block=2, score=0.5, llr=0.5), arena_pb2.GauntletBlock(block=1, score=0.0, llr=0.1)]))
    row = page.gauntlet
    assert (row.state, row.verdict) == ("inconclusive", "inconclusive: no decision within 2 blocks")
    assert (row.candidate, row.seats, row.blocks, row.mean_score) == (XSS, 3, 2, 0.25)  # as given, not escaped here
    assert row.llr_position == 0.5 and row.expected_blocks_left is None and row.cap_blocks == 2
    assert [b.block for b in page.blocks] == [1, 2]
    chart = llr_chart(row, page.blocks)
    assert chart is not None and chart.upper_y < chart.zero_y < chart.lower_y  # higher is up, both bounds shown
    assert llr_chart(row, []) is None


def test_a_running_gauntlet_shows_the_blocks_it_expects_and_escapes_its_names() -> None:
    from arena.web.gauntlet_views import ESTIMATE_NOTE, LLR_NOTE, gauntlet_page, llr_chart

    g = arena_pb2.Gauntlet(gauntlet_id="g2", state=arena_pb2.GAUNTLET_STATE_RUNNING, blocks=1, llr=0.4,
                           llr_lower=-2.9, llr_upper=2.9, mean_score=0.5, expected_blocks_left=12, needed_blocks=80,
                           undecided_at_cap=0.031, cap_blocks=80,
                           spec=arena_pb2.GauntletSpec(candidate=XSS, baseline="random", seats_per_table=2))
    page = gauntlet_page(arena_pb2.GetGauntletResponse(gauntlet=g, blocks=[
        arena_pb2.GauntletBlock(block=1, score=0.5, llr=0.4)]))
    row = page.gauntlet
    assert (row.expected_blocks_left, row.needed_blocks, row.cap_blocks) == (12, 80, 80)
    html = templates().get_template("gauntlet.html").render(
        g=row, chart=llr_chart(row, page.blocks), blocks=page.blocks, blocks_count=1, estimate_note=ESTIMATE_NOTE,
        llr_note=LLR_NOTE, reload_s=5, title="t")
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert "data-expected-blocks-left>12</b><span>more blocks expected to a decision" in html
    assert "at most 80 (the automatic cap, as estimated now)" in html and "at the cap of 80, 3.1% would be" in html
    assert 'http-equiv="refresh"' in html  # a running gauntlet's page reloads itself


def test_tables_are_read_from_the_match_ids() -> None:
    def row(match_id: str, seats: list[str], winner: int | None) -> MatchRow:
        return MatchRow(match_id=match_id, seats=seats, scores=[0] * len(seats), winner=winner, rounds=1,
                        end_reason="completed", forfeits=[], timeouts=[], refusals=[], finished_at=None)

    matches = [
        row("t:d0000:t000001:r00", ["b", "a"], 0),
        row("t:d0000:t000001:r01", ["a", "b"], 0),
        row("t:d0001:t000001:r00", ["b", "a"], None),
        row("t:d0000:t000000:r00", ["c", "a"], 1),
    ]
    assert tables_of(matches) == [
        TableRow(table=0, bots=["a", "c"], deals=1, matches=1, wins=[("a", 1), ("c", 0)]),
        TableRow(table=1, bots=["a", "b"], deals=2, matches=3, wins=[("a", 1), ("b", 1)]),
    ]


def test_the_game_page_carries_the_engines_card_values() -> None:
    from arena.engine.cards import CLASSIC_VALUES, FLIP_VALUES
    from arena.web.play_routes import card_values

    values = card_values()
    assert {kind: values["flip"][kind] for kind in FLIP_VALUES} == FLIP_VALUES
    assert {kind: values["classic"][kind] for kind in CLASSIC_VALUES} == CLASSIC_VALUES
    assert all(values[variant][str(n)] == n for variant in ("flip", "classic") for n in range(10))
    assert "wild-draw4" not in values["flip"] and "wild-draw-color" not in values["classic"]
    script = (Path(STATIC_DIR) / "play.js").read_text(encoding="utf-8")
    assert "FLIP_VALUES" not in script and '"wild-draw-color": 60' not in script  # no copy of the rule
    html = templates().get_template("play.html").render(mode="game", card_values=values, title="t", setup=None)
    assert '<script type="application/json" id="card-values">' in html and '"wild-draw-color": 60' in html
