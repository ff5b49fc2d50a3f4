"""``cardtable match``: headless games between bots, with a summary for people or scripts."""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import click

from cardtable.ai.bots import make_bot, parse_bot_spec
from cardtable.ai.runlog import RunLog, previous_seed
from cardtable.ai.stats import MIN_DEALS, pairs
from cardtable.ai.tournament import Task, play_all, schedule, split_entry, summarize
from cardtable.cli.options import (
    bot_time_option,
    debug_bots_option,
    edition_option,
    game_argument,
    make_config,
    out_option,
    parse_rules,
    players_option,
    ray_option,
    resume_option,
    rule_option,
    seed_option,
)
from cardtable.cli.seat_bots import bot_problem
from cardtable.cli.words import plural
from cardtable.engine.errors import ParseError

EXAMPLES = """
\b
Examples:
  cardtable match solo --players 4 --games 20 --seed 7
  cardtable match solo --edition anniversary --games 50 --duplicate
      --bots ismcts:fast,heuristic,heuristic,heuristic
  cardtable match scout --players 3 --games 10 --workers 2 --json --log-dir logs/
  cardtable match solo --bots 'me=cmd:python3 examples/json_bot.py,heuristic' --players 2
  cardtable match scout --games 5000 --out run.jsonl      (Ctrl-C, then the same line with --resume)
"""


@click.command(epilog=EXAMPLES)
@game_argument
@players_option
@edition_option
@click.option("--bots", default="random", show_default=True,
              help="One bot for every seat, or one per seat, comma-separated: random, heuristic, "
                   "ismcts:fast|normal|strong, module:Class, path/bot.py:Class, an installed plugin's name, "
                   "cmd:COMMAND; LABEL=BOT names it (docs/bots.md).")
@click.option("--games", "-g", type=click.IntRange(1, 1_000_000), default=10, show_default=True,
              help="How many deals to play (each a whole match).")
@seed_option
@click.option("--duplicate", is_flag=True, help="Replay every deal with the bots rotated through all seats.")
@click.option("--rotate/--no-rotate", default=True, show_default=True,
              help="Rotate the bots one seat per deal (without --duplicate).")
@click.option("--workers", "-w", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes to play games in parallel.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write each game's log there (replay with 'cardtable replay').")
@out_option
@resume_option
@bot_time_option
@debug_bots_option
@ray_option
@rule_option
def match(game: str, players: int, edition: str | None, bots: str, games: int, seed: int | None,
          duplicate: bool, rotate: bool, workers: int, as_json: bool, log_dir: Path | None,
          out: Path | None, resume: bool, bot_time: float, debug_bots: Path | None, ray_address: str | None,
          rules: tuple[str, ...]) -> None:
    """Play GAME (solo or scout) between computer players, headless.

    The output depends only on the arguments (the seed included), except the times per move.
    Progress goes to stderr: a bar in a terminal, else a line as a game ends (at most one every
    2 s). Ctrl-C stops at once and prints the summary of the games finished.
    """
    config = make_config(game, players, edition, **parse_rules(rules))
    check_ray(ray_address)
    entries = bot_entries(bots, players, game)
    seed = resumed_seed(seed, out, resume)
    make_log_dir(log_dir)
    make_log_dir(debug_bots, "--debug-bots")
    plan = schedule(games, entries, duplicate, rotate)
    header = {"seed": seed, "game": config.game, "config": config.to_dict(), "bots": entries,
              "duplicate": duplicate, "rotate": rotate, "deals": games}
    where = None if log_dir is None else str(log_dir)
    debug_dir = None if debug_bots is None else str(debug_bots.resolve())
    tasks = [Task(config.to_dict(), seed, g, where, bot_time, debug_dir=debug_dir) for g in plan]
    results, interrupted = run_batch(tasks, header, out, resume, workers, ray_address, config.describe())
    report = {key: header[key] for key in ("seed", "game", "config", "bots", "duplicate", "rotate")}
    report["games"] = results
    report["summary"] = {"games": len(results), "deals": games, "bots": summarize(results)}
    if duplicate:
        report["summary"]["pairs"] = pairs(results)
    if interrupted:
        report["interrupted"] = True
    click.echo(json.dumps(report, sort_keys=True) if as_json else summary_table(report))
    stop_if_interrupted(interrupted, len(results), len(plan), out)


def bot_entries(bots: str, players: int, game: str) -> list[str]:
    """The --bots list, one entry a seat, each checked (a program is started once and greeted)."""
    entries = [b.strip() for b in bots.split(",") if b.strip()]
    if len(entries) == 1:
        entries *= players
    if len(entries) != players:
        raise click.BadParameter(f"give 1 bot or {players} bots, not {len(entries)}", param_hint="--bots")
    return check_entries(entries, game)


def check_entries(entries: list[str], game: str) -> list[str]:
    """Every entry's bot loads (a program answers the hello for ``game``); labels are unambiguous."""
    seen: dict[str, str] = {}
    checked: dict[str, None] = {}
    spec = ""
    try:
        for entry in entries:
            label, spec = split_entry(entry)
            if seen.setdefault(label, spec) != spec:
                raise ParseError(f"the label {label!r} names two different bots")
            if spec in checked:
                continue
            kind, _ = parse_bot_spec(spec)
            if spec.startswith("cmd:"):
                from cardtable.ai.process_bot import check_process_bot

                check_process_bot(spec[4:], game)
            elif kind == "plugin":
                _build_once(spec)
            else:  # a built-in bot can still be missing a part (the compiled search)
                make_bot(spec, b"check", 0)
            checked[spec] = None
    except ParseError as err:
        raise click.BadParameter(bot_problem(err, spec), param_hint="--bots") from None
    return entries


def _build_once(spec: str) -> None:
    """A Python plugin must build as ``Class(seed, seat)``: tried once, before any game."""
    try:
        bot = make_bot(spec, b"check", 0)
    except Exception as err:  # noqa: BLE001 - a plugin's bug is bad input, said in one line
        problem = f"{type(err).__name__}: {err}"
        raise ParseError(f"bot {spec!r} cannot be built as Class(seed, seat): {problem}") from None
    close = getattr(bot, "close", None)
    if callable(close):
        close()


def resumed_seed(seed: int | None, out: Path | None, resume: bool) -> int:
    """The seed to play: given, read back from the run being resumed, or chosen and printed."""
    if resume:
        if out is None:
            raise click.BadParameter("--resume needs --out FILE, the run to continue", param_hint="--resume")
        if seed is None:
            try:
                seed = previous_seed(out)
            except ParseError as err:
                raise click.BadParameter(str(err), param_hint="--out") from None
    if seed is None:
        seed = secrets.randbelow(2**31)
        click.echo(f"seed: {seed}", err=True)
    return seed


def make_log_dir(log_dir: Path | None, option: str = "--log-dir") -> None:
    if log_dir is not None:
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            problem = f"cannot create {log_dir}: {err.strerror}"
            raise click.BadParameter(problem, param_hint=option) from None


def run_batch(tasks: list[Task], header: dict[str, Any], out: Path | None, resume: bool, workers: int,
              ray_address: str | None, label: str) -> tuple[list[dict[str, Any]], bool]:
    """Play the tasks not already in ``out`` (streaming each finished game there), with progress
    on stderr (``progress``); Ctrl-C stops at once. (results in schedule order, interrupted?)"""
    log = None
    if out is not None:
        try:
            log = RunLog(out, header, resume)
        except ParseError as err:
            raise click.BadParameter(str(err), param_hint="--out") from None
    results = list(log.done) if log else []
    done = {int(r["index"]) for r in results}
    todo = [t for t in tasks if t.game.index not in done]
    interrupted = False
    if ray_address is None:
        workers = min(workers, os.cpu_count() or 1, max(1, len(todo)))
    with progress(len(tasks), label) as bar:
        bar.update(len(tasks) - len(todo))
        try:
            with closing(_games(todo, workers, ray_address)) as stream:
                for result in stream:
                    results.append(result)
                    if log:
                        log.write(result)
                    bar.update(1)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if log:
                log.close()
    return sorted(results, key=lambda r: int(r["index"])), interrupted


def progress(total: int, label: str) -> Any:
    """A progress bar on stderr in a terminal; else a line a finished game (``Lines``)."""
    if sys.stderr.isatty():
        return click.progressbar(length=total, label=label, file=sys.stderr)
    return Lines(total, label)


LINE_EVERY = 2.0
"""Seconds between two progress lines at least (the last game is always told)."""


class Lines:
    """Progress for a stderr that is not a terminal (a pipe, a file, CI): a line when a game ends
    (at most one every ``LINE_EVERY`` seconds, and the last), with the time so far and an estimate
    of the time left. The first ``update`` is the games a ``--resume`` found played already
    (``run_batch``)."""

    def __init__(self, total: int, label: str) -> None:
        self.total, self.label = total, label
        self.done = self.before = 0
        self.first = True
        self.start = self.told = time.monotonic()

    def __enter__(self) -> Lines:
        click.echo(f"{self.label}: {plural(self.total, 'game')} to play", err=True)
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def update(self, n: int) -> None:
        self.done += n
        if self.first:
            self.first, self.before = False, n
            if n:
                click.echo(f"{self.label}: {n} of {self.total} played already", err=True)
            return
        now = time.monotonic()
        if now - self.told < LINE_EVERY and self.done < self.total:
            return
        self.told, elapsed = now, now - self.start
        left = elapsed / max(1, self.done - self.before) * (self.total - self.done)
        more = f", about {left:.0f} s to go" if self.done < self.total else ""
        click.echo(f"{self.label}: {self.done} of {self.total} games played ({elapsed:.0f} s{more})",
                   err=True)


def _games(todo: list[Task], workers: int, ray_address: str | None) -> Any:
    return play_all(todo, workers, ray_address)


def check_ray(ray_address: str | None) -> None:
    """With --ray, Ray must be installed and the cluster's address must answer (checked before
    anything is played)."""
    if ray_address is not None:
        from cardtable.ai.runner_ray import RayMissing, RayUnreachable, check_ray

        try:
            check_ray(ray_address)
        except (RayMissing, RayUnreachable) as err:
            raise click.BadParameter(str(err), param_hint="--ray") from None


def stop_if_interrupted(interrupted: bool, played: int, planned: int, out: Path | None) -> None:
    if not interrupted:
        return
    hint = f"; the same command with --resume plays the {planned - played} missing" if out else ""
    click.echo(f"cardtable: interrupted after {played} of {planned} games{hint}", err=True)
    click.get_current_context().exit(130)


def summary_table(report: dict[str, Any]) -> str:
    summary = report["summary"]
    partial = " (interrupted)" if report.get("interrupted") else ""
    w = max([16, *(len(row["bot"]) for row in summary["bots"])])
    games = plural(summary["games"], "game")
    lines = [f"{report['game'].upper()} · {games} · seed {report['seed']}{partial}",
             f"{'bot':<{w}} {'seat-games':>10} {'win %':>7} {'95% interval':>15} {'mean score':>11} "
             f"{'95% interval':>17} {'ms/move':>8} {'cpu ms':>8}"]
    for row in summary["bots"]:
        lines.append(f"{row['bot']:<{w}} {row['seat_games']:>10} {100 * row['win_rate']:>6.1f}% "
                     f"{_pct(row['win_rate_ci']):>15} {row['mean_score']:>11.1f} "
                     f"{_span(row['mean_score_ci'], '{:.1f}'):>17} {row['ms_per_move']:>8.2f} "
                     f"{row['cpu_ms_per_move']:>8.2f}")
    with_advantage = [row for row in summary["bots"] if "advantage" in row]
    if with_advantage:
        deals = with_advantage[0]["advantage"]["deals"]
        lines.append(f"paired by deal ({deals} deals in every rotation): each bot minus the others "
                     f"(verdict by win rate, from {MIN_DEALS} deals)")
        for row in with_advantage:
            adv = row["advantage"]
            lines.append(f"{row['bot']:<{w}} win {100 * adv['win_rate']:>+6.1f} pts "
                         f"{_span(adv['win_rate_ci'], '{:+.1f}', 100):>17}   score {adv['score']:>+8.1f} "
                         f"{_span(adv['score_ci'], '{:+.1f}'):>17}   {adv['verdict']}")
    for row in summary["bots"]:
        if row["faults"]:
            kinds = ", ".join(f"{n} {k}" for k, n in sorted(row["faults"].items()) if k != "fallback_moves")
            moved = row["faults"].get("fallback_moves", 0)
            lines.append(f"faults: {row['bot']}: {kinds} ({moved} moves made by the fallback)")
            for example in row.get("fault_examples", {}).values():
                lines += ["  " + line for line in fault_example_lines(example)]
    return "\n".join(lines)


def fault_example_lines(example: dict[str, Any]) -> list[str]:
    """A fault's first example in a few lines: where, what went wrong, the line the bot wrote,
    the legal actions it had, the traceback."""
    where = f"game {example['game']}, seat {example['seat']}, " if "game" in example else ""
    when = f"round {(example.get('round') or 0) + 1}, {example['decision']}"
    head = f"first {example['kind']} ({where}{when}): "
    lines = [head + str(example.get("error") or example["kind"])]
    if example.get("line"):
        lines.append(f"  it wrote: {example['line'][:200]}")
    if example["kind"] == "illegal":
        shown = ", ".join(example["legal"])
        more = example["legal_count"] - len(example["legal"])
        lines.append(f"  legal were: {shown}" + (f" (and {more} more)" if more > 0 else ""))
    if example.get("exit_code") is not None:
        lines.append(f"  exit code {example['exit_code']}")
    if example.get("traceback"):
        lines += ["  " + line for line in example["traceback"].rstrip().splitlines()[-12:]]
    if example.get("stderr"):
        from cardtable.cli.seat_bots import last_line

        last = last_line(Path(example["stderr"]))
        lines.append(f"  its stderr: {example['stderr']}" + (f", its last line: {last}" if last else ""))
    return lines


def _pct(span: list[float]) -> str:
    return f"{100 * span[0]:.1f}-{100 * span[1]:.1f}%"


def _span(span: list[float | None], fmt: str, scale: float = 1) -> str:
    if span[0] is None or span[1] is None:
        return "n/a"
    return f"{fmt.format(scale * span[0])} to {fmt.format(scale * span[1])}"



