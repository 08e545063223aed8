"""The web front's pure parts: the leaderboard of a rating pool, a tournament's progress, paging, the card macro
and the escaping of every name, the live feed's sharing, and the `uno-arena web` command line."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from arena.cli import build_parser, main
from arena.protocol import game_pb2
from arena.web.app import templates
from arena.web.live import LiveFeed
from arena.web.views import duration_text, leaderboards, page_of, pool_of, tournament_progress

XSS = "<script>alert(1)</script>"


def standing(name: str, rating: float, sigma: float, matches: int, wins: int, **counters: int) -> dict[str, Any]:
    return {"bot_name": name, "rating": rating, "rating_sigma": sigma, "rating_low": rating - 1.96 * sigma,
            "rating_high": rating + 1.96 * sigma, "matches": matches, "wins": wins,
            "timeouts": counters.get("timeouts", 0), "refusals": counters.get("refusals", 0),
            "forfeits": counters.get("forfeits", 0), "decisions": counters.get("decisions", 0)}


def tournament(tid: str, created: str, done: int) -> dict[str, Any]:
    return {"tournament_id": tid, "created_at": created, "matches_done": done}


def test_a_pool_ranks_by_the_newest_rating_and_sums_the_counts() -> None:
    older = (tournament("t1", "2026-01-01T00:00:00Z", 10),
             {"standings": [standing("a", 30.0, 1.0, 10, 8),
                            standing("b", 20.0, 1.0, 10, 2, timeouts=3)]},  # decisions not counted yet: no rate
             "flip:x", "UNO Flip")
    newer = (tournament("t2", "2026-02-01T00:00:00Z", 10),
             {"standings": [standing("b", 35.0, 1.0, 10, 9, refusals=2, decisions=400),
                            standing("c", 34.0, 1.0, 10, 1, forfeits=1, decisions=250)]},
             "flip:x", "UNO Flip")
    classic = (tournament("t3", "2026-03-01T00:00:00Z", 4), {"standings": [standing("a", 25.0, 8.0, 4, 2)]},
               "classic:y", "classic UNO")
    boards = leaderboards([newer, classic, older], {"a": True, "b": False}, {"a": "2.1", "b": ""})
    assert [board["key"] for board in boards] == ["flip:x", "classic:y"]  # the pool with the most matches first
    rows = boards[0]["rows"]
    assert [row["bot"] for row in rows] == ["b", "c", "a"]
    b = rows[0]
    assert (b["rating"], b["matches"], b["wins"], b["timeouts"], b["last_tournament"]) == (35.0, 20, 11, 3, "t2")
    assert b["win_rate"] == 0.55 and b["win_rate_low"] < 0.55 < b["win_rate_high"]
    assert b["incidents_per_1000"] == 5.0 and rows[1]["incidents_per_1000"] == 4.0  # per 1,000 decisions
    assert rows[2]["incidents_per_1000"] is None and b["decisions"] == 400
    assert [row["connected"] for row in rows] == [False, None, True]  # None: not registered (built-in)
    assert [row["version"] for row in rows] == [None, None, "2.1"]  # the current version, when the API shows it


def test_tiers_join_the_bots_the_ratings_cannot_tell_apart_from_the_tiers_first() -> None:
    pool = [(tournament("t", "2026-01-01T00:00:00Z", 9),
             {"standings": [standing("a", 30.0, 1.0, 9, 5), standing("b", 29.0, 1.0, 9, 3),
                            standing("c", 27.5, 1.0, 9, 1), standing("d", 10.0, 1.0, 9, 0)]}, "p", "P")]
    rows = leaderboards(pool, {})[0]["rows"]
    # |30 - 29| and |30 - 27.5| are within 1.96 * sqrt(2); d is far below: a tier of its own.
    assert [(row["bot"], row["tier"]) for row in rows] == [("a", 1), ("b", 1), ("c", 1), ("d", 2)]


def test_a_pool_is_named_by_its_rules() -> None:
    key, label = pool_of(game_pb2.Rules(variant=game_pb2.VARIANT_CLASSIC, target=200, bluffing=False))
    assert key.startswith("classic:") and label == "classic UNO, no bluffing, target 200"
    assert pool_of(game_pb2.Rules())[0] == pool_of(game_pb2.Rules(target=500))[0]  # defaults share a pool
    # A competition's blocks are rated in its own pool, and the leaderboard names it.
    assert pool_of(game_pb2.Rules(target=200), "competition:weekly") == \
        ("competition:weekly", "competition weekly (UNO Flip, target 200)")


def test_progress_gives_the_pace_and_the_time_left() -> None:
    running = {"matches_total": 100, "matches_done": 25, "matches_failed": 1, "state": "running",
               "started_at": "2026-01-01T00:00:00Z", "finished_at": None}
    start = 1767225600.0  # 2026-01-01T00:00:00Z
    progress = tournament_progress(running, now=start + 50)
    assert (progress["percent"], progress["matches_per_s"], progress["seconds_left"]) == (25.0, 0.5, 150)
    pending = tournament_progress({"matches_total": 10, "matches_done": 0, "state": "pending"}, now=start)
    assert pending["matches_per_s"] is None and pending["seconds_left"] is None
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
    pools = [{"key": "p", "label": XSS, "tournaments": 1, "matches": 1, "tiers": 1, "rows": [
        {"rank": 1, "tier": 1, "bot": XSS, "rating": 1.0, "rating_low": 0.0, "rating_high": 2.0, "matches": 1,
         "win_rate": 1.0, "win_rate_low": 0.2, "win_rate_high": 1.0, "incidents_per_1000": 0.0, "timeouts": 0,
         "refusals": 0, "forfeits": 0, "connected": True}]}]
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


def test_a_rating_chart_keeps_every_point_and_its_interval_inside_the_picture() -> None:
    from arena.web.bot_pages import CHART_H, CHART_PAD, CHART_W, rating_chart

    line = {"label": "UNO Flip", "points": [
        {"tournament_id": "t1", "rating": 25.0, "low": 10.0, "high": 40.0},
        {"tournament_id": "t2", "rating": 30.0, "low": 24.0, "high": 36.0}]}
    chart = rating_chart(line)
    assert chart is not None and [d["x"] for d in chart["dots"]] == [CHART_PAD, CHART_W - CHART_PAD]
    for dot in chart["dots"]:
        assert CHART_PAD <= dot["y_high"] < dot["y"] < dot["y_low"] <= CHART_H - CHART_PAD  # higher is up
    assert chart["dots"][1]["label"] == "t2: 30.0 [24.0, 36.0]"
    assert rating_chart({"label": "none", "points": []}) is None


def test_tables_are_read_from_the_match_ids() -> None:
    from arena.web.views import tables_of

    matches = [
        {"match_id": "t:d0000:t000001:r00", "seats": ["b", "a"], "winner": 0},
        {"match_id": "t:d0000:t000001:r01", "seats": ["a", "b"], "winner": 0},
        {"match_id": "t:d0001:t000001:r00", "seats": ["b", "a"], "winner": None},
        {"match_id": "t:d0000:t000000:r00", "seats": ["c", "a"], "winner": 1},
    ]
    assert tables_of(matches) == [
        {"table": 0, "bots": ["a", "c"], "deals": 1, "matches": 1, "wins": [("a", 1), ("c", 0)]},
        {"table": 1, "bots": ["a", "b"], "deals": 2, "matches": 3, "wins": [("a", 1), ("b", 1)]},
    ]
