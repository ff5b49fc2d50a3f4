"""SOLO (Amigo), classic and 25th-anniversary editions: RULES.md section 1."""

from engine.solo.actions import Action, Catch, Play, Simple, parse_action
from engine.solo.cards import Card, deck, parse_card
from engine.solo.config import Config
from engine.solo.state import State, new_round

__all__ = ["Action", "Card", "Catch", "Config", "Play", "Simple", "State", "deck", "new_round",
           "parse_action", "parse_card"]
