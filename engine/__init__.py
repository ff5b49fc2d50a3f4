"""The rules of SOLO and SCOUT: pure, deterministic Python with no I/O and no clock."""

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.match import Match

__all__ = ["IllegalAction", "Match", "ParseError"]
