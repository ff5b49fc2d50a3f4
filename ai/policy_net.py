"""The learned policies the package ships (``ai/weights/policy-<game>.json``) and how a bot finds one.

A policy scores each candidate move of the seat to move from what that seat knows (ai/_policy.pxi):
its softmax is the search's PUCT prior (level setting ``prior=net``) and its best move is the
``learned`` level. ``ai/expert.py`` trains one by expert iteration. A file holds one network for
one game (every table size and edition of it), its weights and how it was made (the command and
seed, the generations and their rows).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

WEIGHTS = Path(__file__).with_name("weights")
FORMAT = 1
"""The file format; a file of another format is refused."""


def policy_path(game: str) -> Path:
    """Where the shipped policy of ``game`` (solo or scout) lives."""
    return WEIGHTS / f"policy-{game}.json"


def make_policy(data: dict[str, Any]) -> Any:
    """A PolicyModel from a policy file's content; ValueError saying what is wrong otherwise."""
    from cardtable.ai._search import PolicyModel

    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("kind") != "policy":
        raise ValueError(f"not a policy network of format {FORMAT}")
    try:
        return PolicyModel(data["game"], data["shift"], data["gain"], data["w1"], data["b1"], data["w2"],
                           data["b2"])
    except (KeyError, TypeError) as err:
        raise ValueError(f"the policy lacks the network's {err}") from None


def read_policy(path: Path) -> Any:
    """The policy in ``path`` as a PolicyModel; ValueError saying what is wrong otherwise."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read the policy network {path.name}: {err}") from None
    try:
        return make_policy(data)
    except ValueError as err:
        raise ValueError(f"{path.name}: {err}") from None


@cache
def shipped_policy(game: str) -> Any | None:
    """The shipped policy of ``game``, or None if there is none."""
    path = policy_path(game)
    return read_policy(path) if path.exists() else None
