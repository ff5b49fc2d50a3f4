"""Which SOLO catches are genuine: the one rule every bot shares, below ``bots`` and ``ismcts``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def genuine_catches(obs: dict[str, Any], legal: Sequence[Any]) -> list[Any]:
    """Catch actions aimed at a seat whose missed SOLO call this seat can see."""
    solo = obs.get("solo")
    if not solo or solo["called"]:
        return []
    return [a for a in legal if str(a) == f"catch:{solo['seat']}"]
