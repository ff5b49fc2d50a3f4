"""SOLO (Amigo), classic and 25th-anniversary editions: docs/rules.md section 1."""

from cardtable.engine.solo.actions import Action, Catch, Play, Simple, parse_action
from cardtable.engine.solo.cards import Card, deck, parse_card
from cardtable.engine.solo.config import Config
from cardtable.engine.solo.slot_actions import SlotPlay, parse_slot_action
from cardtable.engine.solo.state import State, audit_replay, new_round

__all__ = ["Action", "Card", "Catch", "Config", "Play", "Simple", "SlotPlay", "State",
           "audit_replay", "deck", "new_round", "parse_action", "parse_card", "parse_slot_action"]
