"""The documentation stays complete and true: docs/rules.md, docs/scenarios.md, docs/kit-api.md, and the links of
every page of the site and of README.md.

What is checked, against the code rather than against a list kept here:
- every rule id the engine can cite (read from the engine's source) has an anchor in docs/rules.md, the anchors
  are exactly the project's rule ids, and a refusal's message links to an anchor that exists;
- every field of the types a kit bot sees (Observation, OpponentView, Action, Card, Face, Event), every action
  kind and decision, every kind of event the engine produces, and every field of the matching protobuf messages
  is named in docs/kit-api.md, and its example bot plays whole matches;
- every relative link of README.md and of every page of docs/ reaches an existing file and anchor (the site's
  own build, tests/docs/test_site.py, checks the same with the site's anchors);
- docs/scenarios.md names every key of the scenario schema, and its example scenario passes the real runner.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.engine import (
    ACTION_KINDS,
    DECISIONS,
    Action,
    Card,
    Event,
    Face,
    IllegalAction,
    Match,
    Observation,
    OpponentView,
    Rules,
    parse_card,
)
from arena.engine.errors import RULES_REFERENCE, rule_link
from arena.protocol import bot_pb2, cards_pb2, game_pb2
from arena.scenarios.runner import run_scenario
from tests.engine.test_scenarios import RULE_IDS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
ENGINE = ROOT / "arena" / "engine"
RULES_DOC = DOCS / "rules.md"
KIT_DOC = DOCS / "kit-api.md"
SCENARIO_DOC = DOCS / "scenarios.md"
SCHEMA = ROOT / "arena" / "scenarios" / "schema.json"

RULE_ID = re.compile(r"(?<![\w-])([A-Z][0-9]{1,2})(?!\w)")
EXPLICIT_ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^```")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


# ------------------------------------------------------------------------------------------------
# Reading markdown: anchors (explicit and GitHub heading slugs), links, code blocks
# ------------------------------------------------------------------------------------------------


def prose_lines(markdown: str) -> Iterator[str]:
    """The lines of ``markdown`` outside fenced code blocks."""
    fenced = False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield line


def heading_slug(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", title).strip().lower()
    text = re.sub(r"[`*_]", "", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """Every anchor a link may target in ``markdown``: ``<a id>`` tags and heading slugs (repeats numbered)."""
    found = set(EXPLICIT_ANCHOR.findall(markdown))
    seen: dict[str, int] = {}
    for line in prose_lines(markdown):
        match = HEADING.match(line)
        if match:
            slug = heading_slug(match.group(2))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(markdown: str) -> list[str]:
    """The targets of the markdown links in ``markdown``, outside code blocks."""
    return [target for line in prose_lines(markdown) for target in LINK.findall(line)]


def code_blocks(markdown: str, language: str) -> list[str]:
    """The fenced code blocks of ``markdown`` marked with ``language``."""
    return re.findall(rf"^```{language}\n(.*?)^```", markdown, flags=re.DOTALL | re.MULTILINE)


def unresolved_links(source: Path, only_under: str = "") -> list[str]:
    """The local links of the markdown file ``source`` whose file or anchor does not exist (only the links whose
    target starts with ``only_under``, when given)."""
    text = source.read_text(encoding="utf-8")
    problems = []
    for target in links(text):
        if re.match(r"^[a-z]+:", target) or not target.startswith(only_under):  # http:, https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        file = (source.parent / path_part).resolve() if path_part else source
        if not file.is_file():
            problems.append(f"{target}: no file {file}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
            problems.append(f"{target}: no anchor #{anchor} in {file.name}")
    return problems


def mentioned(name: str, markdown: str) -> bool:
    """``name`` appears in ``markdown`` as code: `name`, `name(...)` or `Type.name`."""
    return re.search(rf"`(?:\w+\.)?{re.escape(name)}(?:\([^`]*\))?`", markdown) is not None


# ------------------------------------------------------------------------------------------------
# Reading the engine: the rule ids it can cite and the kinds of event it makes
# ------------------------------------------------------------------------------------------------


def engine_trees() -> dict[str, ast.Module]:
    return {path.name: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(ENGINE.glob("*.py"))}


def cited_rule_ids() -> set[str]:
    """Every rule id in a string of the engine: refusals, event details, draw reasons, parse errors, docstrings."""
    ids: set[str] = set()
    for tree in engine_trees().values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                ids.update(RULE_ID.findall(node.value))
    return ids


def _id_constants(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and RULE_ID.fullmatch(n.value)}


def refusal_rule_ids() -> set[str]:
    """The rule ids an ``IllegalAction(...)`` is raised with: given literally, through a variable ``rule``, or
    returned for a decision (``_decision_rule``)."""
    ids: set[str] = set()
    for tree in engine_trees().values():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "IllegalAction"
                    and node.args):
                ids |= _id_constants(node.args[0])
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "rule" for t in node.targets):
                ids |= _id_constants(node.value)
            elif isinstance(node, ast.FunctionDef) and node.name == "_decision_rule":
                ids |= _id_constants(node)
    return ids


def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def engine_event_kinds() -> set[str]:
    """The ``type`` of every event the engine builds: ``Event("kind", ...)`` and ``new_event(("kind", ...))``."""
    kinds: set[str] = set()
    for tree in engine_trees().values():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
                continue
            first = node.args[0]
            kind = None
            if node.func.id == "Event":
                kind = _text(first)
            elif node.func.id == "new_event" and isinstance(first, ast.Tuple) and first.elts:
                kind = _text(first.elts[0])
            if kind is not None:
                kinds.add(kind)
    return kinds


def rule_anchors() -> list[str]:
    return EXPLICIT_ANCHOR.findall(RULES_DOC.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------------------
# (a) docs/rules.md: every rule id the engine cites, and refusals that link to it
# ------------------------------------------------------------------------------------------------


def test_the_engine_source_yields_the_rule_ids_it_raises() -> None:
    refused = refusal_rule_ids()
    assert {"T1", "T3", "T4", "A6", "F1", "F5", "U1", "E1", "E4", "P2", "S5"} <= refused, refused
    assert refused <= cited_rule_ids()


def test_every_rule_id_the_engine_cites_has_an_anchor_in_the_rules_reference() -> None:
    missing = sorted(cited_rule_ids() - set(rule_anchors()))
    assert not missing, f"rule ids the engine cites without an anchor in docs/rules.md: {missing}"


def test_the_rules_reference_has_each_project_rule_once_under_its_own_heading() -> None:
    text = RULES_DOC.read_text(encoding="utf-8")
    ids = rule_anchors()
    assert sorted(ids) == sorted(RULE_IDS), "docs/rules.md anchors differ from the project's rule ids"
    for rule in ids:
        assert re.search(rf'<a id="{rule}"></a>\n### {rule} · \S', text), f"{rule}: anchor not followed by its heading"


def test_rule_link_names_the_reference_and_refuses_malformed_ids() -> None:
    assert rule_link("A7") == f"{RULES_REFERENCE}#A7" == "docs/rules.md#A7"
    for bad in ("a7", "A", "7", "A7 ", "AA7", ""):
        with pytest.raises(ValueError, match="malformed rule id"):
            rule_link(bad)


def _link_resolves(link: str) -> bool:
    path, _, anchor = link.partition("#")
    file = ROOT / path
    return file.is_file() and anchor in anchors(file.read_text(encoding="utf-8"))


def test_a_refusal_names_its_rule_and_links_to_an_anchor_that_exists() -> None:
    match = Match.from_position(2, [["red-2/orange-reverse", "green-skip/purple-4"], ["yellow-1/wild"]],
                                ["blue-7/orange-3"], ["red-7/orange-1"], current=0)
    refusals = [
        (0, Action("play", parse_card("blue-9/purple-flip")), "T1"),        # not in the hand
        (0, Action("play", parse_card("green-skip/purple-4")), "T1"),       # matches nothing
        (0, Action("accept"), "A6"),                                        # no wild draw to answer
        (0, Action("choose_color", color="pink"), "F5"),                    # no colour is asked for
        (0, Action("play", parse_card("red-2/orange-reverse"), "blue"), "T8"),  # a colour with a coloured card
    ]
    for seat, action, rule in refusals:
        with pytest.raises(IllegalAction) as refused:
            match.apply(seat, action)
        assert refused.value.rule == rule
        message = str(refused.value)
        assert message.startswith(f"{rule}: ") and message.endswith(f"(see docs/rules.md#{rule})"), message
        assert _link_resolves(rule_link(rule))
    for rule in cited_rule_ids():
        assert _link_resolves(rule_link(rule)), rule


def test_a_scenario_failure_shows_the_rule_link(tmp_path: Path) -> None:
    scenario = {
        "name": "refused on purpose", "players": 2,
        "state": {"current": 0, "hands": [["green-skip/purple-4"], ["yellow-1/wild"]], "draw": ["blue-7/orange-3"],
                  "discard": ["red-7/orange-1"]},
        "steps": [{"seat": 0, "do": {"play": "green-skip/purple-4"}}],
    }
    path = tmp_path / "refused.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    result = run_scenario(path)
    assert not result.passed
    assert "was refused: T1: " in result.message and "(see docs/rules.md#T1)" in result.message, result.message


# ------------------------------------------------------------------------------------------------
# (b) docs/kit-api.md: every field, action kind, decision and event kind; the wire messages; the example bot
# ------------------------------------------------------------------------------------------------


def _public_members(cls: type) -> list[str]:
    """Fields of a dataclass or named tuple, plus its public properties and methods (not dunders)."""
    names = [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else list(cls._fields)  # type: ignore[attr-defined]
    own = [name for name, value in vars(cls).items()
           if not name.startswith("_") and (isinstance(value, property) or callable(value)) and name not in names]
    return names + own


@pytest.mark.parametrize("cls", [Observation, OpponentView, Action, Card, Face, Event], ids=lambda c: c.__name__)
def test_every_public_member_of_the_kit_types_is_documented(cls: type) -> None:
    text = KIT_DOC.read_text(encoding="utf-8")
    members = _public_members(cls)
    assert len(members) >= 2
    missing = [name for name in members if not mentioned(name, text)]
    assert not missing, f"{cls.__name__} members not in docs/kit-api.md: {missing}"
    assert f"## {cls.__name__}" in text or f"### {cls.__name__}" in text, f"no section for {cls.__name__}"


def test_every_action_kind_and_decision_is_documented() -> None:
    text = KIT_DOC.read_text(encoding="utf-8")
    missing = [name for name in (*ACTION_KINDS, *DECISIONS) if not mentioned(name, text)]
    assert not missing, f"not in docs/kit-api.md: {missing}"


def _event_kinds_table(text: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z_]+)` \| ", text.split("## Events", 1)[1].split("\n## ", 1)[0],
                          flags=re.MULTILINE))


def test_every_event_kind_the_engine_makes_has_a_row_in_the_events_table() -> None:
    kinds = engine_event_kinds()
    assert {"play", "draw", "pass", "flip", "round_over", "reveal"} <= kinds, kinds
    documented = _event_kinds_table(KIT_DOC.read_text(encoding="utf-8"))
    missing = sorted(kinds - documented)
    assert not missing, f"event kinds without a row in docs/kit-api.md: {missing}"


def _random_match_events(rules: Rules, seed: int, players: int) -> set[str]:
    """The event kinds of a whole match of random legal choices (challenges and catches included)."""
    rng = random.Random(seed)
    match = Match(players=players, seed=seed, rules=rules)
    for _ in range(20_000):
        if match.decision == "match_over":
            break
        if match.decision == "round_over":
            match.next_round()
            continue
        legal = match.legal_actions()
        match.apply(match.current, legal[rng.randrange(len(legal))])
    assert match.decision == "match_over"
    return {event.type for event in match.events}


def test_the_events_of_real_matches_are_all_documented() -> None:
    seen: set[str] = set()
    options = [Rules(target=150), Rules(target=150, uno_penalty="catch", start_flip="flip"),
               Rules(variant="classic", target=150), Rules(target=150, bluffing=False, scoring="lowest")]
    for rules in options:
        for seed in range(3):
            seen |= _random_match_events(rules, seed, players=2 + seed)
    assert seen <= engine_event_kinds(), f"events the source scan missed: {sorted(seen - engine_event_kinds())}"
    assert {"play", "draw", "flip", "round_over", "match_over"} <= seen
    missing = sorted(seen - _event_kinds_table(KIT_DOC.read_text(encoding="utf-8")))
    assert not missing, f"event kinds without a row in docs/kit-api.md: {missing}"


@pytest.mark.parametrize("message", [
    game_pb2.Observation, game_pb2.OpponentView, game_pb2.Event, cards_pb2.Action, cards_pb2.Card, cards_pb2.Face,
    bot_pb2.DecisionRequest, bot_pb2.Decision,
], ids=lambda m: m.DESCRIPTOR.name)
def test_every_field_of_the_wire_messages_a_bot_reads_is_documented(message: Any) -> None:
    text = KIT_DOC.read_text(encoding="utf-8")
    fields = [field.name for field in message.DESCRIPTOR.fields]
    missing = [name for name in fields if not mentioned(name, text)]
    assert not missing, f"{message.DESCRIPTOR.name} fields not in docs/kit-api.md: {missing}"


def _example_chooser() -> Callable[[Observation, list[Action]], int]:
    blocks = [block for block in code_blocks(KIT_DOC.read_text(encoding="utf-8"), "python")
              if "from bots.kit import play" in block]
    assert len(blocks) == 1, "docs/kit-api.md should hold one runnable example bot"
    namespace: dict[str, Any] = {"__name__": "kit_api_example"}  # not "__main__": the example does not connect
    exec(compile(blocks[0], str(KIT_DOC), "exec"), namespace)
    chooser: Callable[[Observation, list[Action]], int] = namespace["choose"]
    return chooser


@pytest.mark.parametrize("rules", [Rules(target=200), Rules(variant="classic", target=200),
                                   Rules(target=200, uno_penalty="catch")], ids=["flip", "classic", "catch"])
def test_the_example_bot_plays_whole_matches(rules: Rules) -> None:
    choose = _example_chooser()
    match = Match(players=3, seed=11, rules=rules)
    rng = random.Random(11)
    decisions = 0
    while match.decision != "match_over" and decisions < 20_000:
        if match.decision == "round_over":
            match.next_round()
            continue
        seat = match.current
        assert seat is not None
        legal = match.legal_actions()
        if seat == 0:  # the example bot; the other seats play at random
            index = choose(match.observation(seat), legal)
            assert isinstance(index, int) and 0 <= index < len(legal)
            if any(action.kind == "play" for action in legal):
                assert legal[index].kind in ("play", "catch"), "the example bot draws while it could play"
        else:
            index = rng.randrange(len(legal))
        match.apply(seat, legal[index])
        decisions += 1
    assert match.decision == "match_over"


# ------------------------------------------------------------------------------------------------
# (c) links: README.md to docs/, and between the docs
# ------------------------------------------------------------------------------------------------


def test_the_readme_links_to_each_document_for_bot_authors() -> None:
    targets = {target.partition("#")[0] for target in links((ROOT / "README.md").read_text(encoding="utf-8"))}
    assert {"docs/rules.md", "docs/scenarios.md", "docs/kit-api.md"} <= targets


def test_every_readme_link_reaches_an_existing_file_and_anchor() -> None:
    problems = unresolved_links(ROOT / "README.md")
    assert not problems, f"README.md: {problems}"


def test_the_readme_links_to_every_page_of_the_site() -> None:
    targets = {target.partition("#")[0] for target in links((ROOT / "README.md").read_text(encoding="utf-8"))}
    pages = {f"docs/{page.name}" for page in DOCS.glob("*.md")} - {"docs/index.md"}
    assert pages <= targets, f"pages README.md does not link to: {sorted(pages - targets)}"


@pytest.mark.parametrize("source", sorted(page.name for page in DOCS.glob("*.md")))
def test_every_local_link_of_the_docs_reaches_an_existing_file_and_anchor(source: str) -> None:
    problems = unresolved_links(DOCS / source)
    assert not problems, f"docs/{source}: {problems}"


def test_the_link_checker_catches_a_missing_anchor_and_file(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text('# Top\n<a id="X1"></a>\n[ok](#X1) [ok](#top) [bad](#X9) [gone](nowhere.md)\n'
                    "```\n[in code](#ignored)\n```\n", encoding="utf-8")
    missing_file = (tmp_path / "nowhere.md").resolve()
    assert unresolved_links(page) == ["#X9: no anchor #X9 in page.md", f"nowhere.md: no file {missing_file}"]
    assert unresolved_links(page, only_under="nowhere") == [f"nowhere.md: no file {missing_file}"]


def test_heading_slugs_follow_github() -> None:
    assert heading_slug("Tournaments on Celery + Redis") == "tournaments-on-celery--redis"
    assert heading_slug("UNO, end of round and scoring") == "uno-end-of-round-and-scoring"
    assert heading_slug("The wire: protocol buffers") == "the-wire-protocol-buffers"


# ------------------------------------------------------------------------------------------------
# (d) docs/scenarios.md: every key of the schema, and an example that passes
# ------------------------------------------------------------------------------------------------


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return schema


def test_the_number_of_scenario_files_the_docs_give_is_the_suites() -> None:
    page = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    stated = re.findall(r"`tests/scenarios/`: (\d[\d,]*) files", page)
    files = list((ROOT / "tests" / "scenarios").rglob("*.json"))
    assert stated == [str(len(files))], f"docs/getting-started.md gives {stated} scenario files; there are {len(files)}"


def test_the_scenario_format_names_every_top_level_key_of_the_schema() -> None:
    text = SCENARIO_DOC.read_text(encoding="utf-8")
    keys = list(_schema()["properties"])
    assert {"name", "players", "state", "deal", "steps"} <= set(keys)
    missing = [key for key in keys if f"| `{key}` |" not in text]
    assert not missing, f"top-level scenario keys without a row in docs/scenarios.md: {missing}"


def test_the_scenario_format_names_every_nested_key_of_the_schema() -> None:
    text = SCENARIO_DOC.read_text(encoding="utf-8")
    schema = _schema()
    definitions = schema["$defs"]
    nested = {
        "options": schema["properties"]["options"]["properties"],
        "state": schema["properties"]["state"]["properties"],
        "deal": schema["properties"]["deal"]["properties"],
        "step": definitions["act"]["properties"],
        "expect": definitions["expect"]["properties"]["expect"]["properties"],
        "view": definitions["expect"]["properties"]["expect"]["properties"]["view"]["properties"],
    }
    bare, *shaped = definitions["action"]["oneOf"]
    actions = {f"do.{entry}": entry for entry in bare["enum"]}
    actions.update({f"do.{option['required'][0]}": option["required"][0] for option in shaped})
    keys = {f"{where}.{key}": key for where, names in nested.items() for key in names} | actions
    # named as code (`key`) or as a JSON key or string ("key") in a code span
    missing = [where for where, key in keys.items() if not mentioned(key, text) and f'"{key}"' not in text]
    assert not missing, f"scenario keys not in docs/scenarios.md: {missing}"


def test_the_example_scenario_passes_the_real_runner(tmp_path: Path) -> None:
    examples = code_blocks(SCENARIO_DOC.read_text(encoding="utf-8"), "json")
    assert examples, "docs/scenarios.md should show an example scenario"
    for number, example in enumerate(examples):
        data = json.loads(example)
        path = tmp_path / f"example-{number}.json"
        path.write_text(example, encoding="utf-8")
        result = run_scenario(path)
        assert result.passed, result.message
        assert set(data.get("rules", [])) <= set(rule_anchors())


def test_the_in_process_play_example_runs_and_prints_its_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """The Python call of docs/kit-api.md ("Playing your bot in process") plays and prints the summary."""
    (block,) = [b for b in code_blocks(KIT_DOC.read_text(encoding="utf-8"), "python") if "play_local(" in b]
    namespace: dict[str, Any] = {"__name__": "kit_api_in_process"}
    exec(compile(block, str(KIT_DOC), "exec"), namespace)
    out = capsys.readouterr().out
    assert out.startswith("4 matches, 3 players, flip, target 500 (seeds from --seed 7)")
    assert "first-choice" in out and len(namespace["series"].records) == 4


def test_the_in_process_play_commands_of_the_kit_doc_parse() -> None:
    """Each `uno-arena play --bot` line of docs/kit-api.md is a valid command line of the CLI."""
    from arena.cli import build_parser

    lines = [line.split("#")[0].split() for line in KIT_DOC.read_text(encoding="utf-8").splitlines()
             if line.startswith("uno-arena play --bot")]
    assert len(lines) == 3
    for words in lines:
        args = build_parser().parse_args(words[1:])
        assert args.bot and args.command == "play"
