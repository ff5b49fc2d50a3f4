"""The bot interface and the bots that need no search.

A bot is asked in two ways: ``choose`` when the game waits for its seat (it must return
one of the legal actions), and ``react`` when it merely *may* act out of turn (a jump-in,
a SOLO call or catch, a Protection, a SCOUT hand turn): it returns an action or None.
Bots draw randomness only from their own seeded ``engine.shuffle.Stream``, whose seed
``bot_seed`` derives one way from the match seed and the seat: a bot can never recompute
the deal. Besides the built-in names, ``make_bot`` takes the plugin forms of
``ai/plugins.py`` (``module:Class``, ``path/bot.py:Class``, a ``cardtable.bots`` entry
point, ``cmd:COMMAND``; docs/bots.md). A spec may carry a label (``me=cmd:./mybot``), and a
table's spec may name one bot a seat, comma-separated (``seat_specs``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from cardtable.ai.catches import genuine_catches, missed_calls
from cardtable.engine.errors import ParseError
from cardtable.engine.shuffle import Stream


class Bot(Protocol):
    name: str

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any: ...

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None: ...


def _is_meta(action: Any) -> bool:
    text = str(action)
    return text.startswith("catch:") or text == "solo"


class RandomBot:
    """Uniformly random moves; calls SOLO when due and catches only missed calls it saw.

    Out of turn it jumps in, protects or turns a SCOUT hand with probability 1/2, so that
    random play still exercises every out-of-turn rule.
    """

    name = "random"

    def __init__(self, seed: bytes, seat: int) -> None:
        self.rng = Stream(seed, f"bot/random/{seat}")

    def _pick(self, options: Sequence[Any]) -> Any:
        return options[self.rng.below(len(options))]

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        moves = [a for a in legal if not _is_meta(a)]
        return self._pick(moves or list(legal))

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        if any(str(a) == "solo" for a in legal):
            return next(a for a in legal if str(a) == "solo")
        catches = genuine_catches(obs, legal)
        if catches:
            return catches[0]
        moves = [a for a in legal if not _is_meta(a)]
        if moves and self.rng.below(2):
            return self._pick(moves)
        return None


def _heuristic(seed: bytes, seat: int, level: str) -> Bot:
    from cardtable.ai.heuristic import HeuristicBot

    return HeuristicBot(seed, seat)


def _ismcts(seed: bytes, seat: int, level: str) -> Bot:
    from cardtable.ai.ismcts import IsmctsBot

    return IsmctsBot(seed, seat, level or "normal")


BOTS: dict[str, Callable[[bytes, int, str], Bot]] = {
    "random": lambda seed, seat, level: RandomBot(seed, seat),
    "heuristic": _heuristic,
    "ismcts": _ismcts,
}
LEVELS = {"random": ("",), "heuristic": ("",), "ismcts": ("", "fast", "normal", "strong", "learned")}


def bot_seed(match_seed: bytes, seat: int) -> bytes:
    """The seed a bot in ``seat`` gets: SHA-256 of the match seed and the seat (one way, so
    the deal's seed cannot be recovered from it)."""
    return hashlib.sha256(b"cardtable/bot-seed\0" + bytes(match_seed) + b"\0" + str(seat).encode()).digest()


FORGET = "/forget="
"""A bot spec's suffix for the rate at which it forgets its SOLO calls: ``heuristic/forget=0.1``."""


_LABEL = re.compile(r"^([A-Za-z0-9_.+-]+)=(.+)$")
SEATS = ","
"""Separates the entries of a spec that names one bot a seat (``heuristic,me=cmd:./bot``)."""


def split_entry(entry: str) -> tuple[str, str]:
    """``LABEL=SPEC`` → (LABEL, SPEC); a bare spec is its own label."""
    entry = entry.strip()
    found = _LABEL.match(entry)
    return (found.group(1), found.group(2).strip()) if found else (entry, entry)


def seat_specs(spec: str) -> list[str]:
    """The entries of a spec (one, or one a seat), labels and all."""
    return [entry.strip() for entry in spec.split(SEATS)]


def spec_for_seat(spec: str, seat: int) -> str:
    """The bot spec (no label) of ``seat`` in a table's spec: its entry, or the only one."""
    entries = seat_specs(spec)
    return split_entry(entries[seat] if seat < len(entries) else entries[0])[1]


def parse_bot_spec(spec: str) -> tuple[str, str]:
    """``name`` or ``name:level`` (with an optional ``/forget=RATE``) → (name, level); a plugin
    spec → ("plugin", spec) once it loads. Raises ParseError for unknown bots and bad rates.
    A labelled spec is read without its label; a spec a seat is checked entry by entry (the
    first entry's answer is returned)."""
    entries = seat_specs(spec)
    if len(entries) > 1:
        answers = [parse_bot_spec(entry) for entry in entries]
        return answers[0]
    spec = split_entry(spec)[1]
    base, rate = split_forget(spec)
    name, _, level = base.strip().partition(":")
    if name not in BOTS:
        from cardtable.ai.plugins import plugin_factory

        plugin_factory(spec.strip())
        return "plugin", spec.strip()
    if name == "ismcts" and level:
        from cardtable.ai.ismcts import parse_level

        parse_level(level)  # a level name or an experimental budget ("ismcts:1500+cpuct=1")
    elif level not in LEVELS[name]:
        levels = [lv for lv in LEVELS[name] if lv]
        choice = f"choose {', '.join(levels)}" if levels else "it has no levels"
        raise ParseError(f"unknown level {level!r} for bot {name!r}: {choice}")
    if rate and name not in FORGETFUL:
        raise ParseError(f"the {name} bot does not forget SOLO calls (only {' and '.join(FORGETFUL)} do)")
    return name, level


def split_forget(spec: str) -> tuple[str, float]:
    """``ismcts:fast/forget=0.1`` → (``ismcts:fast``, 0.1); no suffix: rate 0."""
    base, sep, rate = spec.partition(FORGET)
    if not sep:
        return spec, 0.0
    try:
        value = float(rate)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise ParseError(f"the forget rate must be a number from 0 to 1, not {rate!r}")
    return base, value


def with_forget(spec: str, rate: float) -> str:
    """``spec`` with the SOLO-call forget rate ``rate`` (bots that never forget are left as they are;
    each entry of a spec a seat, each label kept)."""
    entries = seat_specs(spec)
    if len(entries) > 1:
        return SEATS.join(with_forget(entry, rate) for entry in entries)
    label, bare = split_entry(spec)
    if label != bare:
        return f"{label}={with_forget(bare, rate)}"
    base, _ = split_forget(spec)
    name = base.strip().partition(":")[0]
    return f"{base}{FORGET}{rate:g}" if rate and name in FORGETFUL else base


def make_bot(spec: str, seed: bytes, seat: int, time_budget: float | None = None) -> Bot:
    """A bot from its spec (``random``, ``ismcts:fast``, ``heuristic/forget=0.1``, a plugin ...)
    for ``seat`` of the match seeded ``seed``; it is given ``bot_seed(seed, seat)``, never
    ``seed`` itself. ``time_budget`` (seconds a decision) applies to process bots. A table's spec
    a seat (``heuristic,me=cmd:./bot``) gives ``seat`` its own entry."""
    spec = spec_for_seat(spec, seat)
    name, level = parse_bot_spec(spec)
    own_seed = bot_seed(seed, seat)
    if name == "plugin":
        from cardtable.ai.plugins import plugin_factory

        plugin: Bot = plugin_factory(level)(own_seed, seat, time_budget)
        return plugin
    bot = BOTS[name](own_seed, seat, level)
    rate = split_forget(spec)[1]
    return ForgetsCalls(bot, rate, Stream(own_seed, f"bot/forget/{seat}")) if rate else bot


FORGETFUL = ("heuristic", "ismcts")


class ForgetsCalls:
    """A bot that, as people do, now and then forgets to call SOLO: with probability ``rate`` a
    play that goes with a call is made without it, and then no late call follows while that
    SOLO window is open (so others can catch it)."""

    def __init__(self, bot: Bot, rate: float, rng: Stream) -> None:
        self.bot, self.rate, self.rng = bot, rate, rng
        self.name = bot.name
        self.forgot = False

    def _roll(self) -> bool:
        return self.rng.below(1_000_000) < self.rate * 1_000_000

    def _filter(self, obs: dict[str, Any], legal: Sequence[Any], action: Any) -> Any:
        if obs.get("seat") not in missed_calls(obs):
            self.forgot = False  # no open uncalled window of ours: a new chance to remember
        text = str(action)
        if text.endswith("!") and self._roll():
            plain = next((a for a in legal if str(a) == text[:-1]), None)
            if plain is not None:
                self.forgot = True
                return plain
        return action

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        return self._filter(obs, legal, self.bot.choose(obs, legal))

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        action = self.bot.react(obs, legal)
        if action is not None and str(action) == "solo" and self.forgot:
            return None
        return None if action is None else self._filter(obs, legal, action)
