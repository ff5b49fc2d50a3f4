"""Bots from outside cardtable, named in ``--bots`` (docs/bots.md):

- ``module:Class``: ``Class`` from an importable module;
- ``path/to/bot.py:Class``: ``Class`` from a Python file;
- a name that an installed distribution registers in the entry point group ``cardtable.bots``;
- ``cmd:COMMAND``: a program in any language speaking docs/bot-protocol.md (``ai/process_bot.py``).

A Python bot is built as ``Class(seed, seat)`` and runs behind ``ai.fallback.GuardedBot``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable
from functools import lru_cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from cardtable.engine.errors import ParseError

ENTRY_POINT_GROUP = "cardtable.bots"
Factory = Callable[[bytes, int, "float | None"], Any]


@lru_cache(maxsize=256)
def plugin_factory(spec: str) -> Factory:
    """The factory ``(seed, seat, time_budget) -> bot`` for a plugin spec, or a ParseError."""
    if spec.startswith("cmd:"):
        from cardtable.ai.process_bot import process_bot_factory

        return process_bot_factory(spec[4:])
    registered = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    if spec in registered:
        try:
            target = registered[spec].load()
        except Exception as err:  # noqa: BLE001 - a broken plugin is bad input, said in one line
            value = registered[spec].value
            raise ParseError(f"bot {spec!r} (entry point {value}) fails to load: {err}") from None
        return _python_factory(spec, target)
    where, colon, attr = spec.rpartition(":")
    if not colon or not where or not attr:
        known = ", ".join(["random", "heuristic", "ismcts", *sorted(registered)])
        raise ParseError(f"unknown bot {spec!r}: choose from {known}, or give module:Class, "
                         "path/to/bot.py:Class or cmd:COMMAND")
    module = _load_file(where) if where.endswith(".py") or "/" in where else _load_module(where)
    target = getattr(module, attr, None)
    if target is None:
        raise ParseError(f"bot {spec!r}: {where} has no {attr!r}")
    return _python_factory(spec, target)


def _python_factory(spec: str, target: Any) -> Factory:
    if not callable(target):
        raise ParseError(f"bot {spec!r} is not a class or a function")

    def build(seed: bytes, seat: int, time_budget: float | None) -> Any:
        from cardtable.ai.fallback import GuardedBot

        return GuardedBot(target(seed, seat), seed, seat)

    return build


def _load_module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as err:
        raise ParseError(f"cannot import bot module {name!r}: {err}") from None


def _load_file(where: str) -> Any:
    path = Path(where).expanduser().resolve()
    if not path.is_file():
        raise ParseError(f"bot file {where!r} does not exist")
    name = "cardtable_bot_" + hashlib.sha256(str(path).encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ParseError(f"bot file {where!r} is not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # noqa: BLE001 - a broken plugin is bad input, said in one line
        del sys.modules[name]
        raise ParseError(f"bot file {where!r} fails to load: {type(err).__name__}: {err}") from None
    return module
