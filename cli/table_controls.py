"""The host's lobby controls and the rematch in a client's words (``--plain`` and the table view):
``start``, ``free N``, ``set KEY=VALUE ...`` (a config option, or ``cpu``: the computer seats; several
at once, e.g. ``set players=3 cpu=1``, one entry for them all; ``set`` alone lists the keys),
``unwatch N|NAME`` (the host frees a spectator place) and ``rematch``. A word the table would
refuse comes back from the peer as a ``refused`` event."""

from __future__ import annotations

import dataclasses
from typing import Any

from cardtable.engine.games import config_from_dict

WORDS = ("start", "free", "set", "rematch", "unwatch")
TRUE, FALSE = ("on", "true", "yes", "1"), ("off", "false", "no", "0")


def hosting(peer: Any) -> bool:
    """Whether this peer is the table's host and the lobby is open (its controls apply)."""
    t = peer.table
    return t.roster.host == peer.key and t.phase == "lobby" and not peer.left


def setting(config: Any, cpu: int, text: str) -> tuple[Any, int] | str:
    """The config and computer seats after ``KEY=VALUE``, or why it is not a setting."""
    key, eq, value = (part.strip() for part in text.partition("="))
    if not eq or not key or not value:
        return "set KEY=VALUE, e.g. set players=3, set cpu=1, set pool=300"
    if key == "cpu":
        return (config, int(value)) if value.isdigit() else "cpu is a number of seats"
    kinds = {f.name: type(getattr(config, f.name)) for f in dataclasses.fields(config) if f.name != "game"}
    if key not in kinds:
        return f"no option {key}: {', '.join(['cpu', *kinds])}"
    typed: Any = value
    if kinds[key] is bool:
        if value.lower() not in TRUE + FALSE:
            return f"{key} is on or off"
        typed = value.lower() in TRUE
    elif kinds[key] is int:
        if not value.lstrip("-").isdigit():
            return f"{key} is a number"
        typed = int(value)
    try:
        return config_from_dict({**config.to_dict(), key: typed}), cpu
    except Exception as err:  # noqa: BLE001 - the engine's ParseError, in its words
        return str(err)


def keys(config: Any) -> list[str]:
    """The keys ``set`` takes: ``cpu``, then the config's options (the game and its edition, a
    name for a preset, are not options to set)."""
    return ["cpu", *(f.name for f in dataclasses.fields(config) if f.name not in ("game", "edition"))]


def settings(config: Any, cpu: int, text: str) -> tuple[Any, int] | str:
    """The config and computer seats after ``KEY=VALUE KEY=VALUE ...`` (each by ``setting``, in
    order), or the first reason one is not a setting; ``""``: the keys and their values now."""
    if not text.strip():
        now = ", ".join(f"{key}={_shown(config, cpu, key)}" for key in keys(config))
        return f"set KEY=VALUE (several at once too): {now}"
    for pair in text.split():
        asked = setting(config, cpu, pair)
        if isinstance(asked, str):
            return asked
        config, cpu = asked
    return config, cpu


def _shown(config: Any, cpu: int, key: str) -> str:
    value = cpu if key == "cpu" else getattr(config, key)
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def control(node: Any, peer: Any, word: str, rest: str) -> str | None:
    """Use one control word (``WORDS``); a problem in words, or None when it went to the table."""
    t = peer.table
    if word == "rematch":
        node.control("agree_rematch")
    elif word == "start":
        node.control("start_now")
    elif word == "free":
        if not rest.strip().isdigit():
            return "free N: the seat number to free"
        node.control("free_seat", int(rest))
    elif word == "unwatch":
        if not rest.strip():
            from cardtable.p2p.chat import printable

            places = ", ".join(f"{i} {printable(name)}" for i, (name, _) in enumerate(peer.watchers(), 1))
            return f"unwatch N (or NAME) frees a spectator place: {places or 'nobody watches'}"
        node.control("free_spectator", rest.strip())
    elif word == "set":
        cpu = sum(1 for s in t.seats if s.controller == "cpu")
        asked = settings(t.config, cpu, rest)
        if isinstance(asked, str):
            return asked
        node.control("set_options", *asked)
    else:
        return f"not a table control: {word}"
    return None
