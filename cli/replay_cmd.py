"""``cardtable replay``: replay a game log, verify it, and tell the game in words."""

from __future__ import annotations

from pathlib import Path

import click

from engine.log import Replay
from engine.log import replay as replay_log

EXAMPLES = """
\b
Examples:
  cardtable replay logs/game-0000.ctlog
  cardtable replay --verify logs/game-0000.ctlog
"""


@click.command(epilog=EXAMPLES)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--verify", is_flag=True, help="Only verify: print one summary line, not the account.")
def replay(file: Path, verify: bool) -> None:
    """Replay FILE, check every entry against the rules and its digest, and print the game."""
    try:
        data = file.read_bytes()
    except OSError as err:
        raise click.ClickException(f"cannot read {file}: {err.strerror}") from None
    result = replay_log(data)
    if not verify:
        _account(result)
    if result.error:
        raise click.ClickException(f"{file}: {result.error} ({len(result.entries)} entries intact)")
    match = result.match
    assert match is not None
    state = "over" if match.is_over() else "unfinished"
    click.echo(f"verified: {len(result.entries)} entries, match {state}, totals {match.scores()}, "
               f"winners {match.winners()}, digest {match.digest()[:16]}")


def _account(result: Replay) -> None:
    match = result.match
    if match is None:
        return
    click.echo(f"{match.config.describe()} · seed {match.seed.hex()} · {result.meta}")
    for entry, events in zip(result.entries, result.events, strict=True):
        words = "; ".join(str(e) for e in events)
        click.echo(f"{entry.index:>6}  seat {entry.seat}  {entry.action:<16} {words}")
