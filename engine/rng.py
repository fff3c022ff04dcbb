"""Per-deal random streams: one deal, one stream (DESIGN "Principles").

Every random choice of deal ``d`` of match ``m`` of a run with seed ``s`` comes from a
counter-based stream keyed by ``(s, m, d, purpose)``: the key is mixed by splitmix64
into the 256-bit state of a xoshiro256** generator. A deal's randomness therefore does
not depend on how the run was split into chunks, threads, processes or machines.

Purposes keep independent decisions on independent streams, so that changing one does
not shift another:

- :data:`WALL` - the shuffle, dice and everything else about the tiles; the same seed
  deals the same walls whatever the policies and whatever rule options leave the tile
  set unchanged (paired deals for rule sweeps and duplicate seating);
- :data:`BOTS` - the bots' own random choices (ties, the ``random`` policy);
- :data:`MATCH` - per-match choices such as the first dealer (deal index 0 only).

All functions are compiled (numba) and take the state as a ``uint64 (4,)`` array.
"""

from __future__ import annotations

import numpy as np

from engine.jit.njit import kernel

__all__ = ["WALL", "BOTS", "MATCH", "stream", "next_u64", "below", "shuffle", "seed_state"]

WALL = 1
"""Stream purpose: the wall shuffle, dice, indicators."""

BOTS = 2
"""Stream purpose: bot decisions."""

MATCH = 3
"""Stream purpose: per-match draws (first dealer)."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@kernel(inline="always")
def _splitmix(x):
    """One splitmix64 step: returns (new counter, output)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x, z ^ (z >> np.uint64(31))


@kernel(refcount=False)
def seed_state(state, seed, match, deal, purpose):
    """Fill ``state (4,) uint64`` with the stream of ``(seed, match, deal, purpose)``."""
    x = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    x, h = _splitmix(x)
    x2, h2 = _splitmix(h ^ np.uint64(match))
    x3, h3 = _splitmix(h2 ^ (np.uint64(deal) << np.uint64(20)) ^ np.uint64(purpose))
    c = h3
    for i in range(4):
        c, out = _splitmix(c)
        state[i] = out
    if state[0] == 0 and state[1] == 0 and state[2] == 0 and state[3] == 0:
        state[0] = np.uint64(1)


@kernel(inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@kernel(refcount=False)
def next_u64(state):
    """Next 64-bit output of xoshiro256** (advances ``state``)."""
    result = _rotl(state[1] * np.uint64(5), 7) * np.uint64(9)
    t = state[1] << np.uint64(17)
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = _rotl(state[3], 45)
    return result


_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)


@kernel(refcount=False)
def below(state, n):
    """Uniform integer in ``[0, n)`` (unbiased, by rejection); ``n >= 1``.

    A draw is rejected at or above ``2**64 - 1 - (2**64 - 1) % n``; that limit is above
    ``2**64 - 1 - n``, so a draw at or below the latter (all but ``n`` in ``2**64``) is
    kept without working the limit out: one 64-bit division a draw, not two.
    """
    bound = np.uint64(n)
    sure = _MAX - bound
    while True:
        x = next_u64(state)
        if x <= sure or x < _MAX - _MAX % bound:
            return np.int64(x % bound)


@kernel(refcount=False)
def shuffle(state, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = below(state, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


def stream(seed: int, match: int, deal: int, purpose: int) -> np.ndarray:
    """A fresh stream state (for Python callers and tests)."""
    state = np.empty(4, np.uint64)
    seed_state(state, seed, match, deal, purpose)
    return state
