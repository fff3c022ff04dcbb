"""The race model's compiled rows against its vectorised definition (engine.play.mahjong.fit)."""

import numpy as np
import pytest

from engine.mahjong import params as P
from engine.play.mahjong.fit import _race


def _race_numpy(d, u, draws, unseen, ubar, h, m1, mf):
    """The race model as first written: one numpy pass over all rows per turn."""
    d = np.clip(d, 1, P.N_D - 1)
    n = d.size
    state = np.zeros((P.N_D, n))
    state[d, np.arange(n)] = 1.0
    unseen = np.maximum(unseen, 1.0)
    qs = np.zeros((P.N_D, n))  # row 0 (won) is never set: not left to np.empty's garbage
    for lv in range(1, P.N_D):
        m = m1 if lv == 1 else mf
        uu = np.where(d == lv, u, ubar[lv])
        qs[lv] = np.minimum(m * uu / unseen, 0.95)
    won = np.zeros(n)
    for step in range(int(draws.max()) if n else 0):
        live = step < draws
        state *= np.where(live, 1.0 - h, 1.0)
        move = np.where(live, qs * state, 0.0)
        move[0] = 0.0
        state -= move
        state[:-1] += move[1:]
        won += state[0]
        state[0] = 0.0
    return won


@pytest.mark.twin
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_compiled_race_is_the_vectorised_one_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = 3000
    d = rng.integers(0, 9, n)
    u = rng.integers(0, 60, n).astype(np.float64)
    live = rng.integers(-4, 90, n)
    draws, unseen = np.ceil(np.maximum(live, 0) / 4.0), np.maximum(live, 0) + 39.0
    ubar = np.sort(rng.uniform(1, 80, P.N_D))
    h, m1, mf = rng.uniform(0, 0.3), rng.uniform(0.2, 8), rng.uniform(0.2, 8)
    got = _race(d, u, draws, unseen, ubar, h, m1, mf)
    want = _race_numpy(d, u, draws, unseen, ubar, h, m1, mf)
    assert got.dtype == want.dtype and np.array_equal(got, want)
