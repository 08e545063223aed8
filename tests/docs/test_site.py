"""The docs site builds: `mkdocs build --strict` (every link and anchor resolved by MkDocs itself, nothing
fetched), and its navigation lists every page of docs/."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "mkdocs.yml"


class _ConfigLoader(yaml.SafeLoader):
    """Reads mkdocs.yml without running its Python tags (the heading slug function is named by one)."""


_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def _nav_pages(entries: Any) -> list[str]:
    if isinstance(entries, str):
        return [entries]
    if isinstance(entries, list):
        return [page for entry in entries for page in _nav_pages(entry)]
    if isinstance(entries, dict):
        return [page for value in entries.values() for page in _nav_pages(value)]
    return []


def test_the_navigation_lists_every_page_once() -> None:
    config = yaml.load(CONFIG.read_text(encoding="utf-8"), Loader=_ConfigLoader)
    pages = _nav_pages(config["nav"])
    assert len(pages) == len(set(pages)), pages
    assert sorted(pages) == sorted(page.name for page in (ROOT / config["docs_dir"]).glob("*.md"))
    assert config["strict"] is True and config["theme"]["font"] is False


@pytest.mark.integration
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs and mkdocs-material are not installed (the test extra has them: pip install -e '.[test]')")
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(CONFIG),
                           "--site-dir", str(tmp_path / "site")], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=environment)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "WARNING" not in done.stderr, done.stderr
    built = tmp_path / "site"
    for page in ("getting-started", "writing-a-bot", "protocol", "organizers", "operations", "web", "benchmarks",
                 "architecture", "rules", "scenarios", "kit-api"):
        assert (built / page / "index.html").is_file(), page
    assert (built / "screenshots" / "leaderboard.png").is_file()
    external = sorted({reference for html in built.rglob("*.html")
                       for reference in re.findall(r'src="(https?://[^"]+)"', html.read_text(encoding="utf-8"))})
    assert not external, f"the site loads from elsewhere: {external}"
    assert "fonts.googleapis.com" not in (built / "index.html").read_text(encoding="utf-8")
