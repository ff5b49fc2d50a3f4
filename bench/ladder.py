"""The level ladder: each ``ismcts`` level against three of the level below it.

The same as ``cardtable ladder`` (``ai/ladder.py``; ``--help`` has examples):
``python bench/ladder.py [--deals D] [--workers W] [--games solo-anniversary,scout]
[--steps strong/normal,normal/fast,fast/heuristic] [--rounds R | --match] [--seed S]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardtable.cli.main import main  # noqa: E402

if __name__ == "__main__":
    main(["ladder", *sys.argv[1:]])
