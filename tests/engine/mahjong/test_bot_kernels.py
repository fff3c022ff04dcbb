"""The bots' fast kernels against the slower, simpler ones they replace.

``discard_ukeire`` (every tied discard's ukeire at once, with shared work and pruning)
must equal ``ukeire_core`` (one discard at a time, the public ukeire's kernel) for every
discard of every hand: with wilds, 13- and 16-tile hands, every shape mask, partial
``unseen`` counts; ``waiting_ukeire`` (a waiting hand's ukeire, by way of
``discard_ukeire``) must equal ``ukeire_core`` of the hand as it stands.
``discard_scores`` (every discard's score from the hand's suit classes, updated per
discard) must equal the score of each hand left after a discard,
evaluated from scratch (``target_score`` for the value bot, ``4 * distance`` for the
efficiency bot), for every bonus the variants set and every exposed-meld state.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from engine.hand._kernels import SUMMARY, _distance, discard_ukeire, hand_summary, ukeire_core
from engine.hand._tables import kernel_tables
from engine.mahjong.bots import SCRATCH, target_score, waiting_ukeire
from engine.mahjong.evaluation import discard_scores
from engine.mahjong.params import B_FLUSH, B_HALF, B_PAIRS, B_TRIPLETS, B_WILD_PAIR, N_BOT
from engine.runs.bench import random_hands

pytestmark = pytest.mark.twin  # also run interpreted (.ci/run's NUMBA_DISABLE_JIT pass)

SHAPE_MASKS = (1, 3, 7, 9, 15)


@numba.njit(cache=False)
def _compare(hands, wilds, sets, shapes, unseen, tab, fast, slow):
    sm = np.empty(SUMMARY, np.int64)
    no_imp = np.empty(0, np.bool_)
    work = np.empty(160, np.int64)
    for r in range(hands.shape[0]):
        h = hands[r].copy()
        held = np.int64(0)
        for k in range(34):
            if h[k] > 0:
                held |= np.int64(1) << k
            fast[r, k] = -1
            slow[r, k] = -1
        discard_ukeire(h, wilds[r], sets, shapes, tab, unseen[r], held, fast[r], work)
        hand_summary(h, sm)
        for k in range(34):
            if h[k] > 0:
                slow[r, k] = ukeire_core(h, k, wilds[r], sets, shapes, tab, unseen[r], sm, no_imp)[
                    1
                ]
            else:
                fast[r, k] = -1


def _random_hands(rng, n, size, sets, shapes):
    """``n`` random hands of ``size`` tiles with their wilds (0-3, half of them none)."""
    wilds = rng.choice([0, 0, 0, 1, 2, 3], size=n).astype(np.int64)
    hands = np.zeros((n, 34), np.int64)
    for w in np.unique(wilds):
        rows = np.flatnonzero(wilds == w)
        hands[rows] = random_hands(len(rows), size - int(w), seed=int(w) + 10 * sets + shapes)
    return hands, wilds


def _near_complete(rng, sets):
    """A complete ``3*sets+2`` hand with 0-2 tiles swapped for random ones."""
    while True:
        h = np.zeros(34, np.int64)
        h[rng.integers(34)] += 2
        for _ in range(sets):
            if rng.random() < 0.6:
                s, lo = rng.integers(3), rng.integers(7)
                h[9 * s + lo : 9 * s + lo + 3] += 1
            else:
                h[rng.integers(34)] += 3
        for _ in range(rng.integers(3)):
            h[rng.choice(np.flatnonzero(h))] -= 1
            h[rng.integers(34)] += 1
        if h.max() <= 4:
            return h


@pytest.mark.parametrize("shapes", SHAPE_MASKS)
@pytest.mark.parametrize("sets", [4, 5, 2])
def test_discard_ukeire_equals_ukeire_core(shapes, sets, twin_n):
    n = max(twin_n(3000), 1000)  # enough for hands with no improving draw to be in
    rng = np.random.default_rng(sets * 100 + shapes)
    hands, wilds = _random_hands(rng, n, 3 * sets + 2, sets, shapes)
    # a third are near completion (where pruning and the early exits matter most)
    hands[: n // 3] = [_near_complete(rng, sets) for _ in range(n // 3)]
    wilds[: n // 3] = 0
    unseen = np.clip(4 - hands - rng.integers(0, 2, hands.shape), 0, 4).astype(np.int64)
    fast = np.empty((n, 34), np.int64)
    slow = np.empty((n, 34), np.int64)
    _compare(hands, wilds, sets, shapes, unseen, kernel_tables(), fast, slow)
    bad = np.argwhere(fast != slow)
    assert bad.size == 0, f"first mismatch: hand {hands[bad[0][0]]}, discard {bad[0][1]}"
    held = slow >= 0
    assert (slow[held] > 0).mean() > 0.3  # not a comparison of zeros
    assert (slow[held] == 0).any()  # hands with no improving draw are in


@pytest.mark.parametrize("low, high", [(0, 8), (-2, 12)])
def test_discard_ukeire_sums_any_unseen_counts(low, high, twin_n):
    # the sum over improving draws is three bit counts of the unseen counts' bit planes
    # when every count is 0..7, a loop otherwise: both against ukeire_core
    n = twin_n(1000)
    rng = np.random.default_rng(high)
    hands, wilds = _random_hands(rng, n, 14, 4, 15)
    unseen = rng.integers(low, high, hands.shape).astype(np.int64)
    fast = np.empty((n, 34), np.int64)
    slow = np.empty((n, 34), np.int64)
    _compare(hands, wilds, 4, 15, unseen, kernel_tables(), fast, slow)
    bad = np.argwhere(fast != slow)
    assert bad.size == 0, f"first mismatch: hand {hands[bad[0][0]]}, discard {bad[0][1]}"
    assert (slow[slow >= 0] >= 5).any()  # a sum the bit planes' 4s and 2s must make


@numba.njit(cache=False)
def _compare_scores(policy, hands, wilds, sets, shapes, tab, bot, minfo, fast, slow, best):
    for r in range(hands.shape[0]):
        h = hands[r].copy()
        best[r] = discard_scores(policy, h, wilds[r], sets, shapes, tab, bot, minfo[r], fast[r])
        for k in range(34):
            if h[k] == 0:
                slow[r, k] = 4 * 99
                continue
            h[k] -= 1
            if policy == 2:
                slow[r, k] = target_score(h, wilds[r], sets, shapes, tab, bot, minfo[r])
            else:
                slow[r, k] = 4 * _distance(h, wilds[r], sets, shapes, tab)
            h[k] += 1


@pytest.mark.parametrize("shapes", SHAPE_MASKS)
@pytest.mark.parametrize("sets", [4, 5, 3])
@pytest.mark.parametrize("policy", [1, 2])
def test_discard_scores_equal_each_remaining_hand_scored_alone(policy, shapes, sets, twin_n):
    n = twin_n(1500)
    rng = np.random.default_rng(sets * 100 + shapes + 7 * policy)
    hands, wilds = _random_hands(rng, n, 3 * sets + 2, sets, shapes)
    hands[: n // 3] = [_near_complete(rng, sets) for _ in range(n // 3)]
    # exposed melds: suit mask (none, one suit, honors, two suits), all-triplets flag,
    # their number (0 lets the seven-pairs bonus count)
    minfo = np.stack(
        [
            rng.choice([0, 1, 2, 8, 3], size=n),
            rng.integers(0, 2, size=n),
            rng.choice([0, 0, 1, 2], size=n),
        ],
        axis=1,
    ).astype(np.int64)
    bot = np.zeros(N_BOT, np.float64)
    for slot in (B_FLUSH, B_HALF, B_TRIPLETS, B_PAIRS, B_WILD_PAIR):
        bot[slot] = rng.choice([0, 2, 3, 5])
    fast = np.empty((n, 34), np.int64)
    slow = np.empty((n, 34), np.int64)
    best = np.empty(n, np.int64)
    _compare_scores(
        policy, hands, wilds, sets, shapes, kernel_tables(), bot, minfo, fast, slow, best
    )
    bad = np.argwhere(fast != slow)
    assert bad.size == 0, (
        f"first mismatch: hand {hands[bad[0][0]]}, w {wilds[bad[0][0]]}, "
        f"minfo {minfo[bad[0][0]]}, discard {bad[0][1]}: {fast[tuple(bad[0])]} vs "
        f"{slow[tuple(bad[0])]}"
    )
    assert np.array_equal(best, slow.min(axis=1))
    if policy == 2:
        # the bonuses do change scores: not every score is a multiple of 4
        assert (fast[fast < 4 * 99] % 4 != 0).any()


@numba.njit(cache=False)
def _compare_waiting(hands, wilds, sets, shapes, unseen, tab, fast, slow):
    sm = np.empty(SUMMARY, np.int64)
    no_imp = np.empty(0, np.bool_)
    scr = np.empty(SCRATCH, np.int64)
    for r in range(hands.shape[0]):
        h = hands[r].copy()
        fast[r] = waiting_ukeire(h, wilds[r], sets, shapes, tab, unseen[r], scr)
        for k in range(34):
            if h[k] != hands[r, k]:
                fast[r] = -1  # the hand must come back unchanged
        hand_summary(h, sm)
        slow[r] = ukeire_core(h, -1, wilds[r], sets, shapes, tab, unseen[r], sm, no_imp)[1]


@pytest.mark.parametrize("shapes", SHAPE_MASKS)
@pytest.mark.parametrize("sets", [4, 5, 2])
def test_waiting_ukeire_equals_ukeire_core(shapes, sets, twin_n):
    n = twin_n(3000)
    rng = np.random.default_rng(sets * 1000 + shapes)
    hands, wilds = _random_hands(rng, n, 3 * sets + 1, sets, shapes)
    # a third one tile away from complete hands (waits and near-waits)
    for i in range(n // 3):
        h = _near_complete(rng, sets)
        h[rng.choice(np.flatnonzero(h))] -= 1
        hands[i] = h
        wilds[i] = 0
    # some hold four copies of the first kinds (the tile added inside goes elsewhere)
    for i in range(n // 3, n // 3 + 60):
        h = np.zeros(34, np.int64)
        h[: 1 + i % 3] = 4
        while h.sum() < 3 * sets + 1:
            k = rng.integers(3, 34)
            if h[k] < 4:
                h[k] += 1
        hands[i] = h
        wilds[i] = 0
    unseen = np.clip(4 - hands - rng.integers(0, 2, hands.shape), 0, 4).astype(np.int64)
    fast = np.empty(n, np.int64)
    slow = np.empty(n, np.int64)
    _compare_waiting(hands, wilds, sets, shapes, unseen, kernel_tables(), fast, slow)
    bad = np.flatnonzero(fast != slow)
    assert bad.size == 0, f"first mismatch: hand {hands[bad[0]]}: {fast[bad[0]]} vs {slow[bad[0]]}"
    assert (slow > 0).mean() > 0.3  # not a comparison of zeros
