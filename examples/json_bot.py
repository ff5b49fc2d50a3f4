#!/usr/bin/env python3
"""A cardtable bot as a program (docs/bot-protocol.md), Python standard library only.

    cardtable match solo --bots 'cmd:python3 examples/json_bot.py,heuristic,heuristic,heuristic'

It reads one JSON object a line on stdin and answers on stdout. It plays a random legal
move from its seeded stream, calls SOLO when it may and catches only a missed call it saw.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            answer({"type": "hello", "name": "json-bot", "games": ["solo", "scout"], "protocol": 1})
        elif kind == "match":
            rng = random.Random(bytes.fromhex(msg["seed"]))  # this seat's seed for this match
        elif kind in ("choose", "react"):
            answer({"id": msg["id"], "action": decide(kind, msg["obs"], msg["legal"], rng)})
        elif kind == "quit":
            return


def decide(kind: str, obs: dict, legal: list, rng: random.Random) -> "str | None":
    if "solo" in legal:
        return "solo"
    solo = obs.get("solo")
    if solo and not solo["called"] and f"catch:{solo['seat']}" in legal:
        return f"catch:{solo['seat']}"
    if kind == "react":
        return None  # let out-of-turn chances go
    moves = [a for a in legal if not a.startswith("catch:") and a != "solo"]
    return rng.choice(moves or legal)


def answer(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
