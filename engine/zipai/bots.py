"""字牌 bots: the 出牌 / 吃碰 / 胡 decisions of the three policies, compiled (numba).

Three policies, chosen per seat (codes ``P_*`` of :mod:`engine.mahjong.layout`):

``random``
    Discards a uniformly random kind among its legal discards, takes each optional claim
    (碰, 吃) with probability 1/2 and a uniformly random 吃 among the legal ones, and
    declares every win (forced actions, 倾 啸 跑, are not choices).
``efficiency``
    Aims at 5 门子 with at least 6 胡息: discards the free card with the lowest *keep
    value* (below; groups bearing 胡息 weigh more while the hand's certain 胡息, table
    groups and 坎, is short of 6), takes a 碰 or 吃 that completes a partial group without
    breaking a complete one (and any 碰 bringing 胡息 while short of 6), declares every
    win.
``value``
    The same with 胡息 always weighed (囤 = 胡息 + 3 醒) and the colour factors in view:
    with at most two red cards it sheds red ones (黑胡 ×4, 一点朱 ×3), with six or more it
    keeps them (红胡 ×2, 全红 ×4). It passes an optional win on another player's card
    when a later self-draw (×2, every player pays) is likely enough (:func:`want_win`;
    the loop estimates that chance from the unseen winning cards, the flips left and the
    risk that another player wins first).

The distance measure. An exact search for the best partial decomposition of a hand costs
6-24 µs, too slow for 10,000 deals/s, so the bots use a one-pass measure (O(20 × 6)).
For each kind ``k`` the player holds free (not in a 坎, not a 王), the *keep value* of
one card sums, over the 3-card groups that contain ``k`` (句, 一二三, 二七十, 大小搭):
``W_FULL`` when the hand holds the whole group, ``W_PART`` when it lacks one card that is
still unseen (scaled by the unseen copies), plus ``W_PAIR`` for a pair (a 啸 / 碰 / 将 to
be), each group weighted by its 胡息; a 王 adds ``W_WANG`` to every partial group it
could complete. The least valuable card is the discard; a claim is judged by whether its
hand cards already lie in complete groups (:func:`in_group`). :func:`distance` turns the
same pass into an estimate of the cards a hand still misses (0 for a complete hand), used
to report and test how close hands are.

All randomness comes from the deal's bot stream (engine.rng BOTS).
"""

from __future__ import annotations

import numpy as np

from engine import rng
from engine.abi import P_EFFICIENCY, P_RANDOM, P_VALUE
from engine.jit.njit import kernel
from engine.zipai.huxi import N_TEMPLATES, RED, TEMPLATES, WANG

W_FULL = 12
"""Keep value of a card in a complete 3-card group of the hand."""
W_PART = 4
"""Keep value of a card in a group missing one unseen card (times unseen copies / 4)."""
W_PAIR = 7
"""Keep value of a pair (a 啸 / 碰 / 将 to be)."""
W_WANG = 2
"""Extra keep value per 王 held, for each partial group a 王 could complete."""
W_HUXI = 2
"""Keep value per 胡息 point of a group."""
RED_SHED = 6
"""Value-bot penalty for keeping a red card when aiming at 黑胡 / 一点朱."""
RED_KEEP = 4
"""Value-bot bonus for keeping a red card when aiming at 红胡 / 全红."""
PASS_WIN = 0.6
"""Value bot: pass an optional win on another player's card above this self-draw chance."""

__all__ = [
    "keep_values",
    "in_group",
    "distance",
    "choose_discard",
    "want_claim",
    "choose_chi",
    "want_win",
]


@kernel(inline="always")
def _avail(h, q, k):
    """Free copies of ``q`` in ``h`` (not in a 坎), one copy of ``k`` set aside."""
    have = h[q] if h[q] < 3 else 0
    if q == k:
        have -= 1
    return have


@kernel(refcount=False)
def keep_values(h, unseen, values, huxi_weight, red_pref, out):
    """留牌价值 keep value of one free card of each kind into ``out (20,)`` (0: none held).

    ``h``: the hand (21,), index 20 = 王; ``unseen`` (20,): copies the player cannot see;
    ``huxi_weight``: points per 胡息 of a group; ``red_pref``: -1 shed red cards, +1 keep
    them, 0 indifferent. Cards of a 坎 (three alike) are not free and get 0; a held free
    card gets at least 1.
    """
    kings = h[WANG]
    for k in range(20):
        out[k] = 0
    for k in range(20):
        f = h[k]
        if f == 0 or f >= 3:
            continue
        v = 0
        size = k // 10
        if f >= 2:
            v += W_PAIR + huxi_weight * values[4, size] // 2
        for t in range(N_TEMPLATES[k]):
            a = TEMPLATES[k, t, 2]
            b = TEMPLATES[k, t, 3]
            c = TEMPLATES[k, t, 4]
            hx = values[TEMPLATES[k, t, 0], TEMPLATES[k, t, 1]]
            if a == k:
                o1, o2 = b, c
            elif b == k:
                o1, o2 = a, c
            else:
                o1, o2 = a, b
            miss = 0
            mk = o1
            if o1 == o2:
                have = _avail(h, o1, k)
                if have < 2:
                    miss = 2 - have
            else:
                if _avail(h, o1, k) < 1:
                    miss += 1
                    mk = o1
                if _avail(h, o2, k) < 1:
                    miss += 1
                    mk = o2
            if miss == 0:
                v += W_FULL + huxi_weight * hx
            elif miss == 1:
                v += (W_PART + huxi_weight * hx // 2) * min(unseen[mk], 4) // 4
                v += W_WANG * kings
            elif kings >= 2:
                v += W_WANG
        if red_pref < 0 and RED[k] == 1:
            v -= RED_SHED
        elif red_pref > 0 and RED[k] == 1:
            v += RED_KEEP
        out[k] = max(v + 1, 1)


@kernel(refcount=False)
def in_group(h, k, extra):
    """成句 whether a free card of kind ``k`` lies in a complete 3-card group of ``h``.

    ``extra``: a kind counted as one more card (the claimed card), -1 for none.
    """
    for t in range(N_TEMPLATES[k]):
        a = TEMPLATES[k, t, 2]
        b = TEMPLATES[k, t, 3]
        c = TEMPLATES[k, t, 4]
        if a == k:
            o1, o2 = b, c
        elif b == k:
            o1, o2 = a, c
        else:
            o1, o2 = a, b
        h1 = _avail(h, o1, k) + (1 if o1 == extra else 0)
        if o1 == o2:
            if h1 >= 2:
                return True
        elif h1 >= 1 and _avail(h, o2, k) + (1 if o2 == extra else 0) >= 1:
            return True
    return False


@kernel(refcount=False)
def distance(h, need, huxi_now, min_huxi, unseen, values, kv):
    """距离 distance: the estimated cards a hand still misses for ``need`` 门子.

    ``3 * need`` less a credit per card: 3 for a 坎 card, a 王, or a free card in a
    complete group of the hand, 2 for a free card in a partial group, each credit divided
    by 3; plus one card when the certain 胡息 (``huxi_now``) is short of ``min_huxi``. 0
    for a complete hand with enough 胡息. A cheap, optimistic measure (see the module
    docstring).
    """
    keep_values(h, unseen, values, np.int64(0), np.int64(0), kv)
    credit3 = 0
    for k in range(20):
        if h[k] >= 3:
            credit3 += 3 * h[k]
        elif h[k] > 0:
            if in_group(h, k, np.int64(-1)):
                credit3 += 3 * h[k]
            elif kv[k] > 1:
                credit3 += 2 * h[k]
    credit3 += 3 * h[WANG]
    d = 3 * need - credit3 // 3
    if d < 0:
        d = 0
    if huxi_now < min_huxi:
        d += 1
    return d


@kernel(refcount=False)
def _red_pref(policy, red_total):
    """Colour aim of the value bot from the red cards it holds (hand and table)."""
    if policy != P_VALUE:
        return 0
    if red_total <= 2:
        return -1
    if red_total >= 6:
        return 1
    return 0


@kernel(refcount=False)
def _huxi_weight(policy, huxi_now, min_huxi):
    """胡息 weight of groups: value always, efficiency while short of the minimum."""
    if policy == P_VALUE:
        return W_HUXI
    if policy == P_EFFICIENCY and huxi_now < min_huxi:
        return W_HUXI
    return 0


@kernel(refcount=False)
def choose_discard(policy, h, unseen, values, huxi_now, min_huxi, red_total, bstate, kv):
    """出牌 the kind to discard (a free card: count 1 or 2, never a 王 or a 坎); -1 if none."""
    n = 0
    for k in range(20):
        if h[k] == 1 or h[k] == 2:
            n += 1
    if n == 0:
        return -1
    if policy == P_RANDOM:
        pick = rng.below(bstate, n)
        for k in range(20):
            if h[k] == 1 or h[k] == 2:
                if pick == 0:
                    return k
                pick -= 1
        return -1
    keep_values(
        h,
        unseen,
        values,
        _huxi_weight(policy, huxi_now, min_huxi),
        _red_pref(policy, red_total),
        kv,
    )
    best = 1 << 40
    ties = 0
    for k in range(20):
        if h[k] == 1 or h[k] == 2:
            if kv[k] < best:
                best = kv[k]
                ties = 1
            elif kv[k] == best:
                ties += 1
    pick = rng.below(bstate, ties) if ties > 1 else 0
    for k in range(20):
        if (h[k] == 1 or h[k] == 2) and kv[k] == best:
            if pick == 0:
                return k
            pick -= 1
    return -1


@kernel(refcount=False)
def want_claim(policy, h, c, n_used, group_huxi, huxi_now, min_huxi, bstate):
    """碰 whether to take an optional 碰 of ``c`` (``n_used`` = 2 hand cards of kind ``c``).

    Random: a coin. Others: take it unless the pair's cards already lie in complete
    groups of the hand (a claim should complete a partial group, not break a whole one);
    a 碰 that brings 胡息 while the hand is short of the minimum is always taken.
    """
    if policy == P_RANDOM:
        return rng.below(bstate, np.int64(2)) == 1
    if group_huxi > 0 and huxi_now < min_huxi:
        return True
    return not in_group(h, c, np.int64(-1))


@kernel(refcount=False)
def choose_chi(policy, h, claimed, opts, ng, nopt, values, huxi_now, min_huxi, bstate, h2):
    """吃 the index of the 吃 option to take among ``nopt`` (-1 to pass).

    ``opts (n, 3, 5)``: per option up to three groups ``(code, size, a, b, c)`` (the first
    holds the ``claimed`` card, the others are the 比 groups of 下火), ``ng (n,)`` their
    number. Random: pass with probability 1/2, else a uniform option. Others: an option
    is acceptable when none of the hand cards it lays lies in another complete group of
    the hand (a claim should complete a partial group, not break a whole one); the
    acceptable option with the most 胡息, then the fewest groups, is taken.
    """
    if nopt == 0:
        return -1
    if policy == P_RANDOM:
        if rng.below(bstate, np.int64(2)) == 0:
            return -1
        return rng.below(bstate, nopt)
    best = -1
    besti = -1
    for i in range(nopt):
        ok = True
        hx = 0
        for g in range(ng[i]):
            hx += values[opts[i, g, 0], opts[i, g, 1]]
        for g in range(ng[i]):
            if not ok:
                break
            for j in range(2, 5):
                q = opts[i, g, j]
                if g == 0 and q == claimed:
                    continue
                # The card's other uses: the hand without this option's other cards.
                for k in range(21):
                    h2[k] = h[k]
                for gg in range(ng[i]):
                    for jj in range(2, 5):
                        if not (gg == g and jj == j):
                            h2[opts[i, gg, jj]] -= 1
                h2[claimed] += 1
                if h2[q] >= 1 and in_group(h2, q, np.int64(-1)):
                    ok = False
                    break
        if ok:
            score = hx * 4 - ng[i]
            if score > best:
                best = score
                besti = i
    return besti


@kernel(refcount=False)
def want_win(policy, forced, p_self):
    """胡 whether to declare an optional win.

    Always, except that the value bot passes a win on another player's card when it would
    self-draw with probability ``p_self`` >= ``PASS_WIN`` (a self-draw doubles the factor
    and every other player pays).
    """
    if forced or policy != P_VALUE:
        return True
    return p_self < PASS_WIN
