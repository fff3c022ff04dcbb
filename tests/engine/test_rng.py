"""engine.rng: ``below`` by tables and a multiplication gives the numbers the division did."""

from __future__ import annotations

import numpy as np

from engine import rng

TOP = 2**64 - 1


def _reference(state, n):
    """The first output below the largest multiple of ``n`` in 64 bits, modulo ``n``."""
    limit = TOP - TOP % n
    while True:
        x = int(rng.next_u64(state))
        if x < limit:
            return x % n


def test_below_draws_what_the_division_drew():
    state = rng.stream(7, 3, 11, rng.BOTS)
    ref = state.copy()
    bounds = list(range(1, 300)) + [rng.SMALL - 1, rng.SMALL, 1000, 2**31 - 1, 2**40 + 7]
    for n in bounds:
        for _ in range(30):
            assert rng.below(state, n) == _reference(ref, n), n
            assert (state == ref).all()


def test_the_tabled_remainder_is_exact_at_the_edges():
    xs = [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**63, TOP - 1, TOP]
    xs += [int(x) for x in np.random.default_rng(1).integers(0, 2**63, 200, dtype=np.uint64) * 2]
    for b in range(2, rng.SMALL):
        recip = rng._RECIP[b]
        assert int(rng._LIMIT[b]) == TOP - TOP % b
        for x in xs:
            r = x - int(rng._mul_high(np.uint64(x), recip)) * b
            assert 0 <= r < 2 * b
            assert (r - b if r >= b else r) == x % b, (x, b)
