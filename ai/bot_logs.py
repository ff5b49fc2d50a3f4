"""Where the programs behind ``cmd:`` bots leave their traces, and who hears of bots' faults.

- ``BotLogs``: the directory for the transcripts ``--debug-bots DIR`` asks for (every line sent
  to a program and received from it, one file a seat: ``PREFIXseat-N.log``) and the directory
  for the programs' stderr (``PREFIXseat-N.stderr``; None: cardtable's own stderr). ``using``
  sets them for the bots built meanwhile (a headless game sets its ``game-0003-`` prefix).
- fault listeners: a table shows a bot's faults as they happen (``on_fault``); the fallback
  tells them (``ai/fallback.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class BotLogs:
    """The transcripts' and the stderr files' directories (None: none kept, stderr inherited)."""

    transcripts: Path | None = None
    stderr: Path | None = None
    prefix: str = ""

    def transcript(self, seat: int) -> Path | None:
        return None if self.transcripts is None else self.transcripts / f"{self.prefix}seat-{seat}.log"

    def stderr_file(self, seat: int) -> Path | None:
        return None if self.stderr is None else self.stderr / f"{self.prefix}seat-{seat}.stderr"


_current = BotLogs()


def current() -> BotLogs:
    """The setting the bots built now use."""
    return _current


def configure(logs: BotLogs) -> None:
    """Use ``logs`` from now on (a table's command sets it once); the directories are created."""
    global _current
    for folder in (logs.transcripts, logs.stderr):
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
    _current = logs


@contextmanager
def using(logs: BotLogs) -> Iterator[None]:
    """``logs`` for the bots built inside the block (one headless game)."""
    before = _current
    configure(logs)
    try:
        yield
    finally:
        configure(before)


FaultListener = Callable[[int, dict[str, Any]], None]
_listeners: list[FaultListener] = []


def on_fault(listener: FaultListener) -> Callable[[], None]:
    """Call ``listener(seat, example)`` at each fault of a bot from outside cardtable; returns
    the function that stops it."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def tell(seat: int, example: dict[str, Any]) -> None:
    for listener in list(_listeners):
        listener(seat, example)
