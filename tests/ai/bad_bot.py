"""A process bot that misbehaves on purpose: ``bad_bot.py crash|hang|slow|cheat|garbage|chess``."""

import json
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    decisions = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            if mode == "garbage":
                print("hello there", flush=True)
            games = ["chess"] if mode == "chess" else ["solo", "scout"]
            print(json.dumps({"type": "hello", "name": f"bad-{mode}", "games": games}), flush=True)
        elif msg["type"] in ("choose", "react"):
            decisions += 1
            if mode == "crash" and decisions == 5:
                print("bad-crash: exit 3", file=sys.stderr, flush=True)
                sys.exit(3)
            if mode == "hang" and decisions >= 4:
                time.sleep(60)
            if mode == "slow" and decisions == 2:
                time.sleep(0.6)  # past the budget once: this late answer must be dropped
            action = msg["legal"][0] if msg["type"] == "choose" else None
            if mode == "cheat":
                action = "R99"
            print(json.dumps({"id": msg["id"], "action": action}), flush=True)
        elif msg["type"] == "quit":
            return


if __name__ == "__main__":
    main()
