"""``--out FILE.jsonl``: a run streamed to disk game by game, and ``--resume`` from it.

The first line is the run's header (what was asked: game, config, bots, seed, deals ...),
each further line one finished game as ``cardtable match --json`` reports it. A line cut
short by a crash is dropped on resume. Resuming checks that the header is the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from cardtable.engine.errors import ParseError


def read_run(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """(header, finished games by index, the byte length of the complete lines)."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ParseError(f"cannot read {path}: {err.strerror}") from None
    lines = data.split(b"\n")
    complete = len(data) - len(lines[-1])  # a last line without its newline was cut short
    try:
        header = json.loads(lines[0]) if len(lines) > 1 else None
        games = {}
        for line in lines[1:-1]:
            if line.strip():
                game = json.loads(line)
                games[int(game["index"])] = game
    except (ValueError, KeyError, TypeError):
        raise ParseError(f"{path} is not a cardtable run file (a line is not a game)") from None
    if not isinstance(header, dict) or header.get("kind") != "cardtable-run":
        raise ParseError(f"{path} is not a cardtable run file")
    return header, [games[i] for i in sorted(games)], complete


class RunLog:
    """The open run file; ``write`` appends one finished game and flushes it."""

    def __init__(self, path: Path, header: dict[str, Any], resume: bool) -> None:
        self.done: list[dict[str, Any]] = []
        self._file: IO[bytes]
        header = {"kind": "cardtable-run", **header}
        if resume:
            previous, self.done, complete = read_run(path)
            differ = sorted(k for k in set(previous) | set(header) if previous.get(k) != header.get(k))
            if differ:
                raise ParseError(f"{path} is a different run ({', '.join(differ)} differ): give the same "
                                 "arguments to resume it")
            self._file = path.open("r+b")
            self._file.truncate(complete)
            self._file.seek(complete)
        else:
            if path.exists():
                raise ParseError(f"{path} exists: add --resume to continue that run, or choose another file")
            try:
                self._file = path.open("xb")
            except OSError as err:
                raise ParseError(f"cannot create {path}: {err.strerror}") from None
            self._line(header)

    def _line(self, data: dict[str, Any]) -> None:
        self._file.write(json.dumps(data, sort_keys=True).encode() + b"\n")
        self._file.flush()

    def write(self, game: dict[str, Any]) -> None:
        self._line(game)

    def close(self) -> None:
        self._file.close()


def previous_seed(path: Path) -> int | None:
    """The seed of the run in ``path`` (for ``--resume`` without ``--seed``)."""
    header, _, _ = read_run(path)
    seed = header.get("seed")
    return seed if isinstance(seed, int) else None
