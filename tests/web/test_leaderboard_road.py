"""One road (issue 20): a rating pool's leaderboard read through the CLI (``uno-arena leaderboard POOL``, in its own
process), the web front's JSON (``/api/leaderboard``) and its page (``/leaderboard``, HTML) shows the ranks, tiers,
ratings and intervals GetLeaderboard returns (OpenSkill and the batch Plackett-Luce rating, each named in a legend),
number for number; every rating lies inside its own interval. A real
arena (embedded Redis, the gateway with the organizer API, a Celery worker) plays two small tournaments in one pool,
so the pool's figures span tournaments."""

from __future__ import annotations

import json
from collections.abc import Iterator
from html.parser import HTMLParser

import httpx
import pytest

from arena.client.legends import BATCH_NOTE, OPENSKILL_NOTE
from arena.protocol import arena_pb2
from tests.support.cli import run_cli
from tests.web.support import WebArena, create, finished_spec, wait_ended, web_arena

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebArena]:
    with web_arena(tmp_path_factory.mktemp("web-road")) as running:
        # A second tournament of the same rules (one pool), with another field and seed.
        second = create(running.arena, finished_spec("webroad", ["random", "heuristic"], deals=3, seed=23))
        wait_ended(running.arena, second)
        yield running


class _Rows(HTMLParser):
    """The leaderboard rows of one pool's section: each row's data attributes and the text of its cells."""

    def __init__(self, pool_id: str) -> None:
        super().__init__()
        self.pool_id = pool_id
        self.inside = False
        self.rows: list[tuple[dict[str, str], list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "section":
            self.inside = found.get("data-pool") == self.pool_id
        elif self.inside and tag == "tr" and "data-bot" in found:
            self.rows.append((found, []))
        elif self.inside and tag == "td" and self.rows:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self.inside = False
        elif tag == "td" and self._cell is not None:
            self.rows[-1][1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def page_rows(html: str, pool_id: str) -> list[tuple[dict[str, str], list[str]]]:
    parser = _Rows(pool_id)
    parser.feed(html)
    return parser.rows


def the_pool(web: WebArena) -> arena_pb2.GetLeaderboardResponse:
    pool_id = web.arena.client.get_tournament(web.finished).rating_pool
    assert pool_id in {pool.pool_id for pool in web.arena.client.list_rating_pools()}
    return web.arena.client.get_leaderboard(pool_id)


def test_the_json_and_the_page_show_the_leaderboard_the_api_returns(web: WebArena) -> None:
    board = the_pool(web)
    entries = list(board.entries)
    assert [e.bot_name for e in entries] and sorted(e.bot_name for e in entries) == ["heuristic", "random",
                                                                                     "random#2"]
    assert board.pool.matches == 6 + 3  # both tournaments' matches count in the pool (3 tables, 2 deals; 1 table, 3)
    for e in entries:  # OpenSkill's own interval stays in the API (deprecated) but no reader shows it
        assert e.rating_low <= e.rating <= e.rating_high, f"{e.bot_name}: rating outside its own interval"

    # The JSON twin: the API's numbers exactly, in the API's order, under the API's label.
    data = httpx.get(f"{web.url}/api/leaderboard", params={"pool": board.pool.pool_id}).json()
    (pool,) = data["pools"]
    assert (pool["key"], pool["label"], pool["matches"]) == (board.pool.pool_id, board.pool.label,
                                                             board.pool.matches)
    assert pool["tiers"] == max(e.tier for e in entries)
    shown = [(r["rank"], r["tier"], r["bot"], r["rating"], r["rating_sigma"], r["matches"], r["wins"])
             for r in pool["rows"]]
    assert shown == [(e.rank, e.tier, e.bot_name, e.rating, e.rating_sigma, e.matches, e.wins) for e in entries]
    assert all("rating_low" not in r and "rating_high" not in r for r in pool["rows"])
    for row, e in zip(pool["rows"], entries, strict=True):
        assert (row["win_rate"], row["win_rate_low"], row["win_rate_high"]) == (
            e.win_rate if e.HasField("win_rate") else None, e.win_rate_low if e.HasField("win_rate_low") else None,
            e.win_rate_high if e.HasField("win_rate_high") else None)
        assert (row["timeouts"], row["refusals"], row["forfeits"], row["decisions"]) == (
            e.timeouts, e.refusals, e.forfeits, e.decisions)
        assert e.HasField("batch") and row["batch"] == {
            "rating": e.batch.rating, "low": e.batch.low, "high": e.batch.high, "rank": e.batch.rank,
            "best_rank": e.batch.best_rank, "worst_rank": e.batch.worst_rank, "matches": e.batch.matches}

    # The page: the same rows, the numbers the API gave (exactly, in the row's data) and as people read them.
    html = httpx.get(f"{web.url}/leaderboard").text
    assert board.pool.label in html
    assert board.ranked_by == arena_pb2.LEADERBOARD_RANKING_BATCH and "ranked by PL</span>" in html
    rows = page_rows(html, board.pool.pool_id)
    assert [attrs["data-bot"] for attrs, _ in rows] == [e.bot_name for e in entries]
    for (attrs, cells), e in zip(rows, entries, strict=True):
        assert (int(attrs["data-rank"]), int(attrs["data-tier"])) == (e.rank, e.tier)
        assert float(attrs["data-rating"]) == e.rating and "data-rating-low" not in attrs
        b = e.batch  # the PL rating first: a pool ranks and tiers by it
        assert cells[:6] == [str(e.rank), str(e.tier), e.bot_name, f"{b.rating:.2f}", f"[{b.low:.2f}, {b.high:.2f}]",
                             str(b.rank) if b.best_rank == b.worst_rank else f"{b.best_rank}-{b.worst_rank}"]
        assert cells[6:8] == [f"{e.rating:.2f}", str(e.matches)]  # OpenSkill without its (uncalibrated) interval
    assert OPENSKILL_NOTE in html and BATCH_NOTE in html  # which number is which


def test_the_tournament_page_names_the_pool_by_the_apis_label(web: WebArena) -> None:
    board = the_pool(web)
    page = httpx.get(f"{web.url}/tournaments/{web.finished}")
    assert page.status_code == 200 and board.pool.label in page.text
    standings = web.arena.client.get_standings(web.finished).standings
    assert standings and all(row.HasField("batch") for row in standings)
    for row in standings:  # the standings' batch rating as the API gives it, beside its legend
        assert f"[{row.batch.low:.2f}, {row.batch.high:.2f}]" in page.text
    assert BATCH_NOTE in page.text and OPENSKILL_NOTE in page.text
    listed = httpx.get(f"{web.url}/api/tournaments").json()["tournaments"]
    assert {t["pool"]["label"] for t in listed} == {board.pool.label}


def test_the_cli_shows_the_leaderboard_the_api_and_the_web_show(web: WebArena) -> None:
    board = the_pool(web)
    code, out, err = run_cli("leaderboard", board.pool.pool_id, "--json", "--server", web.arena.address)
    assert code == 0, err
    shown = json.loads(out)
    assert shown["pool"]["pool_id"] == board.pool.pool_id and shown["pool"]["label"] == board.pool.label
    cli_rows = [(e["rank"], e["tier"], e["bot_name"], e["rating"], e["batch"], e["win_rate"], e["win_rate_low"],
                 e["win_rate_high"]) for e in shown["entries"]]
    web_rows = [(r["rank"], r["tier"], r["bot"], r["rating"], r["batch"], r["win_rate"], r["win_rate_low"],
                 r["win_rate_high"])
                for r in httpx.get(f"{web.url}/api/leaderboard", params={"pool": board.pool.pool_id}).json()["pools"][0]
                ["rows"]]
    assert cli_rows == web_rows and len(cli_rows) == len(board.entries)
    code, text, err = run_cli("leaderboard", board.pool.pool_id, "--server", web.arena.address)
    assert code == 0, err
    for e in board.entries:  # as the page shows them (test above)
        assert f"{e.rating:.2f}" in text and f"[{e.rating_low:.1f}, {e.rating_high:.1f}]" not in text
        assert f"[{e.batch.low:.2f}, {e.batch.high:.2f}]" in text
    assert OPENSKILL_NOTE in text and BATCH_NOTE in text
