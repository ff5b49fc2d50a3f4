"""The search tree's children: kept in key order, found by merging or through a big
block's hash index, whatever the order they were added in."""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.ai._search import _kids_check

KEYS = st.integers(min_value=0, max_value=2**64 - 2)


def check(keys: list[int], extra: list[int]) -> None:
    queries = sorted(set(keys[::3]) | set(extra))
    kids, found = _kids_check(keys, queries)
    assert kids == sorted(keys)
    present = set(keys)
    assert found == [q if q in present else None for q in queries]


@given(st.lists(KEYS, unique=True, max_size=300), st.lists(KEYS, max_size=60))
@settings(max_examples=60, deadline=None)
def test_children_are_found_whatever_the_order(keys: list[int], extra: list[int]) -> None:
    check(keys, extra)


def test_big_blocks_through_several_doublings() -> None:
    """Up to 3,000 children (blocks of 4,096): every doubling rebuilds the index, every
    insertion in the middle shifts it. Queries few enough that the index is used."""
    rng = random.Random(7)
    keys = rng.sample(range(1 << 20), 3000)
    for size in (33, 56, 57, 200, 3000):
        check(keys[:size], rng.sample(range(1 << 20), 5))


def test_clustered_keys_probe_past_each_other() -> None:
    """Keys that differ only in their low bits (as a hand's positions do) still land apart."""
    keys = [(4 << 40) | (p << 16) | (f << 8) | f for p in range(12) for f in range(12)]
    random.Random(3).shuffle(keys)
    check(keys, [(4 << 40) | (20 << 16)])
