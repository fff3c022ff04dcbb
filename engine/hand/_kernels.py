"""Compiled hand-evaluation kernels (numba). Only numpy, numba and other kernels here.

Encodings used by every function:

- ``counts``: int-like array ``(34,)``, tiles held per kind (kind order of
  :mod:`engine.tiles`), wild tiles excluded: wilds are passed as a count ``wilds``.
- ``tab``: the tuple ``(suit_cls, honor_cls, comb, dist, buda, dist0)`` from
  :func:`engine.hand._tables.kernel_tables`: class ids of the per-suit distance rows,
  the class of a combination of two classes, the distance of a class for ``k`` sets
  plus a pair, and the 不搭 table.
- ``shapes``: bit mask, ``STANDARD | SEVEN_PAIRS | THIRTEEN_ORPHANS | BUDA``.
- distance: the fewest tiles to add (after dropping surplus tiles) for the hand to
  become complete. With ``n`` tiles and ``sets`` sets, ``n = 3*sets + 1`` or
  ``3*sets + 2``, shanten = distance - 1 (tenpai 0, complete -1). A kind held ``c``
  times can receive only ``4 - c`` real tiles; each wild fills one missing tile,
  anywhere, even a fifth copy of a kind (RULEBOOK §0.1). So the distance with ``w``
  wilds is ``max(d_w - w, 0)``, ``d_w`` the distance of the other tiles over targets
  with at most ``w`` copies beyond the fourth: the table entry at excess level
  :func:`level` ``(w)`` (:mod:`engine.hand._tables`).

Seven pairs, thirteen orphans and 不搭 exist only for ``sets == 4`` (a 14-tile target).
"""

from __future__ import annotations

import numba
import numpy as np

from engine.jit.njit import bit_count, kernel, lowest_bit, parallel_kernel

from ._tables import LEVELS

STANDARD = 1
SEVEN_PAIRS = 2
THIRTEEN_ORPHANS = 4
BUDA = 8
INF = 99
BAD = -128
"""What the one-hand and checked batch kernels return for a hand that fails the checks of
:func:`_check_row` (the caller then takes the checked path, which names the fault)."""

CHUNK = 256
"""Rows per parallel work item (scratch is allocated once per item)."""

_ORPHAN = np.zeros(34, np.bool_)
for _k in (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33):
    _ORPHAN[_k] = True
_POW5 = np.array([5**i for i in range(9)], np.int64)
_ORPHAN_BITS = sum(1 << k for k in range(34) if _ORPHAN[k])
"""The thirteen orphan kinds as a bit set (bit ``k`` = kind ``k``)."""
_SUIT_BITS = np.array([511, 511 << 9, 511 << 18, 127 << 27], np.int64)
"""The kinds of each suit (m, p, s, honors) as bit sets."""


TOP = LEVELS - 1
"""The top excess level: a real hand's distance with no cap on copies."""


@kernel(inline="always")
def level(w):
    """The excess level of a hand with ``w`` wilds: copies beyond the fourth it may use."""
    return w if w < TOP else TOP


@kernel(inline="always")
def _suit_indices(c):
    """Base-5 numbers of the m, p, s suits and the honors of counts ``c``."""
    i0 = 0
    i1 = 0
    i2 = 0
    i3 = 0
    p = 1
    for i in range(9):  # np.int64(): a uint8 count times p must not wrap when interpreted
        i0 += np.int64(c[i]) * p
        i1 += np.int64(c[9 + i]) * p
        i2 += np.int64(c[18 + i]) * p
        if i < 7:
            i3 += np.int64(c[27 + i]) * p
        p *= 5
    return i0, i1, i2, i3


@kernel(inline="always")
def _standard_idx(i0, i1, i2, i3, sets, lv, tab):
    """Standard-shape distance of the other tiles (wilds not yet subtracted) from the
    four suit indices, at excess level ``lv``.
    """
    suit_cls, honor_cls, comb, dist = tab[0], tab[1], tab[2], tab[3]
    a = comb[suit_cls[i0], suit_cls[i1]]
    b = comb[a, suit_cls[i2]]
    return np.int64(dist[comb[b, honor_cls[i3]], lv, sets])


@kernel(refcount=False)
def _standard(c, wilds, sets, tab):
    """Standard-shape distance of counts ``c`` before the ``wilds`` are subtracted."""
    i0, i1, i2, i3 = _suit_indices(c)
    return _standard_idx(i0, i1, i2, i3, sets, level(wilds), tab)


@kernel(inline="always")
def _pairs_formula(pairs, singles):
    """Seven-pairs distance from the number of pairs and of odd counts."""
    need = max(7 - pairs, 0)
    return need + max(need - singles, 0)


@kernel(refcount=False)
def _orphans(counts):
    """Thirteen-orphans distance (no wilds)."""
    distinct = 0
    pair = 0
    for k in range(34):
        if _ORPHAN[k] and counts[k] > 0:
            distinct += 1
            if counts[k] >= 2:
                pair = 1
    return 14 - distinct - pair


@kernel(inline="always")
def _buda_rest(ma, mb, honors, buda_t):
    """``(r1, r2, r3)``: the most tiles the two other suits (masks ``ma``, ``mb``) and the
    honors add to a 不搭 target that takes 1, 2 or 3 ranks of the remaining suit.

    The ten splits (ranks taken per suit, t <= 3 with gaps >= 3; 14 - sum(t) <= 7 honors,
    so sum(t) is 7, 8 or 9): (3,3,3), (2,3,3)x3, (1,3,3)x3, (3,2,2)x3.
    """
    b1 = np.int64(buda_t[ma, 1])
    b2 = np.int64(buda_t[ma, 2])
    b3 = np.int64(buda_t[ma, 3])
    c1 = np.int64(buda_t[mb, 1])
    c2 = np.int64(buda_t[mb, 2])
    c3 = np.int64(buda_t[mb, 3])
    h5 = min(honors, 5)
    h6 = min(honors, 6)
    h7 = min(honors, 7)
    r3 = max(
        max(b3 + c3 + h5, b2 + c3 + h6, b3 + c2 + h6),
        max(b1 + c3 + h7, b3 + c1 + h7, b2 + c2 + h7),
    )
    r2 = max(b3 + c3 + h6, b3 + c2 + h7, b2 + c3 + h7)
    r1 = b3 + c3 + h7
    return r1, r2, r3


@kernel(inline="always")
def _buda_with(m, r1, r2, r3, buda_t):
    """不搭 distance when one suit holds the ranks ``m`` and :func:`_buda_rest` of the
    others is ``(r1, r2, r3)``.
    """
    return 14 - max(
        np.int64(buda_t[m, 3]) + r3, np.int64(buda_t[m, 2]) + r2, np.int64(buda_t[m, 1]) + r1
    )


@kernel(inline="always")
def _buda_masks(m0, m1, m2, honors, buda_t):
    """不搭 distance from the held-rank masks of the three suits and the honor kinds held."""
    r1, r2, r3 = _buda_rest(m1, m2, honors, buda_t)
    return _buda_with(m0, r1, r2, r3, buda_t)


@kernel(inline="always")
def _held_masks(counts):
    """``(m0, m1, m2, honors)``: the held-rank masks of the suits and honor kinds held."""
    m0 = 0
    m1 = 0
    m2 = 0
    for i in range(9):
        if counts[i] > 0:
            m0 |= 1 << i
        if counts[9 + i] > 0:
            m1 |= 1 << i
        if counts[18 + i] > 0:
            m2 |= 1 << i
    honors = 0
    for k in range(27, 34):
        if counts[k] > 0:
            honors += 1
    return m0, m1, m2, honors


@kernel(inline="always")
def _masks_with(m0, m1, m2, honors, k, add):
    """The held masks after kind ``k`` starts (``add``) or stops being held."""
    if k >= 27:
        return m0, m1, m2, honors + (1 if add else -1)
    bit = 1 << (k % 9)
    s = k // 9
    if add:
        if s == 0:
            m0 |= bit
        elif s == 1:
            m1 |= bit
        else:
            m2 |= bit
    elif s == 0:
        m0 &= ~bit
    elif s == 1:
        m1 &= ~bit
    else:
        m2 &= ~bit
    return m0, m1, m2, honors


@kernel(refcount=False)
def _buda(counts, buda_t):
    """不搭 (十三不搭) distance (no wilds): 14 distinct tiles, same-suit gaps >= 3."""
    m0, m1, m2, honors = _held_masks(counts)
    return _buda_masks(m0, m1, m2, honors, buda_t)


@kernel(inline="always")
def _buda_without(m0, m1, m2, honors, count, k, buda_h, buda_t):
    """不搭 distance of a hand minus one tile of kind ``k`` (held ``count`` times), from the
    hand's :func:`_held_masks` and its own 不搭 distance ``buda_h``.

    不搭 sees only which kinds are held, so dropping one of several copies changes nothing.
    """
    if count > 1:
        return buda_h
    m0, m1, m2, honors = _masks_with(m0, m1, m2, honors, k, False)
    return _buda_masks(m0, m1, m2, honors, buda_t)


@kernel(inline="always")
def _shape_counts(c):
    """``(pairs, odd counts, distinct orphan kinds, orphan kinds held twice or more)``.

    The per-hand numbers behind the seven-pairs and thirteen-orphans distances (summed
    without branches: a hand's counts follow no pattern a branch predictor learns).
    """
    pairs = 0
    singles = 0
    distinct = 0
    opair = 0
    for k in range(34):
        x = np.int64(c[k])  # not uint8 arithmetic when interpreted
        o = (_ORPHAN_BITS >> k) & 1
        pairs += x >> 1
        singles += x & 1
        distinct += o & np.int64(x > 0)
        opair += o & np.int64(x >= 2)
    return pairs, singles, distinct, opair


@kernel(inline="always")
def _shape_flags(shapes, sets):
    """Which shapes apply: ``(standard, seven pairs, thirteen orphans, 不搭)``.

    The special shapes exist only for ``sets == 4``.
    """
    four = sets == 4
    return (
        (shapes & STANDARD) != 0,
        four and (shapes & SEVEN_PAIRS) != 0,
        four and (shapes & THIRTEEN_ORPHANS) != 0,
        four and (shapes & BUDA) != 0,
    )


@kernel(inline="always")
def _rest_classes(c0, c1, c2, c3, comb):
    """``(ab, cd, e0, e1, e2, e3)`` of four suit classes: the pairs m+p and s+z combined,
    and ``e_s`` the three suits other than ``s`` combined.
    """
    ab = np.int64(comb[c0, c1])
    cd = np.int64(comb[c2, c3])
    return (
        ab,
        cd,
        np.int64(comb[c1, cd]),
        np.int64(comb[c0, cd]),
        np.int64(comb[ab, c3]),
        np.int64(comb[ab, c2]),
    )


@kernel(inline="always")
def _special_best(best, pairs, singles, distinct, opair, c, shapes, buda_t):
    """``best`` lowered to the special shapes' distances that ``shapes`` allows: seven pairs
    and thirteen orphans from the counts' numbers (:func:`_shape_counts`), 不搭 from ``c``.
    """
    if shapes & SEVEN_PAIRS:
        v = _pairs_formula(pairs, singles)
        if v < best:
            best = v
    if shapes & THIRTEEN_ORPHANS:
        v = 14 - distinct - (1 if opair > 0 else 0)
        if v < best:
            best = v
    if shapes & BUDA:
        v = _buda(c, buda_t)
        if v < best:
            best = v
    return best


@kernel(refcount=False)
def _special_distance(c, sets, shapes, buda_t):
    """Best distance over the special shapes only (no wilds); INF if none applies."""
    if sets != 4:
        return INF
    pairs = singles = distinct = opair = 0
    if shapes & (SEVEN_PAIRS | THIRTEEN_ORPHANS):
        pairs, singles, distinct, opair = _shape_counts(c)
    return _special_best(INF, pairs, singles, distinct, opair, c, shapes, buda_t)


@kernel(refcount=False)
def _distance(counts, wilds, sets, shapes, tab):
    """Distance of one hand over the allowed shapes, wilds applied (compiled)."""
    best = INF
    if shapes & STANDARD:
        best = _standard(counts, wilds, sets, tab)
    if sets == 4 and shapes > STANDARD:
        v = _special_distance(counts, sets, shapes, tab[4])
        if v < best:
            best = v
    best -= wilds
    return best if best > 0 else 0


@parallel_kernel
def _shanten_batch(counts, wilds, sets, shapes, tab, out):
    """Shanten (distance - 1) of each row of ``counts (n, 34)``; ``wilds``/``sets`` (n,)."""
    n = counts.shape[0]
    n_chunks = (n + CHUNK - 1) // CHUNK
    for ch in numba.prange(n_chunks):
        hi = min(n, (ch + 1) * CHUNK)
        for r in range(ch * CHUNK, hi):
            out[r] = _distance(counts[r], wilds[r], sets[r], shapes, tab) - 1


def _packed(orphan: bool) -> np.ndarray:
    """Per count ``x`` (0..255), the numbers :func:`_scan` sums, packed in one int64:
    ``x`` (bits 0..7), ``x >> 1`` (8..15), for an orphan kind ``x > 0`` (16..23) and
    ``x >= 2`` (24..31); a count above 4 gives only bit 56 (no other field, so no carry
    can reach it). A hand of 34 kinds keeps each field below 256.
    """
    out = np.zeros(256, np.int64)
    for x in range(5):
        out[x] = x | (x >> 1) << 8 | (int(orphan and x > 0) << 16) | (int(orphan and x >= 2) << 24)
    out[5:] = 1 << 56
    return out


_PACK = _packed(False)
_PACK_ORPHAN = _packed(True)


@kernel(inline="always")
def _scan(c):
    """One pass over a hand's counts: ``(i0, i1, i2, i3, tiles, bad, pairs, odd counts,
    distinct orphans, orphan kinds held twice or more)``, ``bad`` the number of counts
    above 4.

    The suit indices of :func:`_suit_indices`, the checks of :func:`_check_row` and the
    numbers of :func:`_shape_counts`, reading each count once: the per-count numbers are
    one lookup in :data:`_PACK` (or :data:`_PACK_ORPHAN`) and one add.
    """
    i0 = np.int64(0)
    i1 = np.int64(0)
    i2 = np.int64(0)
    i3 = np.int64(0)
    acc = np.int64(0)
    p = np.int64(1)
    for i in range(9):
        x0 = c[i]
        x1 = c[9 + i]
        x2 = c[18 + i]
        i0 += np.int64(x0) * p
        i1 += np.int64(x1) * p
        i2 += np.int64(x2) * p
        p *= 5
        if i == 0 or i == 8:
            acc += _PACK_ORPHAN[x0] + _PACK_ORPHAN[x1] + _PACK_ORPHAN[x2]
        else:
            acc += _PACK[x0] + _PACK[x1] + _PACK[x2]
    p = np.int64(1)
    for i in range(7):
        x = c[27 + i]
        i3 += np.int64(x) * p
        p *= 5
        acc += _PACK_ORPHAN[x]
    total = acc & 255
    pairs = (acc >> 8) & 255
    return (
        i0,
        i1,
        i2,
        i3,
        total,
        acc >> 56,
        pairs,
        total - 2 * pairs,
        (acc >> 16) & 255,
        (acc >> 24) & 255,
    )


@kernel(inline="always")
def _checked_shanten(c, w, s, size_mask, shapes, tab):
    """Shanten of one hand with the checks of :func:`_check_row` in the same pass, or
    :data:`BAD` if it fails them: the value of :func:`_distance` ``- 1`` otherwise.
    """
    i0, i1, i2, i3, total, bad, pairs, singles, distinct, opair = _scan(c)
    if bad or w < 0 or s < 0 or s > 5:
        return BAD
    n = total + w
    if not (((size_mask & 1) and n == 3 * s + 1) or ((size_mask & 2) and n == 3 * s + 2)):
        return BAD
    best = INF
    if shapes & STANDARD:
        best = _standard_idx(i0, i1, i2, i3, s, level(w), tab)
    if s == 4 and shapes > STANDARD:
        best = _special_best(best, pairs, singles, distinct, opair, c, shapes, tab[4])
    best -= w
    return (best if best > 0 else 0) - 1


@parallel_kernel
def _shanten_checked(counts, wilds, w_step, sets, s_step, size_mask, shapes, tab, out):
    """Shanten of each row of ``counts (n, 34)`` checked in the same pass; returns the
    number of rows that fail the checks of :func:`_check_row` (their ``out`` is
    :data:`BAD`).

    The batched path of :func:`engine.hand.shanten`: one pass over the counts instead of
    a checking pass and then :func:`_distance`, with the same result for every hand
    (``tests/engine/hand/test_hand.py`` compares it with :func:`_shanten_serial`). ``wilds`` and
    ``sets`` are read at ``r * w_step`` and ``r * s_step``: a step of 0 gives every row
    the one value (no per-row arrays for scalar arguments).
    """
    n = counts.shape[0]
    n_chunks = (n + CHUNK - 1) // CHUNK
    n_bad = 0
    for ch in numba.prange(n_chunks):
        hi = min(n, (ch + 1) * CHUNK)
        bad = 0
        for r in range(ch * CHUNK, hi):
            v = _checked_shanten(
                counts[r],
                np.int64(wilds[r * w_step]),
                np.int64(sets[r * s_step]),
                size_mask,
                shapes,
                tab,
            )
            out[r] = v
            bad += np.int64(v == BAD)
        n_bad += bad
    return n_bad


@kernel
def _waits_one(counts, wilds, sets, shapes, tab, out):
    """Kinds whose draw completes the ``3*sets+1``-tile hand ``counts`` (bool ``out (34,)``)."""
    c = counts.copy()
    for k in range(34):
        out[k] = False
        if c[k] >= 4:
            continue
        c[k] += 1
        out[k] = _distance(c, wilds, sets, shapes, tab) == 0
        c[k] -= 1


@parallel_kernel
def _waits_batch(counts, wilds, sets, shapes, tab, out):
    """Batched :func:`_waits_one` over rows."""
    for r in numba.prange(counts.shape[0]):
        _waits_one(counts[r], wilds[r], sets[r], shapes, tab, out[r])


SUMMARY = 13
"""Entries of a :func:`hand_summary` array."""


@kernel(inline="always")
def _spare(x):
    """Copies beyond the second of a kind held ``x`` times (the far-draw rule below)."""
    return x - 2 if x > 2 else 0


@kernel(inline="always")
def _far_draws_help(d_std, w, spare):
    """Whether a *far* draw may lower the standard distance ``d_std`` (wilds not yet
    subtracted) of a hand holding ``spare`` (:func:`_spare`) copies beyond the second of
    its kinds, with ``w`` wilds.

    A far draw ``j`` holds no tile of its kind or within two ranks. If it lowers the
    distance, the best target ``T'`` of the hand plus ``j`` uses ``j`` in a block ``B``
    whose other tiles are all missing, and the hand has ``d' >= d_std - 1`` surplus
    tiles. Putting a pair or triplet of a surplus kind ``u`` in place of ``B`` costs no
    more, unless ``T'`` already takes at least two copies of ``u`` (three for a pair):
    at most ``4 - 2`` surplus copies of each such kind, so never when
    ``d_std - 1 > spare``. When the wilds leave the hand one tile from complete
    (``d_std - w <= 1``), a far draw and the wilds may form a block.
    """
    return d_std - w < 2 or d_std - 1 <= spare


@kernel(refcount=False)
def hand_summary(h, sm):
    """Per-hand values reused by :func:`ukeire_core` (fills ``sm`` int64 (SUMMARY,)).

    sm[0..3] suit indices, sm[4] pairs, sm[5] odd counts, sm[6] distinct orphans,
    sm[7] orphan kinds held twice or more, sm[8..11] bit masks of held ranks per suit
    (the honors' last), sm[12] copies beyond the second of every kind (:func:`_spare`).
    """
    i0, i1, i2, i3 = _suit_indices(h)
    sm[0] = i0
    sm[1] = i1
    sm[2] = i2
    sm[3] = i3
    pairs, singles, distinct, opair = _shape_counts(h)
    sm[8] = 0
    sm[9] = 0
    sm[10] = 0
    sm[11] = 0
    spare = 0
    for k in range(34):
        if h[k] > 0:
            sm[8 + k // 9] |= 1 << (k % 9)
        spare += _spare(h[k])
    sm[12] = spare
    sm[4] = pairs
    sm[5] = singles
    sm[6] = distinct
    sm[7] = opair


@kernel(inline="always")
def _summary_minus(h, d, sm):
    """The :func:`hand_summary` ``sm`` of ``h`` after removing one tile of kind ``d``
    (``d = -1``: of ``h`` itself): ``(i0, i1, i2, i3, m0, m1, m2, pairs, singles,
    distinct, opair, spare)``, the suit indices, the suits' held-rank masks and the
    shape counts.
    """
    i0 = sm[0]
    i1 = sm[1]
    i2 = sm[2]
    i3 = sm[3]
    m0 = sm[8]
    m1 = sm[9]
    m2 = sm[10]
    pairs = sm[4]
    singles = sm[5]
    distinct = sm[6]
    opair = sm[7]
    spare = sm[12]
    if d >= 0:
        xd = h[d]
        if xd > 2:
            spare -= 1
        sd = d // 9
        pd = d - 9 * sd
        if sd == 0:
            i0 -= _POW5[pd]
            if xd == 1:
                m0 &= ~(1 << pd)
        elif sd == 1:
            i1 -= _POW5[pd]
            if xd == 1:
                m1 &= ~(1 << pd)
        elif sd == 2:
            i2 -= _POW5[pd]
            if xd == 1:
                m2 &= ~(1 << pd)
        else:
            i3 -= _POW5[pd]
        if xd % 2 == 0:
            pairs -= 1
            singles += 1
        else:
            singles -= 1
        if _ORPHAN[d]:
            if xd == 1:
                distinct -= 1
            elif xd == 2:
                opair -= 1
    return i0, i1, i2, i3, m0, m1, m2, pairs, singles, distinct, opair, spare


@kernel(inline="always")
def _buda_moved(h, d, j, buda_t):
    """The 不搭 distance of ``h`` minus a tile of ``d`` plus one of ``j`` (-1: none);
    ``h`` is restored.
    """
    if d >= 0:
        h[d] -= 1
    if j >= 0:
        h[j] += 1
    x = _buda(h, buda_t)
    if j >= 0:
        h[j] -= 1
    if d >= 0:
        h[d] += 1
    return x


@kernel(inline="always")
def _std_near(j, cj, m0, m1, m2):
    """Whether the draw ``j`` (held ``cj`` times in the hand) is *near*: a held tile of
    its kind or within two ranks (``m0..m2`` the suits' held-rank masks).
    """
    su = j // 9
    pos = j - 9 * su
    near = cj > 0
    if not near and su < 3:
        m = m0 if su == 0 else (m1 if su == 1 else m2)
        lo = pos - 2 if pos >= 2 else 0
        near = ((m >> lo) & (31 >> (lo - (pos - 2)))) != 0
    return near


@kernel(inline="always")
def _std_plus(j, i0, i1, i2, i3, e0, e1, e2, e3, lv, sets, tab):
    """The standard distance of the hand (suit indices ``i0..i3``, the classes of the
    rest ``e0..e3``) plus one tile of kind ``j``.
    """
    suit_cls, honor_cls, comb, dist = tab[0], tab[1], tab[2], tab[3]
    su = j // 9
    pos = j - 9 * su
    if su == 0:
        return np.int64(dist[comb[e0, suit_cls[i0 + _POW5[pos]]], lv, sets])
    if su == 1:
        return np.int64(dist[comb[e1, suit_cls[i1 + _POW5[pos]]], lv, sets])
    if su == 2:
        return np.int64(dist[comb[e2, suit_cls[i2 + _POW5[pos]]], lv, sets])
    return np.int64(dist[comb[e3, honor_cls[i3 + _POW5[pos]]], lv, sets])


@kernel(inline="always")
def _special_plus(v, j, cj, pairs, singles, distinct, has_opair, sp, to):
    """``v`` lowered by the seven-pairs and thirteen-orphans distances of the hand plus
    one tile of kind ``j`` (held ``cj`` times), where those shapes count.
    """
    if sp:
        if cj % 2 == 1:
            x = _pairs_formula(pairs + 1, singles - 1)
        else:
            x = _pairs_formula(pairs, singles + 1)
        if x < v:
            v = x
    if to:
        dd = distinct
        op = has_opair
        if _ORPHAN[j]:
            if cj == 0:
                dd += 1
            else:
                op = 1
        x = 14 - dd - op
        if x < v:
            v = x
    return v


@kernel(refcount=False)
def ukeire_core(h, d, w, sets, shapes, tab, unseen, sm, imp):
    """Distance and ukeire of the hand ``h`` minus one tile of kind ``d`` (compiled).

    The one ukeire implementation (the public :func:`engine.hand.ukeire` and the bots
    both call it). ``d = -1`` evaluates ``h`` itself. ``h`` must hold ``3*sets + 2``
    tiles with a discard or ``3*sets + 1`` without; it is left unchanged.

    unseen : int (34,) copies of each kind the player cannot see.
    sm : the :func:`hand_summary` of ``h``.
    imp : bool (34,) receives, per draw kind, whether it lowers the distance (or an
        empty array to skip that).

    Returns ``(distance, ukeire)``: the distance with wilds applied, and the unseen
    tiles among the improving draws.

    A draw of a kind with no held tile of its own kind or within two ranks (*far*,
    :func:`_std_near`) never lowers the standard distance unless
    :func:`_far_draws_help`, so such draws reuse the standard distance without a lookup
    (:func:`_std_plus`); the special shapes are closed forms (:func:`_special_plus`).
    """
    suit_cls, honor_cls, comb, dist = tab[0], tab[1], tab[2], tab[3]
    i0, i1, i2, i3, m0, m1, m2, pairs, singles, distinct, opair, spare = _summary_minus(h, d, sm)
    has_opair = 1 if opair > 0 else 0
    c0 = suit_cls[i0]
    c1 = suit_cls[i1]
    c2 = suit_cls[i2]
    c3 = honor_cls[i3]
    ab, cd, e0, e1, e2, e3 = _rest_classes(c0, c1, c2, c3, comb)
    std, sp, to, bd = _shape_flags(shapes, sets)
    lv = level(w)
    base_std = np.int64(dist[comb[ab, cd], lv, sets]) if std else INF
    base = base_std
    if sp:
        v = _pairs_formula(pairs, singles)
        if v < base:
            base = v
    if to:
        v = 14 - distinct - has_opair
        if v < base:
            base = v
    if bd:
        v = _buda_moved(h, d, -1, tab[4])
        if v < base:
            base = v
    base -= w
    if base < 0:
        base = 0
    fill = imp.shape[0] == 34
    if fill:
        for j in range(34):
            imp[j] = False
    if base == 0:
        return base, 0
    prune = not _far_draws_help(base_std, w, spare)
    total = 0
    for j in range(34):
        cj = h[j] - (1 if j == d else 0)
        if cj >= 4 or (unseen[j] <= 0 and not fill):
            continue
        v = INF
        if std:
            if not prune or _std_near(j, cj, m0, m1, m2):
                v = _std_plus(j, i0, i1, i2, i3, e0, e1, e2, e3, lv, sets, tab)
            else:
                v = base_std
        v = _special_plus(v, j, cj, pairs, singles, distinct, has_opair, sp, to)
        if bd:
            x = _buda_moved(h, d, j, tab[4])
            if x < v:
                v = x
        v -= w
        if v < 0:
            v = 0
        if v < base:
            if fill:
                imp[j] = True
            if unseen[j] > 0:
                total += unseen[j]
    return base, total


@kernel
def _ukeire_one(counts, wilds, sets, shapes, unseen, tab, sh_out, imp_out, n_out, c):
    """Every discard of a ``3*sets+2``-tile hand and every draw after it (compiled).

    unseen : int (34,) copies of each kind not visible to the player.
    sh_out : int8 (34,) shanten after discarding kind d (127 if d is not held).
    imp_out : bool (34, 34) discard d then draw j lowers that shanten.
    n_out : int16 (34,) unseen tiles among the improving draws of discard d.
    c : int64 (34 + SUMMARY,) scratch.
    """
    h = c[:34]
    sm = c[34 : 34 + SUMMARY]
    for k in range(34):
        h[k] = counts[k]
    hand_summary(h, sm)
    for d in range(34):
        if h[d] == 0:
            sh_out[d] = 127
            n_out[d] = 0
            for j in range(34):
                imp_out[d, j] = False
            continue
        base, total = ukeire_core(h, d, wilds, sets, shapes, tab, unseen, sm, imp_out[d])
        sh_out[d] = base - 1
        n_out[d] = total


@parallel_kernel
def _ukeire_batch(counts, wilds, sets, shapes, unseen, tab, sh_out, imp_out, n_out):
    """Batched :func:`_ukeire_one` over rows."""
    n = counts.shape[0]
    n_chunks = (n + CHUNK - 1) // CHUNK
    for ch in numba.prange(n_chunks):
        c = np.empty(34 + SUMMARY, np.int64)
        hi = min(n, (ch + 1) * CHUNK)
        for r in range(ch * CHUNK, hi):
            _ukeire_one(
                counts[r],
                wilds[r],
                sets[r],
                shapes,
                unseen[r],
                tab,
                sh_out[r],
                imp_out[r],
                n_out[r],
                c,
            )


@kernel(inline="always")
def _check_row(counts, wilds, sets, size_mask, bad, r):
    total = 0
    code = 0
    for k in range(34):
        x = np.int64(counts[r, k])  # not uint8 arithmetic when interpreted
        if x > 4:
            code = 1
        total += x
    w = wilds[r]
    s = sets[r]
    if code == 0 and (w < 0 or s < 0 or s > 5):
        code = 2
    if code == 0:
        n = total + w
        ok = ((size_mask & 1) and n == 3 * s + 1) or ((size_mask & 2) and n == 3 * s + 2)
        if not ok:
            code = 3
    bad[r] = code


@parallel_kernel
def _check_batch(counts, wilds, sets, size_mask, bad):
    """Validate rows: counts 0..4, wilds >= 0, sets 0..5, size allowed (compiled).

    size_mask : bit 1 allows ``3*sets + 1`` tiles, bit 2 allows ``3*sets + 2``.
    bad : int64 (n,) set to 0 (ok), 1 (a count above 4), 2 (bad wilds/sets), 3 (size).
    """
    for r in numba.prange(counts.shape[0]):
        _check_row(counts, wilds, sets, size_mask, bad, r)


@kernel
def _shanten_serial(counts, wilds, sets, shapes, tab, out):
    """:func:`_shanten_batch` on the calling thread (small batches)."""
    for r in range(counts.shape[0]):
        out[r] = _distance(counts[r], wilds[r], sets[r], shapes, tab) - 1


@kernel
def _check_serial(counts, wilds, sets, size_mask, bad):
    """:func:`_check_batch` on the calling thread (small batches)."""
    for r in range(counts.shape[0]):
        _check_row(counts, wilds, sets, size_mask, bad, r)


@kernel(inline="always")
def _du_classes(h, tab, work):
    """The classes of :func:`discard_ukeire`'s hand into ``work``: ``idx`` (136:140) the
    suit indices, ``c`` (140:144) their classes, ``ex`` (144:148) the class of the other
    three suits of each, ``pm`` (68:84, ``pm[4*s + t]``) the two suits other than ``s``
    and ``t`` combined. Returns the class of the whole hand.
    """
    suit_cls, honor_cls, comb = tab[0], tab[1], tab[2]
    i0, i1, i2, i3 = _suit_indices(h)
    idx = work[136:140]
    c = work[140:144]
    ex = work[144:148]
    idx[0] = i0
    idx[1] = i1
    idx[2] = i2
    idx[3] = i3
    c[0] = suit_cls[i0]
    c[1] = suit_cls[i1]
    c[2] = suit_cls[i2]
    c[3] = honor_cls[i3]
    ab, cd, ex[0], ex[1], ex[2], ex[3] = _rest_classes(c[0], c[1], c[2], c[3], comb)
    pm = work[68:84]
    pm[1] = pm[4] = cd
    pm[11] = pm[14] = ab
    pm[2] = pm[8] = comb[c[1], c[3]]
    pm[7] = pm[13] = comb[c[0], c[2]]
    pm[3] = pm[12] = comb[c[1], c[2]]
    pm[6] = pm[9] = comb[c[0], c[3]]
    pm[0] = pm[5] = pm[10] = pm[15] = 0
    return comb[ab, cd]


@kernel(inline="always")
def _du_kinds(h, unseen):
    """Kind bit sets of the hand: ``(held, odd, avail, near, spare)``, held, held an odd
    number of times, drawable (a copy unseen, fewer than 4 held), near (a held tile of
    their kind or within two ranks: the others never lower the standard distance), and
    the copies beyond the second (:func:`_spare`); then ``planes``, bits 0, 1 and 2 of
    the unseen counts as three bit sets (:func:`_du_sum`; the first is -1 when a count
    is outside 0..7).
    """
    held = np.int64(0)
    odd = np.int64(0)
    avail = np.int64(0)
    u0 = np.int64(0)
    u1 = np.int64(0)
    u2 = np.int64(0)
    wide = np.int64(0)
    spare = 0
    for j in range(34):
        x = h[j]
        u = np.int64(unseen[j])
        spare += _spare(x)
        held |= np.int64(x > 0) << j
        odd |= np.int64(x & 1) << j
        avail |= np.int64((x < 4) & (u > 0)) << j
        u0 |= (u & 1) << j
        u1 |= ((u >> 1) & 1) << j
        u2 |= ((u >> 2) & 1) << j
        wide |= u >> 3  # nonzero for a count above 7 (or below 0)
    near = held & _SUIT_BITS[3]
    for s in range(3):
        m = (held >> (9 * s)) & 511
        near |= ((m | (m << 1) | (m << 2) | (m >> 1) | (m >> 2)) & 511) << (9 * s)
    if wide != 0:
        u0 = np.int64(-1)
    return held, odd, avail, near, spare, (u0, u1, u2)


@kernel(inline="always")
def _du_sum(m, planes, unseen):
    """The unseen copies of the kinds in bit set ``m``: three bit counts of the unseen
    counts' bit planes (:func:`_du_kinds`), or a loop when a count is outside 0..7.
    """
    u0, u1, u2 = planes
    if u0 >= 0:
        return bit_count(m & u0) + 2 * bit_count(m & u1) + 4 * bit_count(m & u2)
    total = 0
    while m != 0:
        j = lowest_bit(m)
        m &= m - 1
        total += unseen[j]
    return total


@kernel(inline="always")
def _du_plus(j, tab, work):
    """The class of the suit of kind ``j`` with one more tile of ``j`` (into ``plus``)."""
    su = j // 9
    pos = j - 9 * su
    if su < 3:
        work[j] = tab[0][work[136 + su] + _POW5[pos]]
    else:
        work[j] = tab[1][work[139] + _POW5[pos]]
    return work[j]


@kernel(inline="always")
def _du_buckets(looked, lv, sets, tab, work):
    """``bucket[t]`` (work 152:160): the draws in ``looked`` whose 15-tile hand ``h + j``
    has standard distance ``t`` (< 8; returned: the deeper ones), ``plus`` filled.
    """
    comb, dist = tab[2], tab[3]
    bucket = work[152:160]
    for t in range(8):
        bucket[t] = 0
    deep = np.int64(0)
    m = looked
    while m != 0:
        j = lowest_bit(m)
        m &= m - 1
        v = np.int64(dist[comb[work[144 + j // 9], _du_plus(j, tab, work)], lv, sets])
        if v < 8:
            bucket[v] |= np.int64(1) << j
        else:
            deep |= np.int64(1) << j
    return deep


@kernel(inline="always")
def _du_raw(d, xd, md, shape_counts, masks, buda_h, lv, sets, shapes, tab, work):
    """The distance of ``h - d`` (``d`` held ``xd`` times, ``md`` the class of its suit
    without it) before wilds, from the hand's :func:`_shape_counts`, its
    :func:`_held_masks` ``masks`` and its 不搭 distance: ``(raw, raw_std, pairs,
    singles, distinct, hop, dm0, dm1, dm2, dhon)``, with the standard distance alone,
    ``h - d``'s counts (``hop``: an orphan pair held) and held masks.
    """
    pairs, singles, distinct, opair = shape_counts
    hm0, hm1, hm2, hhon = masks
    std, sp, to, bd = _shape_flags(shapes, sets)
    # h - d's pairs, odd counts, orphan kinds and orphan pairs (arithmetic, no branches:
    # the tied discards' counts follow no pattern)
    par = xd & 1
    pr_ = pairs - 1 + par
    sg_ = singles + 1 - 2 * par
    orph = (_ORPHAN_BITS >> d) & 1
    ds_ = distinct - orph * np.int64(xd == 1)
    op_ = opair - orph * np.int64(xd == 2)
    hop = np.int64(op_ > 0)
    raw_std = np.int64(tab[3][tab[2][work[144 + d // 9], md], lv, sets]) if std else INF
    raw = raw_std
    if sp:
        raw = min(raw, _pairs_formula(pr_, sg_))
    if to:
        raw = min(raw, 14 - ds_ - hop)
    dm0, dm1, dm2, dhon = hm0, hm1, hm2, hhon
    if bd:
        y = buda_h
        if xd == 1:
            dm0, dm1, dm2, dhon = _masks_with(hm0, hm1, hm2, hhon, d, False)
            y = _buda_masks(dm0, dm1, dm2, dhon, tab[4])
        raw = min(raw, y)
    return raw, raw_std, pr_, sg_, ds_, hop, dm0, dm1, dm2, dhon


@kernel(inline="always")
def _du_special(raw, pr_, sg_, ds_, hop, odd_d, zero_d, sp, to):
    """The draws that lower ``h - d``'s distance ``raw`` as seven pairs or thirteen
    orphans: whole bit sets, by a draw's parity (``odd_d``) or orphan class (``zero_d``
    the kinds ``h - d`` holds none of) alone.
    """
    imp = np.int64(0)
    if sp:
        if _pairs_formula(pr_ + 1, sg_ - 1) < raw:
            imp |= odd_d
        if _pairs_formula(pr_, sg_ + 1) < raw:
            imp |= ~odd_d
    if to:
        if 13 - ds_ - hop < raw:
            imp |= _ORPHAN_BITS & zero_d
        if 13 - ds_ < raw:
            imp |= _ORPHAN_BITS & ~zero_d
    return imp


@kernel(inline="always")
def _du_standard(d, md, raw, cand, lv, sets, tab, work):
    """The candidate draws ``cand`` that lower ``h - d``'s distance ``raw`` as the
    standard shape (``md`` the class of ``d``'s suit without ``d``): in ``d``'s suit by
    the suit's new class, elsewhere by small-table classes only (``ys``, work 148:152).
    """
    suit_cls, honor_cls, comb, dist = tab[0], tab[1], tab[2], tab[3]
    sd = d // 9
    pd = d - 9 * sd
    bit_d = np.int64(1) << d
    imp = np.int64(0)
    own = _SUIT_BITS[sd]
    m = cand & own & ~bit_d
    while m != 0:
        j = lowest_bit(m)
        m &= m - 1
        pos = j - 9 * sd
        if sd < 3:
            y = suit_cls[work[136 + sd] - _POW5[pd] + _POW5[pos]]
        else:
            y = honor_cls[work[139] - _POW5[pd] + _POW5[pos]]
        v = np.int64(dist[comb[work[144 + sd], y], lv, sets])
        if v < raw:
            imp |= np.int64(1) << j
    ys = work[148:152]
    for t in range(4):
        ys[t] = comb[work[68 + 4 * sd + t], md]
    m = cand & ~own
    while m != 0:
        j = lowest_bit(m)
        m &= m - 1
        if np.int64(dist[comb[ys[j // 9], work[j]], lv, sets]) < raw:
            imp |= np.int64(1) << j
    return imp


@kernel(inline="always")
def _du_buda(zb, raw, dm0, dm1, dm2, dhon, buda_t):
    """The draws in ``zb`` (kinds ``h - d`` holds none of) that lower its distance
    ``raw`` as 不搭 (``dm*`` its held masks): a suit's rank against the best the other
    suits and honors add (:func:`_buda_rest`).
    """
    imp = np.int64(0)
    hz = zb & _SUIT_BITS[3]
    if hz != 0 and _buda_masks(dm0, dm1, dm2, dhon + 1, buda_t) < raw:
        imp |= hz
    for s in range(3):
        zs = (zb >> (9 * s)) & 511
        if zs == 0:
            continue
        if s == 0:
            ms, ma, mb = dm0, dm1, dm2
        elif s == 1:
            ms, ma, mb = dm1, dm0, dm2
        else:
            ms, ma, mb = dm2, dm0, dm1
        r1, r2, r3 = _buda_rest(ma, mb, dhon, buda_t)
        while zs != 0:
            p = lowest_bit(zs)
            zs &= zs - 1
            if _buda_with(ms | (1 << p), r1, r2, r3, buda_t) < raw:
                imp |= np.int64(1) << (9 * s + p)
    return imp


@kernel(refcount=False)
def discard_ukeire(h, w, sets, shapes, tab, unseen, tied, out, work):
    """Ukeire of ``h`` minus one tile of each selected kind, all at once (compiled).

    The bots' tie-break: for every kind ``d`` in the bit set ``tied`` (bit ``d``, held),
    ``out[d]`` is the ``ukeire`` of :func:`ukeire_core` ``(h, d, ...)`` (equal by test, its twin).
    Per discard it builds the bit set of improving draws shape by shape and sums their
    unseen copies; the work is shared between the discards and kept free of
    hard-to-predict branches:

    - seven pairs and thirteen orphans improve by a draw's parity or orphan class
      alone, so their improving draws are whole bit sets (held an odd number of times,
      orphans held or not) chosen by two comparisons;
    - the standard shape is looked up only for *near* draws (a held tile of their kind
      or within two ranks): a far draw could only start a block, which a tile the hand
      does not use starts as cheaply, so it never lowers the distance, unless the wilds
      leave the hand one tile from complete (then wilds and the draw form a block) or
      the unused tiles' kinds are too full for that block (:func:`_far_draws_help`);
      then every draw is tried. The class of ``h`` plus each near draw and that 15-tile
      hand's distance are computed once; adding tiles never raises a distance, so a
      draw whose 15-tile distance is not below ``h - d``'s is skipped (the candidates
      come from bit sets by distance);
    - a draw in another suit than ``d`` combines small-table classes only (the two
      suits other than both, the class of ``d``'s suit without ``d``, and ``plus``);
    - ``h - d``'s counts come from arithmetic, not branches;
    - 不搭 sees which kinds are held: only kinds not held in ``h - d`` are tried, a
      suit's rank against the best the other suits and honors add (:func:`_buda_rest`).

    h : int64 (34,), ``3*sets+2`` tiles, left unchanged. tied : int64 bit set of kinds.
    out : int64 (34,) written at the kinds in ``tied``. work : int64 (160,) scratch.

    Phases: once per hand, the classes (:func:`_du_classes`), the kind bit sets
    (:func:`_du_kinds`) and the near draws' 15-tile distances (:func:`_du_buckets`);
    per discard, ``h - d``'s distance (:func:`_du_raw`), then its improving draws by
    shape (:func:`_du_special`, :func:`_du_standard`, :func:`_du_buda`).
    """
    suit_cls, honor_cls, dist = tab[0], tab[1], tab[3]
    idx = work[136:140]  # the suit indices (_du_classes); work[0:34] ``plus`` by draw kind
    whole = _du_classes(h, tab, work)
    std, sp, to, bd = _shape_flags(shapes, sets)
    shape_counts = _shape_counts(h)
    hm0 = hm1 = hm2 = hhon = 0
    buda_h = INF
    if bd:
        hm0, hm1, hm2, hhon = _held_masks(h)
        buda_h = _buda_masks(hm0, hm1, hm2, hhon, tab[4])
    masks = (hm0, hm1, hm2, hhon)
    held, odd, avail, near, spare, planes = _du_kinds(h, unseen)
    # the candidates of a discard at distance raw are the near draws whose 15-tile
    # distance is below it (bucket, deep)
    lv = level(w)
    base_std = np.int64(dist[whole, lv, sets]) if std else INF
    bucket = work[152:160]
    looked = near & avail  # draws whose plus class is known
    deep = np.int64(0)
    if std:
        deep = _du_buckets(looked, lv, sets, tab, work)
    while tied != 0:
        d = lowest_bit(tied)
        tied &= tied - 1
        xd = h[d]
        sd = d // 9
        pd = d - 9 * sd
        bit_d = np.int64(1) << d
        if sd < 3:
            md = np.int64(suit_cls[idx[sd] - _POW5[pd]])
        else:
            md = np.int64(honor_cls[idx[3] - _POW5[pd]])
        raw, raw_std, pr_, sg_, ds_, hop, dm0, dm1, dm2, dhon = _du_raw(
            d, xd, md, shape_counts, masks, buda_h, lv, sets, shapes, tab, work
        )
        if raw - w <= 0:
            out[d] = 0
            continue
        valid = avail | (bit_d * np.int64(unseen[d] > 0))
        zero_d = ~held | (bit_d * np.int64(xd == 1))
        imp = _du_special(raw, pr_, sg_, ds_, hop, odd ^ bit_d, zero_d, sp, to)
        if std:
            if base_std < raw:
                imp |= bit_d
            cand = np.int64(0)
            top = raw if raw < 8 else 8
            for t in range(top):
                cand |= bucket[t]
            if raw > 8:
                cand |= deep  # rare: distances of 9 and more
            if raw - w == 1 or _far_draws_help(raw_std, w, spare - np.int64(xd > 2)):
                # one tile from complete with the wilds (a far draw and the wilds may
                # form a block), or copies of the hand's kinds leave no room for the
                # block of a far draw: every draw is a candidate
                far = avail & ~near & ~looked
                looked |= far
                while far != 0:
                    j = lowest_bit(far)
                    far &= far - 1
                    _du_plus(j, tab, work)
                cand |= avail & ~near
            imp |= _du_standard(d, md, raw, cand, lv, sets, tab, work)
        if bd:
            # 不搭 sees which kinds are held: only a kind not held in h - d changes it
            zb = valid & zero_d & ~imp
            if zb != 0:
                imp |= _du_buda(zb, raw, dm0, dm1, dm2, dhon, tab[4])
        out[d] = _du_sum(imp & valid, planes, unseen)


# --- one hand from Python: checked in the kernel, no batch set-up -------------------------


@kernel(inline="always")
def _one_bad(counts, wilds, sets, size_mask, shapes):
    """Whether one hand fails the checks: a count above 4, a size ``size_mask`` does not
    allow (bit 1: ``3*sets + 1`` tiles, bit 2: ``3*sets + 2``), or only special shapes
    with ``sets != 4``. ``wilds >= 0`` and ``0 <= sets <= MAX_SETS`` are the caller's.
    """
    total = 0
    for k in range(34):
        x = np.int64(counts[k])  # not uint8 arithmetic when interpreted
        if x > 4:
            return True
        total += x
    n = total + wilds
    if not (((size_mask & 1) and n == 3 * sets + 1) or ((size_mask & 2) and n == 3 * sets + 2)):
        return True
    return (shapes & STANDARD) == 0 and sets != 4


@kernel(refcount=False)
def shanten_one(counts, wilds, sets, shapes, tab):
    """Shanten of one hand ``counts (34,)``, or :data:`BAD` (compiled)."""
    if _one_bad(counts, wilds, sets, 3, shapes):
        return BAD
    return _distance(counts, wilds, sets, shapes, tab) - 1


@kernel(refcount=False)
def complete_one(counts, wilds, sets, shapes, tab):
    """1 if the ``3*sets + 2``-tile hand is complete, 0 if not, or :data:`BAD`."""
    if _one_bad(counts, wilds, sets, 2, shapes):
        return BAD
    return 1 if _distance(counts, wilds, sets, shapes, tab) == 0 else 0


@kernel
def waits_one(counts, wilds, sets, shapes, tab, out):
    """:func:`_waits_one` of one ``3*sets + 1``-tile hand; 0, or :data:`BAD` (compiled)."""
    if _one_bad(counts, wilds, sets, 1, shapes):
        return BAD
    _waits_one(counts, wilds, sets, shapes, tab, out)
    return 0


@kernel
def ukeire_one(counts, wilds, sets, shapes, tab, sh_out, imp_out, n_out):
    """:func:`_ukeire_one` of one ``3*sets + 2``-tile hand, unseen ``4 - counts``; 0, or
    :data:`BAD` (compiled).
    """
    if _one_bad(counts, wilds, sets, 2, shapes):
        return BAD
    unseen = np.empty(34, np.int64)
    for k in range(34):
        unseen[k] = 4 - counts[k]
    c = np.empty(34 + SUMMARY, np.int64)
    _ukeire_one(counts, wilds, sets, shapes, unseen, tab, sh_out, imp_out, n_out, c)
    return 0
