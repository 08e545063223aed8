"""`bot check --run`: a script path that is not there from the current folder is named before anything starts,
with the path that is (:func:`arena.commands.run_command.missing_script`)."""

from __future__ import annotations

from pathlib import Path

from arena.commands.run_command import missing_script


def test_a_path_from_another_folder_is_named_with_the_one_that_works(tmp_path: Path) -> None:
    (tmp_path / "bot.js").write_text("")
    line = missing_script(["node", "bots/js/bot.js", "--target", "{target}"], tmp_path)
    assert line == (f"--run: 'bots/js/bot.js' is not a file in {tmp_path} (the command runs in the current "
                    "folder): here it is 'bot.js'")
    assert missing_script(["node", "bot.js", "--target", "{target}"], tmp_path) == ""
    assert missing_script(["node", str(tmp_path / "bot.js")], Path("/")) == ""


def test_code_options_placeholders_and_programs_are_not_script_paths(tmp_path: Path) -> None:
    assert missing_script(["python", "-c", "import a; a.py"], tmp_path) == ""
    assert missing_script(["python", "-m", "mybot.py"], tmp_path) == ""
    assert missing_script(["./no-such-program", "{target}"], tmp_path) == ""
    assert missing_script(["sh", "--flag=x.sh", "{name}.py"], tmp_path) == ""
    assert "give the script's path from here" in missing_script(["python", "nothere.py"], tmp_path)
