"""A fixed-size feature vector made of named blocks (the observation encodings).

Each block has a scale and a range: the environments divide a block's values by its scale
and clip them to its range (``normalise``), so every observation lies in a bounded box
(``bounds``) with most values in [0, 1]; the raw values (counts, sizes, totals) are what the
codecs compute and what OpenSpiel's tensors hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np


class Norm(NamedTuple):
    """A block's scale and the range its scaled values are clipped to."""

    scale: float = 1.0
    low: float = 0.0
    high: float = 1.0


ONE_HOT = Norm()


class Layout:
    """Named blocks laid end to end: ``(name, shape, meaning[, Norm])`` in order."""

    def __init__(self, blocks: Sequence[tuple[Any, ...]]) -> None:
        self.blocks: list[tuple[str, tuple[int, ...], str, Norm]] = [
            (b[0], b[1], b[2], b[3] if len(b) > 3 else ONE_HOT) for b in blocks]
        self.offsets: dict[str, tuple[int, tuple[int, ...]]] = {}
        self._spans: list[tuple[str, int, int, tuple[int, ...] | None]] = []
        start = 0
        for name, shape, _, _ in self.blocks:
            size = int(np.prod(shape))
            self.offsets[name] = (start, shape)
            self._spans.append((name, start, start + size, shape if len(shape) > 1 else None))
            start += size
        self.size = start
        self.inverse_scale = np.concatenate([np.full(int(np.prod(shape)), 1 / norm.scale, np.float32)
                                             for _, shape, _, norm in self.blocks])
        self.low = np.concatenate([np.full(int(np.prod(shape)), norm.low, np.float32)
                                   for _, shape, _, norm in self.blocks])
        self.high = np.concatenate([np.full(int(np.prod(shape)), norm.high, np.float32)
                                    for _, shape, _, norm in self.blocks])

    def new(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """A zero vector and a view of each block in its shape."""
        vector = np.zeros(self.size, np.float32)
        views = {name: vector[a:b] if shape is None else vector[a:b].reshape(shape)
                 for name, a, b, shape in self._spans}
        return vector, views

    def normalise(self, vector: np.ndarray) -> np.ndarray:
        """``vector`` (raw, this layout's) scaled and clipped into ``bounds`` (a new array)."""
        out: np.ndarray = np.clip(vector * self.inverse_scale, self.low, self.high)
        return out

    def table(self) -> str:
        """The layout as a Markdown table (docs/envs.md is written from it)."""
        rows = ["| block | offset | shape | meaning | scale, range |", "| --- | --- | --- | --- | --- |"]
        for name, shape, meaning, norm in self.blocks:
            start = self.offsets[name][0]
            scale = f"{norm.scale:g}, [{norm.low:g}, {norm.high:g}]" if norm != ONE_HOT else ""
            rows.append(f"| `{name}` | {start} | {'x'.join(map(str, shape))} | {meaning} | {scale} |")
        return "\n".join(rows)
