# The search's private random stream: splitmix64, seeded by the caller. Never Python's random.
from libc.stdint cimport uint32_t, uint64_t


cdef inline void rng_seed(Rng* rng, uint64_t seed) noexcept nogil:
    rng.state = seed ^ <uint64_t>0x9E3779B97F4A7C15


cdef inline uint64_t rng_next(Rng* rng) noexcept nogil:
    cdef uint64_t z
    rng.state += <uint64_t>0x9E3779B97F4A7C15
    z = rng.state
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline uint32_t rng_below(Rng* rng, uint32_t n) noexcept nogil:
    """Uniform in [0, n) for n >= 1 (Lemire's multiply-shift; the tiny bias is irrelevant here)."""
    return <uint32_t>(((rng_next(rng) >> 32) * <uint64_t>n) >> 32)


cdef inline double rng_unit(Rng* rng) noexcept nogil:
    return (rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)
