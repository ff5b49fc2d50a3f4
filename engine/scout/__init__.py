"""SCOUT (docs/rules.md section 2): the rule set, the action notation and the round state."""

from .actions import Action, Pass, Scout, ScoutShow, Show, TurnChoice, parse_action
from .cards import Card, parse_card
from .config import Config
from .state import State, new_round

__all__ = [
    "Action",
    "Card",
    "Config",
    "Pass",
    "Scout",
    "ScoutShow",
    "Show",
    "State",
    "TurnChoice",
    "new_round",
    "parse_action",
    "parse_card",
]
