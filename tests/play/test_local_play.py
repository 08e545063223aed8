"""`uno-arena play --bot FILE.py:CLASS` and :func:`arena.local_play.play_local`: an author's bot plays in process
through the kit against built-in bots (no gateway, Redis or token), with a summary of N matches; every bad --bot
ends in one line and exit status 2."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.engine import Action, Observation, Rules
from arena.local_play import play_local
from arena.tournament.stats.intervals import wilson_interval
from bots import Bot

pytestmark = pytest.mark.integration  # starts processes (tests/support/tiers.py)

REPO = Path(__file__).resolve().parents[2]

BOT_FILE = textwrap.dedent('''
    from bots import Bot


    class Careful(Bot):
        name = "careful"

        def choose(self, observation, legal):
            return 0


    class Buggy(Bot):
        def __init__(self, seed=0):
            super().__init__(seed)
            self.asked = 0

        def choose(self, observation, legal):
            self.asked += 1
            if self.asked % 5 == 0:
                return {"hand": 1}["missing"]
            return len(legal) - 1


    class NotABot:
        pass


    class Plain:
        """No bots.Bot: a plain class with a choose method, made with no arguments."""

        def __init__(self):
            self.asked = 0

        def choose(self, observation, legal):
            self.asked += 1
            return len(legal) - 1


    plain_object = Plain()


    class NeedsArguments:
        def __init__(self, model):
            self.model = model

        def choose(self, observation, legal):
            return 0


    class NeedsAModel(Bot):
        def __init__(self, seed=0):
            raise FileNotFoundError("model.bin")

        def choose(self, observation, legal):
            return 0


    def first(observation, legal):
        return 0
''')


def _play(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "arena.cli", "play", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "mybot.py").write_text(BOT_FILE)
    return tmp_path


def _rows(stdout: str) -> dict[str, list[str]]:
    """Bot name -> the columns of its summary row."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("bot "))
    rows = {}
    for line in lines[start + 1:]:
        if not line or line.startswith((" ", "|")) or ":" in line.split()[0]:
            break
        name, *rest = line.split(maxsplit=1)
        rows[name] = rest[0].split()
    return rows


def test_an_author_s_bot_plays_n_matches_and_the_summary_has_wins_intervals_and_points(folder: Path) -> None:
    done = _play(folder, "--bot", "mybot.py:Careful", "--bots", "heuristic,random", "--matches", "6",
                 "--target-score", "100", "--seed", "5")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "6 matches, 4 players, flip, target 100 (seeds from --seed 5)"
    rows = _rows(done.stdout)
    assert list(rows) == ["careful", "heuristic", "random", "heuristic#2"]
    assert sum(int(row[0]) for row in rows.values()) == 6  # every match has one winner
    for row in rows.values():
        wins = int(row[0])
        low, high = wilson_interval(wins, 6) or (0.0, 1.0)
        assert row[1] == f"{wins / 6:.1%}" and row[2] == f"({low:.1%}-{high:.1%})"
        assert float(row[3]) >= 0
    assert "raised" not in done.stdout and done.stderr == ""


def test_a_bot_whose_code_raises_plays_on_and_the_summary_shows_its_first_traceback(folder: Path) -> None:
    done = _play(folder, "--bot", "mybot.py:Buggy", "--bots", "random", "--players", "2", "--matches", "2",
                 "--target-score", "60")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    line = next(line for line in lines if line.startswith("Buggy: its code raised on "))
    assert "(the kit answered the safe legal action each time)" in line
    assert line.endswith("decision(s) (the kit answered the safe legal action each time); the first, match "
                         f"local-1-1, decision {line.rsplit('decision ', 1)[1].split(':')[0]}: KeyError: 'missing'")
    shown = lines[lines.index(line) + 1:]
    assert shown[0] == "  | Traceback (most recent call last):" and shown[-1] == "  | KeyError: 'missing'"
    assert any("mybot.py" in row and "in choose" in row for row in shown)
    assert not any("bots/kit.py" in row for row in shown)  # the bot's own frames only
    assert "Traceback" not in done.stderr  # the kit's per-decision log is held back in process


def test_one_match_without_matches_is_told_move_by_move_then_summed_up(folder: Path) -> None:
    done = _play(folder, "--bot", "mybot.py:first", "--players", "3", "--target-score", "50", "--seed", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.match(r"(first|heuristic|random) deals first", lines[0]), lines[0]  # the players by their names
    assert any(line.startswith("final scores: ") for line in lines)
    assert "1 match, 3 players" in done.stdout and list(_rows(done.stdout)) == ["first", "heuristic", "random"]


@pytest.mark.parametrize("name", ["Plain", "plain_object"])
def test_a_plain_class_or_object_with_a_choose_method_is_a_bot(folder: Path, name: str) -> None:
    """No bots.Bot needed: a class with ``choose(observation, legal)`` (made with no arguments) or such an object."""
    done = _play(folder, "--bot", f"mybot.py:{name}", "--bots", "random", "--players", "2", "--matches", "2",
                 "--target-score", "60")
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(_rows(done.stdout)) == [name, "random"]
    assert "raised" not in done.stdout and done.stderr == ""


def test_a_module_spec_and_several_bots(folder: Path) -> None:
    done = _play(folder, "--bot", "mybot:Careful", "--bot", "mybot.py:first", "--bot", "mybot.py:Careful",
                 "--bots", "random", "--players", "4", "--matches", "2", "--target-score", "50")
    assert done.returncode == 0, done.stderr
    assert list(_rows(done.stdout)) == ["careful", "first", "careful#2", "random"]


@pytest.mark.parametrize(("args", "expected"), [
    (["--bot", "nothere.py:X"], "error: --bot 'nothere.py:X': no such file 'nothere.py'"),
    (["--bot", "mybot.py:Missing"], "error: --bot 'mybot.py:Missing': mybot.py has no 'Missing' (bot classes "
                                    "there: Buggy, Careful, NeedsAModel, NeedsArguments, Plain)"),
    (["--bot", "mybot.py:NotABot"], "error: --bot 'mybot.py:NotABot': NotABot is not a bot: a bot class defines "
                                    "choose(self, observation, legal) -> index"),
    (["--bot", "mybot.py:NeedsArguments"], "error: --bot 'mybot.py:NeedsArguments': NeedsArguments() raised "
                                           "TypeError: "),
    (["--bot", "mybot.py:NeedsAModel"], "error: --bot 'mybot.py:NeedsAModel': NeedsAModel(seed=0) raised "
                                        "FileNotFoundError: model.bin"),
    (["--bot", "no_such_module:X"], "error: --bot 'no_such_module:X': no module named 'no_such_module'"),
    (["--bot", "mybot.py"], "error: --bot 'mybot.py': give FILE.py:CLASS or MODULE:CLASS"),
    (["--bot", "heuristic,random"], "error: --bot 'heuristic,random': give FILE.py:CLASS or MODULE:CLASS"),
    (["--bots", "mybot.py:Careful"], "unknown built-in bot 'mybot.py:Careful'"),
    (["--bot", "mybot.py:Careful", "--players", "2", "--bots", "random", "--bot", "mybot.py:first",
      "--bot", "mybot:Buggy"], "error: 3 bots do not fit a 2-player match: give --players 3 or more"),
    (["--bot", "mybot.py:Careful", "--human", "1"], "error: --human plays one match among built-in bots"),
])
def test_a_bad_bot_is_named_in_one_line_with_exit_status_2(folder: Path, args: list[str], expected: str) -> None:
    done = _play(folder, *args, "--matches", "1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert expected in done.stderr and "Traceback" not in done.stderr


def test_options_are_never_abbreviated_so_bot_is_not_bots(folder: Path) -> None:
    done = _play(folder, "--bo", "random")
    assert done.returncode == 2 and "unknown option --bo: did you mean --bot?" in done.stderr
    done = _play(folder, "--matches", "0")
    assert done.returncode == 2 and "--matches: must be at least 1, got 0" in done.stderr


class _Counting(Bot):
    """Counts the decisions it is asked, across its instances (the kit makes one per match and seat)."""

    asked = 0

    def choose(self, observation: Observation, legal: Sequence[Action]) -> int:
        type(self).asked += 1
        return 0


def test_the_python_call_plays_and_prints_the_same_summary() -> None:
    out = io.StringIO()
    series = play_local(_Counting, ["random"], matches=3, seed=4, rules=Rules(target=60), out=out)
    assert len(series.records) == 3 and [e.name for e in series.table] == ["_Counting", "random"]
    assert {record.match_id for record in series.records} == {"local-4-1", "local-4-2", "local-4-3"}
    # The seats rotate: the author's bot sits first in one match and second in the next.
    assert [record.seats for record in series.records[:2]] == [["_Counting", "random"], ["random", "_Counting"]]
    assert _Counting.asked == sum(1 for r in series.records for d in r.decisions if r.seats[d.seat] == "_Counting")
    text = out.getvalue()
    assert text.startswith("3 matches, 2 players, flip, target 60 (seeds from --seed 4)")
    assert list(_rows(text)) == ["_Counting", "random"]
