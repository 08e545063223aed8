"""Sub-commands of `uno-arena` beyond the engine's, one module per area, each with `register(commands)`.

`commands` is the argparse sub-parsers object; a `bench` sub-command adds itself under the existing
`bench` parser via `bench_parsers(commands)`.
"""

from __future__ import annotations

import argparse
from typing import Any


def bench_parsers(commands: Any) -> Any:
    """The sub-parsers of `uno-arena bench`, so other areas can add `bench gateway`, `bench tournament`."""
    bench: argparse.ArgumentParser = commands.choices["bench"]
    for action in bench._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise RuntimeError("the bench command has no sub-commands")
