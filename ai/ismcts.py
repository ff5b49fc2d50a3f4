"""The strong computer player: information-set MCTS in ai/_search.pyx behind the bot interface.

Levels are iteration budgets (plus fixed settings), so a seeded match plays the same on every
machine however fast it is: ``fast`` 25 and ``normal`` 100 iterations per decision, ``strong``
8,000 with the root's moves compared by sequential halving in shared samples, the other seats
played by the heuristic inside the tree, SCOUT's other seats' moves named by their cards, a
reward for beating the best other seat and, in SCOUT, samples weighed by what the other seats
did (docs/ai.md, "Thinking longer", "Sequential halving" and "Inference at 8,000 iterations":
it beats the earlier ``strong`` levels in SCOUT and both SOLO editions).
``learned`` does not search: it plays the best move of the game's learned policy
(ai/policy_net.py, trained by ai/expert.py; docs/ai.md, "Expert iteration").
``bench/ladder.py`` measures each step against three of the level below (docs/ai.md, "Does
more thinking win more?"). The search's other settings are its per-game defaults
(``ai._search.SEARCH_DEFAULTS``); experimental levels (``1500``, ``3000+cpuct=1``,
``2000+trees=4``, ``500+infer=1``; a budget starts from no settings) and time budgets for play
(``1s``, ``0.5s``: seconds a decision) are read by ``parse_level``. With ``infer=1`` (or the
game's name: ``infer=scout``) the bot
reads the other seats' moves from its observations (SCOUT: ``ai/scout_clues.py``; SOLO, who
drew for want of a card that fits: ``ai/solo_clues.py``) and the search weighs its samples of
the hidden cards by them (docs/ai.md, "Inference").
SOLO calls and catches need no search: the bot calls whenever a call is due and catches
exactly the missed calls it saw. Everything else it searches, out-of-turn plays included
(the root then also offers "not now").
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cardtable.ai.catches import genuine_catches
from cardtable.ai.policy_net import shipped_policy
from cardtable.ai.scout_clues import ScoutClueReader
from cardtable.ai.solo_clues import SoloClueReader
from cardtable.ai.value_net import shipped_network, table_name
from cardtable.engine.errors import ParseError
from cardtable.engine.shuffle import Stream

LEVELS = {"fast": 25, "normal": 100, "strong": 8000, "learned": 1}
LEVEL_SETTINGS: dict[str, dict[str, Any]] = {
    "fast": {}, "normal": {},
    "strong": {"root": "halving", "opponents": "policy", "keys": "cards", "reward_mode": 1, "infer": "scout"},
    "learned": {"learned": True}}
"""Fixed search() keywords a level adds to its budget (the game's SEARCH_DEFAULTS otherwise)."""
SETTINGS = {"cpuct": float, "prior_temp": float, "fpu": float, "scale": float, "max_depth": int,
            "reward_mode": int, "rollout": str, "trees": int, "threads": int, "answer": str, "keys": str,
            "infer": str, "particles": int, "infer_temp": float, "infer_depth": int, "infer_ess": float,
            "infer_positions": int, "leaf": str, "rollout_cap": int,
            "opponents": str, "opp_temp": float, "root": str, "prior": str, "policy_temp": float,
            "policy_all": int, "policy_depth": int}
"""The settings an experimental level may give: search() keywords (``ismcts:3000+cpuct=1``),
``trees`` (the budget split over that many independent searches whose root visits are summed),
``threads`` (that many of those trees searched at once, on as many threads: root-parallel
search; ``trees`` defaults to ``threads``; an iteration budget is split as before, so the moves
are the same as with ``trees`` alone, only sooner; a time budget is the decision's wall time:
the trees searched at once share one deadline, set when the decision starts, less the margin
``IsmctsBot`` measures for what follows the searches, and more trees than threads split it
into waves), ``answer`` (``visits``: the most visited root move; ``value``: the best
mean reward among the moves visited at least a tenth as often as the most visited), ``infer``
(1: the determinizations weighted by the clues the bot read; ``scout`` or ``solo``: in that
game only; ``particles`` and the ``infer_*`` settings tune it), ``leaf`` (``net``: after
``rollout_cap`` rollout moves, 0 unless given, the table's shipped value network values the
position, ai/value_net.py; a table without one rolls out to the end), ``opponents``
(``policy``: the other seats play the heuristic's move inside the tree, docs/ai.md "Thinking
longer"; ``sample``: a move drawn from softmax(value / ``opp_temp``), the prior's temperature
unless given) and ``root`` (``halving``: the root's moves compared by sequential halving in
shared determinizations, docs/ai.md "Sequential halving") and ``prior`` (``net``: PUCT's prior
over the searcher's moves is softmax(logit / ``policy_temp``) of the game's shipped learned
policy, ai/policy_net.py, over every searched seat's with ``policy_all=1``, and with
``policy_depth=K`` only at a seat's first K decisions on a path, the root the searcher's first,
the heuristic's prior below; a game without one keeps the heuristic's). The ``learned`` level
does not search: it plays the shipped policy's best move (docs/ai.md, "Expert iteration")."""
ANSWERS = ("visits", "value")
MAX_THREADS = 256
WORDS = {"answer": ANSWERS, "rollout": ("heuristic", "random"), "keys": ("positions", "cards"),
         "leaf": ("rollout", "net"), "opponents": ("search", "policy", "sample"), "root": ("puct", "halving"),
         "infer": ("0", "1", "scout", "solo"), "prior": ("heuristic", "net")}
"""The settings that take a word, and their words."""


TAIL_WINDOW = 32
"""Timed decisions whose time past their searches' deadline sets a time budget's margin."""


SECONDS = re.compile(r"(?:0|[1-9][0-9]{0,3})(?:\.[0-9]{1,3})?s")
"""A time budget: seconds a decision, at most three decimals (``1s``, ``0.5s``)."""


def parse_budget(budget: str) -> tuple[int, float]:
    """``500`` → (500, 0.0) iterations; ``0.5s`` → (0, 0.5) seconds; ParseError otherwise."""
    if budget.isdigit() and int(budget) > 0:
        return int(budget), 0.0
    if SECONDS.fullmatch(budget) and float(budget[:-1]) > 0:
        return 0, float(budget[:-1])
    raise ParseError(f"unknown ismcts level {budget!r}: choose {', '.join(LEVELS)}, an iteration budget "
                     "(e.g. 1500 or 3000+cpuct=1) or a time budget (e.g. 1s or 0.5s)")


def parse_level(level: str) -> tuple[int, dict[str, Any]]:
    """A level name (``fast``; with settings after it, ``strong+threads=2``, the level's own
    changed or added) or an experimental budget with settings (``1500``,
    ``3000+cpuct=1+prior_temp=2``, which start from none) → (iterations, search settings);
    ParseError if neither. A time budget (``1s``, ``0.5s+infer=0``) gives 0 iterations and the
    setting ``seconds``."""
    budget, *pairs = level.split("+")
    settings: dict[str, Any] = {}
    if budget in LEVELS:
        iterations, settings = LEVELS[budget], dict(LEVEL_SETTINGS[budget])
    else:
        iterations, seconds = parse_budget(budget)
        if seconds:
            settings["seconds"] = seconds
    for pair in pairs:
        key, _, text = pair.partition("=")
        if key not in SETTINGS:
            raise ParseError(f"unknown search setting {key!r} in {level!r}: choose {', '.join(SETTINGS)}")
        try:
            settings[key] = SETTINGS[key](text)
        except ValueError:
            raise ParseError(f"the search setting {key} needs a number, not {text!r}") from None
    for key, words in WORDS.items():
        if settings.get(key, words[0]) not in words:
            raise ParseError(f"the search setting {key} in {level!r} is {' or '.join(words)}")
    if settings.get("trees", 1) < 1 or settings.get("threads", 1) < 1:
        raise ParseError(f"trees and threads in {level!r} must be at least 1")
    if settings.get("threads", 1) > MAX_THREADS:
        raise ParseError(f"threads in {level!r} must be at most {MAX_THREADS}")
    if settings.get("rollout_cap", 0) < 0 or settings.get("policy_depth", 0) < 0:
        raise ParseError(f"rollout_cap and policy_depth in {level!r} must be at least 0")
    temps = (settings.get("infer_temp", 1.0), settings.get("opp_temp", 1.0))
    if settings.get("particles", 1) < 1 or min(temps) <= 0 or settings.get("policy_temp", 1.0) <= 0:
        raise ParseError(f"particles, infer_temp, opp_temp and policy_temp in {level!r} must be positive")
    return iterations, settings


def infers(settings: dict[str, Any], game: str) -> bool:
    """Whether a level with ``settings`` reads the clues in ``game`` (``infer`` 1 or the game)."""
    return settings.get("infer", "0") in ("1", game)


class IsmctsBot:
    """Searches from its own observation only; its randomness is its own seeded stream."""

    name = "ismcts"

    def __init__(self, seed: bytes, seat: int, level: str = "normal") -> None:
        """``level``: a name in LEVELS or an experimental budget (``parse_level``)."""
        iterations, settings = parse_level(level)
        try:
            from cardtable.ai._search import clock, search
        except ImportError:  # only without the compiled extension (tests/packaging)
            problem = ("the ismcts bot needs the compiled search, which was not built when cardtable was "
                       "installed (no C compiler?): install a C compiler and the Python headers "
                       "(e.g. apt-get install gcc python3-dev), then reinstall cardtable")
            raise ParseError(problem) from None
        self._search = search
        self._clock = clock
        self._tails: list[float] = []  # the last decisions' time from the deadline to the answer
        self._pool: ThreadPoolExecutor | None = None
        self._pool_owner = (0, 0)  # the process and helper count the pool was started for
        self.seat = seat
        self.level = level
        self.iterations = iterations
        self.settings = settings
        self.rng = Stream(seed, f"bot/ismcts/{seat}")
        self.last_stats: dict[str, Any] = {}
        self.clues = ScoutClueReader(seat)
        self.solo_clues = SoloClueReader(seat)
        self.policy: Any = None  # the learned policy of prior=net and learned (None: the shipped one)

    def see(self, obs: dict[str, Any]) -> None:
        """With inference, every observation goes to the clue reader, searched or not (it
        compares them)."""
        if not infers(self.settings, obs["game"]):
            return
        if obs["game"] == "scout":
            self.clues.see(obs)
        else:
            self.solo_clues.see(obs)

    def _options(self, obs: dict[str, Any]) -> tuple[dict[str, Any], int, int, str, float]:
        """The level's search() keywords for ``obs`` (its clues, with inference), and its trees,
        threads, answer rule and seconds."""
        options = dict(self.settings)
        threads = options.pop("threads", 1)
        trees = options.pop("trees", threads)
        answer = options.pop("answer", "visits")
        seconds = options.pop("seconds", 0.0)
        if options.pop("leaf", "rollout") == "net":
            options["value"] = shipped_network(table_name(obs["config"]))
            options.setdefault("rollout_cap", 0)
            if options["value"] is None:
                options.pop("rollout_cap")
        if options.pop("prior", "heuristic") == "net":
            options["policy"] = self._policy(obs["game"])
            if options["policy"] is None:
                options.pop("policy")
        options["policy_all"] = bool(options.pop("policy_all", 0))
        options.pop("learned", None)
        if infers(options, obs["game"]):
            options["clues"] = self.clues.clues if obs["game"] == "scout" else self.solo_clues.clues
        else:
            for key in ("particles", "infer_temp", "infer_depth", "infer_ess", "infer_positions"):
                options.pop(key, None)
        options.pop("infer", None)
        return options, trees, min(threads, trees), answer, seconds

    def rate(self, obs: dict[str, Any], wait: bool, seed: int, floor: int, moves: int) -> list[Any]:
        """Every root move's ``(text, visits, mean reward)`` (text None: "not now"), most visited
        first, from one search of this level's iterations (its trees together) plus ``floor``
        visits for each of up to ``moves`` root moves, each visited at least ``floor`` times.
        Only ``obs``, this seat's observation, goes in (a time budget's seconds are ignored)."""
        options, _, _, _, _ = self._options(obs)
        budget = self.iterations + floor * moves
        _, stats = self._search(obs["game"], obs, obs["config"], self.seat, iterations=budget, seed=seed,
                                wait=wait, root_floor=floor, **options)
        return list(stats["children"])

    def _helpers(self, count: int) -> ThreadPoolExecutor:
        """The bot's ``count`` helper threads for root-parallel search, kept between decisions
        (started on first use; again in a forked process, which has none of them)."""
        owner = (os.getpid(), count)
        if self._pool is None or self._pool_owner != owner:
            if self._pool is not None and self._pool_owner[0] == owner[0]:
                self._pool.shutdown(wait=False)
            self._pool, self._pool_owner = ThreadPoolExecutor(count, thread_name_prefix="ismcts"), owner
        return self._pool

    def margin(self, seconds: float) -> float:
        """The time a ``seconds`` budget keeps back for what comes after its searches' deadline:
        the longest such time in the last TAIL_WINDOW timed decisions (1 ms before any), at most
        a tenth of the budget. On an idle machine that is a fraction of a millisecond (the
        searches' return to Python, the tally); on a busy one, the milliseconds the threads
        wait for a core before they see the clock (bench/ai.py --only deadlines: covering the
        longest rather than the 90th percentile kept more threads than cores within 10%)."""
        if not self._tails:
            return min(0.001, seconds / 10)
        return min(max(max(self._tails), 0.0), seconds / 10)

    def deadlines(self, started: float, seconds: float, trees: int, threads: int) -> list[float]:
        """Each tree's deadline on the search's clock for a decision that ``started`` then with
        a budget of ``seconds``: the trees run in waves of ``threads`` (the order they are
        handed to the threads), each wave an equal share of the budget less the margin."""
        usable = seconds - self.margin(seconds)
        waves = -(-trees // threads)
        return [started + usable * (j // threads + 1) / waves for j in range(trees)]

    def _run(self, obs: dict[str, Any], wait: bool, started: float | None = None) -> str | None:
        """The answer of this level's searches; a time budget counts from ``started`` (the
        search's clock when the decision began; None: now)."""
        if self.settings.get("learned"):
            return self._learned(obs, wait)
        if started is None:
            started = self._clock()
        options, trees, threads, answer, seconds = self._options(obs)
        seeds = [self.rng.below(2**63) for _ in range(trees)]
        iterations = max(1, self.iterations // trees) if self.iterations else 0
        ends = self.deadlines(started, seconds, trees, threads) if seconds else [0.0] * trees

        def one(job: tuple[int, float]) -> tuple[str | None, dict[str, Any]]:
            return self._search(obs["game"], obs, obs["config"], self.seat, seed=job[0], wait=wait,  # type: ignore[no-any-return]
                                iterations=iterations, deadline=job[1], **options)

        jobs = list(zip(seeds, ends, strict=True))
        if threads > 1:  # the search releases the GIL: the trees run side by side
            # this thread searches every threads-th tree, the bot's helper threads the others
            # (kept between decisions: nothing to start before the search, nor join after it)
            pool = self._helpers(threads - 1)
            helped = {j: pool.submit(one, job) for j, job in enumerate(jobs) if j % threads}
            own = {j: one(job) for j, job in enumerate(jobs) if j % threads == 0}
            results = [own[j] if j in own else helped[j].result() for j in range(trees)]
        else:
            results = [one(job) for job in jobs]
        answer_text = self._tally(results, trees, answer)
        if seconds:
            self._tails = [*self._tails[1 - TAIL_WINDOW:], self._clock() - ends[-1]]
        return answer_text

    def _policy(self, game: str) -> Any:
        return self.policy if self.policy is not None and self.policy.game == game else shipped_policy(game)

    def _learned(self, obs: dict[str, Any], wait: bool) -> str | None:
        """The ``learned`` level's move: the policy's best, no search."""
        from cardtable.ai._search import policy_move

        model = self._policy(obs["game"])
        if model is None:
            raise RuntimeError(f"the learned level has no policy for {obs['game']} "
                               f"(ai/weights/policy-{obs['game']}.json)")
        self.last_stats = {"iterations": 0}
        return policy_move(model, obs["game"], obs, obs["config"], self.seat, wait, self.rng.below(2**63))  # type: ignore[no-any-return]

    def _tally(self, results: list[tuple[str | None, dict[str, Any]]], trees: int, answer: str) -> str | None:
        """The answer from the trees' root statistics (their visits summed; one tree answering
        by visits: its own answer); ``last_stats`` gets the last tree's, with every tree's
        iterations as ``tree_iterations``."""
        tally: dict[str | None, list[float]] = {}  # root move -> [visits, summed reward]
        self.last_stats = {**results[-1][1], "tree_iterations": [s.get("iterations", 0) for _, s in results]}
        for _, stats in results:
            for move, visits, mean in stats["children"]:
                cell = tally.setdefault(move, [0.0, 0.0])
                cell[0] += visits
                cell[1] += visits * mean
        if not tally or (trees == 1 and answer == "visits"):
            return results[-1][0]
        most = max(v for v, _ in tally.values())
        if answer == "value":
            return max((m for m, (v, _) in tally.items() if v >= most / 10),
                       key=lambda m: tally[m][1] / tally[m][0])
        return next(m for m, (v, _) in tally.items() if v == most)

    def choose(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any:
        started = self._clock()
        self.see(obs)
        if len(legal) == 1:
            self.clues.note(str(legal[0]))
            return legal[0]
        moves = {str(a): a for a in legal}
        text = self._run(obs, wait=False, started=started)
        if text not in moves:
            raise RuntimeError(f"the search proposed {text!r}, which is not legal here")
        self.clues.note(text)
        return moves[text]

    def react(self, obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
        started = self._clock()
        self.see(obs)
        moves = {str(a): a for a in legal}
        if "solo" in moves:
            return moves["solo"]
        catches = genuine_catches(obs, legal)
        if catches:
            return catches[0]
        plays = [a for a in legal if not str(a).startswith("catch:")]
        if not plays:
            return None
        if obs["game"] == "scout":  # the whole-hand turn: decide now, there is no "not now"
            return self.choose(obs, plays)
        text = self._run(obs, wait=True, started=started)
        return None if text is None else moves.get(text)
