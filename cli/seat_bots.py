"""The computer players of a ``play`` or ``host`` table, as a bot author needs them.

- ``table_spec``: ``--bots`` as ``match`` takes it, one spec for every computer seat or one a
  computer seat (``LABEL=ENTRY,...``), made into the table's spec (one entry a seat,
  ``ai.bots.spec_for_seat``; a person's seat gets the first entry, for when a computer player
  takes it over). A program without a label is labelled with the name it gives in its hello.
- ``shown_names``: the table shows a labelled bot's label instead of ``cpu N``.
- ``keep_logs``: a program's stderr goes to ``<home>/bots/seat-N.stderr`` (the full-screen
  table would paint over it), its lines to ``--debug-bots DIR``.
- ``tell_faults``: a bot's faults are told at the table as they happen (each kind once a seat).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from cardtable.ai import bot_logs
from cardtable.ai.bots import SEATS, make_bot, parse_bot_spec, seat_specs, split_entry, with_forget
from cardtable.engine.errors import ParseError

SHORT = {"fast": "ismcts:fast", "normal": "ismcts:normal", "strong": "ismcts:strong"}
"""``play --bots strong`` is ``ismcts:strong``."""
BOTS_DIR = "bots"
"""Where a table's programs write their stderr, in the config dir."""


def table_spec(text: str, players: int, computer: Sequence[int], game: str, forget: float) -> str:
    """The table's bot spec from ``--bots``: one entry for every computer seat, or one a computer
    seat in seat order; each checked (a program is started once and greeted), or a click error."""
    entries = [e.strip() for e in text.split(SEATS) if e.strip()]
    computer = list(computer)
    if not computer:
        entries = entries[:1]  # no computer seat: the first plays a seat a person leaves
    if len(entries) not in (1, len(computer)):
        ctx = click.get_current_context(silent=True)
        kept = ctx is not None and ctx.get_parameter_source("bots") == click.core.ParameterSource.DEFAULT_MAP
        why = " (the bots setting: cardtable config bots)" if kept else ""
        raise click.BadParameter(f"give 1 bot or {len(computer)} (one a computer seat), not "
                                 f"{len(entries)}{why}", param_hint="--bots")
    checked = [_checked(entry, game) for entry in entries]
    if len(checked) == 1 and split_entry(checked[0])[0] == split_entry(checked[0])[1]:
        return with_forget(checked[0], forget)  # one unlabelled bot: the seats stay "cpu N"
    by_seat = dict(zip(computer, checked * len(computer) if len(checked) == 1 else checked, strict=False))
    first = split_entry(checked[0])[1]
    return with_forget(SEATS.join(by_seat.get(s, first) for s in range(players)), forget)


def _checked(entry: str, game: str) -> str:
    label, spec = split_entry(entry)
    spec = SHORT.get(spec, spec)
    try:
        parse_bot_spec(spec)
        if spec.startswith("cmd:"):
            from cardtable.ai.process_bot import check_process_bot

            name = check_process_bot(spec[4:], game)
            if label == entry.strip():  # no label: the program's own name
                label = re.sub(r"[^A-Za-z0-9_.+-]+", "-", name).strip("-")[:32] or "program"
        else:
            make_bot(spec, b"check", 1)
    except ParseError as err:
        raise click.BadParameter(bot_problem(err, spec), param_hint="--bots") from None
    return spec if label in (entry.strip(), spec) else f"{label}={spec}"


RUNNERS = {".py": "python3", ".js": "node", ".mjs": "node", ".rb": "ruby", ".pl": "perl", ".sh": "sh"}
"""What runs a program file, by its ending (for the hint of ``as_program``)."""
INTERPRETERS = {"python", "python3", "node", "deno", "bun", "ruby", "perl", "php", "java", "sh", "bash",
                "Rscript", "julia", "dotnet", "go", "cargo"}


def as_program(spec: str) -> str | None:
    """The ``cmd:`` spec meant when a bot spec that is not one names a program without ``cmd:``
    (``python3 bots/py/bot.py``, ``bots/py/bot.py``, ``./mybot``); None if it does not look so."""
    words = spec.split()
    if not words or spec.startswith("cmd:") or ":" in words[0]:
        return None
    first = words[0]
    ending = Path(first).suffix
    if first in INTERPRETERS or (len(words) > 1 and shutil.which(first) is not None):
        return f"cmd:{spec.strip()}"
    if ending in RUNNERS:
        return f"cmd:{RUNNERS[ending]} {spec.strip()}"
    if "/" in first or "\\" in first:
        return f"cmd:{spec.strip()}"
    return None


def bot_problem(err: Exception, spec: str) -> str:
    """A bot spec's error, with the ``cmd:`` spec meant when it names a program without one."""
    meant = as_program(split_entry(spec)[1])
    if meant is None:
        return str(err)
    also = f" (or '{spec.strip()}:Class', a Python class in it)" if spec.strip().endswith(".py") else ""
    return f"{spec.strip()!r} is no bot's name: a program is run as cmd:COMMAND, so give '{meant}'{also}"


def shown_names(names: Sequence[str], spec: str) -> list[str]:
    """``names`` with a labelled computer seat's ``cpu N`` replaced by its label (``label N`` when
    two seats share one); with one unlabelled bot for every seat, ``names`` as they are."""
    entries = seat_specs(spec)
    labels: dict[int, str] = {}
    for seat, name in enumerate(names):
        entry = entries[seat] if len(entries) > 1 and seat < len(entries) else entries[0]
        label, bare = split_entry(entry)
        if name == f"cpu {seat}" and (label != bare or len(entries) > 1):
            labels[seat] = label
    counts = {label: list(labels.values()).count(label) for label in labels.values()}
    return [f"{labels[s]} {s}" if s in labels and counts[labels[s]] > 1 else labels.get(s, name)
            for s, name in enumerate(names)]


def keep_logs(home: Path, debug_bots: Path | None, stderr: bool = True) -> None:
    """At a table: the programs' lines to ``debug_bots``, their stderr to ``home/bots`` (with
    ``stderr``: a terminal client would paint over it), until the command ends."""
    try:
        bot_logs.configure(bot_logs.BotLogs(debug_bots, home / BOTS_DIR if stderr else None))
    except OSError as err:
        raise click.ClickException(f"cannot create the bots' log folder: {err}") from None
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(lambda: bot_logs.configure(bot_logs.BotLogs()))


def program_seats(spec: str, players: int) -> list[int]:
    """The seats whose bot (when a computer plays them) is a program."""
    from cardtable.ai.bots import spec_for_seat

    return [s for s in range(players) if spec_for_seat(spec, s).startswith("cmd:")]


_stop_telling: list[Callable[[], None]] = []


def tell_faults(say: Callable[[str], None], names: Callable[[], list[str]], computer: Callable[[], list[int]],
                spec: str) -> None:
    """Tell, through ``say``, where the computer seats' programs write their stderr, and each
    fault kind of each seat once as it happens (a Python bot's traceback goes to that seat's
    stderr file), until the next table's ``tell_faults`` (one table at a time)."""
    while _stop_telling:
        _stop_telling.pop()()
    logs = bot_logs.current()
    for seat in program_seats(spec, len(names())):
        where = logs.stderr_file(seat)
        if seat in computer() and where is not None:
            say(f"seat {seat} ({names()[seat]}) is a program: its stderr goes to {where}")
    told: set[tuple[int, str]] = set()

    def heard(seat: int, example: dict[str, Any]) -> None:
        kind = "stopped" if example.get("stopped") else example["kind"]
        if (seat, kind) in told:
            return
        told.add((seat, kind))
        all_names = names()
        who = all_names[seat] if seat < len(all_names) else f"seat {seat}"
        where = logs.stderr_file(seat)
        if example.get("traceback") and where is not None:
            with where.open("a", encoding="utf-8") as out:
                out.write(example["traceback"])
        say(fault_words(who, kind, example, where))

    _stop_telling.append(bot_logs.on_fault(heard))


def fault_words(who: str, kind: str, example: dict[str, Any], stderr: Path | None) -> str:
    """One line on a bot's fault at the table: ``bot fault: cpu 1's program stopped: ...``."""
    error = example.get("error") or kind
    if kind == "stopped":
        text = f"{who}'s program stopped: {error}; the heuristic bot plays the seat from now on"
    elif kind == "illegal":
        text = f"{who}'s bot {error.removeprefix('it ')}: the heuristic bot moved for it"
    elif kind == "timeout":
        text = f"{who}'s program did not answer in time ({error}): the heuristic bot moved for it"
    else:
        text = f"{who}'s bot failed ({error}): the heuristic bot moved for it"
    if stderr is not None and (kind == "stopped" or example.get("traceback")):
        last = last_line(stderr) if kind == "stopped" else ""
        text += f" (its {'traceback' if example.get('traceback') else 'stderr'}: {stderr}" \
            + (f", its last line: {last}" if last else "") + ")"
    return "bot fault: " + text + ("" if kind == "stopped" else "; the next ones are counted, not told")


def last_line(path: Path, most: int = 160) -> str:
    """The last line a program wrote to its stderr file, as a screen may show it (no terminal
    escape, at most ``most`` characters); "" if there is none."""
    from cardtable.p2p.chat import printable

    try:
        with path.open("rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 4096))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line for line in tail.splitlines() if line.strip()]
    if not lines:
        return ""
    line = printable(lines[-1]).strip()
    return line if len(line) <= most else line[:most - 1] + "…"
