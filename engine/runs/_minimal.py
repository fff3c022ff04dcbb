"""The minimal deal loop ``mjlab bench`` measures the game loops against.

A compiled loop that does only what every mahjong deal must: shuffle the 136 tiles,
deal 13 to each of four seats, then turn by turn draw a tile and discard one of the 14
held at random, until 14 tiles are left. It has no claims, no win checks, no rule hooks
and no records, so a game loop's deals per CPU-second over this loop's is what those
cost (:func:`engine.runs.bench.bench_minimal`). It shares the engine's random streams
(:mod:`engine.rng`), so the shuffle costs what the game loops' does.
"""

from __future__ import annotations

import numpy as np

from engine import rng
from engine.jit.njit import kernel

__all__ = ["MINIMAL_TURNS", "minimal_deals"]

_TILES = 136
_KINDS = 34
_SEATS = 4
_DEAD = 14  # the tiles left when the deal ends
MINIMAL_TURNS = _TILES - _SEATS * 13 - _DEAD
"""Draws (each followed by a discard) of a minimal deal."""


@kernel
def minimal_deals(seed, n_deals, out):
    """Play ``n_deals`` minimal deals of stream ``seed``; ``out[d]`` (int64) receives a
    checksum of deal ``d``'s discards (the sum of ``kind * (turn + 1)``), so that no
    turn can be left out by the compiler. Returns the number of discards made.
    """
    wall = np.empty(_TILES, np.int64)
    hands = np.zeros((_SEATS, _KINDS), np.int64)
    state = np.empty(4, np.uint64)
    made = 0
    for d in range(n_deals):
        rng.seed_state(state, seed, np.int64(0), np.int64(d), rng.WALL)
        for i in range(_TILES):
            wall[i] = i // 4
        rng.shuffle(state, wall, np.int64(_TILES))
        for s in range(_SEATS):
            for k in range(_KINDS):
                hands[s, k] = 0
        ptr = 0
        for s in range(_SEATS):
            for _ in range(13):
                hands[s, wall[ptr]] += 1
                ptr += 1
        check = 0
        cur = 0
        for turn in range(MINIMAL_TURNS):
            hands[cur, wall[ptr]] += 1
            ptr += 1
            r = rng.below(state, np.int64(14))
            k = 0
            while r >= hands[cur, k]:
                r -= hands[cur, k]
                k += 1
            hands[cur, k] -= 1
            check += k * (turn + 1)
            made += 1
            cur = (cur + 1) % _SEATS
        out[d] = check
    return made
