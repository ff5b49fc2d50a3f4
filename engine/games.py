"""The registry of games: what ``Match`` needs from each game module."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cardtable.engine.errors import ParseError
from cardtable.engine.game import JSON

GAME_NAMES = ("solo", "scout")
PRESET_KEYS = ("game", "edition", "players")
"""The plain-form keys that choose a game's preset; the other options default from it."""


@dataclass(frozen=True)
class GameModule:
    """The entry points of one game."""

    name: str
    config_from_dict: Callable[[dict[str, JSON]], Any]
    new_round: Callable[[Any, bytes, int], Any]
    round_from_snapshot: Callable[[dict[str, JSON]], Any]
    parse_action: Callable[[str], Any]


def game_module(name: str) -> GameModule:
    """The entry points of the game called ``name`` (``solo`` or ``scout``)."""
    if name not in GAME_NAMES:
        raise ParseError(f"unknown game {name!r}: choose one of {', '.join(GAME_NAMES)}")
    module = importlib.import_module(f"cardtable.engine.{name}")
    return GameModule(
        name=name,
        config_from_dict=module.Config.from_dict,
        new_round=module.new_round,
        round_from_snapshot=module.State.from_snapshot,
        parse_action=module.parse_action,
    )


def config_from_dict(data: dict[str, JSON]) -> Any:
    """A config of either game from its plain-data form (the ``game`` key says which)."""
    if not isinstance(data, dict) or not isinstance(data.get("game"), str):
        raise ParseError("a config must be a map with a 'game' name")
    return game_module(data["game"]).config_from_dict(data)


def compact_config(config: Any) -> dict[str, JSON]:
    """``config.to_dict()`` less the options its preset already sets (``config_from_dict``
    restores them): the short form beacons carry."""
    full = config.to_dict()
    base = config_from_dict({k: full[k] for k in PRESET_KEYS if k in full}).to_dict()
    return {k: v for k, v in full.items() if k in PRESET_KEYS or base.get(k) != v}
