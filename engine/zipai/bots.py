"""字牌 bots: the 出牌 / 吃碰 / 胡 decisions of the three policies, compiled (numba).

Three policies, chosen per seat (codes ``P_*`` of :mod:`engine.abi`; the fourth,
``strong``, is :mod:`engine.zipai.strong`):

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
    Discards like efficiency with 胡息 always weighed (囤 = 胡息 + 3 醒) and the colour
    factors of the run in view (:func:`colour_weight`): with at most two red cards it
    sheds red ones toward 黑胡 / 一点朱, with six or more it keeps them toward 红胡, each
    by log2 of the run's factor (nothing when it is 1). It claims by what a claim does
    (:func:`value_claim_gain`): a 碰 or 吃 is made when the cards of distance it saves
    (the hand as it stands against the best discard after the claim), plus
    ``value.huxi`` per 胡息 the claim lays, less what the pairs it breaks may still bring
    as 碰 / 啸 (:func:`pair_potential`, weighted by ``value.pair``), beat
    ``value.claim_margin``; among 吃 options the best such gain. It passes an optional
    win on another player's card when the self-draw race (its unseen winning cards, the
    flips left, each self-draw scored by the engine's scorer under the run's rules, the
    others winning first meanwhile) beats the win now by ``value.pass_margin``
    (:func:`value_passes`). Its weights are hand-set defaults tuned against efficiency
    (``engine/variants/luodisao/value.json``).

The distance measure. An exact search for the best partial decomposition of a hand costs
6-24 µs, too slow for 10,000 deals/s, so the bots use a one-pass measure (O(20 × 6)).
For each kind ``k`` the player holds free (not in a 坎, not a 王), the *keep value* of
one card sums, over the 3-card groups that contain ``k`` (句, 一二三, 二七十, 大小搭):
``W_FULL`` when the hand holds the whole group, ``W_PART`` when it lacks one card that is
still unseen (scaled by the unseen copies), plus ``W_PAIR`` for a pair (a 啸 / 碰 / 将 to
be), each group weighted by its 胡息; a 王 adds ``W_WANG`` to every partial group it
could complete. The least valuable card is the discard; the efficiency bot judges a claim
by whether its hand cards already lie in complete groups (:func:`in_group`).
:func:`distance` turns the same pass into an estimate of the cards a hand still misses (0
for a complete hand), which the value bot's claims and the strong bot's tables read.

All randomness comes from the deal's bot stream (engine.rng BOTS).
"""

from __future__ import annotations

import math

import numpy as np

from engine import rng
from engine.abi import P_EFFICIENCY, P_RANDOM, P_VALUE
from engine.jit.njit import kernel
from engine.zipai.huxi import N_TEMPLATES, PENG, RED, TEMPLATES, WANG, XIAO
from engine.zipai.params import V_CLAIM, V_HUXI, V_PAIR, V_PASS

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
"""Value-bot penalty for keeping a red card when aiming at 黑胡 / 一点朱 (at their seed
factors, ×4 and ×3)."""
RED_KEEP = 4
"""Value-bot bonus for keeping a red card when aiming at 红胡 (at its seed factor, ×2)."""
REACH = 15
"""Value bot: stock cards a deal is expected to turn up still (at most the stock left),
for the chance that a pair's third card comes (:func:`pair_potential`)."""

__all__ = [
    "keep_values",
    "in_group",
    "distance",
    "choose_discard",
    "want_claim",
    "choose_chi",
    "colour_weight",
    "want_win",
    "value_passes",
    "value_claim_gain",
    "value_peng",
    "value_chi",
    "pair_potential",
    "best_after_discard",
    "template_others",
]


@kernel(inline="always")
def _avail(h, q, k):
    """Free copies of ``q`` in ``h`` (not in a 坎), one copy of ``k`` set aside."""
    have = h[q] if h[q] < 3 else 0
    if q == k:
        have -= 1
    return have


@kernel(inline="always")
def template_others(k, t):
    """The two kinds beside ``k`` in its 3-card group ``TEMPLATES[k, t]`` (句, 二七十,
    大小搭; the same kind twice for a 大小搭 that holds ``k`` once).
    """
    a = TEMPLATES[k, t, 2]
    b = TEMPLATES[k, t, 3]
    c = TEMPLATES[k, t, 4]
    if a == k:
        return b, c
    if b == k:
        return a, c
    return a, b


@kernel(inline="always")
def _missing(h, k, o1, o2):
    """``(cards missing, the kind of the last one)`` of the group of a free ``k`` with
    ``o1`` and ``o2`` (:func:`template_others`) in ``h``, one copy of ``k`` set aside.
    """
    miss = 0
    mk = o1
    if o1 == o2:
        have = _avail(h, o1, k)
        if have < 2:
            miss = 2 - have
    else:
        if _avail(h, o1, k) < 1:
            miss += 1
        if _avail(h, o2, k) < 1:
            miss += 1
            mk = o2
    return miss, mk


@kernel(refcount=False)
def keep_values(h, unseen, values, huxi_weight, red_w, out):
    """留牌价值 keep value of one free card of each kind into ``out (20,)`` (0: none held).

    ``h``: the hand (21,), index 20 = 王; ``unseen`` (20,): copies the player cannot see;
    ``huxi_weight``: points per 胡息 of a group; ``red_w``: points added to a red card's
    keep value (< 0 sheds red cards, 0 indifferent; :func:`colour_weight`). Cards of a 坎
    (three alike) are not free and get 0; a held free card gets at least 1.
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
            hx = values[TEMPLATES[k, t, 0], TEMPLATES[k, t, 1]]
            o1, o2 = template_others(k, t)
            miss, mk = _missing(h, k, o1, o2)
            if miss == 0:
                v += W_FULL + huxi_weight * hx
            elif miss == 1:
                v += (W_PART + huxi_weight * hx // 2) * min(unseen[mk], 4) // 4
                v += W_WANG * kings
            elif kings >= 2:
                v += W_WANG
        if RED[k] == 1:
            v += red_w
        out[k] = max(v + 1, 1)


@kernel(refcount=False)
def in_group(h, k, extra):
    """成句 whether a free card of kind ``k`` lies in a complete 3-card group of ``h``.

    ``extra``: a kind counted as one more card (the claimed card), -1 for none.
    """
    for t in range(N_TEMPLATES[k]):
        o1, o2 = template_others(k, t)
        h1 = _avail(h, o1, k) + (1 if o1 == extra else 0)
        if o1 == o2:
            if h1 >= 2:
                return True
        elif h1 >= 1 and _avail(h, o2, k) + (1 if o2 == extra else 0) >= 1:
            return True
    return False


@kernel(inline="always")
def _distance_credit(h, k, f, unseen, kings):
    """:func:`distance`'s credit per card of the free kind ``k`` (held ``f`` = 1 or 2
    times): 3 when it lies in a complete group (:func:`in_group`), 2 when its keep value
    without 胡息 or colour (:func:`keep_values` with both weights 0) is above 1, else 0.

    That keep value is 1 + a sum of terms: ``W_PAIR`` for a pair, per group missing one
    card ``mk`` its ``W_PART * min(unseen[mk], 4) // 4`` (= ``min(unseen[mk], 4)``) and
    ``W_WANG * kings``, per group missing two ``W_WANG`` when ``kings >= 2``; its weights
    of 0 leave no other term. One pass over the groups, without the table.
    """
    v = W_PAIR if f >= 2 else 0
    for t in range(N_TEMPLATES[k]):
        o1, o2 = template_others(k, t)
        miss, mk = _missing(h, k, o1, o2)
        if miss == 0:
            return 3
        if miss == 1:
            v += W_PART * min(unseen[mk], 4) // 4 + W_WANG * kings
        elif kings >= 2:
            v += W_WANG
    return 2 if v > 0 else 0


@kernel(refcount=False)
def distance(h, need, huxi_now, min_huxi, unseen):
    """距离 distance: the estimated cards a hand still misses for ``need`` 门子.

    ``3 * need`` less a credit per card: 3 for a 坎 card, a 王, or a free card in a
    complete group of the hand, 2 for a free card in a partial group, each credit divided
    by 3; plus one card when the certain 胡息 (``huxi_now``) is short of ``min_huxi``. 0
    for a complete hand with enough 胡息. A cheap, optimistic measure (see the module
    docstring). A free card's credit is :func:`_distance_credit`: the keep value
    (:func:`keep_values`, without its 胡息 and colour weights) and :func:`in_group` in
    one pass (tests/engine/zipai/test_zipai_distance.py checks it against them).
    """
    kings = h[WANG]
    credit3 = 0
    for k in range(20):
        f = h[k]
        if f >= 3:
            credit3 += 3 * f
        elif f > 0:
            credit3 += _distance_credit(h, k, f, unseen, kings) * f
    credit3 += 3 * kings
    d = 3 * need - credit3 // 3
    if d < 0:
        d = 0
    if huxi_now < min_huxi:
        d += 1
    return d


@kernel(refcount=False)
def colour_weight(policy, red_total, low_f, high_f):
    """The value bot's keep-value points per red card (:func:`keep_values`): the colour
    it can still reach from the red cards it holds (hand and table), by its 番 factor.

    With at most two red cards it sheds them (``-RED_SHED``) toward 黑胡 / 一点朱, whose
    larger factor is ``low_f``; with six or more it keeps them (``+RED_KEEP``) toward 红胡,
    factor ``high_f``. Each weight is scaled by log2 of its factor (1 at the seed's ×4
    and ×2; 0 for a factor of 1, which nothing chases). Other policies: 0.
    """
    if policy != P_VALUE:
        return 0
    if red_total <= 2 and low_f > 1:
        return -int(round(RED_SHED * math.log2(low_f) / 2.0))
    if red_total >= 6 and high_f > 1:
        return int(round(RED_KEEP * math.log2(high_f)))
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
def choose_discard(policy, h, unseen, values, huxi_now, min_huxi, red_w, bstate, kv):
    """出牌 the kind to discard (a free card: count 1 or 2, never a 王 or a 坎); -1 if none.

    ``red_w``: the value bot's points per red card (:func:`colour_weight`; 0 otherwise).
    """
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
        red_w,
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
def want_win(policy, forced):
    """胡 whether the efficiency or random policy declares a win: always (the value and
    strong policies decide an optional win on another player's card themselves:
    :func:`value_passes`, :mod:`engine.zipai.strong`).
    """
    return True


@kernel(refcount=False)
def value_passes(bot, p_self, v_self, now):
    """Whether the value bot passes an optional win worth ``now`` on another player's card:
    when the self-draw race (chance ``p_self``, a self-draw worth ``v_self`` on average,
    both from the engine's scorer under the run's rules) beats it by the share
    ``value.pass_margin``.
    """
    return p_self * v_self > (1.0 + bot[V_PASS]) * now


# ---- the value bot's claims ------------------------------------------------------------------


@kernel(refcount=False)
def best_after_discard(h, need, huxi_now, min_huxi, unseen):
    """The least :func:`distance` of ``h`` after one free card is discarded (``h`` is
    restored); -1 when no card is free.
    """
    best = -1
    for k in range(20):
        if h[k] == 1 or h[k] == 2:
            h[k] -= 1
            d = distance(h, need, huxi_now, min_huxi, unseen)
            h[k] += 1
            if best < 0 or d < best:
                best = d
    return best


@kernel(refcount=False)
def pair_potential(q, unseen, live, active, values):
    """The 胡息 a pair of kind ``q`` may still bring: the chance a third card comes times
    the 胡息 of what it makes, a 啸 on the seat's own flip (one flip in ``active``) or a
    碰 of another player's card.

    The chance: each of its ``unseen[q]`` unseen copies is turned up with the share of
    the unseen cards the deal may still turn up, ``min(live, REACH) / unseen cards``.
    """
    u = unseen[q]
    if u <= 0:
        return 0.0
    total = 0
    for k in range(20):
        total += unseen[k]
    f = min(live, REACH) / max(total, 1)
    if f > 1.0:
        f = 1.0
    p = 1.0 - (1.0 - f) ** u
    size = q // 10
    own = 1.0 / max(active, 1)
    return p * (own * values[XIAO, size] + (1.0 - own) * values[PENG, size])


@kernel(refcount=False)
def value_claim_gain(
    bot, h, h3, need, dtab, huxi_now, dhx, min_huxi, unseen, values, live, active, peng_kind,
):  # fmt: skip
    """What a claim gains the value bot, in cards of distance.

    ``h`` the hand without the claim (as it stands, no discard); ``h3`` the hand after the
    claim's cards are laid, before its discard, which adds ``dtab`` table groups worth
    ``dhx`` 胡息. The gain: the distance now less the least distance after the claim and
    a discard (:func:`best_after_discard`), plus ``value.huxi`` per 胡息 the claim lays,
    less ``value.huxi`` x ``value.pair`` per 胡息 the pairs it breaks may still bring
    (:func:`pair_potential`; the pair of a 碰, ``peng_kind``, is used, not broken).
    """
    d0 = distance(h, need, huxi_now, min_huxi, unseen)
    d1 = best_after_discard(h3, need - dtab, huxi_now + dhx, min_huxi, unseen)
    if d1 < 0:
        return -math.inf
    lost = 0.0
    for q in range(20):
        if q != peng_kind and h[q] == 2 and h3[q] < 2:
            lost += pair_potential(q, unseen, live, active, values)
    return (d0 - d1) + bot[V_HUXI] * (dhx - bot[V_PAIR] * lost)


@kernel(refcount=False)
def value_peng(bot, h, c, huxi_now, min_huxi, need, unseen, values, live, active, h3):
    """碰 whether the value bot takes an optional 碰 of ``c``: its gain
    (:func:`value_claim_gain`) above ``value.claim_margin``. ``h3`` (21,) is scratch.
    """
    for k in range(21):
        h3[k] = h[k]
    h3[c] -= 2
    g = value_claim_gain(bot, h, h3, need, np.int64(1), huxi_now, values[PENG, c // 10], min_huxi,
                         unseen, values, live, active, c)  # fmt: skip
    return g > bot[V_CLAIM]


@kernel(refcount=False)
def value_chi(
    bot, h, claimed, opts, ng, nopt, values, huxi_now, min_huxi, need, unseen, live, active,
    h3,
):  # fmt: skip
    """吃 the value bot's option (:func:`choose_chi` layout of ``opts``), or -1: the option
    of the highest gain (:func:`value_claim_gain`, the first of equal ones), if that is
    above ``value.claim_margin``. ``h3`` (21,) is scratch.
    """
    best = -math.inf
    besti = -1
    for i in range(nopt):
        for k in range(21):
            h3[k] = h[k]
        hx = 0
        for g in range(ng[i]):
            for j in range(2, 5):
                h3[opts[i, g, j]] -= 1
            hx += values[opts[i, g, 0], opts[i, g, 1]]
        h3[claimed] += 1
        gain = value_claim_gain(bot, h, h3, need, ng[i], huxi_now, hx, min_huxi, unseen, values,
                                live, active, np.int64(-1))  # fmt: skip
        if gain > best:
            best = gain
            besti = i
    if besti >= 0 and best > bot[V_CLAIM]:
        return besti
    return -1
