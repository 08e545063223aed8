"""arena.gc_tuning: the garbage-collector settings of long-running processes, and who applies them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arena.cli import build_parser
from arena.gc_tuning import GC_ENV, THRESHOLDS, gc_thresholds
from tests.support.cli import run_cli


def test_thresholds_from_the_environment() -> None:
    assert gc_thresholds({}) == THRESHOLDS
    assert gc_thresholds({GC_ENV: " "}) == THRESHOLDS
    assert gc_thresholds({GC_ENV: "default"}) is None
    assert gc_thresholds({GC_ENV: "5000, 20, 50"}) == (5000, 20, 50)


@pytest.mark.parametrize("value", ["fast", "1,2", "1,2,3,4", "0,10,10", "-1,10,10", "1.5,10,10"])
def test_a_malformed_setting_names_the_variable_and_the_value(value: str) -> None:
    with pytest.raises(ValueError, match=rf"{GC_ENV}=.*{value[:3]}.*expected 'default' or three whole numbers"):
        gc_thresholds({GC_ENV: value})


def _in_fresh_interpreter(env_value: str | None) -> dict[str, object]:
    code = ("import gc, json; from arena.gc_tuning import configure_gc; before = gc.get_freeze_count(); "
            "now = configure_gc(); print(json.dumps({'now': now, 'frozen': gc.get_freeze_count() > before, "
            "'threshold': gc.get_threshold()}))")
    env = {"PATH": "/usr/bin:/bin"}
    if env_value is not None:
        env[GC_ENV] = env_value
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    result: dict[str, object] = json.loads(out.stdout)
    return result


@pytest.mark.integration
def test_configure_gc_freezes_start_up_and_sets_the_thresholds() -> None:
    result = _in_fresh_interpreter(None)
    assert result["now"] == result["threshold"] == list(THRESHOLDS)
    assert result["frozen"] is True


@pytest.mark.integration
def test_default_keeps_cpythons_own_settings() -> None:
    result = _in_fresh_interpreter("default")
    assert result["now"] == [700, 10, 10]
    assert result["frozen"] is False


@pytest.mark.parametrize("argv", [
    ["serve"], ["worker"], ["scheduler"], ["demo"], ["match", "--seats", "random,random"],
    ["bot", "run", "random", "--target", "x:1", "--token", "t"], ["bot", "check"],
])
def test_long_running_commands_configure_the_collector(argv: list[str]) -> None:
    assert build_parser().parse_args(argv).long_running is True


@pytest.mark.parametrize("argv", [["play"], ["scenario", "run", "x.json"], ["bots", "list"]])
def test_short_commands_leave_it_alone(argv: list[str]) -> None:
    assert getattr(build_parser().parse_args(argv), "long_running", False) is False


@pytest.mark.integration
def test_a_bad_setting_stops_a_long_running_command_with_a_clear_error() -> None:
    code, _out, err = run_cli("worker", env_extra={GC_ENV: "lots"})
    assert code == 2
    assert f"error: {GC_ENV}='lots': expected 'default' or three whole numbers" in err


@pytest.mark.integration
def test_each_worker_child_configures_the_collector_after_the_fork() -> None:
    """workers.signals runs on worker_process_init: a child of a plain `celery worker` is tuned too."""
    code = ("import gc, json; from workers.signals import _child_started; gc.set_threshold(700, 10, 10); "
            "_child_started(); print(json.dumps(gc.get_threshold()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin", "REDIS_URL": "redis://127.0.0.1:1/0"})
    assert json.loads(out.stdout.strip().splitlines()[-1]) == list(THRESHOLDS)
