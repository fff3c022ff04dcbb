"""The 字牌 bots' distance (engine.zipai.bots.distance) against its definition.

The kernel credits each free card in one pass over its groups; the definition reads the
keep-value table (:func:`keep_values` with its 胡息 and colour weights at 0) and
:func:`in_group`. Here the definition is written out in Python from those two kernels and
compared on random hands, 王 and unseen counts.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from engine import variants
from engine.variants.luodisao._kernels import _values
from engine.zipai.bots import distance, in_group, keep_values

VALUES = _values(variants.get("luodisao").pack(variants.get("luodisao").resolve({})))


def _definition(h, need, huxi_now, min_huxi, unseen):
    kv = np.zeros(20, np.int64)
    keep_values(h, unseen, VALUES, 0, 0, kv)
    credit3 = 0
    for k in range(20):
        if h[k] >= 3:
            credit3 += 3 * int(h[k])
        elif h[k] > 0:
            if in_group(h, k, -1):
                credit3 += 3 * int(h[k])
            elif kv[k] > 1:
                credit3 += 2 * int(h[k])
    credit3 += 3 * int(h[20])
    d = max(3 * need - credit3 // 3, 0)
    return d + (1 if huxi_now < min_huxi else 0)


hands = st.lists(st.integers(0, 4), min_size=20, max_size=20).flatmap(
    lambda c: st.tuples(
        st.just(c),
        st.integers(0, 4),
        st.lists(st.integers(0, 4), min_size=20, max_size=20),
        st.integers(0, 5),
        st.integers(0, 12),
    )
)


@given(hands)
def test_distance_is_its_definition(case):
    counts, kings, unseen, need, huxi_now = case
    h = np.array(counts + [kings], np.int64)
    u = np.array(unseen, np.int64)
    assert distance(h, need, huxi_now, 6, u) == _definition(h, need, huxi_now, 6, u)


def test_distance_is_its_definition_on_sparse_hands(rng):
    """Play-like hands: 14-21 cards spread over the kinds, pairs and groups common."""
    seen = set()
    for _ in range(3000):
        h = np.zeros(21, np.int64)
        for k in rng.choice(20, int(rng.integers(4, 14)), replace=True):
            h[k] = min(h[k] + int(rng.integers(1, 3)), 4)
        h[20] = int(rng.integers(0, 3)) if rng.random() < 0.3 else 0
        u = np.clip(4 - h[:20] - rng.integers(0, 3, 20), 0, 4).astype(np.int64)
        need = int(rng.integers(1, 6))
        got = distance(h, need, 6, 6, u)
        assert got == _definition(h, need, 6, 6, u), (h.tolist(), u.tolist(), need)
        seen.add(got)
    assert len(seen) >= 6  # the hands reach many distances, not one
