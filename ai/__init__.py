"""Computer players: each sees one seat's observation and legal actions, never more."""

from ai.bots import Bot, make_bot
from ai.driver import GameResult, play_match

__all__ = ["Bot", "GameResult", "make_bot", "play_match"]
