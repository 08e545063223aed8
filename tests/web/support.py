"""What the web front's tests share: a real arena with a finished tournament (``local_arena``: embedded Redis,
the gateway with the organizer API, a worker), the web front served by uvicorn on a free port, and a headless
Chromium driven by Selenium (skipped, naming what is missing, without Debian's chromium and chromium-driver)."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from arena.commands.web import public_client
from arena.local_arena import LocalArena, local_arena
from arena.processes import free_port
from arena.protocol import arena_pb2, game_pb2
from arena.web.app import create_app
from arena.web.guard import ClientLimits, Rate
from bots import make_bot
from tests.support.waiting import wait_until

CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
CHROMEDRIVER_PATHS = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
XSS = "<script>alert(1)</script><img src=x onerror=alert(2)>"
ROOMY_AUTHOR_FORMS = ClientLimits(author_forms=Rate(burst=100, per_minute=100),
                                  refused_tokens=Rate(burst=100, per_minute=100))
"""The default limits but for a bot's forms: the tests post them dozens of times from one address (the limits of
those forms are tested on a front of their own: tests/web/test_guard.py, tests/web/test_public_site.py)."""
SCREENSHOTS_ENV = "UNO_ARENA_WEB_SCREENSHOTS"
"""A folder to copy the screenshots into as well (the README's come from there); unset: only the test's tmp dir."""


def finished_spec(name: str, participants: list[str], *, seats: int = 2, deals: int = 2, target: int = 100,
                  seed: int = 7) -> arena_pb2.TournamentSpec:
    return arena_pb2.TournamentSpec(name=name, participants=participants, rules=game_pb2.Rules(target=target),
                                    seats_per_table=seats, deals_per_table=deals, seed=seed)


def create(arena: LocalArena, spec: arena_pb2.TournamentSpec) -> str:
    return str(arena.client.create_tournament(spec).tournament.tournament_id)


def wait_ended(arena: LocalArena, tournament_id: str, timeout: float = 120.0) -> None:
    def ended() -> bool:
        return bool(arena.client.get_tournament(tournament_id).state == arena_pb2.TOURNAMENT_STATE_FINISHED)

    wait_until(ended, timeout, f"tournament {tournament_id} to finish")


@dataclass
class WebArena:
    """A running arena, the web front over it, and the finished tournament it holds."""

    arena: LocalArena
    url: str
    app: Any
    finished: str
    xss_bot_token: str


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1:<free port> in a thread; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, name="web-front", daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, 30, "the web front to start")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@contextmanager
def web_arena(tmp: Path) -> Iterator[WebArena]:
    """local_arena with a registered bot whose description is an XSS attempt, a finished 2-seat tournament of
    built-in bots, and the web front (public client, admin client for incident counts) served on a free port."""
    with local_arena(worker_concurrency=1, work_dir=tmp) as arena:
        token = arena.client.register_bot("xss_bot", XSS).token
        finished = create(arena, finished_spec("webfinal", ["random", "heuristic", "random#2"]))
        wait_ended(arena, finished)
        client = public_client(arena.address)
        app = create_app(client, make_bot=make_bot, admin_client=arena.client, poll_s=0.2, limits=ROOMY_AUTHOR_FORMS)
        try:
            with serve(app) as url:
                yield WebArena(arena, url, app, finished, token)
        finally:
            client.close()


def all_frames(url: str, match_id: str, **params: Any) -> list[dict[str, Any]]:
    """Every frame of a match's replay through the paged ``/api/matches/ID/replay`` (following ``next``)."""
    frames: list[dict[str, Any]] = []
    start: int | None = 0
    while start is not None:
        answer = httpx.get(f"{url}/api/matches/{match_id}/replay", params={**params, "start": start, "count": 100},
                           timeout=60)
        answer.raise_for_status()
        page = answer.json()
        frames += page["frames"]
        start = page["next"]
    return frames


def _first(paths: tuple[str, ...], program: str) -> str | None:
    return next((p for p in paths if os.path.exists(p)), None) or shutil.which(program)


@contextmanager
def browser(width: int = 1200, height: int = 900) -> Iterator[Any]:
    """A headless Chromium (Selenium); skips the test naming what is missing."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[test]')")
    chromium = _first(CHROMIUM_PATHS, "chromium")
    driver_path = _first(CHROMEDRIVER_PATHS, "chromedriver")
    missing = [name for name, path in (("chromium", chromium), ("chromium-driver", driver_path)) if path is None]
    if missing:
        pytest.skip(f"the browser tests need Debian's {' and '.join(missing)} (apt-get install chromium "
                    "chromium-driver); not installed")
    options = Options()
    options.binary_location = str(chromium)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console: CSP violations show there
    driver = webdriver.Chrome(service=Service(str(driver_path)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def screenshot(driver: Any, folder: Path, name: str) -> Path:
    """Save a PNG of the page under ``folder`` (and under $UNO_ARENA_WEB_SCREENSHOTS when set)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    extra = os.environ.get(SCREENSHOTS_ENV)
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / path.name)
    return path
