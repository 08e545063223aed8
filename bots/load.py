"""Finding an author's bot by name, for playing it in process (``uno-arena play --bot mybot.py:MyBot``).

A spec is ``FILE.py:NAME`` (its folder goes first on ``sys.path`` so its own imports work) or ``MODULE:NAME``.
``NAME`` is anything the kit plays (:func:`bots.kit.bot_factory`); a class is built once here so a bot that cannot
be constructed is named before any match starts. A ``play(...)`` call the file makes at import dials nothing
(:func:`bots.kit.importing_for_local_play`). Every problem is a :class:`BotLoadError` of one line.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import cast

from arena.players import Bot

from .kit import Playable, has_choose, importing_for_local_play


class BotLoadError(ValueError):
    """The bot of a spec cannot be played: the message says why, in one line."""


@dataclass(frozen=True)
class LoadedBot:
    """An author's bot, found: what the kit plays, and the name it plays under."""

    spec: str
    name: str
    bot: Playable


def load_bot(spec: str) -> LoadedBot:
    """The bot ``spec`` names (see the module docstring); :class:`BotLoadError` when it cannot be played."""
    where, colon, attribute = spec.rpartition(":")
    if not colon or not where or not attribute.isidentifier():
        raise BotLoadError(f"--bot {spec!r}: give FILE.py:CLASS or MODULE:CLASS, e.g. mybot.py:MyBot")
    module = _import_file(spec, Path(where)) if where.endswith(".py") or os.sep in where else _import(spec, where)
    found = getattr(module, attribute, None)
    if found is None:
        classes = sorted(name for name, value in vars(module).items()
                         if inspect.isclass(value) and value is not Bot and getattr(value, "__module__", "") ==
                         module.__name__ and (issubclass(value, Bot) or has_choose(value)))
        known = (f" (bot classes there: {', '.join(classes)})" if classes
                 else " (it defines no class with a choose(observation, legal) method)")
        raise BotLoadError(f"--bot {spec!r}: {where} has no {attribute!r}{known}")
    return LoadedBot(spec, _name_of(found, attribute), _checked(spec, attribute, found))


def _import_file(spec: str, path: Path) -> ModuleType:
    if not path.is_file():
        raise BotLoadError(f"--bot {spec!r}: no such file {str(path)!r} (give the path of your bot's .py file)")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = f"uno_arena_bot_{path.stem}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise BotLoadError(f"--bot {spec!r}: {str(path)!r} cannot be imported as Python")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        with importing_for_local_play(str(path)):
            module_spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:
        sys.modules.pop(name, None)
        raise BotLoadError(f"--bot {spec!r}: importing {str(path)!r} failed: {_one_line(error)}") from None
    return module


def _import(spec: str, name: str) -> ModuleType:
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        with importing_for_local_play(name):
            return importlib.import_module(name)
    except (Exception, SystemExit) as error:
        missing = error.name if isinstance(error, ModuleNotFoundError) else None
        if missing and (name == missing or name.startswith(missing + ".")):
            raise BotLoadError(f"--bot {spec!r}: no module named {name!r} (for a file, give its path ending in "
                               ".py)") from None
        raise BotLoadError(f"--bot {spec!r}: importing {name!r} failed: {_one_line(error)}") from None


def _checked(spec: str, attribute: str, found: object) -> Playable:
    """``found`` if the kit can play it; a class is built once to find a constructor that fails."""
    if isinstance(found, Bot):
        return found
    if inspect.isclass(found):
        subclass = issubclass(found, Bot)
        if not subclass and not has_choose(found):
            raise BotLoadError(f"--bot {spec!r}: {attribute} is not a bot: a bot class defines "
                               "choose(self, observation, legal) -> index (a bots.Bot subclass or any class)")
        made = f"{attribute}(seed=0)" if subclass else f"{attribute}()"
        try:
            if subclass:
                cast(type[Bot], found)(seed=0)
            else:
                found()
        except Exception as error:
            raise BotLoadError(f"--bot {spec!r}: {made} raised {_one_line(error)}"
                               f"{'' if subclass else ' (a bot class is made with no arguments)'}") from None
        return cast(Playable, found)
    if has_choose(found) or inspect.isfunction(found):
        return cast(Playable, found)  # the kit calls choose(observation, legal)
    raise BotLoadError(f"--bot {spec!r}: {attribute} is a {type(found).__name__}, not a bot: give a function "
                       "(observation, legal) -> index or a class with a choose(observation, legal) method")


def _name_of(found: object, attribute: str) -> str:
    """The name the bot plays under: its class's own ``name`` when it sets one, else the name in the spec."""
    cls = found if inspect.isclass(found) else type(found)
    own = getattr(cls, "name", None) if isinstance(found, Bot) or inspect.isclass(found) else None
    return own if isinstance(own, str) and own and own != Bot.name else attribute


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
