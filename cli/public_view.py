"""The table as anyone sees it (a spectator, ``cardtable watch NAME``): a seat's observation with
everything only that seat knows taken out: no hand, no card known to it alone, no drawn card."""

from __future__ import annotations

from typing import Any

from cardtable.engine.match import Match


def public_observation(match: Match) -> dict[str, Any]:
    """The observation of no seat: hand sizes, the table, what was shown to all; ``hand`` empty."""
    n = match.config.players
    if match.config.game == "scout":
        obs = match.observation(0)
        obs["known"][0] = match.observation(1 % n)["known"][0]  # seat 0's cards as another sees them
    else:
        turn = match.observation(0).get("turn")
        obs = match.observation((turn + 1) % n if isinstance(turn, int) else 0)  # not the drawer
        obs["known"] = {}
        react = obs.get("react")
        if react is not None and isinstance(react.get("gift"), list):
            react["gift"] = len(react["gift"])
    obs["hand"] = []
    return obs
