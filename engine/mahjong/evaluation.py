"""Fast incremental hand evaluation for the bots (numba). Kernels only.

The bots score every possible discard of a hand on every turn, so this module works on
the class ids of the four suits (engine.hand._tables): removing or adding one tile
changes one suit's class, and the distance of the whole hand is one lookup in the
combination of the other three. Seven pairs, thirteen orphans and all-triplets distances
are closed forms updated from per-hand counts.

Scores are in quarter tiles: ``4 * distance - bonus`` (value bonuses, see _bots).
"""

from __future__ import annotations

import numpy as np

from engine.hand._kernels import (
    _ORPHAN,
    _POW5,
    _buda_masks,
    _buda_without,
    _held_masks,
    _pairs_formula,
    _rest_classes,
    _shape_counts,
    _shape_flags,
    _suit_indices,
    level,
)
from engine.jit.njit import kernel, lowest_bit
from engine.mahjong.layout import M_CHOW
from engine.mahjong.params import B_FLUSH, B_HALF, B_PAIRS, B_TRIPLETS, B_WILD_PAIR

INF = 99
N_MINFO = 4
"""Length of the meld summary :func:`meld_info` fills."""


@kernel(inline="always")
def triplets_closed(n3, n2, n1, sets):
    """Distance to ``sets`` triplets + a pair from the numbers of kinds held 3+, 2 and 1.

    Each triplet costs 3 - count (0, 1, 2, or 3 for an unheld kind), the pair 2 - count;
    the pair takes one kind, the triplets the cheapest others.
    """
    best = INF
    for opt in range(4):
        a = n3
        b = n2
        d = n1
        cost = 0
        if opt == 0:
            if a == 0:
                continue
            a -= 1
        elif opt == 1:
            if b == 0:
                continue
            b -= 1
        elif opt == 2:
            if d == 0:
                continue
            d -= 1
            cost = 1
        else:
            cost = 2
        need = sets
        take = a if a < need else need
        need -= take
        take = b if b < need else need
        cost += take
        need -= take
        take = d if d < need else need
        cost += 2 * take
        need -= take
        cost += 3 * need
        if cost < best:
            best = cost
    return best


@kernel(inline="always")
def wild_pair_distance(sets_missing, w):
    """Distance to a hand whose pair is two wilds (金雀): the real tiles miss
    ``sets_missing`` tiles of their sets; two wilds make the pair, the rest fill gaps.
    """
    if w >= 2:
        v = sets_missing - (w - 2)
    else:
        v = sets_missing + (2 - w)
    return v if v > 0 else 0


@kernel(inline="always")
def free_wild_distance(sets_missing, w):
    """Tiles to a 游金 win: the real tiles miss ``sets_missing`` tiles of their sets, all
    but one wild fill gaps, the wild left free pairs with any tile drawn after (one tile
    more, as a waiting plain hand is one tile away; with no wild, a wild must be drawn
    first). 1: the hand 游s as it stands.
    """
    if w >= 1:
        v = sets_missing - (w - 1)
        return (v if v > 0 else 0) + 1
    return sets_missing + 2


@kernel(inline="always")
def _quarters(distance, w, bonus):
    """A target's score in quarter tiles: 4 x its distance after the wilds, minus its bonus."""
    return 4 * max(np.int64(distance) - w, 0) - bonus


@kernel(inline="always")
def count_categories(h):
    """``(n3, n2, n1)``: the kinds held three or more times, twice and once."""
    n3 = 0
    n2 = 0
    n1 = 0
    for k in range(34):
        x = h[k]
        if x >= 3:
            n3 += 1
        elif x == 2:
            n2 += 1
        elif x == 1:
            n1 += 1
    return n3, n2, n1


@kernel(inline="always")
def _cat_add(n3, n2, n1, c, delta):
    """Update kind-count categories when one kind goes from c to c + delta."""
    if c >= 3:
        n3 -= 1
    elif c == 2:
        n2 -= 1
    elif c == 1:
        n1 -= 1
    c2 = c + delta
    if c2 >= 3:
        n3 += 1
    elif c2 == 2:
        n2 += 1
    elif c2 == 1:
        n1 += 1
    return n3, n2, n1


@kernel(inline="always")
def _value_bonuses(policy, bot, minfo):
    """``(bf, bh, bt, bw, bp)``: the value bonuses (清一色, 混一色, 对对胡, 金雀, 七对)
    that apply to this hand, 0 for the efficiency policy and for targets the exposed
    melds rule out (all-triplets after a chow, seven pairs after any meld).
    """
    value = policy == 2
    bf = np.int64(bot[B_FLUSH]) if value else 0
    bh = np.int64(bot[B_HALF]) if value else 0
    bt = np.int64(bot[B_TRIPLETS]) if value and minfo[1] == 1 else 0
    bw = np.int64(bot[B_WILD_PAIR]) if value else 0
    bp = np.int64(bot[B_PAIRS]) if value and minfo[2] == 0 else 0
    return bf, bh, bt, bw, bp


@kernel(inline="always")
def _flush_scores(cs, c3, mask, w, lv, sets, bf, bh, comb, dist):
    """``(f0, f1, f2, flush_min)``: the flush or half-flush target of suit t with the
    discard in another suit (``ft``), and the flushes alone (an honor discard changes the
    half flushes): worked out once per hand. ``cs`` the three suits' classes, ``c3`` the
    honors', ``mask`` the exposed melds' suit mask.
    """
    f0 = f1 = f2 = INF * 4
    flush_min = INF * 4
    for t in range(3):
        other = mask & ~(1 << t)
        v = INF * 4
        if bf > 0 and other == 0:
            # 清一色: tiles outside suit t are surplus, so the suit's own distance is
            # the hand's
            v = _quarters(dist[cs[t], lv, sets], w, bf)
            flush_min = min(flush_min, v)
        if bh > 0 and (other & 7) == 0:
            v = min(v, _quarters(dist[comb[cs[t], c3], lv, sets], w, bh))
        if t == 0:
            f0 = v
        elif t == 1:
            f1 = v
        else:
            f2 = v
    return f0, f1, f2, flush_min


@kernel(inline="always")
def _shape_quarters(d, x, k, v_sp, use_sp, to, forms, bd, masks, buda_h, buda_t, w):
    """4 x the distance of the hand minus one tile of kind ``k`` (held ``x`` times) over
    every shape: ``d`` its standard distance, ``v_sp`` its seven-pairs distance (used
    when ``use_sp``), ``forms`` the thirteen-orphans distances ``(base, orphan held
    once, orphan held twice)``, ``masks`` the held masks and ``buda_h`` the hand's 不搭
    distance; after the ``w`` wilds.
    """
    if use_sp:
        d = min(d, v_sp)
    if to:
        v = forms[0]
        if _ORPHAN[k]:
            v = forms[1] if x == 1 else (forms[2] if x == 2 else forms[0])
        d = min(d, v)
    if bd:
        v = _buda_without(masks[0], masks[1], masks[2], masks[3], x, k, buda_h, buda_t)
        if v < d:
            d = v
    d -= w
    if d < 0:
        d = 0
    return 4 * d


@kernel(inline="always")
def _flush_quarters(s, ms, mask, out_min, flush_min, cs, c3, w, lv, sets, bf, bh, comb, dist):
    """The best flush or half-flush score after a discard from suit ``s`` (3: honors)
    whose suit class becomes ``ms``; ``out_min[s]`` the flushes of the other suits.
    """
    if s < 3:
        v = out_min[s]
        other = mask & ~(1 << s)
        if bf > 0 and other == 0:
            v = min(v, _quarters(dist[ms, lv, sets], w, bf))
        if bh > 0 and (other & 7) == 0:
            v = min(v, _quarters(dist[comb[ms, c3], lv, sets], w, bh))
        return v
    v = flush_min
    if bh > 0:
        for t in range(3):
            if (mask & ~(1 << t) & 7) == 0:
                v = min(v, _quarters(dist[comb[cs[t], ms], lv, sets], w, bh))
    return v


@kernel(inline="always")
def _value_quarters(sc, x, v_sp, sp, bon, flush_v, wild_d, cats, sets, w):
    """The value policy's score of a discard: the lowest of the efficiency score ``sc``
    and each bonus target's (seven pairs ``v_sp``, the flushes ``flush_v`` already
    scored, 金雀 with the sets' distance ``wild_d``, all triplets from the kind-count
    categories ``cats`` with the discarded kind held ``x`` times).
    """
    bf, bh, bt, bw, bp = bon
    if bp > 0 and sp:
        v = _quarters(v_sp, w, bp)
        if v < sc:
            sc = v
    if (bf > 0 or bh > 0) and flush_v < sc:
        sc = flush_v
    if bw > 0:
        v = wild_pair_distance(wild_d, w)
        if v <= 2:
            v = 4 * v - bw
            if v < sc:
                sc = v
    if bt > 0:
        a3, a2, a1 = _cat_add(cats[0], cats[1], cats[2], x, -1)
        v = _quarters(triplets_closed(a3, a2, a1, sets), w, bt)
        if v < sc:
            sc = v
    return sc


@kernel(inline="always")
def hand_classes(h, tab):
    """``(idx, cs, c3, ex)`` of the hand ``h``: its four suit indices, the three suits'
    classes, the honors' class, and for each suit ``s`` the class of the other three
    combined (``ex[s]``: the hand less suit ``s``, :func:`_rest_classes`).
    """
    suit_cls, honor_cls, comb = tab[0], tab[1], tab[2]
    i0, i1, i2, i3 = _suit_indices(h)
    c0 = np.int64(suit_cls[i0])
    c1 = np.int64(suit_cls[i1])
    c2 = np.int64(suit_cls[i2])
    c3 = np.int64(honor_cls[i3])
    _, _, e0, e1, e2, e3 = _rest_classes(c0, c1, c2, c3, comb)
    return (i0, i1, i2, i3), (c0, c1, c2), c3, (e0, e1, e2, e3)


@kernel(inline="always")
def less_one(k, idx, ex, tab):
    """``(s, ms, cls)`` of the hand of :func:`hand_classes` ``idx, ex`` less one tile of kind
    ``k``: the tile's suit, that suit's class without it and the whole hand's class.
    """
    s = k // 9
    pos = k - 9 * s
    if s < 3:
        ms = np.int64(tab[0][idx[s] - _POW5[pos]])
    else:
        ms = np.int64(tab[1][idx[3] - _POW5[pos]])
    return s, ms, np.int64(tab[2][ex[s], ms])


@kernel(refcount=False)
def discard_scores(policy, h, w, sets, shapes, tab, bot, minfo, score):
    """Score of every discard of the ``3*sets+2``-tile hand ``h`` (INF where not held).

    policy : 1 efficiency (4 * distance), 2 value (min over targets of 4*distance-bonus).
    bot : float64 (N_BOT,) the seat's bot parameters (the value bonuses, engine.mahjong.params).
    minfo : int64 (3,) = exposed-meld suit mask, all-triplets flag, number of melds.
    Returns the lowest score.

    Phases: the hand's classes and shape counts, the bonuses (:func:`_value_bonuses`)
    and the flushes of a suit the discard is not from (:func:`_flush_scores`) once; per
    held kind, the shapes' score (:func:`_shape_quarters`) and, for the value policy,
    the flushes' (:func:`_flush_quarters`) and every bonus target's
    (:func:`_value_quarters`).
    """
    comb, dist = tab[2], tab[3]
    idx, cs, c3, ex = hand_classes(h, tab)
    std, sp, to, bd = _shape_flags(shapes, sets)
    pairs, singles, distinct, opair = _shape_counts(h)
    value = policy == 2
    bon = _value_bonuses(policy, bot, minfo)
    bf, bh, bt, bw, bp = bon
    n3 = n2 = n1 = 0
    if bt > 0:
        n3, n2, n1 = count_categories(h)
    cats = (n3, n2, n1)
    dist0 = tab[5]
    lv = level(w)
    lv_pair = level(w - 2 if w > 2 else 0)  # the sets' budget when two wilds are the pair
    hm0 = hm1 = hm2 = hhon = 0
    buda_h = INF
    if bd:
        hm0, hm1, hm2, hhon = _held_masks(h)
        buda_h = _buda_masks(hm0, hm1, hm2, hhon, tab[4])
    masks = (hm0, hm1, hm2, hhon)
    # the seven-pairs and thirteen-orphans distances after a discard depend only on the
    # discarded kind's count (and orphan class): worked out once, selected per discard
    sp_even = _pairs_formula(pairs - 1, singles + 1)
    sp_odd = _pairs_formula(pairs, singles - 1)
    to_base = 14 - distinct - (1 if opair > 0 else 0)
    # an orphan held once, an orphan held twice
    forms = (to_base, to_base + 1, 14 - distinct - (1 if opair > 1 else 0))
    held = np.int64(0)
    for k in range(34):
        score[k] = INF * 4
        held |= np.int64(h[k] > 0) << k
    flushes = bf > 0 or bh > 0
    f0 = f1 = f2 = flush_min = INF * 4
    if flushes:
        f0, f1, f2, flush_min = _flush_scores(cs, c3, minfo[0], w, lv, sets, bf, bh, comb, dist)
    out_min = (min(f1, f2), min(f0, f2), min(f0, f1))
    best = INF * 4
    while held != 0:
        k = lowest_bit(held)
        held &= held - 1
        x = h[k]
        s, ms, cls_k = less_one(k, idx, ex, tab)
        d = np.int64(dist[cls_k, lv, sets]) if std else INF
        v_sp = sp_even if x % 2 == 0 else sp_odd
        sc = _shape_quarters(d, x, k, v_sp, sp and bp == 0, to, forms, bd, masks, buda_h, tab[4], w)
        if value:
            flush_v = INF * 4
            if flushes:
                flush_v = _flush_quarters(
                    s, ms, minfo[0], out_min, flush_min, cs, c3, w, lv, sets, bf, bh, comb, dist
                )
            wild_d = np.int64(dist0[cls_k, lv_pair, sets]) if bw > 0 else INF
            sc = _value_quarters(sc, x, v_sp, sp, bon, flush_v, wild_d, cats, sets, w)
        score[k] = sc
        if sc < best:
            best = sc
    return best


@kernel(refcount=False)
def meld_info(melds, nmeld, seat, out):
    """What the bots read of ``seat``'s exposed melds: ``out[0]`` the suit mask (bits 0-2
    suits, 3 honors), ``out[1]`` 1 if no meld is a chow, ``out[2]`` the number of melds,
    ``out[3]`` the honor kinds melded as a 碰 or kong (bit ``k - 27``; see
    :func:`honor_bit`).
    """
    mask = 0
    trip = 1
    honors = 0
    for i in range(nmeld[seat]):
        k = melds[seat, i, 1]
        mask |= 1 << (k // 9 if k < 27 else 3)
        if melds[seat, i, 0] == M_CHOW:
            trip = 0
        else:
            honors |= honor_bit(k)
    out[0] = mask
    out[1] = trip
    out[2] = nmeld[seat]
    out[3] = honors


@kernel(inline="always")
def honor_bit(k):
    """Bit ``k - 27`` for an honor kind ``k`` (27..33), 0 for a suit kind."""
    return (1 << (k - 27)) if k >= 27 else 0
