"""``cardtable tables``, ``host`` and ``join``: tables on the LAN, with no server.

Data goes to stdout (the table list; ``digest: <hex>`` when a headless match ends), and
everything said to people goes to stderr. With ``--auto BOT`` a seat is played headless by a
bot; without it, the terminal client (``cli/play_cmd.py``: the Textual table, or ``--plain``
line mode) plays it.
"""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from cardtable.ai.bots import parse_bot_spec
from cardtable.cli.options import (
    auto_option,
    bell_option,
    bot_delay_option,
    broadcast_option,
    debug_bots_option,
    discovery_port_option,
    edition_option,
    forget_calls_option,
    fresh_option,
    game_argument,
    home_option,
    join_seconds_option,
    linger_option,
    make_config,
    parse_rules,
    passphrase_option,
    plain_option,
    player_option,
    players_option,
    pool_option,
    port_option,
    rounds_option,
    rule_option,
    scoring_overrides,
    seconds_option,
    takeover_option,
    threshold_option,
    turn_clock_option,
    verbose_option,
)
from cardtable.cli.seat_bots import bot_problem, keep_logs, table_spec
from cardtable.cli.words import plural
from cardtable.engine.errors import ParseError

JOIN_WAIT = 15.0
"""Seconds a joiner waits for its join to be committed before giving up."""
NAME_LISTEN = 4.0
"""Seconds ``join NAME`` listens at least: two tables of one name are both heard, and on a lossy
link the table's own beacons (one a second in the lobby) too, not only a stranger's replay of
one, which would send the joiner to the stranger's address."""

TABLES_EXAMPLES = """
\b
Examples:
  cardtable tables
  cardtable tables --seconds 5 --json
"""

HOST_EXAMPLES = """
\b
Examples:
  cardtable host solo --name kitchen --players 4 --cpu 2   (you play in the terminal table)
  cardtable host solo --name kitchen --players 4 --cpu 2 --auto heuristic
  cardtable host scout --name attic --players 3 --passphrase hunter2 --auto random
  cardtable host solo --name quick --players 4 --pool 40 --auto random   (a short match)
"""

JOIN_EXAMPLES = """
\b
Examples:
  cardtable join kitchen --plain                (you play in line mode)
  cardtable join --auto random                  (the only table heard)
  cardtable join kitchen --player bea --auto heuristic   (your name for this run)
  cardtable join 3f9a --auto random             (a table id prefix)
  cardtable join 192.168.1.20:40123 --auto random
  cardtable join 3f9a0c...e1@192.168.1.20:40123 --auto random   (no broadcast needed)
"""


# --- tables ---------------------------------------------------------------------------------------


@click.command(epilog=TABLES_EXAMPLES)
@seconds_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array on stdout.")
@passphrase_option
@discovery_port_option
def tables(seconds: float, as_json: bool, passphrase: str | None, discovery_port: int) -> None:
    """List the tables heard on the LAN (listens for their beacons, then exits).

    A table with a passphrase is listed only with its --passphrase, once two of its beacons
    are heard (a started table beacons every 2 s: give --seconds 4); the others are counted
    on stderr. 'cardtable join NAME --passphrase P' opens its table's first beacon heard."""
    heard, disc, now = asyncio.run(_listen(discovery_port, passphrase, seconds))
    locked = _locked(disc, now, passphrase)
    if as_json:
        click.echo(json.dumps([t.to_json() for t in heard], sort_keys=True))
    elif heard:
        click.echo(_table_list(heard))
    elif locked is None:  # else the line on the tables with a passphrase says what was heard
        click.echo(f"no tables heard in {seconds:g} s", err=True)
    for line in [locked, *_versions(disc)]:
        if line:
            click.echo(line, err=True)


def _locked(disc: Any, now: float, passphrase: str | None) -> str | None:
    """What to say about the tables with a passphrase heard (their salts heard again at a
    beacon's rate) that were not opened; None if there are none."""
    locked, refused = disc.locked(now), disc.refused(now)

    def tables(n: int) -> str:
        return f"{n} table{'s' if n != 1 else ''} with a passphrase"

    if not locked:
        return None
    if passphrase is None:
        return f"{tables(locked)} heard: give its --passphrase to see {'them' if locked != 1 else 'it'}"
    if refused:
        more = f" ({locked - refused} more not tried yet)" if locked > refused else ""
        why = "another passphrase, or a stranger's look-alike datagrams" if disc.tables(now) else \
            "a wrong passphrase?"  # it opened nothing at all
        return f"{tables(refused)} heard that this --passphrase does not open ({why}){more}"
    return (f"{tables(locked)} heard and not tried yet (many such tables, or a stranger's look-alike "
            f"datagrams): listen longer with --seconds")


def _versions(disc: Any, name: str | None = None) -> list[str]:
    """One line per table heard speaking another wire version (only ``name``'s, if given)."""
    from cardtable.p2p.wire import VERSION

    return [f"{f'table {heard!r}' if heard else 'a table'} speaks wire version {version}, this cardtable "
            f"speaks {VERSION}: both need the same release"
            for version, heard in disc.other_versions()
            if name is None or (heard or "").lower() == name.strip().lower()]


async def _listen(port: int, passphrase: str | None, seconds: float,
                  until: Callable[[Any], bool] | None = None,
                  sought: str | None = None) -> tuple[list[Any], Any, float]:
    """(the tables heard, the ``Discovery`` that heard them, its clock at the end)."""
    from cardtable.p2p.node import DiscoveryListener

    try:
        listener = await DiscoveryListener.open(port, passphrase)
    except OSError as err:
        raise click.ClickException(f"cannot listen on UDP port {port}: {err.strerror}") from None
    listener.discovery.sought = sought
    try:
        await listener.listen(seconds, None if until is None else lambda: until(listener.discovery))
        now = listener.clock()
        return listener.discovery.tables(now), listener.discovery, now
    finally:
        listener.close()


def _table_list(heard: list[Any]) -> str:
    rows = [("id", "name", "game", "edition", "seats", "free", "phase", "host", "address")]
    for t in heard:
        rows.append((t.short_id, t.name, t.game, t.edition, f"{t.taken}/{t.total}", str(t.free), t.phase,
                     t.host, f"{t.addr[0]}:{t.addr[1]}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
                     for row in rows)


# --- host -----------------------------------------------------------------------------------------


@click.command(epilog=HOST_EXAMPLES)
@game_argument
@click.option("--name", required=True,
              help="The table's name, as 'cardtable tables' lists it and 'cardtable join NAME' takes it "
                   "(up to 32 characters).")
@player_option
@players_option
@edition_option
@click.option("--cpu", type=click.IntRange(0, 9), default=0, show_default=True,
              help="Seats for computer players (the others wait for people).")
@click.option("--bots", default="heuristic", show_default=True, metavar="BOT[,BOT...]",
              help="The computer seats' bot, or one a computer seat, LABEL=BOT naming it at the table "
                   "(random, heuristic, ismcts:fast..., cmd:COMMAND; docs/bots.md).")
@debug_bots_option
@pool_option
@threshold_option
@rounds_option
@rule_option
@click.option("--deal", type=click.Choice(["hidden", "open"]), default=None,
              help="hidden: the machines deal together and each sees only its own cards "
                   "(docs/hidden-hands.md); open: every machine deals from the shared seed and could "
                   "read every hand (for trusted friends).  [default: hidden]")
@passphrase_option
@port_option
@auto_option
@home_option
@fresh_option
@takeover_option
@bot_delay_option
@forget_calls_option
@linger_option
@discovery_port_option
@broadcast_option
@verbose_option
@plain_option
@turn_clock_option
@bell_option
def host(game: str, name: str, player: str | None, players: int, edition: str | None, cpu: int, bots: str,
         debug_bots: Path | None, pool: int | None, threshold: int | None, rounds: int | None,
         rules: tuple[str, ...], deal: str | None, passphrase: str | None, port: int,
         auto: str | None, home: Path | None, fresh: bool, takeover: float, bot_delay: float,
         forget_calls: float, linger: float, discovery_port: int, broadcast: tuple[str, ...], verbose: bool,
         plain: bool, turn_clock: float | None, bell: bool | None) -> None:
    """Open a table for GAME (solo or scout) on the LAN and play it.

    The table is announced by beacons; people join with 'cardtable join'. With --auto the
    match is played headless and 'digest: <hex>' is printed on stdout when it is over. An
    unfinished table kept in --home (after a crash) is resumed instead, unless --fresh.
    """
    if cpu >= players:
        raise click.BadParameter(f"leave at least one seat for a person (--players {players})",
                                 param_hint="--cpu")
    bots = table_spec(bots, players, range(players - cpu, players), game, forget_calls)
    auto = _auto(auto)
    _check_name(name, "--name")
    player = player or _login_name()
    _check_name(player, "--player")
    config = make_config(game, players, edition, **scoring_overrides(game, edition, pool, threshold, rounds),
                         **parse_rules(rules))
    deal = deal or "hidden"
    ctx = _Context(home, passphrase, auto, bots, takeover, bot_delay, linger, port, discovery_port, broadcast,
                   verbose)
    ctx.client = _client(auto, plain, turn_clock, home, bell)
    if ctx.client is not None or debug_bots is not None:  # a full-screen table would paint over stderr
        keep_logs(ctx.home.path, debug_bots, stderr=ctx.client is not None)
    peer = ctx.resume_or_none(fresh, name, hosting=True)
    if peer is None:
        from cardtable.p2p.peer import Peer

        peer = Peer.host(ctx.identity, ctx.home.store(), config, name, cpu, now=time.monotonic(),
                         seed=os.urandom(32), passphrase=passphrase, bots=bots, auto=auto,
                         timeouts=ctx.timeouts(), deal=deal, player=player)
        table_id = peer.table_id.hex() if peer.table_id else "?"
        people = players - cpu - 1

        def intro(port: int) -> None:
            _say(f"table {name!r} ({config.describe()}), id {table_id}, UDP port {port}")
            _say("cards: hidden, each machine sees only its own seat's cards (the host also sees the "
                 "computer players')" if deal == "hidden" else
                 "cards: open, every machine could read every hand (--deal open)")
            secret = " --passphrase PASSPHRASE" if passphrase else ""
            _say(f"waiting for {plural(people, 'more player')}: cardtable join {shlex.quote(name)}{secret}"
                 if people else "no seats for others: the match starts now")

        ctx.intro = intro
    ctx.run(peer)


# --- join -----------------------------------------------------------------------------------------


@click.command(epilog=JOIN_EXAMPLES)
@click.argument("table", required=False)
@player_option
@click.option("--name", "old_name", default=None, hidden=True)  # the old spelling of --player
@passphrase_option
@auto_option
@debug_bots_option
@join_seconds_option
@port_option
@home_option
@fresh_option
@takeover_option
@bot_delay_option
@linger_option
@discovery_port_option
@broadcast_option
@verbose_option
@plain_option
@turn_clock_option
@bell_option
def join(table: str | None, player: str | None, old_name: str | None, passphrase: str | None,
         auto: str | None, debug_bots: Path | None, seconds: float, port: int, home: Path | None, fresh: bool,
         takeover: float, bot_delay: float, linger: float, discovery_port: int, broadcast: tuple[str, ...],
         verbose: bool, plain: bool, turn_clock: float | None, bell: bool | None) -> None:
    """Take a seat at TABLE and play it.

    TABLE is a table's name or id prefix as 'cardtable tables' shows them, HOST:PORT, or
    ID@HOST:PORT (the full table id: needs no broadcast). Without TABLE, the only table heard
    is joined. Your name at the table is --player, else the name setting of --home ('cardtable
    config name'), else your login name. An unfinished table kept in --home (after a crash) is
    resumed instead, unless --fresh. After leaving a table, the same join (same --home) sits
    down again while its match runs: the seat comes back from the computer player.
    """
    auto = _auto(auto)
    if old_name is not None:
        source = click.get_current_context().get_parameter_source("player")
        if source in (click.core.ParameterSource.COMMANDLINE, click.core.ParameterSource.ENVIRONMENT):
            raise click.UsageError("give your name once: --player NAME")
        player = old_name
    name = player or _login_name()
    _check_name(name, "--player")
    ctx = _Context(home, passphrase, auto, "heuristic", takeover, bot_delay, linger, port, discovery_port,
                   broadcast, verbose)
    ctx.client = _client(auto, plain, turn_clock, home, bell)
    if ctx.client is not None or debug_bots is not None:  # a full-screen table would paint over stderr
        keep_logs(ctx.home.path, debug_bots, stderr=ctx.client is not None)
    peer = ctx.resume_or_none(fresh, table)
    if peer is None:
        key = ctx.identity.key
        found = _find_table(table, discovery_port, passphrase, seconds,
                            lambda table_id: ctx.home.left_at(key, table_id))
        peer = ctx.sit_down(name, *found)
    ctx.run(peer, joining=True)


def _find_table(query: str | None, port: int, passphrase: str | None, seconds: float,
                left: Callable[[bytes], bool]) -> tuple[bytes, tuple[str, int], str, bytes | None,
                                                         list[tuple[str, int]]]:
    """(table id, contact address, label, sequencer key, every address it was heard from) of the
    table the user means, or a one-line error. ``left``: whether this peer left a table (its
    seat is kept: a started table takes it back)."""
    from cardtable.p2p.discovery import parse_hostport

    if query and "@" in query:
        id_text, _, where = query.partition("@")
        addr = parse_hostport(where)
        try:
            table_id = bytes.fromhex(id_text)
        except ValueError:
            table_id = b""
        if addr is None or len(table_id) != 16:
            raise click.BadParameter("ID@HOST:PORT needs the full 32-digit table id and an address",
                                     param_hint="TABLE")
        return table_id, addr, f"table {table_id.hex()[:8]}", None, [addr]
    addr = parse_hostport(query) if query else None

    started = time.monotonic()

    def found(disc: Any) -> bool:
        now = time.monotonic()
        if addr is None and (now - started < NAME_LISTEN or disc.pending(now)):
            return False  # another table (of that name) may beacon a moment later, or wait for its key
        if query is None:
            return bool(disc.tables())
        return bool(disc.at(addr) if addr else disc.find(query))

    heard, disc, now = asyncio.run(_listen(port, passphrase, seconds, found, sought=None if addr else query))
    if query is None:
        candidates = heard
    else:
        candidates = [t for t in heard if addr in (t.addr, *t._addrs)] if addr else _matching(heard, query)
    if not candidates:
        versions = _versions(disc, None if addr else query)
        if versions and query and not addr:
            raise click.ClickException(versions[0])
        for line in versions:
            _say(line)
        where = f"at {query}" if addr else repr(query) if query else "on the LAN"
        hint = _locked(disc, now, passphrase) or f"is it running, on this LAN, with UDP port {port} open?"
        if not disc.locked(now) and passphrase is None:
            hint += " (a passphrase table is heard only with its --passphrase)"
        raise click.ClickException(f"no table heard {where} in {seconds:g} s: {hint}")
    if len(candidates) > 1:
        click.echo(_table_list(candidates), err=True)
        which = "tables match" if query else "tables heard"
        raise click.UsageError(f"{len(candidates)} {which}: give TABLE (a name or an id prefix)")
    t = candidates[0]
    if (t.phase != "lobby" or t.free == 0) and not (t.phase != "over" and left(t.table_id)):
        state = "full" if t.phase == "lobby" else "started" if t.phase != "over" else "over"
        raise click.ClickException(f"table {t.name!r} ({t.short_id}) is {state}: it takes no new players "
                                   "(a member that left comes back with the same --home; one that lost its "
                                   "log rejoins with ID@HOST:PORT)")
    return t.table_id, t.addr, f"table {t.name!r} ({t.short_id})", t.host_key, list(t._addrs)


def _matching(heard: list[Any], query: str) -> list[Any]:
    by_name = [t for t in heard if t.name.lower() == query.strip().lower()]
    return by_name or [t for t in heard if t.id_hex.startswith(query.strip().lower())]


# --- running a peer -------------------------------------------------------------------------------


class NodeRunner:
    """Running a peer on a UDP node with the network options (host, join and watch)."""

    def __init__(self, passphrase: str | None, linger: float, port: int, discovery_port: int,
                 broadcast: tuple[str, ...], verbose: bool):
        self.passphrase = passphrase
        self.linger = linger
        self.port = port
        self.discovery_port = discovery_port
        self.broadcast = [b for item in broadcast for b in item.split()]
        self.verbose = verbose
        self.intro: Callable[[int], None] | None = None
        self.client: Callable[[Any, Any, float], Any] | None = None  # the terminal client (no --auto)

    def run(self, peer: Any, joining: bool = False) -> None:
        digest = asyncio.run(self._run(peer, joining))
        if digest:  # None: the player left an interactive game before its end
            click.echo(f"digest: {digest}")

    async def _run(self, peer: Any, joining: bool) -> str | None:
        from cardtable.p2p.node import Node
        from cardtable.p2p.table import OVER

        printer = _EventPrinter(peer, self.verbose)
        node = Node(port=self.port, discovery_port=self.discovery_port, broadcast=self.broadcast or None,
                    passphrase=self.passphrase, on_event=printer)
        try:
            await node.open()
        except OSError as err:
            raise click.ClickException(f"cannot open UDP port {self.port or 'any'}: {err.strerror}") from None
        if node.discovery_error is not None:
            _say(f"warning: cannot listen on the discovery port {self.discovery_port} "
                 f"({node.discovery_error.strerror}); beacons are still sent")
        try:
            if self.intro is not None:
                self.intro(node.port)
            node.attach(peer)
            if joining and peer.key not in peer.table.roster.members:  # a newcomer, or back after a leave
                if not await node.wait_for(lambda: peer.key in peer.table.roster.members, JOIN_WAIT):
                    key = peer.pass_key
                    why = "the table is full, started or gone"
                    if key is not None and node.discovery.shut(key.salt, node.clock()):
                        why = "its beacons do not open with this --passphrase (a wrong passphrase?)"
                    elif key is not None:
                        why += " (or the --passphrase is wrong)"
                    raise click.ClickException(f"no seat after {JOIN_WAIT:g} s: {why}")
            if self.client is not None:  # the terminal client plays the seat (cli/play_cmd.py)
                return await self.client(node, peer, self.linger)  # type: ignore[no-any-return]
            await node.wait_for(lambda: peer.table.phase == OVER or peer.left)
            if peer.left:
                raise click.ClickException("left the table")
            # Stay a little: the others may not know yet that the last entry is committed, and
            # a majority of the table must be there for them to learn it.
            await asyncio.sleep(self.linger)
            assert peer.table.match is not None
            return str(peer.table.digest())
        finally:
            await node.close()


class _Context(NodeRunner):
    """What host and join share: the config dir, the options, running the peer on a node."""

    def __init__(self, home: Path | None, passphrase: str | None, auto: str | None, bots: str,
                 takeover: float, bot_delay: float, linger: float, port: int, discovery_port: int,
                 broadcast: tuple[str, ...], verbose: bool):
        from cardtable.p2p.node import Home, HomeBusy

        super().__init__(passphrase, linger, port, discovery_port, broadcast, verbose)

        self.home = Home(home)
        try:
            self.home.lock()
        except HomeBusy as err:
            raise click.ClickException(f"{err}: a second seat on this machine needs its own --home DIR") \
                from None
        except OSError as err:
            raise click.ClickException(f"cannot use {self.home.path}: {err.strerror or err}") from None
        self.auto = auto
        self.bots = bots
        self.takeover = takeover
        self.bot_delay = bot_delay
        try:
            self.identity = self.home.identity()
        except (OSError, ValueError) as err:
            raise click.ClickException(f"cannot use the identity key in {self.home.path}: {err}") from None

    def timeouts(self) -> Any:
        from cardtable.p2p.peer import Timeouts

        return Timeouts(takeover=self.takeover, bot_delay=self.bot_delay)

    def resume_or_none(self, fresh: bool, query: str | None, hosting: bool = False) -> Any:
        """A peer resumed from the unfinished table in the config dir, or None to start anew.
        ``query``: the table named on the command line (``join TABLE``, ``host --name``): an
        unfinished table of another name is neither resumed nor dropped, but named."""
        stored = self.home.stored(self.identity.key)
        if stored is not None and stored.resumable and not fresh:
            named = query is None or stored.table_id.hex().startswith(query.lower()) \
                or stored.name.lower() == query.lower()
            if not named:
                how = (f"host it with --name {shlex.quote(stored.name)} to resume it" if hosting
                       else "resume it without TABLE")
                raise click.ClickException(
                    f"{self.home.path} holds the unfinished table {stored.name!r} "
                    f"({stored.table_id.hex()[:8]}): {how}, or give --fresh to start anew (it stays in "
                    "'cardtable games')")
            if stored.passphrase is not None and stored.passphrase != (self.passphrase is not None):
                raise click.ClickException(
                    f"the unfinished table {stored.name!r} in {self.home.path} was played "
                    + ("with a passphrase: give its --passphrase to resume it" if stored.passphrase else
                       "without a passphrase: resume it without --passphrase")
                    + ", or give --fresh to start anew")
            from cardtable.p2p.peer import Peer

            _say(f"resuming table {stored.name!r} ({stored.table_id.hex()[:8]}, {stored.phase}, "
                 f"{stored.committed} entries) from {self.home.store_path}; --fresh starts anew")
            return Peer.resume(self.identity, self.home.store(), now=time.monotonic(), seed=os.urandom(32),
                               passphrase=self.passphrase, bots=self.bots, auto=self.auto,
                               timeouts=self.timeouts())
        if stored is None or not stored.away or fresh or hosting:
            self._archive()  # else kept until ``sit_down`` knows whether its table still runs
        return None

    def _archive(self) -> None:
        where = self.home.archive()
        if where is not None:
            _say(f"kept the previous table log as {where}")

    def sit_down(self, name: str, table_id: bytes, contact: tuple[str, int], label: str,
                 sequencer: bytes | None, contacts: list[tuple[str, int]]) -> Any:
        """The peer that takes a seat at the table found: back from the kept log at a table this
        peer left (its seat comes back), else a joiner (a newcomer, or back with an empty log)."""
        from cardtable.p2p.peer import Peer

        stored = self.home.stored(self.identity.key)
        heard = " or ".join(f"{h}:{p}" for h, p in dict.fromkeys([contact, *contacts]))  # replays add some
        back = self.home.left_at(self.identity.key, table_id)
        how = dict(now=time.monotonic(), seed=os.urandom(32), passphrase=self.passphrase, auto=self.auto,
                   timeouts=self.timeouts(), sequencer=sequencer, contacts=contacts)
        if back:
            _say(f"coming back to {label} at {heard}: you take your seat back from the computer player")
        if stored is not None and stored.away and stored.table_id == table_id:
            return Peer.come_back(self.identity, self.home.store(), contact, bots=self.bots, **how)
        self._archive()
        if not back:
            _say(f"joining {label} at {heard} as {name!r}")
        return Peer.joiner(self.identity, self.home.store(), table_id, contact, name, **how)


class _EventPrinter:
    """Peer events in words, one line each on stderr."""

    QUIET = {"applied", "dropped", "hand_open", "cards_open"}

    def __init__(self, peer: Any, verbose: bool) -> None:
        self.peer = peer
        self.verbose = verbose

    def __call__(self, event: Any) -> None:
        kind, data = event.kind, event.data
        if kind in self.QUIET and not self.verbose:
            return
        text = self.describe(kind, data)
        if text:
            _say(text)

    def describe(self, kind: str, data: dict[str, Any]) -> str | None:
        if kind == "applied":
            ok = "" if data.get("ok") else f"  (refused: {data.get('reason')})"
            return f"#{data.get('index')} seat {data.get('seat')}: {data.get('summary')}{ok}"
        if kind == "dropped":
            return f"dropped a datagram: {data.get('reason')}"
        if kind == "seated":
            return f"seated at seat {data.get('seat')}"
        if kind == "started":
            return f"the match starts (seed {str(data.get('seed'))[:16]}...)"
        if kind in ("round_end", "fault", "round_void", "dealt", "rebuild"):
            return str(data.get("text"))
        if kind == "match_over":
            return f"match over: totals {data.get('totals')}, won by seat(s) {data.get('winners')}"
        if kind == "sequencer":
            who = "this peer" if data.get("key") == self.peer.key.hex() else str(data.get("key"))[:8]
            return f"sequencer: {who} (term {data.get('term')})"
        if kind in ("takeover", "return", "forfeit"):
            words = {"takeover": "is played by a bot until its owner is back",
                     "return": "is back with its owner",
                     "forfeit": "goes to a computer player (no seed share)"}
            return f"seat {data.get('seat')} {words[kind]}"
        if kind in ("leave", "silent", "returning"):
            from cardtable.cli.player_words import presence_words

            return presence_words(kind, data)
        if kind == "refused":
            return f"refused: {data.get('kind')}: {data.get('reason')}"
        if kind == "chat":
            return str(data.get("line"))
        if kind in ("spectator", "spectator_gone"):
            from cardtable.cli.player_words import spectator_words

            return spectator_words(kind, data)
        if kind == "resumed":
            return f"resumed at entry {data.get('commit')}"
        if kind == "left":
            return "left the table"
        if kind in ("equivocation", "rewound", "censored", "bad_entries"):  # a member's misdeed: in words
            from cardtable.cli.player_words import table_words
            from cardtable.cli.words import Speaker

            names = [seat.name or f"seat {s}" for s, seat in enumerate(self.peer.table.seats)]
            key = f" (key {str(data['key'])[:8]})" if data.get("key") else ""
            return f"{table_words(kind, data, Speaker(self.peer.my_seat, names))}{key}"
        return f"{kind}: {data}"


# --- small helpers --------------------------------------------------------------------------------


def _auto(auto: str | None) -> str | None:
    """The bot for --auto; None: the terminal client plays the seat."""
    if auto is None:
        return None
    _check_bot(auto, "--auto")
    return auto


def _client(auto: str | None, plain: bool, turn_clock: float | None, home: Path | None,
            bell: bool | None) -> Callable[[Any, Any, float], Any] | None:
    """The terminal client for a seat without --auto (the Textual table, or --plain line mode)."""
    if auto is not None:
        return None
    from cardtable.cli.play_cmd import net_client

    return net_client(plain, turn_clock, home, bell)


def _check_bot(spec: str, hint: str) -> None:
    try:
        parse_bot_spec(spec)
    except ParseError as err:
        raise click.BadParameter(bot_problem(err, spec), param_hint=hint) from None


def _check_name(name: str, option: str = "--name") -> None:
    from cardtable.p2p.wire import MAX_NAME

    if not name.strip() or len(name) > MAX_NAME:
        raise click.BadParameter(f"give 1 to {MAX_NAME} characters", param_hint=option)


def _login_name() -> str:
    try:
        return getpass.getuser()[:32] or "player"
    except (OSError, KeyError):
        return "player"


def _say(text: str) -> None:
    click.echo(f"cardtable: {text}", err=True)
