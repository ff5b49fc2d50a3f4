"""``cardtable review``: after a round, the decisions where the search rates another move clearly
better (``ai/review.py``), one line each; also the ``review`` of ``--plain`` and the table's ``v``.

The log is either kind ``cardtable replay`` reads (``cli/log_frames.py``). The seat reviewed by
default is yours: at a table log, the seat of the identity key kept beside the log (the config
dir it is in), or of the machine whose seeds the log keeps (hidden hands); a match log has none,
so seat 0 is reviewed and stderr says so.

At a hidden-hands table a round is reviewed once its audit has revealed every card
(``cli/hidden_rounds.py``), and the search sees, at each decision, only what the reviewed seat
saw then: its own cards as they came and the cards shown to all (as for any log: the search
samples the rest itself).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from cardtable.ai.review import THRESHOLD, Flag, Review, review_level, review_round
from cardtable.cli.hidden_rounds import EVERY, Dealt
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
    if frames.dealt:  # hidden hands: the round as its audit opened it
        result = review_dealt(audited_round(file, frames.dealt, round_no), frames.config, frames.seed,
                              seats, level, threshold)
    else:
        result = run_review(frames.config, frames.seed, frames.moves, round_no - 1, seats, level, threshold)
    if as_json:
        click.echo(json.dumps(as_dict(result, frames.names), indent=1))
        return
    for line in review_lines(result, frames.names, me=None):
        click.echo(line)
    click.echo(f"cardtable: {summary_line(result, frames.names, me=None)}", err=True)


def run_review(config: Any, seed: bytes, moves: Sequence[tuple[int, Any]], round_no: int,
               seats: Sequence[int], level: str, threshold: float = THRESHOLD, start: Any = None) -> Review:
    """``review_round``, an unknown level (or a bot other than ismcts) a one-line click error."""
    try:
        return review_round(config, seed, moves, round_no, seats, level, threshold, start)
    except ParseError as err:
        raise click.ClickException(f"{err} (the review searches with ismcts)") from None


def audited_round(path: Path, dealt: Sequence[Dealt], round_no: int) -> Dealt:
    """Round ``round_no`` (from 1) of a hidden-hands table as its audit opened it, or a one-line
    click error saying why it cannot be reviewed yet."""
    rounds = [d for d in dealt if d.round_no == round_no - 1]
    counted = [d for d in rounds if d.known == EVERY and d.scores is not None]
    if counted:
        return counted[-1]
    if rounds and not rounds[-1].closed:
        raise click.ClickException(f"{path}: round {round_no} is still being played: with hidden hands its "
                                   "cards are known once its audit has revealed them, at its end")
    raise click.ClickException(f"{path}: round {round_no} did not count (it was void), so its cards "
                               "are not all known: there is nothing to review")


def review_dealt(d: Dealt, config: Any, seed: bytes, seats: Sequence[int], level: str,
                 threshold: float = THRESHOLD) -> Review:
    """Review an audited round of a hidden-hands table for ``seats``, each from what that seat saw."""
    from cardtable.engine.match import Match

    moves = [(seat, action) for (seat, _), action in zip(d.moves, d.actions, strict=True)]
    out: Review | None = None
    for seat in seats:
        start = Match(config, seed, d.seat_first(seat))
        start.round_no = d.round_no
        one = run_review(config, seed, moves, d.round_no, [seat], level, threshold, start)
        if out is None:
            out = Review(d.round_no, list(seats), one.level, threshold)
        out.flags += one.flags
        out.rated += one.rated
        out.unrated += one.unrated
    assert out is not None
    out.flags.sort(key=lambda f: (f.step, f.seat))
    return out


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
    if match.dealt_by_table:  # hidden hands: the last round the audit opened (on the event loop)
        return _hidden_session_review(session, match, seat)
    moves = session.moves()
    if moves is None:
        return lambda: ["no review here: this session did not follow the match from its deal, so its "
                        "rounds cannot be replayed"]
    config, seed, round_no, names = match.config, match.seed, len(match.round_scores) - 1, session.names()

    def run() -> list[str]:
        try:
            result = review_round(config, seed, moves, round_no, [seat], LEVEL)
        except ParseError as err:  # the compiled search is missing
            return [f"no review: {err}"]
        return [*review_lines(result, names, me=seat), summary_line(result, names, me=seat)]

    return run


def _hidden_session_review(session: Any, match: Any, seat: int) -> Callable[[], list[str]]:
    """The review of the last round of a hidden-hands table that its audit opened and that
    counted (the table's rounds: ``session.peer.table``)."""
    from cardtable.cli.hidden_rounds import audited

    table = getattr(getattr(session, "peer", None), "table", None)
    rounds = list(getattr(table, "audited", None) or [])
    found = None
    for h in reversed(rounds):
        found = audited(h)
        if found is not None:
            break
    if found is None:
        return lambda: ["no review yet: no round of this match has ended with its audit"]
    d, config, seed, names = found, match.config, match.seed, session.names()

    def run() -> list[str]:
        try:
            result = review_dealt(d, config, seed, [seat], LEVEL)
        except click.ClickException as err:  # the compiled search is missing
            return [f"no review: {err.format_message()}"]
        return [*review_lines(result, names, me=seat), summary_line(result, names, me=seat)]

    return run


def _own_seat(path: Path, data: bytes) -> int:
    """Your seat at a table log (the identity key beside it, else the machine whose seeds the log
    keeps: hidden hands); else seat 0, said on stderr."""
    from cardtable.cli.table_logs import is_table_log, read_table_log

    if is_table_log(data):
        home = path.parent.parent if path.parent.name == "tables" else path.parent
        try:
            log = read_table_log(path)
        except (OSError, ValueError):
            log = None
        applied = log.applied if log is not None else []
        for mine in _keys(home, path, log) if log is not None else ():
            seat = next((a.seat for a in applied if a.author == mine and a.seat is not None), None)
            if seat is not None:
                return int(seat)
    click.echo("cardtable: no seat of yours in this log: reviewing seat 0 (--seat S or --all-seats "
               "for others)", err=True)
    return 0


def _keys(home: Path, path: Path, log: Any) -> Iterator[bytes]:
    """The keys that may be yours: the identity kept in ``home``, the dealer whose seeds the log keeps."""
    try:
        mine = _key_of((home / "identity.key").read_bytes())
    except OSError:
        mine = None
    if mine is not None:
        yield mine
    dealer = _dealer_key(path, log)
    if dealer is not None:
        yield dealer


def _dealer_key(path: Path, log: Any) -> bytes | None:
    """The key of the machine that kept a hidden-hands table's log: the dealing member whose seed
    commitment a seed kept in the log's store matches (None: none)."""
    from cardtable.cli.table_logs import read_meta
    from cardtable.p2p.hidden.peek import round_view

    if not log.rounds:
        return None
    try:
        kept = read_meta(path)
    except (OSError, ValueError):
        return None
    for _, h in log.rounds:
        if h.deal.complete:
            member = round_view(h, kept).member
            if member is not None:
                return bytes(member)
    return None


def _key_of(seed: bytes) -> bytes | None:
    from cardtable.p2p.identity import KEY_BYTES, Identity

    return Identity.from_seed(seed).key if len(seed) == KEY_BYTES else None
