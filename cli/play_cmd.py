"""``cardtable play``: you against computer players, and the terminal client behind host/join.

``play`` hosts a private table on loopback through the same p2p stack as a LAN game: one
``p2p.peer.Peer`` on a ``p2p.node.Node`` bound to 127.0.0.1, every other seat a computer
player run by that peer, no beacons (nobody else hears the table). The seat is played in the
Textual table (``cli/tui.py``) or, with ``--plain``, in line mode (``cli/plain.py``), both over
``cli.controller``. ``--no-network`` plays the same match in-process without sockets.

``net_client`` is the hook ``cardtable host`` and ``cardtable join`` call when they run
without ``--auto``: it plays this peer's seat interactively on the node they opened.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import click

from cardtable.ai.bots import make_bot, with_forget
from cardtable.cli.controller import Controller
from cardtable.cli.net_session import NetSession
from cardtable.cli.options import (
    again,
    bell_option,
    bot_delay_option,
    debug_bots_option,
    edition_option,
    forget_calls_option,
    home_option,
    make_config,
    parse_rules,
    plain_option,
    players_option,
    pool_option,
    rounds_option,
    rule_option,
    scoring_overrides,
    seed_option,
    threshold_option,
    turn_clock_option,
)
from cardtable.cli.player_words import Note
from cardtable.cli.seat_bots import keep_logs, table_spec, tell_faults
from cardtable.cli.session import BaseSession, LocalSession
from cardtable.cli.table_logs import PLAY_DIR
from cardtable.engine.errors import ParseError
from cardtable.engine.games import GAME_NAMES

DEFAULT_BOTS = "ismcts:strong"
FALLBACK_BOTS = "heuristic"
START_WAIT = 15.0
"""Seconds to wait for a private table's seed agreement (it needs no one else: about 2 s)."""
LEAVE_WAIT = 5.0
"""Seconds to wait for a leave to reach the table log before closing the sockets."""

EXAMPLES = """
\b
Examples:
  cardtable play solo                          (you and 3 computer players)
  cardtable play solo --edition anniversary --players 3 --bots ismcts:strong
  cardtable play scout --players 4 --turn-clock 30
  cardtable play solo --plain --seed 7         (line mode: type R7, wild:B, draw ...)
  cardtable play solo --players 3 --bots 'me=cmd:python3 mybot.py,strong'   (your bot at the table)
  cardtable play --resume                      (the unfinished match kept; a bare 'play' offers it)
"""


@click.command(epilog=EXAMPLES)
@click.argument("game", type=click.Choice(GAME_NAMES), required=False)
@players_option
@edition_option
@pool_option
@threshold_option
@rounds_option
@click.option("--bots", default=None, metavar="BOT[,BOT...]",
              help="The computer players, one bot for all or one a computer seat, LABEL=BOT naming it at the "
                   "table: random, heuristic, ismcts:fast|normal|strong (or just fast, normal, strong), "
                   "module:Class, path/bot.py:Class, cmd:COMMAND "
                   f"[default: {DEFAULT_BOTS}; {FALLBACK_BOTS} without the compiled search].")
@debug_bots_option
@plain_option
@turn_clock_option
@bell_option
@bot_delay_option
@forget_calls_option
@seed_option
@home_option
@click.option("--resume", is_flag=True,
              help="Resume your unfinished play match (kept in the config dir) instead of starting one.")
@rule_option
@click.option("--no-network", is_flag=True,
              help="Play in this process, without the p2p stack and its sockets (no log is kept).")
def play(game: str | None, players: int, edition: str | None, pool: int | None, threshold: int | None,
         rounds: int | None, bots: str | None, debug_bots: Path | None, plain: bool, turn_clock: float | None,
         bell: bool | None, bot_delay: float, forget_calls: float, seed: int | None, home: Path | None,
         rules: tuple[str, ...], resume: bool, no_network: bool) -> None:
    """Play GAME (solo or scout) against computer players, with no setup.

    You take seat 0; the others are computer players. The table runs through the same p2p
    stack as a LAN game, on loopback and heard by no one else, and keeps its log in the config
    dir: an unfinished match resumes with --resume (without GAME, 'play' offers it). The deal
    comes from --seed (printed when left out), so a seed replays the same cards.
    """
    play_home = play_dir(home)
    if resume:
        if game is not None or no_network:
            raise click.UsageError("--resume takes the kept match as it was: "
                                   "give no GAME and no --no-network")
    elif game is None:
        if no_network:
            raise click.UsageError("missing GAME: solo or scout")
        resume = offer_kept(play_home, plain, home)
    if not plain:
        need_terminal()
    kept_game, kept_players = kept_table(play_home) if resume else (game, players)
    spec = play_bots(bots, kept_players, kept_game or "solo", forget_calls)
    keep_logs(play_home, debug_bots)
    if resume:
        digest = asyncio.run(_play_on_loopback(None, spec, plain, turn_clock, bot_delay, 0, play_home, home,
                                               bell))
    else:
        assert game is not None
        config = make_config(game, players, edition,
                             **scoring_overrides(game, edition, pool, threshold, rounds),
                             **parse_rules(rules))
        resuming = not no_network and offer_resume(play_home, plain, home)
        if seed is None:
            seed = secrets.randbelow(2**31)
        if not resuming:
            click.echo(f"seed: {seed}", err=True)
        if no_network:
            from cardtable.engine.match import Match

            session: Any = LocalSession(Match(config, private_table_seed(config, seed)), 0, spec)
            digest = asyncio.run(run_session(session, plain=plain, turn_clock=turn_clock, linger=0.0,
                                             bot_delay=bot_delay, bots=spec, home=home, bell=bell))
        else:
            kept = None if resuming else config
            digest = asyncio.run(_play_on_loopback(kept, spec, plain, turn_clock, bot_delay, seed, play_home,
                                                   home, bell))
    if digest:
        click.echo(f"digest: {digest}")


def play_bots(bots: str | None, players: int, game: str, forget_calls: float) -> str:
    """The table's bot spec: the default, or ``--bots`` for the computer seats 1 .. players-1."""
    if bots is None:
        return with_forget(default_bots(), forget_calls)
    return table_spec(bots, players, range(1, players), game, forget_calls)


def kept_table(play_home: Path) -> tuple[str | None, int]:
    """The game and the number of players of the match kept for ``play --resume`` (None, 0: none)."""
    from cardtable.cli.table_logs import read_table_log

    try:
        config = read_table_log(play_home / "table.log").table.config
    except (OSError, ValueError):
        return None, 0
    return (None, 0) if config is None else (config.game, config.players)


def play_dir(home: Path | None) -> Path:
    """Where ``play`` keeps its table: ``play/`` in the config dir."""
    from cardtable.p2p.identity import default_home

    return (home if home is not None else default_home()) / PLAY_DIR


def kept_match(play_home: Path) -> Any:
    """The unfinished match kept in ``play_home`` (``p2p.node.StoredTable``), or None."""
    from cardtable.p2p.node import Home

    kept = Home(play_home)
    if not kept.store_path.exists():
        return None
    try:
        stored = kept.stored(kept.identity().key)
    except (OSError, ValueError):
        return None
    return stored if stored is not None and stored.resumable else None


def can_ask(plain: bool) -> bool:
    """Whether a question can be asked before the match (the table's terminal, not line mode)."""
    return not plain and sys.stdin.isatty()


def offer_kept(play_home: Path, plain: bool, home: Path | None) -> bool:
    """``play`` without GAME: True to resume the unfinished match kept (asked in a terminal),
    else a one-line usage error that says how to resume it or start one."""
    stored = kept_match(play_home)
    if stored is None:
        raise click.UsageError("missing GAME: solo or scout (no unfinished play match is kept to resume)")
    what = f"an unfinished {stored.game.upper()} match is kept ({stored.committed} entries)"
    if can_ask(plain):
        if click.confirm(f"{what[0].upper()}{what[1:]}: resume it?", default=True, err=True):
            return True
        raise click.UsageError("missing GAME: solo or scout")
    raise click.UsageError(f"missing GAME: solo or scout; {what}: {again('cardtable play --resume', home)} "
                           "resumes it")


def offer_resume(play_home: Path, plain: bool, home: Path | None = None) -> bool:
    """Whether to resume the unfinished match kept in ``play_home`` (asked in a terminal; else
    the old log is archived, and said where)."""
    from cardtable.p2p.node import Home

    kept = Home(play_home)
    if not kept.store_path.exists():
        return False
    stored = kept_match(play_home)
    if stored is not None:
        if can_ask(plain):
            if click.confirm(f"An unfinished {stored.game.upper()} match is kept "
                             f"({stored.committed} entries): resume it?", default=True, err=True):
                return True
        else:
            click.echo(f"cardtable: an unfinished match was kept ({again('cardtable play --resume', home)} "
                       "would have resumed it)", err=True)
    where = kept.archive()
    if where is not None:
        click.echo(f"cardtable: the previous play log is kept as {where} ('cardtable games' lists it)",
                   err=True)
    return False


async def _play_on_loopback(config: Any, bots: str, plain: bool, turn_clock: float | None, bot_delay: float,
                            seed: int, play_home: Path, home: Path | None = None,
                            bell: bool | None = None) -> str | None:
    """Play on a private loopback table whose log is kept in ``play_home`` (``play/`` in
    ``home``, the --home given); ``config`` None resumes the unfinished one kept there."""
    from cardtable.p2p.node import Home, Node
    from cardtable.p2p.peer import Peer, Timeouts

    kept = Home(play_home)
    try:
        identity = kept.identity()
    except (OSError, ValueError) as err:
        raise click.ClickException(f"cannot use the identity key in {play_home}: {err}") from None
    timeouts = Timeouts(bot_delay=bot_delay)
    if config is None:
        stored = kept.stored(identity.key)
        if stored is None or not stored.resumable:
            raise click.ClickException(f"no unfinished play match to resume in {play_home}")
        click.echo(f"cardtable: resuming your {stored.game.upper()} match ({stored.committed} entries)",
                   err=True)
        peer = Peer.resume(identity, kept.store(), now=time.monotonic(), seed=secrets.token_bytes(32),
                           bots=bots, auto=None, timeouts=timeouts)
    else:
        peer = Peer.host(identity, kept.store(), config, "you", config.players - 1, now=time.monotonic(),
                         seed=peer_seed(seed), bots=bots, auto=None, timeouts=timeouts)
    node = Node(host="127.0.0.1", listen_discovery=False, broadcast=["127.0.0.1"])
    try:
        await node.open()
    except OSError as err:
        raise click.ClickException(f"cannot open a UDP socket on 127.0.0.1: {err.strerror} "
                                   "(--no-network plays without one)") from None
    node.broadcast = []  # a private table: its beacons go nowhere
    resume = again("cardtable play --resume", home)
    try:
        session = KeptSession(node, peer, resume)
        node.attach(peer)
        if not await node.wait_for(lambda: peer.table.match is not None, START_WAIT):
            raise click.ClickException(f"the table did not start within {START_WAIT:g} s")
        return await run_session(session, plain=plain, turn_clock=turn_clock, linger=0.0,
                                 resume_hint=resume, bots=bots, home=home, bell=bell)
    finally:
        await node.close()


class KeptSession(NetSession):
    """A private ``play`` table (``NetSession`` with ``keep``): leaving keeps the match, and the
    words say the command that resumes it, with the --home given."""

    def __init__(self, node: Any, peer: Any, resume: str) -> None:
        super().__init__(node, peer, keep=True)
        self.resume = resume
        self._scan: tuple[Any, Any, list[Any]] | None = None  # the peer read, its table so far, [read, last]
        self._undoing = False

    def _on_peer_event(self, event: Any) -> None:
        if not (self._undoing and event.kind == "resumed"):
            super()._on_peer_event(event)

    def after_leaving(self) -> str:
        return f"the match is kept for {self.resume}"

    def undoable(self) -> bool:
        return not self.kept and not self.is_over() and self._last_move() is not None

    def _last_move(self) -> int | None:
        """Where your last move is in the table's log (its index), None if you made none in
        this match (the log's new entries are read as they come, once each)."""
        from cardtable.p2p.table import TableState

        if self._scan is None or self._scan[0] is not self.peer:
            self._scan = (self.peer, TableState(), [0, None])
        _, table, state = self._scan
        for i in range(state[0], self.peer.commit_index):
            entry = self.peer.log[i]
            applied = table.apply(entry)  # (every entry of a private table is this peer's: the seat
            if applied.kind == "rematch":  # acted for is the entry's own)
                state[1] = None  # a new match: the moves before it are not this one's
            elif applied.kind == "act" and applied.ok and entry.decoded.payload[1] == self.seat:
                state[1] = i
        state[0] = max(state[0], self.peer.commit_index)
        last: int | None = state[1]
        return last

    def undo(self) -> str | None:
        """The table's log is cut before your last move and the peer resumed from it: the match
        is replayed from its seed up to there, and the computer players play on."""
        from cardtable.p2p.peer import Peer

        if self.kept:
            return "you have left the table"
        if self.is_over():
            return "the match is over"
        at = self._last_move()
        if at is None:
            return "nothing to undo: you have made no move in this match"
        old = self.peer
        taken = old.log[at].decoded.payload[2]
        old.store.truncate(at)
        self.peer = Peer.resume(old.identity, old.store, now=self.node.clock(), seed=secrets.token_bytes(32),
                                bots=str(old.bots_spec), auto=None, timeouts=old.timeouts)
        self._undoing = True  # the resumed peer's "resumed" is no news to the player: the undo is
        try:
            self.node.attach(self.peer)
        finally:
            self._undoing = False
        self.version += 1
        self._emit(Note("table", self.seat, f"You take back your move {taken} (and what followed it)"))
        return None

    def leave(self) -> None:
        if self.is_over() or self.kept:
            super().leave()
            return
        self.kept = True
        self._emit(Note("table", self.seat, "You leave the table; the match is kept where it stands: "
                                            f"{self.resume} takes it up again"))


def peer_seed(seed: int) -> bytes:
    """The private table's randomness (table id, seed nonce) for ``play --seed``."""
    return f"cardtable/play/{seed}".encode()


def private_table_seed(config: Any, seed: int) -> bytes:
    """The match seed a private ``play`` table agrees on for ``--seed``, computed without sockets
    (the peer is sans-I/O and alone at the table), so ``--no-network`` deals the same cards."""
    from cardtable.p2p.identity import Identity
    from cardtable.p2p.peer import Peer, Timeouts
    from cardtable.p2p.store import MemoryStore

    peer = Peer.host(Identity.generate(), MemoryStore(), config, "you", config.players - 1, now=0.0,
                     seed=peer_seed(seed), bots=FALLBACK_BOTS, auto=None, timeouts=Timeouts(bot_delay=3600.0))
    now = 0.0
    for _ in range(1000):
        out = peer.timer(now)
        if peer.table.match is not None:
            return bytes(peer.table.match.seed)
        now = out.deadline if out.deadline is not None else now + 0.05
    raise click.ClickException("the private table did not agree on a seed")  # pragma: no cover


def net_client(plain: bool, turn_clock: float | None, home: Path | None = None,
               bell: bool | None = None) -> Callable[[Any, Any, float], Awaitable[str | None]]:
    """The interactive client for ``host``/``join``: plays ``peer``'s seat on ``node`` (the
    table in the theme kept in ``home``, the --home given).

    Called as ``await client(node, peer, linger)`` once the node is open and the peer attached;
    returns the match digest when the match is over, None when the player left before.
    """
    if not plain:
        need_terminal()

    async def client(node: Any, peer: Any, linger: float) -> str | None:
        return await run_session(NetSession(node, peer), plain=plain, turn_clock=turn_clock, linger=linger,
                                 resume_hint="the same command", bots=str(peer.bots_spec), home=home,
                                 bell=bell)

    return client


async def run_session(session: BaseSession, *, plain: bool, turn_clock: float | None, linger: float,
                      bot_delay: float | None = None, resume_hint: str | None = None,
                      bots: str | None = None, home: Path | None = None,
                      bell: bool | None = None,
                      tutor: Callable[[Controller], None] | None = None) -> str | None:
    """Play the seat of ``session`` in the table or in line mode until the end or until you leave.

    ``resume_hint``: the table is kept on disk, and this command resumes it, so closing the
    client without leaving is worth a word on how to come back. ``bots``: the table's bot spec
    (its programs' stderr files and faults are told at the table). ``home``: the --home given
    (the table takes the theme kept there). ``bell``: --bell/--no-bell (None: the table's own
    default, ``Controller.bell``). ``tutor``: called with the controller before the table opens
    (``cardtable learn``'s tips)."""
    controller = Controller(session, turn_clock=turn_clock, bell=bell)
    if tutor is not None:
        tutor(controller)
    if bots is not None:
        tell_faults(lambda text: session._emit(Note("table", None, text)), session.names,
                    lambda: [s for s, c in enumerate(session.controllers()) if c != "human"], bots)
    over_at: list[float] = []

    def note_the_end() -> None:
        if session.is_over() and not over_at:
            over_at.append(time.monotonic())

    controller.on_change(note_the_end)
    if plain:
        from cardtable.cli.plain import PlainClient, stdin_queue

        client = PlainClient(controller, sys.stdout, sys.stderr, bot_delay=bot_delay,
                             echo=not sys.stdin.isatty())
        await client.run(stdin_queue(), linger=linger)
    else:
        from cardtable.cli.tui import TableApp

        app = TableApp(controller, bot_delay=bot_delay)
        app.theme = kept_theme(home) or app.theme
        await app.run_async()
        if controller.summary:
            click.echo(controller.summary, err=True)
        if session.is_over() and over_at:  # stay: the others may not know yet that the match is over
            await asyncio.sleep(max(0.0, linger - (time.monotonic() - over_at[0])))
    if isinstance(session, NetSession) and session.phase() == "left":
        if not session.kept:
            await session.node.wait_for(lambda: session.peer.left, LEAVE_WAIT)
        return None
    if resume_hint and not session.is_over():
        click.echo("cardtable: you closed the client without leaving the table: your seat waits for you "
                   f"(a computer player takes it over meanwhile); {resume_hint} resumes it", err=True)
    return session.digest() if session.is_over() else None


def kept_theme(home: Path | None = None) -> str | None:
    """The theme kept with ``cardtable config theme`` (in ``home``, the --home given)."""
    from cardtable.cli.settings import load

    theme = load(home).get("theme")
    return str(theme) if theme else None


def default_bots() -> str:
    """The default computer players; heuristic without the compiled search."""
    try:
        make_bot(DEFAULT_BOTS, b"check", 1)
        return DEFAULT_BOTS
    except ParseError:
        click.echo(f"cardtable: the compiled search is missing: the computer players are {FALLBACK_BOTS}",
                   err=True)
        return FALLBACK_BOTS


def need_terminal() -> None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.UsageError("the table needs a terminal: use --plain for line mode")
