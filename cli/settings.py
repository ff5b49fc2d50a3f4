"""The player's settings, kept in ``settings.toml`` in the config dir (``--home``, else
``$CARDTABLE_HOME`` or the platform's): ``name``, ``theme``, ``bots``, ``bot_delay``, ``bell``.
``cardtable config`` shows and sets them; they are the defaults of the options they stand for
(``defaults``: click's default map; a command with ``--home`` reads the settings of that dir),
and a command-line option still wins.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

FILE = "settings.toml"


def _name(text: str) -> str:
    if not text.strip() or len(text) > 32:
        raise ValueError("a name has 1 to 32 characters")
    return text


def _theme(text: str) -> str:
    from textual.theme import BUILTIN_THEMES

    if text not in BUILTIN_THEMES:
        raise ValueError(f"no theme {text!r}: choose from {', '.join(sorted(BUILTIN_THEMES))}")
    return text


def _bots(text: str) -> str:
    from cardtable.ai.bots import parse_bot_spec
    from cardtable.cli.seat_bots import SHORT, bot_problem
    from cardtable.engine.errors import ParseError

    for entry in text.split(","):
        try:
            parse_bot_spec(SHORT.get(entry.strip(), entry.strip()))
        except ParseError as err:
            raise ValueError(bot_problem(err, entry)) from None
    return text


def _delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 60:
        raise ValueError(f"the bot delay is a number of seconds from 0 to 60, not {text!r}")
    return value


def _on_off(text: str) -> bool:
    if text.lower() not in ("on", "off", "true", "false"):
        raise ValueError(f"the bell is on or off, not {text!r}")
    return text.lower() in ("on", "true")


KEYS: dict[str, tuple[Callable[[str], Any], str]] = {
    "name": (_name, "your name at a table you join (join --player)"),
    "theme": (_theme, "the table's colour theme (Textual's themes, e.g. nord, gruvbox, textual-light)"),
    "bots": (_bots, "the computer players of play and host (--bots)"),
    "bot_delay": (_delay, "the computer players' reaction time in seconds (--bot-delay)"),
    "bell": (_on_off, "on or off: the bell and the window title when your turn comes (--bell/--no-bell)"),
}
"""Each setting: how a typed value is checked, and what it is for."""


def path(home: Path | None = None) -> Path:
    from cardtable.p2p.identity import default_home

    return (home if home is not None else default_home()) / FILE


def load(home: Path | None = None) -> dict[str, Any]:
    """The settings kept (an unreadable file or a bad value is left out, never fatal)."""
    try:
        data = tomllib.loads(path(home).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}
    kept = {}
    for key, value in data.items():
        if key in KEYS:
            try:
                kept[key] = KEYS[key][0](str(value))
            except ValueError:
                continue
    return kept


def save(settings: dict[str, Any], home: Path | None = None) -> Path:
    """Write ``settings`` (TOML, one ``key = value`` a line); returns the file."""
    where = path(home)
    where.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{key} = {json.dumps(settings[key])}" for key in KEYS if key in settings]
    head = "# cardtable settings ('cardtable config' shows and sets them)\n"
    where.write_text(head + "\n".join(lines) + "\n", encoding="utf-8")
    return where


def defaults(settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """click's default map: each setting as the default of the options it stands for."""
    out: dict[str, dict[str, Any]] = {"play": {}, "host": {}, "join": {}}
    if "name" in settings:
        out["join"]["player"] = out["host"]["player"] = settings["name"]
    if "bots" in settings:
        out["play"]["bots"] = out["host"]["bots"] = settings["bots"]
    for key in ("bot_delay", "bell"):
        if key in settings:
            for command in out.values():
                command[key] = settings[key]
    return {command: options for command, options in out.items() if options}
