"""The gauntlet pages and the rest of issue 38's item 8, against a real arena (embedded Redis, gateway with the
organizer API, a worker) and the web front served over HTTP: a gauntlet of built-in bots played by the worker is
listed (``/gauntlets``, ``/api/gauntlets``) and shown (``/gauntlets/ID``, ``/api/gauntlets/ID``) with the API's own
numbers, linked from the navigation and the status page; the status page counts in words that agree with the
number; a tournament's heading names its id once and its commitment names the salt, the seed and the secret; the
bot page charts the batch PL rating the leaderboards rank by and counts a registered bot's matches per version; a
headless Chromium takes a screenshot of the gauntlet page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.protocol import arena_pb2, game_pb2
from tests.support.waiting import wait_until
from tests.web.support import WebArena, browser, create, finished_spec, screenshot, wait_ended, web_arena

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

GAUNTLET_ID = "g-web"


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebArena]:
    with web_arena(tmp_path_factory.mktemp("gauntlet-web")) as running:
        spec = arena_pb2.GauntletSpec(candidate="heuristic", baseline="random", seats_per_table=2,
                                      rules=game_pb2.Rules(target=100), max_blocks=40, min_blocks=16)
        running.arena.client.start_gauntlet(spec, gauntlet_id=GAUNTLET_ID)

        def ended() -> bool:
            state = running.arena.client.get_gauntlet(GAUNTLET_ID).gauntlet.state
            return bool(state != arena_pb2.GAUNTLET_STATE_RUNNING)

        wait_until(ended, 300, f"gauntlet {GAUNTLET_ID} to end")
        yield running


def text_of(html: str) -> str:
    """The page's words, tags and repeated blanks out (what a reader sees, roughly)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_gauntlet_is_listed_and_shown_with_the_apis_numbers(web: WebArena) -> None:
    truth = web.arena.client.get_gauntlet(GAUNTLET_ID)
    g = truth.gauntlet
    listed = httpx.get(f"{web.url}/api/gauntlets").json()["gauntlets"]
    row = next(item for item in listed if item["gauntlet_id"] == GAUNTLET_ID)
    assert (row["candidate"], row["baseline"], row["seats"]) == ("heuristic", "random", 2)
    assert row["state"] in ("accepted", "rejected", "inconclusive") and row["blocks"] == g.blocks
    assert (row["llr"], row["llr_lower"], row["llr_upper"]) == pytest.approx((g.llr, g.llr_lower, g.llr_upper))
    assert row["mean_score"] == pytest.approx(g.mean_score) and row["verdict"].startswith(row["state"])

    one = httpx.get(f"{web.url}/api/gauntlets/{GAUNTLET_ID}").json()
    assert one["gauntlet"]["gauntlet_id"] == GAUNTLET_ID
    assert [b["block"] for b in one["blocks"]] == list(range(1, g.blocks + 1))
    assert [b["llr"] for b in one["blocks"]] == pytest.approx([b.llr for b in truth.blocks])
    assert one["gauntlet"]["seed_commitment"] == g.seed_commitment and one["gauntlet"]["seed_salt"]  # ended: shown
    assert "not corrected for the early stop" in one["estimate_note"]

    page = httpx.get(f"{web.url}/gauntlets/{GAUNTLET_ID}")
    assert page.status_code == 200
    words = text_of(page.text)
    for expected in ("heuristic", "random", f"{g.blocks} blocks played", f"{g.llr:+.3f}", f"{g.llr_lower:.3f} (H0)",
                     f"{g.llr_upper:.3f} (H1)", f"{g.mean_score:+.4f}", "estimate: mean block score",
                     f"uno-arena gauntlet verify {GAUNTLET_ID}"):
        assert expected in words, expected
    verdict = re.search(r"data-verdict><b>([^<]+)</b>", page.text)
    assert verdict is not None and verdict.group(1) == row["verdict"][:1].upper() + row["verdict"][1:]
    assert 'http-equiv="refresh"' not in page.text  # an ended gauntlet does not reload itself

    index = httpx.get(f"{web.url}/gauntlets")
    assert index.status_code == 200 and f'href="/gauntlets/{GAUNTLET_ID}"' in index.text


def test_the_typed_json_is_described_in_the_openapi_schema(web: WebArena) -> None:
    schema = httpx.get(f"{web.url}/openapi.json").json()
    assert "GauntletRow" in schema["components"]["schemas"]
    answer = schema["paths"]["/api/gauntlets/{gauntlet_id}"]["get"]["responses"]["200"]
    assert answer["content"]["application/json"]["schema"]["$ref"].endswith("/GauntletPage")


def test_an_unknown_gauntlet_is_a_404_naming_it(web: WebArena) -> None:
    page = httpx.get(f"{web.url}/gauntlets/no-such-gauntlet")
    assert page.status_code == 404 and "no-such-gauntlet" in page.text
    answer = httpx.get(f"{web.url}/api/gauntlets/no-such-gauntlet")
    assert answer.status_code == 404 and answer.json()["error"] == "NOT_FOUND"
    assert httpx.get(f"{web.url}/api/gauntlets", params={"limit": 0}).status_code == 422


def test_the_navigation_and_the_status_page_lead_to_the_gauntlets(web: WebArena) -> None:
    for path in ("/leaderboard", "/status", "/bots"):
        assert '<a href="/gauntlets">Gauntlets</a>' in httpx.get(f"{web.url}{path}").text, path
    status = httpx.get(f"{web.url}/status").text
    assert 'href="/gauntlets"' in status and "Running gauntlets" in status
    assert httpx.get(f"{web.url}/api/status").json()["gauntlets"] == []  # it ended


def test_counts_on_the_status_page_agree_with_their_nouns(web: WebArena) -> None:
    def facts() -> dict[str, str]:
        html = httpx.get(f"{web.url}/status").text
        return {re.sub(r"<[^>]+>", "", span).strip(): re.sub(r"<[^>]+>", "", number).strip()
                for number, span in re.findall(r'<div class="fact"><b>(.*?)</b><span>(.*?)</span>', html)}

    assert "0 tournaments running" in {f"{n} {words}" for words, n in facts().items()}
    running = create(web.arena, finished_spec("plural", ["random", "heuristic"], deals=400, target=500))
    try:
        wait_until(lambda: any(f"{n} {w}" in ("1 tournament running", "1 tournament waiting for workers")
                               for w, n in facts().items()), 60, "the status page to count one tournament")
        seen = {f"{n} {w}" for w, n in facts().items()}
        assert not any(line.startswith("1 tournaments") for line in seen), seen
    finally:
        web.arena.client.cancel_tournament(running, "test over")


def test_a_tournament_names_its_id_once_and_its_commitment_in_full(web: WebArena) -> None:
    unnamed = create(web.arena, finished_spec("", ["random", "heuristic"], deals=1))
    page = httpx.get(f"{web.url}/tournaments/{unnamed}").text
    heading = re.search(r"<h1>(.*?)</h1>", page, re.S)
    assert heading is not None and text_of(heading.group(1)).count(unnamed) == 1
    named = httpx.get(f"{web.url}/tournaments/{web.finished}").text
    heading = re.search(r"<h1>(.*?)</h1>", named, re.S)
    assert heading is not None and text_of(heading.group(1)).count(web.finished) == 1  # its name is its id
    assert "SHA-256 of the salt, the seed and the secret" in named
    assert "SHA-256 of salt and seed" not in named


def test_the_bot_page_charts_the_pl_rating_the_leaderboard_ranks_by(web: WebArena) -> None:
    client = web.arena.client
    tournament = client.get_tournament(web.finished)
    board = client.get_leaderboard(tournament.rating_pool)
    entry = next(e for e in board.entries if e.bot_name == "heuristic")
    assert board.ranked_by == arena_pb2.LEADERBOARD_RANKING_BATCH and entry.HasField("batch")  # what it ranks by
    standing = next(s for s in client.get_standings(web.finished).standings if s.bot_name == "heuristic")

    data = httpx.get(f"{web.url}/api/bots/heuristic").json()
    line = next(line for line in data["history"] if line["key"] == tournament.rating_pool)
    point = next(p for p in line["points"] if p["tournament_id"] == web.finished)
    assert (point["rating"], point["low"], point["high"]) == pytest.approx(
        (standing.batch.rating, standing.batch.low, standing.batch.high))

    def pool_rating_now() -> bool:  # the web front reads the leaderboards again within a second or two
        now = client.get_leaderboard(tournament.rating_pool)
        rating = next(e for e in now.entries if e.bot_name == "heuristic").batch.rating
        page = httpx.get(f"{web.url}/bots/heuristic").text
        return f'data-pool-rating="{rating:.4f}"' in page

    wait_until(pool_rating_now, 60, "the bot page to show the leaderboard's PL rating of heuristic")
    page = httpx.get(f"{web.url}/bots/heuristic").text
    assert "the PL rating the leaderboards rank by" in page and "OpenSkill rating per rating pool" not in page


def test_a_registered_bots_versions_count_its_matches(web: WebArena) -> None:
    web.arena.start_remote_bot("counted", "random")
    web.arena.wait_for_bots(["counted"])
    played = create(web.arena, finished_spec("versions", ["counted", "random"], deals=2))
    wait_ended(web.arena, played)
    matches = list(web.arena.client.list_matches(played, bot="counted"))
    versions = list(web.arena.client.get_bot("counted").versions)
    assert len(versions) == 1 and versions[0].matches == len(matches) > 0  # the API counts them now
    page = httpx.get(f"{web.url}/bots/counted").text
    table = re.search(r'<table class="data versions">(.*?)</table>', page, re.S)
    assert table is not None and "<th>Matches</th>" in table.group(1)
    row = re.search(rf'<tr data-version="{re.escape(versions[0].version)}">(.*?)</tr>', table.group(1), re.S)
    assert row is not None and f"<td>{len(matches)}</td>" in row.group(1)


def test_screenshots_of_the_gauntlet_page_and_a_bot_page(web: WebArena, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    driver: Any
    with browser(width=1100, height=1400) as driver:
        driver.get(f"{web.url}/status")
        driver.find_element(By.CSS_SELECTOR, 'nav a[href="/gauntlets"]').click()
        wait_until(lambda: driver.current_url.endswith("/gauntlets"), 20, "the gauntlets list")
        driver.find_element(By.CSS_SELECTOR, f'a[href="/gauntlets/{GAUNTLET_ID}"]').click()
        wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "svg.gauntlet-chart"), 20, "the gauntlet's chart")
        shot = screenshot(driver, tmp_path, "gauntlet")
        driver.get(f"{web.url}/bots/heuristic")
        wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "line.pool-now"), 20, "the pool's PL rating line")
        screenshot(driver, tmp_path, "bot-pl")
        violations = [entry for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert shot.stat().st_size > 10_000
    assert not violations, violations  # the LLR's bar and chart are SVG: no inline style the CSP refuses
