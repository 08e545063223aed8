"""The rule-scenario suite: every file under tests/scenarios passes, every RULES.md id is covered, and the
`uno-arena scenario run` command keeps its contract (output lines, exit codes 0/1/2)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.scenarios.runner import InvalidScenario, load_scenario, run_scenario, scenario_files
from tests.support.cli import cli_in_process

SUITE = Path(__file__).resolve().parents[1] / "scenarios"
RULE_IDS_FILE = Path(__file__).resolve().parents[1] / "data" / "rule-ids.txt"
SHARED = Path(__file__).resolve().parents[3] / "shared"
"""The rules contract beside the checkout, when it is there: the shipped copies are checked against it."""


def read_rule_ids(path: Path) -> list[str]:
    """The ids of a rule-id list: one a line, ``#`` comments and blank lines skipped."""
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def rules_md_ids(path: Path) -> list[str]:
    """The rule ids RULES.md defines, in its order (each rule is a list item that starts with its bold id)."""
    return re.findall(r"^- \*\*([A-Z]\d+)\*\*", path.read_text(encoding="utf-8"), flags=re.MULTILINE)


RULE_IDS = read_rule_ids(RULE_IDS_FILE)
"""The project's rule ids (tests/data/rule-ids.txt, the ids of RULES.md)."""
FILES = scenario_files([SUITE])


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SUITE)) for p in FILES])
def test_scenario_passes(path: Path) -> None:
    result = run_scenario(path)
    assert result.passed, result.message


def test_every_rule_id_has_a_scenario() -> None:
    covered = {rule for path in FILES for rule in load_scenario(path).get("rules", [])}
    missing = [rule for rule in RULE_IDS if rule not in covered]
    assert not missing, f"rule ids without a scenario: {missing}"


def test_section_11_worked_examples_are_scenarios() -> None:
    assert len(list((SUITE / "worked").glob("*.json"))) >= 8


def test_rule_id_list_matches_rules_md() -> None:
    """The shipped list holds each section's rules numbered from 1, once each; when RULES.md is beside the
    checkout, exactly its ids in its order."""
    sections = {"D": 5, "S": 5, "T": 8, "A": 8, "F": 6, "X": 6, "U": 1, "E": 5, "P": 3, "V": 6, "C": 5}
    expected = [f"{section}{number}" for section, count in sections.items() for number in range(1, count + 1)]
    assert sorted(RULE_IDS) == sorted(expected)
    assert len(set(RULE_IDS)) == len(RULE_IDS)
    if (SHARED / "RULES.md").exists():
        assert rules_md_ids(SHARED / "RULES.md") == RULE_IDS, "tests/data/rule-ids.txt differs from RULES.md's ids"


def test_shared_examples_pass() -> None:
    """The format's reference examples ship in tests/scenarios/examples and pass; when ../shared is beside the
    checkout, they are its examples, file for file."""
    shipped = {path.name: path for path in scenario_files([SUITE / "examples"])}
    assert len(shipped) >= 13, sorted(shipped)
    for path in shipped.values():
        result = run_scenario(path)
        assert result.passed, f"{path.name}: {result.message}"
    shared = SHARED / "scenarios" / "examples"
    if shared.exists():
        for path in scenario_files([shared]):
            assert path.name in shipped, f"{path.name} of ../shared is not in tests/scenarios/examples"
            assert shipped[path.name].read_bytes() == path.read_bytes(), f"{path.name} differs from ../shared's"


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """`uno-arena scenario run ARGS`: its exit status and standard output."""
    code, out, _err = cli_in_process(capsys, "scenario", "run", *args)
    return code, out


def _write(tmp_path: Path, name: str, data: dict[str, object]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


BASE = {
    "name": "tiny",
    "players": 2,
    "state": {"current": 0, "hands": [["red-2/teal-8", "green-4/purple-3"], ["yellow-1/orange-6"]],
              "draw": ["red-9/pink-5"], "discard": ["red-7/orange-1"]},
    "steps": [{"seat": 0, "do": {"play": "red-2/teal-8", "uno": True}}, {"expect": {"current": 1}}],
}


def test_cli_passes_and_prints_the_summary_last(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _cli(capsys, str(_write(tmp_path, "ok.json", BASE)))
    assert code == 0
    assert out.splitlines() == ["PASS tiny", "1 passed, 0 failed"]


def test_cli_failure_names_the_step_and_both_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = dict(BASE, steps=[{"seat": 0, "do": {"play": "red-2/teal-8", "uno": True}}, {"expect": {"current": 0}}])
    code, out = _cli(capsys, str(_write(tmp_path, "fail.json", bad)))
    assert code == 1
    assert out.splitlines()[0] == "FAIL tiny: step 2: current: expected 0, got 1"
    assert out.splitlines()[-1] == "0 passed, 1 failed"


def test_cli_invalid_file_exits_2_with_path_and_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong_key = dict(BASE, flavour="x")
    contradiction = dict(BASE, state=dict(BASE["state"], color="blue"))  # type: ignore[arg-type]
    for name, data in (("a.json", wrong_key), ("b.json", contradiction)):
        code, out = _cli(capsys, str(_write(tmp_path, name, data)))
        assert code == 2, out
        assert "INVALID" in out and name in out
    not_json = tmp_path / "c.json"
    not_json.write_text("{")
    code, out = _cli(capsys, str(not_json))
    assert code == 2 and "not JSON" in out


def test_rejected_step_must_be_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = dict(BASE, steps=[{"seat": 0, "do": {"play": "red-2/teal-8"}, "rejected": True}])
    code, out = _cli(capsys, str(_write(tmp_path, "r.json", data)))
    assert code == 1 and "expected a refusal" in out
    ok = dict(BASE, steps=[{"seat": 0, "do": {"play": "red-10/teal-8"}, "rejected": True},
                           {"seat": 1, "do": "draw", "rejected": True}])
    assert _cli(capsys, str(_write(tmp_path, "ok.json", ok)))[0] == 0


def test_load_scenario_json_path_in_errors(tmp_path: Path) -> None:
    data = dict(BASE, steps=[{"seat": 0, "do": {"play": "red-2/teal-8", "colour": "red"}}])
    with pytest.raises(InvalidScenario) as error:
        load_scenario(_write(tmp_path, "p.json", data))
    assert error.value.where.startswith("$.steps[0]")
