"""Computer players: each sees one seat's observation and legal actions, never more."""

from cardtable.ai.bots import Bot, make_bot
from cardtable.ai.driver import GameResult, play_match

__all__ = ["Bot", "GameResult", "make_bot", "play_match"]
