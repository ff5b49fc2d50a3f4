"""A bot in any language: a program speaking JSON lines on stdin/stdout (docs/bot-protocol.md).

``cmd:COMMAND`` starts ``COMMAND`` (split like a shell would, no shell run) once, greets it,
and reuses it match after match; a program serves one seat at a time. Each decision has a
time budget; a program that crashes, hangs past it or answers an illegal action loses the
decision to ``ai.fallback.Fallback``. After a crash, or three timeouts in a row, the program
is stopped and the rest of that match is played by the fallback; the next match starts a
new program.

What a program says and writes can be kept (``ai.bot_logs``): with a transcript directory
(``--debug-bots DIR``) every line sent and received goes to one file a seat, and each seat
starts its own program (none is reused, so a transcript is whole); with a stderr directory
the program's stderr goes to a file a seat instead of cardtable's stderr.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from cardtable.ai import bot_logs
from cardtable.ai.fallback import Fallback
from cardtable.engine.errors import ParseError

PROTOCOL = 1
HELLO_SECONDS = 10.0
"""How long a program may take to start and answer the greeting."""
DEFAULT_BUDGET = 5.0
"""Seconds a decision by default (``cardtable match --bot-time``)."""
MAX_TIMEOUTS = 3
"""Timeouts in a row after which the program is stopped for the rest of the match."""


class BotDied(Exception):
    """The program exited, closed its output or broke the protocol (``exit_code`` when it
    exited, ``line`` when it wrote one that breaks the protocol)."""

    def __init__(self, message: str, exit_code: int | None = None, line: str | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.line = line


def split_command(command: str) -> list[str]:
    """The argv of ``cmd:COMMAND``; ParseError when it is empty or the program is not found."""
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise ParseError(f"bad bot command {command!r}: {err}") from None
    if not argv:
        raise ParseError("cmd: needs a command, e.g. 'cmd:python3 mybot.py'")
    if shutil.which(argv[0]) is None:
        raise ParseError(f"bot command {argv[0]!r} is not found or not executable")
    return argv


class BotProcess:
    """One running program, greeted; ``ask`` sends a request and waits for its answer.

    ``stderr``: the file its stderr goes to (appended; None: cardtable's stderr); ``transcript``:
    the file every line sent (``> ``) and received (``< ``) is appended to, with ``# `` notes."""

    def __init__(self, argv: list[str], stderr: Path | None = None, transcript: Path | None = None) -> None:
        self.argv = argv
        self.cpu_seen = 0.0  # the last CPU time read (``cpu_seconds``)
        self.seat_bound = stderr is not None or transcript is not None  # never reused by another seat
        self.transcript: IO[str] | None = None
        if transcript is not None:
            self.transcript = transcript.open("a", encoding="utf-8")
            self.note(f"starting {shlex.join(argv)}")
        try:
            err_file = None if stderr is None else stderr.open("ab")
            try:
                self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=err_file, start_new_session=True,
                                             preexec_fn=_die_with_parent)
            finally:
                if err_file is not None:
                    err_file.close()
        except OSError as err:
            self.note(f"cannot start it: {err.strerror}")
            raise BotDied(f"cannot start {argv[0]!r}: {err.strerror}") from None
        self.note(f"pid {self.proc.pid}" + ("" if stderr is None else f", stderr to {stderr}"))
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin
        self._out = self.proc.stdout.fileno()
        self._buffer = b""
        self.next_id = 0
        _RUNNING.add(self)
        hello = self.ask({"type": "hello", "protocol": PROTOCOL}, HELLO_SECONDS, None)
        if hello is None or hello.get("type") != "hello" or not isinstance(hello.get("name"), str):
            self.stop()
            raise BotDied("it did not answer the hello")
        self.name: str = hello["name"]
        games = hello.get("games")
        self.games: list[str] = [g for g in games if isinstance(g, str)] if isinstance(games, list) else []

    def note(self, text: str) -> None:
        """A ``# `` line in the transcript (if one is kept)."""
        self._record("# ", text)

    def _record(self, mark: str, text: str) -> None:
        if self.transcript is not None:
            self.transcript.write(mark + text + "\n")
            self.transcript.flush()

    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, separators=(",", ":"))
        self._record("> ", line)
        try:
            self._in.write(line.encode() + b"\n")
            self._in.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise BotDied("its input is closed") from None

    def ask(self, message: dict[str, Any], seconds: float, request_id: int | None) -> dict[str, Any] | None:
        """Send ``message``; the answer (with ``request_id`` when given), or None on timeout."""
        self.send(message)
        deadline = time.monotonic() + seconds
        while True:
            line = self._line(deadline)
            if line is None:
                return None
            text = line.decode("utf-8", "replace")
            try:
                answer = json.loads(line)
            except ValueError:
                raise BotDied(f"it wrote a line that is not JSON: {line[:60]!r}", line=text) from None
            if not isinstance(answer, dict):
                raise BotDied("it wrote JSON that is not an object", line=text)
            if request_id is None or answer.get("id") == request_id:
                return answer  # answers to earlier, timed-out requests are dropped

    last_line = ""
    """The line the program wrote last (as text)."""

    def _line(self, deadline: float) -> bytes | None:
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._out], [], [], left)
            if not ready:
                return None
            chunk = os.read(self._out, 1 << 16)
            if not chunk:
                try:
                    code = self.proc.wait(1.0)
                except subprocess.TimeoutExpired:
                    code = None
                self.note(f"its output closed (exit code {code})")
                raise BotDied(f"it exited (code {code})" if code is not None else "it closed its output",
                              exit_code=code)
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        self.last_line = line.decode("utf-8", "replace")
        self._record("< ", self.last_line)
        return line

    def cpu_seconds(self) -> float:
        """CPU time the program has used (Linux /proc; 0 elsewhere). Once it has exited, the last
        reading: so the difference of two readings is never negative."""
        try:
            with open(f"/proc/{self.proc.pid}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
            self.cpu_seen = max(self.cpu_seen, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
        except (OSError, ValueError, IndexError):
            pass
        return self.cpu_seen

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        """Say quit, close its input; kill it if it is still there a moment later."""
        _RUNNING.discard(self)
        try:
            self.send({"type": "quit"})
        except BotDied:
            pass
        try:
            self._in.close()
        except OSError:
            pass
        try:
            self.proc.wait(0.5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.note(f"stopped (exit code {self.proc.returncode})")
        if self.transcript is not None:
            self.transcript.close()
            self.transcript = None


_RUNNING: set[BotProcess] = set()
_IDLE: dict[tuple[str, ...], list[BotProcess]] = {}


def _acquire(argv: list[str], seat: int) -> BotProcess:
    """A greeted program: an idle one of the same command, or a new one (always a new one when
    transcripts are kept, or when stderr goes to a file a seat)."""
    logs = bot_logs.current()
    if logs.transcripts is not None or logs.stderr is not None:
        return BotProcess(argv, logs.stderr_file(seat), logs.transcript(seat))
    idle = _IDLE.get(tuple(argv), [])
    while idle:
        process = idle.pop()
        if process.alive():
            return process
        process.stop()
    return BotProcess(argv)


def _release(process: BotProcess) -> None:
    if process.alive() and not process.seat_bound:
        _IDLE.setdefault(tuple(process.argv), []).append(process)
    else:
        process.stop()


@atexit.register
def stop_all() -> None:
    """Stop every program this process started."""
    for process in list(_RUNNING):
        process.stop()
    _IDLE.clear()


class ProcessBot:
    """One seat of one match played by a program; faults are counted in ``faults``."""

    def __init__(self, argv: list[str], seed: bytes, seat: int, time_budget: float | None) -> None:
        self.seed = seed
        self.seat = seat
        self.budget = DEFAULT_BUDGET if time_budget is None else time_budget
        self.fallback = Fallback(seed, seat)
        self.name = argv[0]
        self._process: BotProcess | None = None
        self._timeouts = 0
        self._started = False
        self._cpu_start = 0.0
        self._cpu = 0.0
        self.stderr = bot_logs.current().stderr_file(seat)
        try:
            self._process = _acquire(argv, seat)
            self.name = self._process.name
            self._cpu_start = self._process.cpu_seconds()
        except BotDied as err:
            self.fallback.fault("crash", False, {}, [], self._detail(err, True))

    @property
    def faults(self) -> dict[str, int]:
        return self.fallback.faults

    @property
    def fault_examples(self) -> dict[str, dict[str, Any]]:
        return self.fallback.examples

    def _detail(self, err: BotDied, stopped: bool) -> dict[str, Any]:
        detail: dict[str, Any] = {"error": str(err), "stopped": stopped}
        if err.exit_code is not None:
            detail["exit_code"] = err.exit_code
        if err.line is not None:
            detail["line"] = err.line
        if self.stderr is not None:
            detail["stderr"] = str(self.stderr)
        return detail

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        return self._decide("choose", obs, legal)

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        return self._decide("react", obs, legal)

    def _decide(self, kind: str, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        must = kind == "choose"
        process = self._process
        if process is None:
            return self.fallback.answer(must, obs, legal)
        try:
            if not self._started:
                self._started = True
                if obs["game"] not in process.games:
                    raise BotDied(f"it does not play {obs['game']}")
                process.send({"type": "match", "game": obs["game"], "config": obs["config"],
                              "seat": self.seat, "seed": self.seed.hex()})
            process.next_id += 1
            moves = {str(a): a for a in legal}
            answer = process.ask({"type": kind, "id": process.next_id, "obs": obs, "legal": list(moves),
                                  "budget_ms": round(self.budget * 1000)}, self.budget, process.next_id)
        except BotDied as err:
            process.note(f"stopped: {err}")
            self._drop(kill=True)
            return self.fallback.fault("crash", must, obs, legal, self._detail(err, True))
        if answer is None:
            self._timeouts += 1
            stop = self._timeouts >= MAX_TIMEOUTS
            process.note(f"no answer to {process.next_id} within {self.budget:g} s"
                         + (f": stopped after {MAX_TIMEOUTS} timeouts in a row" if stop else ""))
            if stop:
                self._drop(kill=True)
            detail = {"error": f"no answer to request {process.next_id} within {self.budget:g} s"
                      + (f" ({MAX_TIMEOUTS} in a row: stopped)" if stop else ""), "stopped": stop}
            return self.fallback.fault("timeout", must, obs, legal, detail)
        self._timeouts = 0
        text = answer.get("action")
        if text is None and not must:
            return None
        if not isinstance(text, str) or text not in moves:
            process.note(f"illegal: {text!r} is not one of the {len(moves)} legal actions")
            return self.fallback.fault("illegal", must, obs, legal, {
                "error": f"it answered {json.dumps(text)}, not one of the legal actions",
                "answer": text if text is None or isinstance(text, str | int | float | bool) else str(text),
                "line": process.last_line})
        return moves[text]

    def _drop(self, kill: bool) -> None:
        process, self._process = self._process, None
        if process is not None:
            self._cpu += process.cpu_seconds() - self._cpu_start
            if kill:
                process.proc.kill()
            process.stop()

    def cpu_seconds(self) -> float:
        """CPU time the program spent on this match so far."""
        if self._process is None:
            return self._cpu
        return self._cpu + self._process.cpu_seconds() - self._cpu_start

    def close(self) -> None:
        """The match is over: the program goes back to the pool for the next one (or stops,
        when its lines are being kept)."""
        process, self._process = self._process, None
        if process is not None:
            self._cpu += process.cpu_seconds() - self._cpu_start
            _release(process)


def process_bot_factory(command: str) -> Callable[[bytes, int, float | None], ProcessBot]:
    argv = split_command(command)

    def build(seed: bytes, seat: int, time_budget: float | None) -> ProcessBot:
        return ProcessBot(argv, seed, seat, time_budget)

    return build


def check_process_bot(command: str, game: str) -> str:
    """Start the program once: its name, or a ParseError saying why it cannot play ``game``."""
    try:
        process = BotProcess(split_command(command))
    except BotDied as err:
        raise ParseError(f"bot 'cmd:{command}' fails the hello: {err}") from None
    process.stop()
    if game not in process.games:
        plays = ", ".join(process.games) or "nothing"
        raise ParseError(f"bot 'cmd:{command}' ({process.name}) plays {plays}, not {game}")
    return process.name


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Linux: the program is killed if the process that started it dies."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
