"""Which SOLO catches are genuine: the one rule every bot shares, below ``bots`` and ``ismcts``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def open_windows(obs: dict[str, Any]) -> list[dict[str, Any]]:
    """The open SOLO windows an observation shows (``solo``, then ``solo_also``: docs/rules.md 1.8.17),
    each ``{"seat": s, "called": bool}``, in the order they close."""
    solo = obs.get("solo")
    return ([solo] if solo else []) + list(obs.get("solo_also") or [])


def missed_calls(obs: dict[str, Any]) -> list[int]:
    """The seats whose open SOLO window shows no call yet, in the windows' order."""
    return [w["seat"] for w in open_windows(obs) if not w["called"]]


def genuine_catches(obs: dict[str, Any], legal: Sequence[Any]) -> list[Any]:
    """Catch actions aimed at a seat whose missed SOLO call this seat can see, in the windows'
    order."""
    by_text = {str(a): a for a in legal}
    return [by_text[f"catch:{s}"] for s in missed_calls(obs) if f"catch:{s}" in by_text]
