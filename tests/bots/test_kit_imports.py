"""What a bot's process loads: ``import bots.kit`` brings the engine, the bot interface, the protocol's encoding and
gRPC, and none of the arena's machinery (tournament maths, SPRT, matchmaking, ratings, metrics, Celery, Redis).
Before the bot interface moved below the runner the kit loaded 371 modules, among them openskill and
prometheus_client; now 274 (Python 3.11, this venv)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arena.players import BUILTIN_NAMES, Bot
from bots import BUILTIN_BOTS, make_bot

FORBIDDEN = ("arena.tournament", "arena.runner", "arena.service", "arena.store", "arena.server", "arena.relay",
             "arena.metrics", "arena.commands", "workers", "openskill", "prometheus_client", "celery", "kombu",
             "redis")
"""Packages a bot never needs (a module of each, or the package itself, must not be loaded)."""

NEEDED = ("arena.engine", "arena.players", "arena.protocol.convert", "grpc", "bots.kit")


def _loaded_by(statement: str) -> list[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded: list[str] = json.loads(out)
    return loaded


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.integration
def test_importing_the_kit_loads_only_what_a_bot_needs() -> None:
    loaded = _loaded_by("import bots.kit")
    assert [m for m in loaded if any(_within(m, p) for p in FORBIDDEN)] == []
    assert [p for p in NEEDED if p not in loaded] == []


@pytest.mark.integration
def test_the_check_sees_what_the_arena_loads() -> None:
    loaded = _loaded_by("import arena.runner")  # the runner does load the tournament maths and the metrics
    assert "arena.tournament.stats.ratings" in loaded and "prometheus_client" in loaded


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_every_reserved_built_in_name_has_its_bot(name: str) -> None:
    bot = make_bot(name, 3)
    assert isinstance(bot, Bot) and bot.name == name and bot.seed == 3


def test_the_built_in_bots_are_exactly_the_reserved_names() -> None:
    assert sorted(BUILTIN_BOTS) == sorted(BUILTIN_NAMES)
    with pytest.raises(ValueError, match="unknown built-in bot 'nobody'"):
        make_bot("nobody", 0)
