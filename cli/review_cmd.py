"""``cardtable review``: after a round, the decisions where the search rates another move clearly
better (``ai/review.py``), one line each; also the ``review`` of ``--plain`` and the table's ``v``.

The log is either kind ``cardtable replay`` reads (``cli/log_frames.py``). The seat reviewed by
default is yours: at a table log, the seat of the identity key kept beside the log (the config
dir it is in); a match log has none, so seat 0 is reviewed and stderr says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from cardtable.ai.review import THRESHOLD, Flag, Review, review_level, review_round
from cardtable.engine.errors import ParseError

LEVEL = "strong"
"""The search level of a review unless told."""

EXAMPLES = f"""
\b
Examples:
  cardtable review ~/.config/cardtable/play/table.log      (your seat, the last round played)
  cardtable review logs/game-0000.ctlog --round 2 --seat 1
  cardtable review logs/game-0000.ctlog --all-seats --level fast
  cardtable review logs/game-0000.ctlog --level 1500 --threshold 0.2 --json
\b
A line: round 2, move 14: you played G7; ismcts:strong prefers draw (+0.23 expected)
The value is the search's expected reward, tanh(score margin / scale) from -1 to 1
(docs/ai.md); a decision is flagged when its move beats the played one by more than the
threshold ({THRESHOLD} unless told).
"""


@click.command(epilog=EXAMPLES)
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--round", "round_no", type=int, default=None,
              help="The round to review, from 1 (default: the last finished one).")
@click.option("--seat", type=int, default=None, help="Review this seat (default: yours).")
@click.option("--all-seats", is_flag=True, help="Review every seat.")
@click.option("--level", default=LEVEL, show_default=True,
              help="The search's level: fast, normal, strong or an iteration budget (ismcts:1500 too).")
@click.option("--threshold", type=click.FloatRange(min=0.0), default=THRESHOLD, show_default=True,
              help="How much better (expected reward, -1..1) the search's move must be to flag a decision.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of lines.")
def review(file: Path, round_no: int | None, seat: int | None, all_seats: bool, level: str,
           threshold: float, as_json: bool) -> None:
    """List the decisions of a round where the search, seeing only what that seat saw, rates
    another move clearly better, with the estimated cost."""
    from cardtable.cli.log_frames import load_frames
    from cardtable.cli.table_logs import read_log_file

    if seat is not None and all_seats:
        raise click.UsageError("--seat and --all-seats: give one")
    try:
        level = review_level(level)
    except ParseError as err:
        raise click.ClickException(f"{err} (the review searches with ismcts)") from None
    data = read_log_file(file)
    frames = load_frames(file, data)
    played = max(frames.rounds) + 1
    finished = len(frames.at(len(frames)).round_scores)
    if round_no is None:
        if not finished:
            raise click.ClickException(f"{file}: no round has finished yet (--round 1 reviews it so far)")
        round_no = finished
    if not 1 <= round_no <= played:
        raise click.ClickException(f"{file}: there is no round {round_no}: rounds 1 to {played} were played")
    players = frames.config.players
    if all_seats:
        seats = list(range(players))
    elif seat is not None:
        if not 0 <= seat < players:
            raise click.ClickException(f"there is no seat {seat}: the seats are 0 to {players - 1}")
        seats = [seat]
    else:
        seats = [_own_seat(file, data)]
    result = run_review(frames.config, frames.seed, frames.moves, round_no - 1, seats, level, threshold)
    if as_json:
        click.echo(json.dumps(as_dict(result, frames.names), indent=1))
        return
    for line in review_lines(result, frames.names, me=None):
        click.echo(line)
    click.echo(f"cardtable: {summary_line(result, frames.names, me=None)}", err=True)


def run_review(config: Any, seed: bytes, moves: Sequence[tuple[int, str]], round_no: int,
               seats: Sequence[int], level: str, threshold: float = THRESHOLD) -> Review:
    """``review_round``, an unknown level (or a bot other than ismcts) a one-line click error."""
    try:
        return review_round(config, seed, moves, round_no, seats, level, threshold)
    except ParseError as err:
        raise click.ClickException(f"{err} (the review searches with ismcts)") from None


def review_lines(result: Review, names: Sequence[str], me: int | None) -> list[str]:
    """The flagged decisions, one line each."""
    return [flag_line(f, names, me, result.level) for f in result.flags]


def summary_line(result: Review, names: Sequence[str], me: int | None) -> str:
    """What was reviewed, and how much was flagged, in one line."""
    every = len(result.seats) == len(names) > 1
    seats = ", ".join("you" if s == me else f"{names[s]} (seat {s})" for s in result.seats)
    unrated = f", {result.unrated} not among the moves it weighs" if result.unrated else ""
    return (f"round {result.round_no + 1} reviewed for {'every seat' if every else seats} by "
            f"ismcts:{result.level}: {len(result.flags)} of {result.rated} decisions flagged "
            f"(threshold {result.threshold:g}){unrated}")


def flag_line(flag: Flag, names: Sequence[str], me: int | None, level: str) -> str:
    """``round 2, move 14: you played G7; ismcts:strong prefers draw (+0.23 expected)``."""
    who = "you" if flag.seat == me else f"{names[flag.seat]} (seat {flag.seat})"
    better = "not to act now" if flag.better is None else flag.better
    return (f"round {flag.round_no + 1}, move {flag.turn}: {who} played {flag.played}; "
            f"ismcts:{level} prefers {better} ({flag.cost:+.2f} expected)")


def as_dict(result: Review, names: Sequence[str]) -> dict[str, Any]:
    """The review as plain data (``--json``): rounds and moves from 1, values rounded to 3 places."""
    return {
        "round": result.round_no + 1, "seats": result.seats, "level": f"ismcts:{result.level}",
        "threshold": result.threshold, "rated": result.rated, "unrated": result.unrated,
        "flags": [{"round": f.round_no + 1, "move": f.turn, "step": f.step, "seat": f.seat,
                   "name": names[f.seat], "played": f.played, "better": f.better,
                   "played_value": round(f.played_value, 3), "better_value": round(f.better_value, 3),
                   "cost": round(f.cost, 3)} for f in result.flags],
    }


def session_review(session: Any) -> Callable[[], list[str]]:
    """The review of your seat's last finished round at a table (``--plain``'s ``review``, the
    table's ``v``): what it reads is taken now (on the event loop); calling the answer runs the
    search (safe in a worker thread) and gives the lines, or one saying why there is none."""
    match, seat = session.match(), session.seat
    if match is None or seat is None or not match.round_scores:
        return lambda: ["no review yet: no round has finished"]
    moves = session.moves()
    if moves is None:
        return lambda: ["no review here: this table's seed deals no card (hidden hands), so its rounds "
                        "cannot be replayed"]
    config, seed, round_no, names = match.config, match.seed, len(match.round_scores) - 1, session.names()

    def run() -> list[str]:
        try:
            result = review_round(config, seed, moves, round_no, [seat], LEVEL)
        except ParseError as err:  # the compiled search is missing
            return [f"no review: {err}"]
        return [*review_lines(result, names, me=seat), summary_line(result, names, me=seat)]

    return run


def _own_seat(path: Path, data: bytes) -> int:
    """Your seat at a table log (the identity key beside it); else seat 0, said on stderr."""
    from cardtable.cli.table_logs import is_table_log, read_table_log

    if is_table_log(data):
        home = path.parent.parent if path.parent.name == "tables" else path.parent
        try:
            seed = (home / "identity.key").read_bytes()
            mine = _key_of(seed)
            log = read_table_log(path)
        except (OSError, ValueError):
            mine = None
        if mine is not None:
            seat = next((a.seat for a in log.applied if a.author == mine and a.seat is not None), None)
            if seat is not None:
                return int(seat)
    click.echo("cardtable: no seat of yours in this log: reviewing seat 0 (--seat S or --all-seats "
               "for others)", err=True)
    return 0


def _key_of(seed: bytes) -> bytes | None:
    from cardtable.p2p.identity import KEY_BYTES, Identity

    return Identity.from_seed(seed).key if len(seed) == KEY_BYTES else None
