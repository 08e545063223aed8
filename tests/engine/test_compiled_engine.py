"""The compiled engine (mypyc, `uno-arena engine compile`) is the same engine: the engine's whole suite (its unit
tests, every rule scenario, the property tests) passes against it.

A copy of the checkout gets a compiled engine (what `uno-arena engine compile` builds in place), and the suite runs
there in a child process whose engine is checked to be the compiled one; `UNO_ARENA_ENGINE=pure` loads the sources
again, and `python -m benchmarks engine` reports both builds in one run. Skips, naming what is missing, where no
engine can be compiled (mypy's mypyc, a C compiler, the Python headers).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree

import pytest

from arena.engine import ENGINE_VARIABLE
from arena.engine.build import build_problem
from arena.scenarios.runner import scenario_files

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


def run(args: list[str], cwd: Path, timeout: float, pure: bool = False) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != ENGINE_VARIABLE}
    if pure:
        env[ENGINE_VARIABLE] = "pure"
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


@pytest.fixture(scope="module")
def compiled_checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout (the packages, the tests and the benchmarks) with its engine compiled."""
    problem = build_problem()
    if problem is not None:
        pytest.skip(f"the compiled engine cannot be built here: {problem}")
    root = tmp_path_factory.mktemp("compiled-engine")
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "node_modules", ".hypothesis")
    for name in ("arena", "bots", "workers", "tests", "benchmarks"):
        shutil.copytree(REPO / name, root / name, ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", root)
    built = run(["-m", "arena.engine.build"], root, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    return root


def test_the_copy_loads_the_compiled_engine_and_the_sources_on_request(compiled_checkout: Path) -> None:
    check = "import arena.engine as e, arena.engine.match as m; print(e.COMPILED, m.__file__)"
    compiled = run(["-c", check], compiled_checkout, timeout=60)
    assert compiled.returncode == 0, compiled.stderr
    flag, path = compiled.stdout.split()
    assert flag == "True" and Path(path).parent == compiled_checkout / "arena" / "engine" and path.endswith(".so")
    pure = run(["-c", check], compiled_checkout, timeout=60, pure=True)
    assert pure.stdout.split() == ["False", str(compiled_checkout / "arena" / "engine" / "match.py")], pure.stderr


SUITES = ("test_scenarios", "test_properties", "test_search", "test_match", "test_rules", "test_cards", "test_hands")
"""The engine's test modules that must have run against the compiled engine, each with no test skipped: every rule
scenario (tests/scenarios, through test_scenarios), the property tests, the search API, the unit tests."""


def test_the_engine_suite_passes_against_the_compiled_engine(compiled_checkout: Path) -> None:
    # The engine is imported (and checked compiled) before pytest starts, in the process that runs the suite.
    report = compiled_checkout / "engine-suite.xml"
    suite = ("import sys, pytest, arena.engine\n"
             "assert arena.engine.COMPILED, 'the compiled engine did not load'\n"
             "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-m', 'not integration', "
             f"'--junitxml={report}', 'tests/engine']))")
    result = run(["-c", suite], compiled_checkout, timeout=900)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    cases = ElementTree.parse(report).getroot().iter("testcase")
    ran: Counter[str] = Counter()
    for case in cases:
        module = case.get("classname", "").split(".")[2]  # tests.engine.test_x[.Class]
        assert case.find("skipped") is None, f"{module}::{case.get('name')} skipped against the compiled engine"
        ran[module] += 1
    assert all(ran[module] for module in SUITES), ran
    assert ran["test_scenarios"] >= len(scenario_files([REPO / "tests" / "scenarios"]))


def test_bench_engine_reports_both_builds(compiled_checkout: Path) -> None:
    bench = run(["-m", "benchmarks", "engine", "--seconds", "0.05", "--repeats", "1", "--no-rlcard"],
                compiled_checkout, timeout=120)
    assert bench.returncode == 0, bench.stderr
    for name in ("uno-arena classic 2p ", "uno-arena classic 2p mypyc ", "uno-arena flip 4p mypyc "):
        assert name in bench.stdout, bench.stdout
    assert "x pure" in bench.stdout
    version = run(["-m", "arena.cli", "--version"], compiled_checkout, timeout=60)
    assert "engine: compiled with mypyc" in version.stdout, version.stdout + version.stderr
