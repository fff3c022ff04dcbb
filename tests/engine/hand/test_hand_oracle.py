"""Evidence that engine.hand is right: it agrees with a brute-force twin and with mahjong.

- ``tests/oracles/hand_bruteforce.py`` computes the distance from its definition by
  plain search (no tables); the kernel must agree on every hand, every shape, wilds 0..3
  and sets 0..5, and on waits and ukeire.
- The ``mahjong`` package (a test-only oracle, <= 14 tiles, no wilds) must agree with
  ``shapes=("standard",)`` on every hand: neither counts a fifth copy of a kind that no
  wild can stand for. Its seven pairs differ only where four alike are held (mjlab
  counts them as two pairs, the documented rule); its thirteen orphans agree.
- Hands with wilds agree with a brute force over every assignment of the wilds to
  kinds (a wild may be a fifth copy, RULEBOOK §0.1; real draws never are).
"""

from __future__ import annotations

import itertools
from collections import Counter
from contextlib import contextmanager

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles import hand_bruteforce as bf
from strategies import MELDS, ORPHANS, complete_hands, hands, waiting_hands

from engine import hand, tiles

SHAPES = ("standard", "seven_pairs", "thirteen_orphans", "buda")
ALL = SHAPES
DEFAULT = hand.DEFAULT_SHAPES


@contextmanager
def numba_threads(n):
    """Run the (parallel) kernels on ``n`` threads inside the block."""
    before = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield
    finally:
        numba.set_num_threads(before)


@pytest.fixture(autouse=True, scope="module")
def _one_numba_thread():
    """Most tests call the kernels one hand at a time: run them on one thread.

    A parallel kernel call on a shared, busy machine waits for a second core, which
    costs milliseconds per hand. The batch tests turn all threads back on, so that the
    parallel chunking is exercised too.
    """
    with numba_threads(1):
        yield


# --- fixed-seed random hands ----------------------------------------------------------

_GENERATORS = ("uniform", "one_suit", "standard", "seven_pairs", "thirteen_orphans", "buda")


def _target(rng, sets, shape):
    """Kinds of a complete hand of ``shape`` (may hold more than 4 of a kind)."""
    if shape == "standard":
        groups = [MELDS[i] for i in rng.integers(0, len(MELDS), sets)]
        pair = int(rng.integers(0, 34))
        return [k for g in groups for k in g] + [pair, pair]
    if shape == "seven_pairs":
        # a few repeated kinds, so that four alike (two pairs) happens often
        pairs = rng.choice(rng.choice(34, 9, replace=False), 7)
        return [int(p) for p in pairs for _ in (0, 1)]
    if shape == "thirteen_orphans":
        return list(ORPHANS) + [int(rng.choice(ORPHANS))]
    sizes = _BUDA_SIZES[int(rng.integers(0, len(_BUDA_SIZES)))]
    kinds = []
    for suit, size in enumerate(sizes):
        options = [r for r in _BUDA_RANKS if len(r) == size]
        kinds += [9 * suit + r for r in options[int(rng.integers(0, len(options)))]]
    honors = [27 + int(h) for h in rng.permutation(7)]
    return kinds + honors[: 14 - len(kinds)]


_BUDA_RANKS = [
    c
    for n in (2, 3)
    for c in itertools.combinations(range(9), n)
    if all(b - a >= 3 for a, b in itertools.pairwise(c))
]
_BUDA_SIZES = [(3, 3, 3), (3, 3, 2), (3, 2, 3), (2, 3, 3), (3, 2, 2), (2, 3, 2), (2, 2, 3)]


def random_hand(rng, generator, sets, wilds, size):
    """One legal hand ``(counts, wilds)`` of ``3*sets + size`` tiles, wilds included."""
    n = 3 * sets + size
    wilds = min(wilds, n)
    while True:
        if generator == "uniform":
            kinds = list(rng.choice(136, n, replace=False) // 4)
        elif generator == "one_suit":
            suit = int(rng.integers(0, 4))
            pool = np.arange(36 * suit, min(36 * suit + 36, 136))
            kinds = list(rng.choice(pool, n, replace=False) // 4)
        else:
            kinds = _target(rng, sets if generator == "standard" else 4, generator)
            kinds = [int(k) for k in rng.permutation(kinds)]
            # perturb: replace 0..3 tiles by random kinds, then fit the size
            for i in range(min(int(rng.choice(4, p=(0.4, 0.3, 0.2, 0.1))), len(kinds))):
                kinds[i] = int(rng.integers(0, 34))
            kinds = kinds[:n]
        real = [int(k) for k in rng.permutation(kinds)[wilds:]]
        counts = np.bincount(np.asarray(real, dtype=np.int64), minlength=34)
        if counts.max() <= 4:
            return counts.astype(np.uint8), wilds


def random_hands(seed, n):
    """``n`` hands: every generator, wilds 0..3, both sizes; sets 4 and 5 mostly."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        generator = _GENERATORS[i % len(_GENERATORS)]
        if generator in ("seven_pairs", "thirteen_orphans", "buda"):
            sets = 4
        else:
            sets = int(rng.choice([4, 5, 0, 1, 2, 3], p=(0.5, 0.35, 0.03, 0.04, 0.04, 0.04)))
        wilds = int(rng.choice(4, p=(0.4, 0.3, 0.2, 0.1)))
        size = int(rng.integers(1, 3))
        counts, wilds = random_hand(rng, generator, sets, wilds, size)
        rows.append((counts, wilds, sets, generator))
    return rows


def _shape_sets(sets):
    """Shape combinations compared for hands of ``sets`` sets."""
    if sets == 4:
        return [(s,) for s in SHAPES] + [DEFAULT, ALL]
    return [("standard",), DEFAULT, ALL]


def _oracle_by_shape(counts, wilds, sets):
    """Brute-force distance of each shape that applies (wilds applied)."""
    names = SHAPES if sets == 4 else ("standard",)
    return {s: bf.hand_distance(counts, wilds, sets, (s,)) for s in names}


def _compare(rows):
    """Compare the kernel with the oracle on ``rows``; returns (hands, comparisons, bad)."""
    counts = np.array([r[0] for r in rows])
    wilds = np.array([r[1] for r in rows])
    sets = np.array([r[2] for r in rows])
    oracle = [_oracle_by_shape(c, w, s) for c, w, s, _ in rows]
    bad = []
    comparisons = 0
    combos = {combo for s in (4, 5) for combo in _shape_sets(s)}
    for combo in sorted(combos):
        pick = [i for i, r in enumerate(rows) if combo in _shape_sets(r[2])]
        got = hand.distance(counts[pick], wilds[pick], sets[pick], combo)
        for i, g in zip(pick, got, strict=True):
            want = min(oracle[i][s] for s in combo if s in oracle[i])
            comparisons += 1
            if int(g) != want:
                c, w, s, gen = rows[i]
                bad.append(f"{tiles.format(c)} wilds={w} sets={s} {combo}: {int(g)} != {want}")
    return len(rows), comparisons, bad


def test_kernel_agrees_with_bruteforce_on_20000_random_hands():
    rows = random_hands(seed=20261129, n=20_000)
    # coverage: every generator; sets 4 and 5 with every wild count and both sizes
    kinds = Counter((r[2], r[1], int(r[0].sum()) + r[1] - 3 * r[2]) for r in rows)
    for sets, wilds, size in itertools.product((4, 5), range(4), (1, 2)):
        assert kinds[sets, wilds, size] >= 100, (sets, wilds, size)
    assert {r[2] for r in rows} == {0, 1, 2, 3, 4, 5}
    assert Counter(r[3] for r in rows) == {
        g: 20_000 // 6 + (i < 20_000 % 6) for i, g in enumerate(_GENERATORS)
    }
    with numba_threads(numba.config.NUMBA_NUM_THREADS):
        n, comparisons, bad = _compare(rows)
    assert n == 20_000 and comparisons > 80_000
    assert not bad, f"{len(bad)} disagreements, e.g.\n" + "\n".join(bad[:20])


@pytest.mark.slow
def test_kernel_agrees_with_bruteforce_on_200000_random_hands():
    rows = random_hands(seed=7, n=200_000)
    with numba_threads(numba.config.NUMBA_NUM_THREADS):
        n, comparisons, bad = _compare(rows)
    assert not bad, f"{len(bad)} disagreements, e.g.\n" + "\n".join(bad[:20])


def test_random_hands_reach_every_outcome():
    """The sample is not all far-off hands: complete and waiting hands of each shape."""
    rows = random_hands(seed=20261129, n=3_000)
    seen = set()
    for c, w, s, _ in rows:
        for shape, d in _oracle_by_shape(c, w, s).items():
            seen.add((shape, min(d, 2)))
    for shape in SHAPES:
        assert {(shape, 0), (shape, 1), (shape, 2)} <= seen, shape


# --- hypothesis ------------------------------------------------------------------------


@given(hands())
def test_shanten_agrees_with_bruteforce(h):
    counts, wilds, sets = h
    for shapes in _shape_sets(sets):
        assert hand.shanten(counts, wilds, sets, shapes) == bf.shanten(counts, wilds, sets, shapes)


@given(hands(sizes=(2,)))
def test_is_complete_agrees_with_bruteforce(h):
    counts, wilds, sets = h
    for shapes in _shape_sets(sets):
        assert hand.is_complete(counts, wilds, sets, shapes) == bf.is_complete(
            counts, wilds, sets, shapes
        )


@given(hands(sets=st.sampled_from([4, 5, 1]), sizes=(1,)))
def test_waits_agree_with_bruteforce_on_any_hand(h):
    counts, wilds, sets = h
    shapes = ALL if sets == 4 else ("standard",)
    np.testing.assert_array_equal(
        hand.waits(counts, wilds, sets, shapes), bf.waits(counts, wilds, sets, shapes)
    )


@given(st.sampled_from(SHAPES).flatmap(lambda shape: complete_hands(shape=shape)))
def test_complete_hands_are_complete(h):
    counts, wilds, sets = h
    assert hand.is_complete(counts, wilds, sets, ALL)
    assert bf.is_complete(counts, wilds, sets, ALL)


@given(st.sampled_from(SHAPES).flatmap(lambda shape: waiting_hands(shape=shape)))
def test_a_complete_hand_less_a_tile_waits_on_it(h):
    counts, wilds, sets, missing = h
    assert hand.shanten(counts, wilds, sets, ALL) <= 0
    got = hand.waits(counts, wilds, sets, ALL)
    assert got[missing]  # it held `missing`, so at most 3 are held now
    np.testing.assert_array_equal(got, bf.waits(counts, wilds, sets, ALL))


@given(
    hands(sets=st.sampled_from([4, 5]), sizes=(2,), wilds=st.integers(0, 2)),
    st.integers(0, 33),
)
def test_ukeire_of_one_discard_agrees_with_bruteforce(h, pick):
    counts, wilds, sets = h
    held = np.flatnonzero(counts)
    if held.size:
        _check_ukeire(
            counts, wilds, sets, ALL if sets == 4 else ("standard",), [held[pick % held.size]]
        )


# --- waits and ukeire on sampled hands --------------------------------------------------


def _waiting_sample(seed, n):
    """``n`` waiting-size hands near a complete shape, batched by the shapes that apply."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        generator = ("standard", "seven_pairs", "thirteen_orphans", "buda")[i % 4]
        sets = 4 if generator != "standard" or i % 8 else 5
        counts, wilds = random_hand(rng, generator, sets, int(rng.integers(0, 4)), 1)
        rows.append((counts, wilds, sets))
    return rows


def test_waits_agree_on_sampled_waiting_hands():
    rows = _waiting_sample(11, 200)
    n_waiting = 0
    for sets, shapes in ((4, ALL), (5, ("standard",))):
        batch = [r for r in rows if r[2] == sets]
        got = hand.waits(
            np.array([r[0] for r in batch]), np.array([r[1] for r in batch]), sets, shapes
        )
        for (counts, wilds, _), g in zip(batch, got, strict=True):
            want = bf.waits(counts, wilds, sets, shapes)
            assert np.array_equal(g, want), (tiles.format(counts), wilds, sets)
            n_waiting += bool(want.any())
    assert n_waiting > 60


def _check_ukeire(counts, wilds, sets, shapes, discards=None, unseen=None, u=None):
    """Check ukeire against the brute force: shanten after each discard, improving draws."""
    if u is None:
        u = hand.ukeire(counts, wilds, sets, shapes, unseen=unseen)
    if unseen is None:
        unseen = 4 - counts.astype(np.int64)
    for d in range(34) if discards is None else discards:
        if counts[d] == 0:
            assert u.shanten[d] == 127
            assert not u.improving[d].any() and u.tiles[d] == 0
            continue
        after = counts.astype(np.int64)
        after[d] -= 1
        base = bf.hand_distance(after, wilds, sets, shapes)
        assert u.shanten[d] == base - 1, (tiles.format(counts), d)
        improving = np.zeros(34, bool)
        for j in range(34):
            if after[j] >= 4:
                continue  # no fifth real tile to draw
            after[j] += 1
            improving[j] = bf.hand_distance(after, wilds, sets, shapes) < base
            after[j] -= 1
        np.testing.assert_array_equal(u.improving[d], improving, err_msg=tiles.format(counts))
        assert u.tiles[d] == int(unseen[improving].sum())
    if discards is None:
        # best(): the held kinds of lowest shanten, then most improving tiles
        held = np.flatnonzero(counts)
        key = {int(d): (int(u.shanten[d]), -int(u.tiles[d])) for d in held}
        top = min(key.values())
        assert set(np.flatnonzero(u.best())) == {d for d in key if key[d] == top}


def test_ukeire_is_shanten_after_discard_and_draw():
    rng = np.random.default_rng(12)
    rows = []
    for i in range(24):
        generator = _GENERATORS[i % len(_GENERATORS)]
        sets = 5 if generator in ("uniform", "standard") and i % 4 == 0 else 4
        counts, wilds = random_hand(rng, generator, sets, int(rng.integers(0, 4)), 2)
        rows.append((counts, wilds, sets))
    for sets, shapes in ((4, ALL), (5, ("standard",))):
        batch = [r for r in rows if r[2] == sets]
        u = hand.ukeire(
            np.array([r[0] for r in batch]), np.array([r[1] for r in batch]), sets, shapes
        )
        for i, (counts, wilds, _) in enumerate(batch):
            one = type(u)(u.shanten[i], u.improving[i], u.tiles[i])
            _check_ukeire(counts, wilds, sets, shapes, u=one)


def test_ukeire_counts_the_given_unseen_tiles():
    rng = np.random.default_rng(13)
    counts = tiles.parse("1234m5588p3467s12z")
    unseen = np.clip((4 - counts.astype(np.int64)) - rng.integers(0, 2, 34), 0, 4)
    _check_ukeire(counts, 0, 4, DEFAULT, unseen=unseen)


def _batch_groups(rows):
    """Rows grouped by the shapes that apply: (counts, wilds, sets, shapes) arrays."""
    for four, shapes in ((True, ALL), (False, ("standard",))):
        pick = [r for r in rows if (r[2] == 4) == four]
        yield (
            np.array([r[0] for r in pick]),
            np.array([r[1] for r in pick]),
            np.array([r[2] for r in pick]),
            shapes,
        )


def test_ukeire_is_consistent_with_shanten_on_a_large_batch():
    """ukeire (over several parallel chunks) = shanten of hand - discard (+ draw)."""
    rows = [r for r in random_hands(seed=21, n=1_000) if r[0].sum() + r[1] == 3 * r[2] + 2]
    _check_ukeire_batch(rows)
    assert len(rows) > 300


def test_ukeire_is_consistent_with_shanten_on_hands_holding_four_alike():
    """The same on 20,000 hands holding all four copies of a kind or two, with 0..3
    wilds: where the kinds a hand holds are full, a draw far from every held tile can
    lower the distance, so the kernels may not skip such draws there."""
    rng = np.random.default_rng(23)
    rows = []
    for i in range(20_000):
        sets = 4 if i % 4 else 5
        wilds = int(rng.choice(4, p=(0.55, 0.25, 0.15, 0.05)))
        rows.append((_quad_hand(rng, 3 * sets + 2 - wilds), wilds, sets))
    _check_ukeire_batch(rows)


def _check_ukeire_batch(rows, chunk=500):
    """Every discard's shanten and improving draws of ``rows`` against batch shanten
    (``chunk`` hands at a time: each needs 34 x 34 drawn hands)."""
    for lo in range(0, len(rows), chunk):
        _check_ukeire_chunk(rows[lo : lo + chunk])


def _check_ukeire_chunk(rows):
    eye = np.eye(34, dtype=np.int64)
    with numba_threads(numba.config.NUMBA_NUM_THREADS):
        for counts, wilds, sets, shapes in _batch_groups(rows):
            u = hand.ukeire(counts, wilds, sets, shapes)
            c = counts.astype(np.int64)
            after = c[:, None, :] - eye  # (n, discard, 34)
            held = c > 0
            sh = np.full(held.shape, 127, np.int64)
            w2 = np.broadcast_to(wilds[:, None], held.shape)[held]
            s2 = np.broadcast_to(sets[:, None], held.shape)[held]
            sh[held] = hand.shanten(after[held], w2, s2, shapes)
            np.testing.assert_array_equal(u.shanten, sh)
            drawn = after[:, :, None, :] + eye  # (n, discard, draw, 34)
            can = held[:, :, None] & (after < 4)  # a real tile of the kind is left to draw
            shape4 = can.shape
            w4 = np.broadcast_to(wilds[:, None, None], shape4)[can]
            s4 = np.broadcast_to(sets[:, None, None], shape4)[can]
            after_draw = np.full(shape4, 127, np.int64)
            after_draw[can] = hand.shanten(drawn[can], w4, s4, shapes)
            improving = can & (after_draw < sh[:, :, None])
            np.testing.assert_array_equal(u.improving, improving)
            np.testing.assert_array_equal(u.tiles, (improving * (4 - c)[:, None, :]).sum(-1))


def test_waits_are_the_draws_that_complete_on_a_large_batch():
    rows = [r for r in random_hands(seed=22, n=3_000) if r[0].sum() + r[1] == 3 * r[2] + 1]
    eye = np.eye(34, dtype=np.int64)
    with numba_threads(numba.config.NUMBA_NUM_THREADS):
        for counts, wilds, sets, shapes in _batch_groups(rows):
            got = hand.waits(counts, wilds, sets, shapes)
            c = counts.astype(np.int64)
            can = c < 4
            drawn = (c[:, None, :] + eye)[can]
            w = np.broadcast_to(wilds[:, None], can.shape)[can]
            s = np.broadcast_to(sets[:, None], can.shape)[can]
            want = np.zeros(can.shape, bool)
            want[can] = hand.is_complete(drawn, w, s, shapes)
            np.testing.assert_array_equal(got, want)
    assert len(rows) > 1_000


# --- the oracle checks itself ------------------------------------------------------------


def test_two_brute_force_methods_agree_per_suit():
    """Lowest-rank decomposition and rank-by-rank target choice give the same needs."""
    rng = np.random.default_rng(14)
    for i in range(150):
        n_ranks, seq = (9, True) if i % 4 else (7, False)
        held = tuple(
            int(x) for x in rng.multinomial(int(rng.integers(0, 12)), [1 / n_ranks] * n_ranks)
        )
        held = tuple(min(x, 4) for x in held)
        for k in range(6):
            for p in (0, 1):
                assert bf.suit_need(held, seq, k, p) == bf.suit_need_positional(held, seq, k, p)


def test_wilds_lower_the_distance_by_their_count():
    """Each wild replaced by the best real kind (a fifth copy allowed): ``distance - w``."""
    rng = np.random.default_rng(15)
    for i, wilds in enumerate([1] * 40 + [2] * 3):
        generator = _GENERATORS[i % len(_GENERATORS)]
        counts, wilds = random_hand(rng, generator, 4, wilds, int(rng.integers(1, 3)))
        want = bf.distance_by_substitution(counts, wilds, 4, ALL)
        assert hand.distance(counts, wilds, 4, ALL) == want, tiles.format(counts)
        assert bf.hand_distance(counts, wilds, 4, ALL) == want


def test_wild_hands_with_quads_agree_with_every_wild_assignment():
    """Hands holding four (or three) of a kind, where a wild as a fifth copy matters:
    the kernel, the direct search (targets with at most ``w`` copies beyond the fourth)
    and every assignment of the wilds agree."""
    rng = np.random.default_rng(16)
    seen_fifth = 0
    for i in range(150):
        wilds = 1 if i < 144 else 2
        size = 13 + (i % 2) - wilds
        counts = _quad_hand(rng, size)
        shapes = ("standard",) if i % 3 else ALL
        want = bf.distance_by_substitution(counts, wilds, 4, shapes)
        assert hand.distance(counts, wilds, 4, shapes) == want, (tiles.format(counts), wilds)
        assert bf.hand_distance(counts, wilds, 4, shapes) == want, (tiles.format(counts), wilds)
        # the hand with the wilds' budget but no copy beyond the fourth: farther?
        seen_fifth += bf.standard_distance(counts, 4, cap=4) > bf.standard_distance(
            counts, 4, cap=4, excess=wilds
        )
    assert seen_fifth >= 5  # the sample meets the case it is about


def test_many_wilds_on_honor_quads_agree_with_the_direct_search():
    """Up to five wilds on honor-heavy hands (the honors' rows change up to excess level
    5), 13/14 and 16/17-tile hands, against the direct search."""
    rng = np.random.default_rng(17)
    deep = 0
    for i in range(200):
        sets = 4 if i % 2 else 5
        wilds = int(rng.integers(0, 6))
        n = 3 * sets + 1 + int(rng.integers(0, 2)) - wilds
        counts = np.zeros(34, np.int64)
        counts[27 + rng.choice(7, int(rng.integers(1, 4)), replace=False)] = 4
        while counts.sum() > n:
            counts[rng.choice(np.flatnonzero(counts))] -= 1
        while counts.sum() < n:
            k = int(rng.integers(27, 34)) if rng.random() < 0.6 else int(rng.integers(0, 34))
            if counts[k] < 4:
                counts[k] += 1
        counts = counts.astype(np.uint8)
        want = bf.hand_distance(counts, wilds, sets, ("standard",))
        got = hand.distance(counts, wilds, sets, ("standard",))
        assert got == want, (tiles.format(counts), wilds, sets)
        if wilds >= 2:  # hands that need two or more copies beyond the fourth
            one = max(bf.standard_distance(counts, sets, cap=4, excess=1) - wilds, 0)
            deep += want < one
    assert deep >= 5


# --- the mahjong package -----------------------------------------------------------------


def _mahjong_regular(counts):
    from mahjong.shanten import Shanten  # a dev dependency (pyproject [dev])

    return Shanten.calculate_shanten_for_regular_hand([int(x) for x in counts])


def _quad_hand(rng, n):
    """A wild-free hand holding all four copies of one or two kinds."""
    counts = np.zeros(34, np.int64)
    counts[rng.choice(34, int(rng.integers(1, 3)), replace=False)] = 4
    suit = int(rng.integers(0, 4))
    lo, hi = [(0, 9), (9, 18), (18, 27), (27, 34)][suit]
    while counts.sum() < n:
        k = int(rng.integers(lo, hi)) if rng.random() < 0.7 else int(rng.integers(0, 34))
        if counts[k] < 4:
            counts[k] += 1
    return counts.astype(np.uint8)


def _random_deals(rng, n):
    """``n`` wild-free hands dealt from 136 tiles, 13 and 14 tiles alternately."""
    sizes = np.where(np.arange(n) % 2 == 0, 13, 14)
    out = np.zeros((n, 34), np.uint8)
    for lo in range(0, n, 50_000):
        m = min(50_000, n - lo)
        order = np.argsort(rng.random((m, 136)), axis=1)
        for size in (13, 14):
            pick = np.flatnonzero(sizes[lo : lo + m] == size)
            kinds = order[pick, :size] // 4
            rows = np.repeat(pick, size)
            np.add.at(out[lo : lo + m], (rows, kinds.ravel()), 1)
    return out


def _check_mahjong(counts):
    """Regular shanten equal on every hand; seven pairs equal up to four alike.

    Returns how many hands hold three or four alike, and on how many of them the seven
    pairs differ (mjlab closer).
    """
    from mahjong.shanten import Shanten  # a dev dependency (pyproject [dev])

    calc = Shanten()
    ours = hand.shanten(counts, 0, 4, ("standard",))
    theirs = np.array([calc.calculate_shanten_for_regular_hand(c.tolist()) for c in counts])
    bad = np.flatnonzero(ours != theirs)
    assert not len(bad), [f"{tiles.format(counts[i])}: {ours[i]} != {theirs[i]}" for i in bad[:10]]
    # seven pairs: mahjong counts each kind's pair once; four alike are two pairs here, so
    # a kind held three or four times may give two (11667778m66p777z: 7777m is two pairs,
    # 1-shanten here, 2 there). With fewer than three of every kind the two agree.
    pairs = hand.shanten(counts, 0, 4, ("seven_pairs",))
    theirs = np.array([calc.calculate_shanten_for_chiitoitsu_hand(c.tolist()) for c in counts])
    alike = (counts >= 3).any(axis=1)
    assert np.array_equal(pairs[~alike], theirs[~alike])
    kinds_held = (counts > 0).sum(axis=1)
    one_pair_each = 6 - (counts >= 2).sum(axis=1) + np.maximum(7 - kinds_held, 0)
    assert np.array_equal(theirs, one_pair_each)  # their rule, stated: no two pairs alike
    assert (pairs[alike] <= theirs[alike]).all()
    orphans = hand.shanten(counts, 0, 4, ("thirteen_orphans",))
    theirs = np.array([calc.calculate_shanten_for_kokushi_hand(c.tolist()) for c in counts])
    np.testing.assert_array_equal(orphans, theirs)
    return int(alike.sum()), int((pairs[alike] < theirs[alike]).sum())


def test_mahjong_package_agrees_on_24000_random_hands():
    rng = np.random.default_rng(20261130)
    rows = list(_random_deals(rng, 20_000))
    rows += [_quad_hand(rng, n) for n in [13, 14] * 2_000]
    counts = np.array(rows, dtype=np.uint8)
    n_alike, n_two_pairs = _check_mahjong(counts)
    assert n_alike >= 4_000 and n_two_pairs > 0  # the sample meets both rules it is about


@pytest.mark.slow
def test_mahjong_package_agrees_on_a_million_random_hands():
    counts = _random_deals(np.random.default_rng(20261201), 1_000_000)
    assert set(counts.sum(axis=1).tolist()) == {13, 14}
    n_alike, n_two_pairs = _check_mahjong(counts)
    assert n_alike > 50_000 and n_two_pairs > 0  # ~99,000 hold three or four alike
