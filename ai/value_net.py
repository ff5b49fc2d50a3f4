"""The learned leaf values the package ships (``ai/weights/*.json``) and how a search finds one.

A network values a position for the search instead of playing the rest of the round out
(docs/ai.md, "A learned leaf value"); ``ai/value_train.py`` trains one. A file holds one network
for one table: the game, the players and (SOLO) the edition, its weights, and how it was made
(the command, the rounds and seed of its data, its error on rounds it was not trained on).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

WEIGHTS = Path(__file__).with_name("weights")
FORMAT = 1
"""The file format; a file of another format is refused."""


def table_name(config: dict[str, Any]) -> str:
    """The name of a table's network file: ``scout-4p``, ``solo-anniversary-4p``."""
    game = config.get("game", "solo")
    edition = f"-{config.get('edition', 'anniversary')}" if game == "solo" else ""
    return f"{game}{edition}-{config['players']}p"


def read_network(path: Path) -> Any:
    """The network in ``path`` as a ValueModel; ValueError saying what is wrong otherwise."""
    from cardtable.ai._search import ValueModel

    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read the value network {path.name}: {err}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path.name} is not a value network of format {FORMAT}")
    try:
        return ValueModel(data["game"], data["shift"], data["gain"], data["w1"], data["b1"], data["w2"],
                          data["b2"])
    except (KeyError, TypeError) as err:
        raise ValueError(f"{path.name} lacks the network's {err}") from None


@cache
def shipped_network(name: str) -> Any | None:
    """The shipped network of the table ``name`` (``table_name``), or None if there is none."""
    path = WEIGHTS / f"{name}.json"
    return read_network(path) if path.exists() else None
