"""The rules of SOLO and SCOUT: pure, deterministic Python with no I/O and no clock."""

from engine.errors import IllegalAction, ParseError
from engine.match import Match

__all__ = ["IllegalAction", "Match", "ParseError"]
