# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Information-set Monte Carlo tree search over C mirrors of SOLO and SCOUT.

One extension module: the private RNG, the two game mirrors and the search are included
here so that the hot loop inlines across them.
"""

include "_rng.pxi"
include "_solo.pxi"
include "_scout.pxi"
include "_infer.pxi"
include "_infer_solo.pxi"
include "_value.pxi"
include "_policy.pxi"
include "_ismcts.pxi"
include "_vector.pxi"
