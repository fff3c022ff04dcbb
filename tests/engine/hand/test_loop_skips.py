"""The win checks the mahjong loop skips (engine.play.mahjong.loop ``_waitd``) are checks
that could not succeed.

The loop keeps the distance of each seat's waiting hand (``3*sets+1`` tiles) until the
hand changes, and skips the win check of a seat two or more tiles from complete on a
discard (a real tile) and on a drawn real tile. That is exact only if one real tile
takes at most one off a distance, for every shape and any number of wilds held; a wild
drawn can take one off too, and also lift the cap on a fifth copy, so a drawn wild is
always checked (the example below: two from complete, completed by one wild).
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import hand, tiles
from engine.runs.bench import random_hands

SHAPE_SETS = [
    ("standard",),
    ("standard", "seven_pairs", "thirteen_orphans"),
    ("standard", "seven_pairs", "thirteen_orphans", "buda"),
]


def _near(rng, n, size, sets):
    """``n`` hands of ``size`` tiles near complete: sets and a pair of ``3*sets+2`` tiles
    (no more than four of a kind), less random tiles, with two of them swapped for random
    kinds.
    """
    out = np.zeros((n, 34), np.uint8)
    for i in range(n):
        h = out[i]
        while h.sum() < 3 * sets + 2:
            h[:] = 0
            p = rng.integers(34)
            h[p] += 2
            for _ in range(sets):
                k = rng.integers(34)
                if k < 27 and k % 9 < 7 and rng.random() < 0.6:
                    h[k : k + 3] += 1
                else:
                    h[k] += 3
            if h.max() > 4:
                h[:] = 0
        for _ in range(3 * sets + 2 - size):
            h[rng.choice(np.flatnonzero(h))] -= 1
        for _ in range(2):
            h[rng.choice(np.flatnonzero(h))] -= 1
            h[rng.choice(np.flatnonzero(h < 4))] += 1
    return out


@pytest.mark.parametrize(
    ("shapes", "sets"),
    [(s, 4) for s in SHAPE_SETS] + [(("standard",), n) for n in (5, 3, 1)],
    ids=lambda x: "+".join(x) if isinstance(x, tuple) else f"sets{x}",
)
@pytest.mark.parametrize("wilds", [0, 1, 2, 3])
def test_one_real_tile_never_completes_a_hand_two_away(shapes, sets, wilds):
    size = 3 * sets + 1 - wilds
    if size <= 2:
        pytest.skip("every hand of two tiles or fewer is within two of complete")
    n = 3000
    rng = np.random.default_rng(1000 * sets + 10 * wilds + len(shapes))
    seed = int(rng.integers(1 << 30))
    hands = np.concatenate([random_hands(n, size, seed=seed), _near(rng, n, size, sets)])
    d = hand.distance(hands, wilds, sets, shapes)
    far = hands[d >= 2]
    assert len(far) > 100
    seen_one = 0
    for k in range(34):
        rows = far[far[:, k] < 4].copy()
        rows[:, k] += 1
        after = hand.distance(rows, wilds, sets, shapes)
        assert (after >= 1).all(), (
            tiles.format(rows[np.argmin(after)]),
            wilds,
            sets,
            shapes,
        )
        seen_one += int((after == 1).sum())
    assert seen_one > 0  # the bound is reached: a tile can take one off


def test_a_wild_can_complete_a_hand_two_away():
    h = tiles.parse("1111m234p567p789s")
    assert hand.distance(h, 0, 4) == 2  # a fifth 1m cannot be drawn
    assert hand.is_complete(h, 1, 4)  # a wild can be it
