"""Pattern helpers shared by the variants' scorers, compiled (numba). Kernels only.

A winning hand is given as ``h`` (int64 (34,) logical concealed counts including the
winning tile, wilds excluded), ``w`` (wild tiles held), ``sets`` (sets the concealed
tiles form: the variant's sets minus exposed melds) and the seat's exposed melds
``melds (6, 3)`` rows ``(type, kind, from_seat)`` with ``nmeld`` rows in use. A wild may
stand for any tile in any role (RULEBOOK §0.1), so "the hand can be read as pattern P"
means some assignment of the wilds makes a complete hand with P.
"""

from __future__ import annotations

import numpy as np

from engine.hand._kernels import TOP, _suit_indices
from engine.jit.njit import kernel
from engine.mahjong.layout import M_ADDKONG, M_ANKONG, M_CHOW, M_KONG, M_PONG

INF = 99


@kernel(refcount=False)
def rest_distance(c, sets, with_pair, tab):
    """Standard distance of counts ``c`` for ``sets`` sets, with or without the pair,
    with no cap on the copies of a kind.

    Every caller asks whether wilds can fill all the missing tiles (``<= wilds``): the
    wilds may then be any copy, a fifth included (RULEBOOK §0.1), so the uncapped
    distance (the top excess level) is the exact answer.
    """
    if sets < 0:
        return INF
    suit_cls, honor_cls, comb, dist, dist0 = tab[0], tab[1], tab[2], tab[3], tab[5]
    i0, i1, i2, i3 = _suit_indices(c)
    a = comb[suit_cls[i0], suit_cls[i1]]
    b = comb[a, suit_cls[i2]]
    cls = comb[b, honor_cls[i3]]
    if with_pair:
        return np.int64(dist[cls, TOP, sets])
    return np.int64(dist0[cls, TOP, sets])


@kernel
def suit_mask(h, melds, nmeld):
    """Bit mask of the suits present among real tiles: 1 m, 2 p, 4 s, 8 honors."""
    mask = 0
    for k in range(34):
        if h[k] > 0:
            mask |= 1 << (k // 9 if k < 27 else 3)
    for i in range(nmeld):
        k = melds[i, 1]
        mask |= 1 << (k // 9 if k < 27 else 3)
    return mask


@kernel
def has_exposed_triplet(melds, nmeld, kind):
    """Whether an exposed pong or kong of ``kind`` exists."""
    for i in range(nmeld):
        t = melds[i, 0]
        if melds[i, 1] == kind and t != M_CHOW:
            return True
    return False


@kernel
def count_kongs(melds, nmeld):
    """Number of kongs among the melds (明杠, 补杠, 暗杠)."""
    n = 0
    for i in range(nmeld):
        t = melds[i, 0]
        if t == M_KONG or t == M_ADDKONG or t == M_ANKONG:
            n += 1
    return n


@kernel
def count_open_triplets(melds, nmeld):
    """Exposed pongs and kongs made from a discard (碰, 明杠, 补杠)."""
    n = 0
    for i in range(nmeld):
        t = melds[i, 0]
        if t == M_PONG or t == M_KONG or t == M_ADDKONG:
            n += 1
    return n


@kernel
def count_chows(melds, nmeld):
    """Exposed chows."""
    n = 0
    for i in range(nmeld):
        if melds[i, 0] == M_CHOW:
            n += 1
    return n


@kernel
def forced_groups(h, w, sets, tab, melds, nmeld, trip_kinds, n_trip, pair_kind):
    """Whether the hand completes with triplets of ``trip_kinds[:n_trip]`` and, if
    ``pair_kind >= 0``, the pair of that kind; the rest is any standard shape.

    A forced triplet may already be an exposed pong/kong. Wilds fill missing tiles.
    """
    c = h.copy()
    need = 0
    left = sets
    for i in range(n_trip):
        k = trip_kinds[i]
        if has_exposed_triplet(melds, nmeld, k):
            continue
        take = c[k] if c[k] < 3 else 3
        c[k] -= take
        need += 3 - take
        left -= 1
    if left < 0:
        return False
    with_pair = True
    if pair_kind >= 0:
        take = c[pair_kind] if c[pair_kind] < 2 else 2
        c[pair_kind] -= take
        need += 2 - take
        with_pair = False
    if need > w:
        return False
    return rest_distance(c, left, with_pair, tab) <= w - need


@kernel
def triplets_only_distance(h, sets):
    """Distance to ``sets`` triplets plus a pair using kinds independently (对对胡)."""
    best = np.full((6, 2), INF, np.int64)
    best[0, 0] = 0
    for kind in range(34):
        c = h[kind]
        if c == 0:
            continue
        tc = 3 - c if c < 3 else 0
        pc = 2 - c if c < 2 else 0
        for k in range(sets, -1, -1):
            for p in range(1, -1, -1):
                cur = best[k, p]
                if cur >= INF:
                    continue
                if k + 1 <= sets and cur + tc < best[k + 1, p]:
                    best[k + 1, p] = cur + tc
                if p == 0 and cur + pc < best[k, 1]:
                    best[k, 1] = cur + pc
    # kinds not held can still host sets/pair entirely from wilds (3 or 2 each)
    out = INF
    for k in range(sets + 1):
        for p in range(2):
            cur = best[k, p]
            if cur >= INF:
                continue
            v = cur + 3 * (sets - k) + (2 if p == 0 else 0)
            if v < out:
                out = v
    return out


@kernel(refcount=False)
def triplets_fit(h, lo, hi, sets, pairs):
    """Whether kinds ``lo..hi-1`` of ``h`` fit exactly ``sets`` triplets and ``pairs``
    (0 or 1) pairs, 财神 filling (a kind may host a triplet and the pair, or two
    triplets: 3t + 2q >= count). Extra groups are made of 财神 alone.
    """
    a = 0
    b = 0
    d = 0
    for k in range(lo, hi):
        c = h[k]
        if c == 0:
            continue
        if c <= 2:
            a += 1
        elif c == 3:
            b += 1
        else:
            d += 1
    need = a + b + 2 * d
    if pairs == 1 and a + d > 0:
        need -= 1
    return need <= sets
