"""The ``strong`` policy of the mahjong family (P_STRONG), compiled (numba). Kernels only.

It plays for expected points, from what its seat can see, with fitted models and tuned
weights in its parameter row (:mod:`engine.mahjong.params`):

- **Hand value.** For a hand of ``3*sets+1`` tiles, the distance to each target (plain,
  清一色, 混一色, all triplets, seven pairs, two wilds as the pair (under 游金 rules: one
  wild left free), 不搭) and, for the plain
  hand, the ukeire. A fitted table gives the chance to win from the plain distance,
  ukeire and live tiles left (``strong.p_plain``), another the chance to win *with*
  each target's pattern from its distance (``strong.p_target``); a fitted table of
  what each kind of win brings its winner (``strong.value``, the variant's real
  scoring, dealer or not) turns them into points: ``sum over targets of mult[t] x
  P(win as t) x V(t) + mult[0] x (P(win) - sum of P(win as t)) x V(plain)``, where a
  win is also worth the *stake* (added to every V): the fitted mean loss of the deals a
  seat does not win, which a win spares it (a non-dealer in 丽水 loses the dealer's 底 x
  倍 when the dealer wins).
- **Danger.** For each opponent and tile kind, a logistic model of the chance that
  the opponent wins on that tile now (``strong.danger``) and of the chance that he can
  make a 明杠 of it (``strong.kong_danger``), from the opponent's visible play (melds,
  discards and their kinds, a discarded wild), the tile (kind class, copies unseen,
  suji and neighbours of the opponent's discards, a suit his melds point at), the wilds
  in play and the live tiles left (:func:`danger_features`). The models are fitted on
  positions where the simulator knows the true waits (engine.runs.fit).
- **Decisions.** A discard maximises ``value(hand after it) x (1 - D) - alpha x (sum of
  danger x loss of feeding) - alpha_kong x (kong danger x cost)``, where ``D`` is the
  chance that someone wins on it and the loss is the fitted mean payment of a feeder:
  it pushes with a good hand and folds to safe tiles with a poor one. Where kongs pay
  money on their own (推倒胡), each concealed triplet whose fourth copy is unseen adds
  ``strong.kong_hold`` x (live bucket / 10) to the hand's value: a kong to come. Claims
  (碰, 吃, 明杠) and kongs compare the best value after the action, plus what a kong
  brings, minus the risk of a robbed 补杠, with the value of passing.

Ties are broken at random from the deal's bot stream, like the other policies.
"""

from __future__ import annotations

import math

import numpy as np

from engine import rng
from engine._slots import Slots
from engine.hand._kernels import (
    _ORPHAN,
    BUDA,
    INF,
    SEVEN_PAIRS,
    _buda,
    _buda_masks,
    _buda_without,
    _distance,
    _held_masks,
    _pairs_formula,
    _shape_counts,
    _shape_flags,
    _suit_indices,
    discard_ukeire,
    level,
)
from engine.jit.njit import kernel, lowest_bit
from engine.mahjong.evaluation import (
    _cat_add,
    count_categories,
    free_wild_distance,
    hand_classes,
    less_one,
    triplets_closed,
    wild_pair_distance,
)
from engine.mahjong.params import (
    M_DANGER,
    M_KONGDANGER,
    M_LEGAL,
    M_LOSS,
    M_PPLAIN,
    M_PTARGET,
    M_STAKE,
    M_UBAR,
    M_VALUE,
    N_D,
    N_FEATURES,
    N_LEGAL,
    N_T,
    N_TARGET,
    N_UK,
    S_ALPHA,
    S_ALPHA_KONG,
    S_FEED_KONG,
    S_HONOR_TAI,
    S_KONG_HOLD,
    S_MIN_TAI,
    S_MULT,
    S_WILD_TAI,
    T_BUDA,
    T_FLUSH,
    T_HALF,
    T_PAIRS,
    T_PLAIN,
    T_TRIPLETS,
    T_WILDPAIR,
)

MIDDLE = np.int64(sum(1 << (s * 9 + r) for s in range(3) for r in range(2, 7)))
"""Bit set of the suit kinds of rank 3-7."""
WILDS_NONE, WILDS_PAIR, WILDS_FREE = 0, 1, 2
"""What the wild target (slot ``T_WILDPAIR``) measures, the ``wildgame`` argument of the
distance kernels: no wilds in the deal (closed); two wilds as the pair (金雀); one wild
left free once the sets are complete (游金 under ``R_YOUJIN``: 单游 wins on any draw,
so the shape a strong 闽南 player builds towards, whose wins also pay 金雀's)."""


@kernel(inline="always")
def wild_code(has_wilds, youjin):
    """The ``wildgame`` code of a deal: :data:`WILDS_NONE` without wild kinds, else
    :data:`WILDS_FREE` under 游金 (``youjin``) and :data:`WILDS_PAIR` otherwise.
    """
    if not has_wilds:
        return np.int64(WILDS_NONE)
    return np.int64(WILDS_FREE if youjin else WILDS_PAIR)


@kernel(inline="always")
def _wild_target(no_pair, cls, w, sets, wildgame):
    """The wild target's distance of a hand of combined class ``cls`` (``no_pair``: the
    sets-only distance table, ``tab[5]``) under the ``wildgame`` code; INF where closed.
    """
    if wildgame == WILDS_FREE:  # one wild free, the rest fill the sets' gaps
        return free_wild_distance(np.int64(no_pair[cls, level(w - 1 if w > 1 else 0), sets]), w)
    if wildgame != WILDS_NONE:  # two wilds pair, the rest fill the sets' gaps
        return wild_pair_distance(np.int64(no_pair[cls, level(w - 2 if w > 2 else 0), sets]), w)
    return INF


N_OSUM = 10
"""Per-opponent summary: melds, discards, discarded-kind bits, meld suits, dealer,
discarded a wild, seat, (unused), the kinds of his last RECENT discards, the kinds of his
first EARLY discards (:func:`opp_summary`)."""
RECENT = 3
"""Discards that count as an opponent's latest (the order features of the danger model)."""
EARLY = 6
"""Discards that count as an opponent's first (the order features of the danger model)."""
MAX_FI = 20
"""Most active danger features of one (opponent, tile)."""

SS = Slots("strong policy scratch")
"""The int64 scratch ``sscr`` of the strong policy, block by block: the targets' distances
(:func:`waiting_value`), the ukeire per discard and their work (:func:`discard_ukeire`),
the danger features of a discard, the target distances after each discard
(:func:`best_discard`) and the danger features of a kong (the loop's kong choice)."""
SS_TARGETS = SS.block("targets", N_TARGET)
SS_UKE = SS.block("ukeire", 34)
SS_WORK = SS.block("ukeire_work", 160)
SS_FI = SS.block("feeds", MAX_FI)
SS_DALL = SS.block("target_dists", 34 * N_TARGET)
SS_KONG_FI = SS.block("kong_feeds", MAX_FI)
SSCR = SS.size
"""Length of the int64 scratch of the strong policy."""
SS.limit = SSCR

FS = Slots("strong policy float scratch")
"""The float64 scratch ``fsc`` of the strong policy: each discard's expected points and
the danger logits' tile-free parts (:func:`danger_bases`: 4 win, 4 kong)."""
FS_VALUE = FS.block("values", 34)
FS_DANGER = FS.block("danger_bases", 8)
N_FSC = FS.size
"""Length of the float64 scratch of the strong policy."""
FS.limit = N_FSC


@kernel(inline="always")
def _clip(x, hi):
    return x if x < hi else hi


@kernel(refcount=False)
def target_dists(h, w, sets, shapes, tab, minfo, wildgame, out):
    """Distance of the ``3*sets+1``-tile hand ``h`` to each target; INF where closed.

    minfo : int64 (3,) exposed-meld suit mask (bits 0-2 suits, 3 honors), all-triplets
        flag, number of melds. wildgame : what the wild target measures
        (:data:`WILDS_NONE`, :data:`WILDS_PAIR` 金雀, :data:`WILDS_FREE` 游金). out :
        int64 (N_TARGET,).
    """
    suit_cls, honor_cls, comb, dist = tab[0], tab[1], tab[2], tab[3]
    out[T_PLAIN] = _distance(h, w, sets, shapes, tab)
    i0, i1, i2, i3 = _suit_indices(h)
    c3 = np.int64(honor_cls[i3])
    lv = level(w)
    fl = INF
    hf = INF
    for t in range(3):
        cls = np.int64(suit_cls[i0] if t == 0 else (suit_cls[i1] if t == 1 else suit_cls[i2]))
        other = minfo[0] & ~(1 << t)
        if other == 0:
            fl = min(fl, max(np.int64(dist[cls, lv, sets]) - w, 0))
        if (other & 7) == 0:
            hf = min(hf, max(np.int64(dist[comb[cls, c3], lv, sets]) - w, 0))
    out[T_FLUSH] = fl
    out[T_HALF] = hf
    out[T_TRIPLETS] = INF
    if minfo[1] == 1:
        n3, n2, n1 = count_categories(h)
        out[T_TRIPLETS] = max(triplets_closed(n3, n2, n1, sets) - w, 0)
    out[T_PAIRS] = INF
    if sets == 4 and minfo[2] == 0 and (shapes & SEVEN_PAIRS) != 0:
        pairs = 0
        singles = 0
        for k in range(34):
            pairs += h[k] // 2
            singles += h[k] % 2
        out[T_PAIRS] = max(_pairs_formula(pairs, singles) - w, 0)
    out[T_BUDA] = INF
    if sets == 4 and minfo[2] == 0 and (shapes & BUDA) != 0:
        out[T_BUDA] = max(np.int64(_buda(h, tab[4])) - w, 0)
    a = comb[comb[comb[suit_cls[i0], suit_cls[i1]], suit_cls[i2]], c3]
    out[T_WILDPAIR] = _wild_target(tab[5], a, w, sets, wildgame)


@kernel(inline="always")
def _flush_pair(cls, c3, t, mask, lv, sets, w, comb, dist):
    """``(flush, half flush)`` distances of suit ``t`` of class ``cls`` with honors of class
    ``c3``; INF where the exposed melds (suit mask ``mask``) rule it out.
    """
    other = mask & ~(1 << t)
    fl = INF
    hf = INF
    if other == 0:
        fl = max(np.int64(dist[cls, lv, sets]) - w, 0)
    if (other & 7) == 0:
        hf = max(np.int64(dist[comb[cls, c3], lv, sets]) - w, 0)
    return fl, hf


@kernel(refcount=False)
def discard_target_dists(h, w, sets, shapes, tab, minfo, wildgame, held, out):
    """:func:`target_dists` of the ``3*sets+2``-tile hand ``h`` less one tile of each kind
    in the bit set ``held``, into ``out[k * N_TARGET :]``: the same numbers, worked out
    from the hand's suit classes and counts once (a discard changes one suit's class and
    one kind's count) instead of from the counts of each hand after a discard.
    """
    comb, dist = tab[2], tab[3]
    idx, cs, c3, ex = hand_classes(h, tab)
    c0, c1, c2 = cs
    std, sp, to, bd = _shape_flags(shapes, sets)
    four = sets == 4
    pairs = singles = distinct = opair = 0
    if four:
        pairs, singles, distinct, opair = _shape_counts(h)
    lv = level(w)
    mask = minfo[0]
    buda_on = four and (shapes & BUDA) != 0
    hm0 = hm1 = hm2 = hhon = 0
    buda_h = INF
    if buda_on:
        hm0, hm1, hm2, hhon = _held_masks(h)
        buda_h = _buda_masks(hm0, hm1, hm2, hhon, tab[4])
    trip = minfo[1] == 1
    n3 = n2 = n1 = 0
    if trip:
        n3, n2, n1 = count_categories(h)
    # seven pairs after dropping a kind held an even or an odd number of times
    sp_even = _pairs_formula(pairs - 1, singles + 1)
    sp_odd = _pairs_formula(pairs, singles - 1)
    to_base = 14 - distinct - (1 if opair > 0 else 0)
    to_once = to_base + 1  # an orphan held once
    to_twice = 14 - distinct - (1 if opair > 1 else 0)  # an orphan held twice
    pairs_open = four and minfo[2] == 0
    # the flushes of each suit as it is (the discard's suit is worked out per discard)
    fl0, hf0 = _flush_pair(c0, c3, 0, mask, lv, sets, w, comb, dist)
    fl1, hf1 = _flush_pair(c1, c3, 1, mask, lv, sets, w, comb, dist)
    fl2, hf2 = _flush_pair(c2, c3, 2, mask, lv, sets, w, comb, dist)
    fls = (fl0, fl1, fl2)
    hfs = (hf0, hf1, hf2)
    m = held
    while m != 0:
        k = lowest_bit(m)
        m &= m - 1
        x = np.int64(h[k])
        s, ms, cls_k = less_one(k, idx, ex, tab)  # cls_k: the whole hand less the discard
        o = out[k * N_TARGET : k * N_TARGET + N_TARGET]
        v_sp = sp_even if x % 2 == 0 else sp_odd
        # the plain distance over the shapes (engine.hand's _distance)
        d = np.int64(dist[cls_k, lv, sets]) if std else INF
        if sp and v_sp < d:
            d = v_sp
        if to:
            v = to_base
            if _ORPHAN[k]:
                v = to_once if x == 1 else (to_twice if x == 2 else to_base)
            if v < d:
                d = v
        buda_k = INF
        if buda_on:
            buda_k = _buda_without(hm0, hm1, hm2, hhon, x, k, buda_h, tab[4])
        if bd and buda_k < d:
            d = buda_k
        o[T_PLAIN] = max(d - w, 0)
        fl = INF
        hf = INF
        for t in range(3):
            if t == s:
                a, b = _flush_pair(ms, c3, t, mask, lv, sets, w, comb, dist)
            elif s == 3:
                a, b = _flush_pair(cs[t], ms, t, mask, lv, sets, w, comb, dist)
            else:
                a = fls[t]
                b = hfs[t]
            fl = min(fl, a)
            hf = min(hf, b)
        o[T_FLUSH] = fl
        o[T_HALF] = hf
        o[T_TRIPLETS] = INF
        if trip:
            a3, a2, a1 = _cat_add(n3, n2, n1, x, -1)
            o[T_TRIPLETS] = max(triplets_closed(a3, a2, a1, sets) - w, 0)
        o[T_PAIRS] = INF
        if pairs_open and (shapes & SEVEN_PAIRS) != 0:
            o[T_PAIRS] = max(v_sp - w, 0)
        o[T_BUDA] = INF
        if pairs_open and (shapes & BUDA) != 0:
            o[T_BUDA] = max(buda_k - w, 0)
        o[T_WILDPAIR] = _wild_target(tab[5], cls_k, w, sets, wildgame)


@kernel(inline="always")
def live_triplet(h, unseen, k):
    """Whether ``h`` holds a concealed triplet of ``k`` with its fourth copy unseen (a kong)."""
    return h[k] == 3 and unseen[k] > 0


@kernel(inline="always")
def held_triplets(h, unseen):
    """The kinds of :func:`live_triplet` in ``h``."""
    n = 0
    for k in range(34):
        if live_triplet(h, unseen, k):
            n += 1
    return n


@kernel(inline="always")
def hold_weight(bot, tb):
    """Points of one :func:`live_triplet` at live bucket ``tb`` (``strong.kong_hold``)."""
    return bot[S_KONG_HOLD] * tb / (N_T - 1)


@kernel(inline="always")
def secured_tai(bot, h, w, honors):
    """台 a hand holds toward the variant's minimum: each honor kind melded (bit set
    ``honors``, engine.mahjong.evaluation.meld_info) or held three times, and its wilds
    (``strong.honor_tai``, ``strong.wild_tai``).
    """
    tai = np.int64(0)
    for i in range(7):
        if (honors >> i) & 1 or h[27 + i] >= 3:
            tai += np.int64(bot[S_HONOR_TAI + i])
    if bot[S_WILD_TAI + 1] > 0 and w >= bot[S_WILD_TAI + 1]:
        tai += np.int64(bot[S_WILD_TAI])
    return tai


@kernel(inline="always")
def tai_need(bot, h, w, honors):
    """台 the hand still needs for the minimum beyond what it holds (0 without one)."""
    if bot[S_MIN_TAI] <= 0:
        return np.int64(0)
    return np.int64(bot[S_MIN_TAI]) - secured_tai(bot, h, w, honors)


@kernel(inline="always")
def _legal(bot, need):
    """``strong.legal`` at ``need`` 台 still missing (1 where the variant has no minimum)."""
    if bot[S_MIN_TAI] <= 0:
        return 1.0
    return bot[M_LEGAL + _clip(max(need, 0), N_LEGAL - 1)]


@kernel(inline="always")
def live_bucket(live):
    """Live-tile bucket of the win tables."""
    return _clip(max(live, 0) // 8, N_T - 1)


@kernel(refcount=False)
def hand_value(bot, dd, u, tb, dealer, need):
    """Expected points of a ``3*sets+1``-tile hand with target distances ``dd``.

    u : ukeire of the plain hand (-1: not computed, the distance's mean is used); tb :
    live bucket; dealer : 1 if the seat deals; need : 台 the hand still needs for the
    variant's minimum (:func:`tai_need`): the plain-only rest of the win chance is
    weighed by ``strong.legal`` there (a target's chance is fitted with its pattern's
    台 in it).
    """
    if dd[T_PLAIN] >= INF:
        return 0.0
    d = _clip(dd[T_PLAIN], N_D - 1)
    if u < 0:
        u = np.int64(bot[M_UBAR + d])
    u = _clip(u, N_UK - 1)
    stake = bot[M_STAKE + dealer]
    pp = bot[M_PPLAIN + (d * N_UK + u) * N_T + tb]
    wv = 0.0
    ptot = 0.0
    for t in range(1, N_TARGET):
        if dd[t] >= INF:
            continue
        dt = _clip(dd[t], N_D - 1)
        pt = bot[M_PTARGET + (t * N_D + dt) * N_T + tb]
        ptot += pt
        wv += bot[S_MULT + t] * pt * (bot[M_VALUE + t * 2 + dealer] + stake)
    # the plain-only rest of the win chance (mult.0 weighs it; in 诸暨 the 台 the hand
    # still needs weigh it too)
    rest = pp - ptot
    if rest > 0.0:
        g = _legal(bot, need)
        wv += bot[S_MULT + T_PLAIN] * rest * g * (bot[M_VALUE + T_PLAIN * 2 + dealer] + stake)
    return wv


# ---- danger --------------------------------------------------------------------------------


@kernel(refcount=False)
def opp_summary(ctx_dealer, wild_discarded, o, melds, nmeld, disc, ndisc, role, out):
    """What seat ``o``'s visible play says, for the danger features (fills ``out``).

    out : int64 (N_OSUM,) = melds, discards, bit set of the logical kinds discarded,
    meld suit mask (bits 0-2 suits, 3 honors), dealer flag, discarded-a-wild flag, seat,
    0, bit set of the kinds among his last ``RECENT`` discards, and among his first
    ``EARLY``: the order of his discards.
    """
    nm = nmeld[o]
    mask = np.int64(0)
    for i in range(nm):
        k = melds[o, i, 1]
        mask |= np.int64(1) << (k // 9 if k < 27 else 3)
    dm = np.int64(0)
    recent = np.int64(0)
    early = np.int64(0)
    nd = ndisc[o]
    for i in range(nd):
        r = role[disc[o, i]]
        if r < 34:
            b = np.int64(1) << r
            dm |= b
            if i >= nd - RECENT:
                recent |= b
            if i < EARLY:
                early |= b
    out[0] = nm
    out[1] = ndisc[o]
    out[2] = dm
    out[3] = mask
    out[4] = 1 if o == ctx_dealer else 0
    out[5] = wild_discarded
    out[6] = o
    out[7] = 0
    out[8] = recent
    out[9] = early


@kernel(inline="always")
def _kind_class(k):
    if k >= 31:
        return 1
    if k >= 27:
        return 0
    r = k % 9
    if r == 0 or r == 8:
        return 2
    if r == 1 or r == 7:
        return 3
    if r == 2 or r == 6:
        return 4
    return 5


@kernel(inline="always")
def _feature(fi, n, f, wts, za, zb, blk_a, blk_b):
    """Feature ``f`` appended at ``fi[n]``, its weights at blocks ``blk_a`` and ``blk_b``
    of ``wts`` added to the logits ``za`` and ``zb``: ``(n + 1, za, zb)``.
    """
    fi[n] = f
    return n + 1, za + wts[blk_a + f], zb + wts[blk_b + f]


@kernel(inline="always")
def _base_features(osum, nw, lb, fi, wts, za, zb, blk_a, blk_b):
    """The features of an opponent that do not depend on the tile (see danger_features),
    listed in ``fi`` and their weights summed as listed (:func:`_feature`): ``(n, za, zb)``.
    """
    nm = _clip(osum[0], 4)
    n = 0
    n, za, zb = _feature(fi, n, 0, wts, za, zb, blk_a, blk_b)
    n, za, zb = _feature(fi, n, 1 + nm, wts, za, zb, blk_a, blk_b)
    n, za, zb = _feature(fi, n, 6 + _clip(osum[1] // 3, 5), wts, za, zb, blk_a, blk_b)
    n, za, zb = _feature(fi, n, 26 + nw, wts, za, zb, blk_a, blk_b)
    n, za, zb = _feature(fi, n, 29 + lb, wts, za, zb, blk_a, blk_b)
    if osum[4] == 1:
        n, za, zb = _feature(fi, n, 34, wts, za, zb, blk_a, blk_b)
    n, za, zb = _feature(fi, n, 36 + nm * 5 + lb, wts, za, zb, blk_a, blk_b)
    if osum[5] == 1:
        n, za, zb = _feature(fi, n, 79, wts, za, zb, blk_a, blk_b)
    if _middle_mask(osum[8]) != 0:
        # a middle tile (3-7) among his latest discards: he is breaking shapes, not
        # shedding outside tiles
        n, za, zb = _feature(fi, n, 83, wts, za, zb, blk_a, blk_b)
    return n, za, zb


@kernel(inline="always")
def _suji_in(m, k):
    """Whether the kind bit set ``m`` holds suit kind ``k`` ± 3 (its suji)."""
    r = k % 9
    return (r >= 3 and (m >> (k - 3)) & 1 != 0) or (r <= 5 and (m >> (k + 3)) & 1 != 0)


@kernel(inline="always")
def _near_in(m, k):
    """Whether the kind bit set ``m`` holds suit kind ``k`` ± 1 or ± 2 (in its suit)."""
    r = k % 9
    for dlt in (-2, -1, 1, 2):
        if 0 <= r + dlt <= 8 and (m >> (k + dlt)) & 1 != 0:
            return True
    return False


@kernel(inline="always")
def _middle_mask(m):
    """The bits of ``m`` (a kind bit set) on suit tiles of rank 3-7."""
    return m & MIDDLE


@kernel(inline="always")
def _kind_features(osum, k, unseen_k, nw, fi, n, wts, za, blk_a):
    """Append the features of tile ``k`` for this opponent to ``fi[n:]``, their weights at
    block ``blk_a`` of ``wts`` summed into ``za`` as listed: ``(the new count, za)``.
    """
    kc = _kind_class(k)
    dm = osum[2]
    zb = 0.0  # one logit is enough here (blk_b = blk_a, zb discarded)
    n, za, zb = _feature(fi, n, 12 + kc, wts, za, zb, blk_a, blk_a)
    if (dm >> k) & 1:
        n, za, zb = _feature(fi, n, 18, wts, za, zb, blk_a, blk_a)
    if k < 27:
        if _suji_in(dm, k):
            n, za, zb = _feature(fi, n, 19, wts, za, zb, blk_a, blk_a)
        if _near_in(dm, k):
            n, za, zb = _feature(fi, n, 35, wts, za, zb, blk_a, blk_a)
        # the order of his discards: a neighbour of a late discard is near the shape he
        # kept (he just let its partner go); the suji of an early one was far from it
        if _near_in(osum[8], k):
            n, za, zb = _feature(fi, n, 81, wts, za, zb, blk_a, blk_a)
        if _suji_in(osum[9], k):
            n, za, zb = _feature(fi, n, 82, wts, za, zb, blk_a, blk_a)
    if (osum[8] >> k) & 1:
        n, za, zb = _feature(fi, n, 80, wts, za, zb, blk_a, blk_a)
    n, za, zb = _feature(fi, n, 20 + _clip(max(unseen_k, 0), 3), wts, za, zb, blk_a, blk_a)
    if osum[0] > 0:
        sb = np.int64(1) << (k // 9 if k < 27 else 3)
        ms = osum[3]
        if ms == sb:
            n, za, zb = _feature(fi, n, 24, wts, za, zb, blk_a, blk_a)
        elif (ms & ~(sb | 8)) == 0:
            n, za, zb = _feature(fi, n, 25, wts, za, zb, blk_a, blk_a)
    n, za, zb = _feature(fi, n, 61 + nw * 6 + kc, wts, za, zb, blk_a, blk_a)
    return n, za


_NO_WEIGHTS = np.zeros(N_FEATURES)
"""The weights :func:`danger_features` sums (and drops): it only lists the features."""


@kernel(refcount=False)
def danger_features(osum, k, unseen_k, nw, lb, fi):
    """Active features of (opponent ``osum``, tile kind ``k``); returns their number.

    unseen_k : copies of ``k`` the deciding seat cannot see (0..3); nw : wild kinds in
    play (0..2); lb : live-tile bucket 0..4 (live // 12). The layout (N_FEATURES = 84):
    0 bias; 1-5 the opponent's melds; 6-11 his discards // 3; 12-17 the kind class
    (wind, dragon, rank 1/9, 2/8, 3/7, 4-6); 18 he discarded ``k``; 19 he discarded
    ``k`` ± 3 (suji); 20-23 unseen copies; 24 his melds all in ``k``'s suit; 25 his melds
    in ``k``'s suit and honors; 26-28 wild kinds; 29-33 live bucket; 34 he deals; 35 he
    discarded ``k`` ± 1 or ± 2; 36-60 melds x live bucket; 61-78 wild kinds x kind class;
    79 he discarded a wild; the order of his discards: 80 ``k`` is among his last
    ``RECENT`` discards, 81 ``k`` ± 1 or ± 2 is, 82 ``k`` ± 3 is among his first
    ``EARLY``, 83 a middle tile (3-7) is among his last ``RECENT``. The tile-free part
    (:func:`_base_features`) is summed once per opponent in play.
    """
    n, _, _ = _base_features(osum, nw, lb, fi, _NO_WEIGHTS, 0.0, 0.0, 0, 0)
    n, _ = _kind_features(osum, k, unseen_k, nw, fi, n, _NO_WEIGHTS, 0.0, 0)
    return n


@kernel(inline="always")
def _sigmoid(z):
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@kernel(refcount=False)
def danger_p(bot, block, fi, n):
    """The model probability of features ``fi[:n]`` under the weights at ``block``."""
    z = 0.0
    for i in range(n):
        z += bot[block + fi[i]]
    return _sigmoid(z)


@kernel(refcount=False)
def danger_bases(bot, osums, n_opp, nw, lb, fi, zb):
    """Per opponent, the logits' tile-free parts of both danger models: ``zb[j]`` (win)
    and ``zb[4 + j]`` (kong), for :func:`discard_danger`.
    """
    for j in range(n_opp):
        _, zb[j], zb[4 + j] = _base_features(
            osums[j], nw, lb, fi, bot, 0.0, 0.0, M_DANGER, M_KONGDANGER
        )


@kernel(refcount=False)
def discard_danger(bot, osums, n_opp, k, unseen_k, nw, zb, can_win, can_kong, dealer, fi):
    """``(chance someone wins on k, expected loss of feeding it, expected kong cost)``.

    osums : int64 (3, N_OSUM) the opponents' summaries; zb : their logit bases from
    :func:`danger_bases`; can_win / can_kong : whether a discard can be won on /
    kong'd at all now; dealer : 1 if the deciding seat deals.
    """
    keep = 1.0
    loss = 0.0
    kong = 0.0
    kong_on = can_kong and unseen_k >= 3
    for j in range(n_opp):
        os_ = osums[j]
        # each logit sums its weights in the order the features are listed (the fit's)
        if can_win:
            n, z = _kind_features(os_, k, unseen_k, nw, fi, 0, bot, zb[j], M_DANGER)
            p = _sigmoid(z)
            keep *= 1.0 - p
            loss += p * bot[M_LOSS + dealer * 2 + os_[4]]
            if kong_on:
                z = zb[4 + j]
                for i in range(n):
                    z += bot[M_KONGDANGER + fi[i]]
                kong += _sigmoid(z) * bot[S_FEED_KONG]
        elif kong_on:
            _, z = _kind_features(os_, k, unseen_k, nw, fi, 0, bot, zb[4 + j], M_KONGDANGER)
            kong += _sigmoid(z) * bot[S_FEED_KONG]
    return 1.0 - keep, loss, kong


@kernel(inline="always")
def _danger_lowers(bot):
    """Whether :func:`discard_danger` can only lower a discard's value in
    :func:`best_discard` (``alpha``, ``alpha_kong``, the losses and the kong cost all
    >= 0, as fitted and tuned): then a value at or below 0, or below the best so far,
    stays there.
    """
    ok = bot[S_ALPHA] >= 0.0 and bot[S_ALPHA_KONG] >= 0.0 and bot[S_FEED_KONG] >= 0.0
    for i in range(4):
        ok = ok and bot[M_LOSS + i] >= 0.0
    return ok


# ---- decisions -----------------------------------------------------------------------------


@kernel(refcount=False)
def best_discard(
    h, w, sets, shapes, tab, bot, unseen, minfo, wildgame, tb, dealer, danger_on, osums, n_opp,
    nw, lb, can_win, can_kong, bstate, sscr, fsc,
):  # fmt: skip
    """The strong discard of a ``3*sets+2``-tile hand: ``(kind, its expected points)``.

    Returns ``(-1, -inf)`` when the hand holds no tile but wilds. ``h`` int64 (34,) is
    restored; ``unseen`` int64 (34,) copies unseen by the seat; ``sscr`` int64 (SSCR,)
    and ``fsc`` float64 (64,) scratch, ``fsc[FS_VALUE + k]`` the value of discarding
    ``k`` (-inf where its danger was not needed: it could not reach the best before
    it); ``bstate`` the bot stream (empty: the first of tied discards, for evaluations
    that need no choice).
    """
    uke = sscr[SS_UKE : SS_UKE + 34]
    work = sscr[SS_WORK : SS_WORK + 160]
    fi = sscr[SS_FI : SS_FI + MAX_FI]
    dall = sscr[SS_DALL : SS_DALL + 34 * N_TARGET]  # the target distances after each discard
    zb = fsc[FS_DANGER : FS_DANGER + 8]
    held = np.int64(0)
    for k in range(34):
        held |= np.int64(h[k] > 0) << k
    if held == 0:
        return -1, -math.inf
    alpha = bot[S_ALPHA]
    alpha_k = bot[S_ALPHA_KONG]
    need = tai_need(bot, h, w, minfo[3])
    # holding a triplet for its kong (strong.kong_hold, 0 where kongs pay nothing)
    hold = hold_weight(bot, tb)
    trips = held_triplets(h, unseen) if hold != 0.0 else 0
    # pass 1: the target distances after each discard; the ukeire of the closest
    discard_target_dists(h, w, sets, shapes, tab, minfo, wildgame, held, dall)
    best_d = INF
    m = held
    while m != 0:
        k = lowest_bit(m)
        m &= m - 1
        if dall[k * N_TARGET + T_PLAIN] < best_d:
            best_d = dall[k * N_TARGET + T_PLAIN]
    near = np.int64(0)
    m = held
    while m != 0:
        k = lowest_bit(m)
        m &= m - 1
        if dall[k * N_TARGET + T_PLAIN] == best_d:
            near |= np.int64(1) << k
    discard_ukeire(h, w, sets, shapes, tab, unseen, near, uke, work)
    if danger_on:
        danger_bases(bot, osums, n_opp, nw, lb, fi, zb)
    # danger never raises a value above max(value, 0) when its weights are not negative
    # (v * (1 - D) with D in [0, 1], less losses >= 0): a discard whose bound is below
    # the best so far cannot become it nor tie it, so its danger is not needed
    bounded = danger_on and _danger_lowers(bot)
    # pass 2: expected points of each discard
    best = -math.inf
    choice = -1
    n_best = 0
    m = held
    while m != 0:
        k = lowest_bit(m)
        m &= m - 1
        dd = dall[k * N_TARGET : k * N_TARGET + N_TARGET]
        u = uke[k] if (near >> k) & 1 else -1
        # discarding the third of an honor triplet gives its 台 up
        nk = need + (np.int64(bot[S_HONOR_TAI + k - 27]) if k >= 27 and h[k] == 3 else 0)
        v = hand_value(bot, dd, u, tb, dealer, nk)
        if hold != 0.0:
            v += hold * (trips - (1 if live_triplet(h, unseen, k) else 0))
        # where the tables cannot tell (no chance left, distances past the last bucket)
        # the efficiency order decides: fewer tiles away, then more ukeire
        v -= 1e-9 * dd[T_PLAIN] - 1e-12 * max(u, 0)
        if bounded and max(v, 0.0) < best:
            fsc[FS_VALUE + k] = -math.inf
            continue
        if danger_on:
            dwin, loss, kong = discard_danger(
                bot, osums, n_opp, k, unseen[k], nw, zb, can_win, can_kong, dealer, fi
            )
            v = v * (1.0 - dwin) - alpha * loss - alpha_k * kong
        fsc[FS_VALUE + k] = v
        if v > best:
            best = v
            choice = k
            n_best = 1
        elif v == best:
            n_best += 1
            if bstate.shape[0] > 0 and rng.below(bstate, n_best) == 0:
                choice = k
    return choice, best


@kernel(refcount=False)
def waiting_value(h, w, sets, shapes, tab, bot, unseen, minfo, wildgame, tb, dealer, sscr):
    """Expected points of a ``3*sets+1``-tile hand as it stands (plain ukeire included)."""
    dd = sscr[SS_TARGETS : SS_TARGETS + N_TARGET]
    uke = sscr[SS_UKE : SS_UKE + 34]
    work = sscr[SS_WORK : SS_WORK + 160]
    target_dists(h, w, sets, shapes, tab, minfo, wildgame, dd)
    x = 0
    while h[x] >= 4:
        x += 1
    h[x] += 1
    discard_ukeire(h, w, sets, shapes, tab, unseen, np.int64(1) << x, uke, work)
    h[x] -= 1
    v = hand_value(bot, dd, uke[x], tb, dealer, tai_need(bot, h, w, minfo[3]))
    hold = hold_weight(bot, tb)
    if hold != 0.0:
        v += hold * held_triplets(h, unseen)
    return v
